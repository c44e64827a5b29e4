/** What every benchmark program shares: BENCH_SCALE, the clock, aligned output, the summary table, the exit rule. */

/** BENCH_SCALE (default 1) scales sizes and durations, e.g. 0.2 for a smoke run. */
export const SCALE = Number(process.env.BENCH_SCALE ?? '1');
/** A size or duration scaled by BENCH_SCALE, at least 1. */
export const scaled = (x: number): number => Math.max(1, Math.round(x * SCALE));

export const clock = (): bigint => process.hrtime.bigint();
export const seconds = (from: bigint, to: bigint = clock()): number => Number(to - from) / 1e9;
export const pad = (s: string, w: number): string => (s.length >= w ? s : s + ' '.repeat(w - s.length));
export const padL = (s: string, w: number): string => (s.length >= w ? s : ' '.repeat(w - s.length) + s);
export const log = (s = ''): void => void process.stdout.write(s + '\n');

/** A figure of a benchmark's summary: its value, the same run's baseline it is held against, and its target. */
export interface Figure {
  name: string;
  value: string;
  baseline: string;
  target: string;
  /** null: informational, no target. */
  pass: boolean | null;
}

/** The summary table of a benchmark's figures. */
export function printFigures(figures: readonly Figure[]): void {
  const cols = ['figure', 'value', 'vs baseline (same run)', 'target', 'result'];
  printSummary(cols, figures.map((f) => [f.name, f.value, f.baseline, f.target, f.pass === null ? 'info' : f.pass ? 'PASS' : 'BELOW']), new Set([1]));
}

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of latency samples (the latency and Merkle-proof figures). */
export function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] };
}

/** The closing summary table; columns in `rightAligned` (numbers) are padded on the left. */
export function printSummary(cols: string[], table: string[][], rightAligned: ReadonlySet<number>): void {
  const widths = cols.map((c, i) => Math.max(c.length, ...table.map((r) => r[i].length)));
  const line = (r: string[]): string => r.map((c, i) => (rightAligned.has(i) ? padL(c, widths[i]) : pad(c, widths[i]))).join(' | ').trimEnd();
  log('Summary (informational; the exit code is 0 either way)');
  log(line(cols));
  log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const r of table) log(line(r));
}

/** Runs a benchmark: exit 0 whatever the figures, 1 only when it crashed. */
export function runBenchmark(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`benchmark crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
