/**
 * What the HTTP benchmarks share (test/bench/README.md): autocannon over loopback in one worker thread, the bare
 * NestJS-on-Fastify baseline app, measuring a scenario (warm-up, settle, measured run, event-loop utilization), and the
 * summary table where every figure is a ratio to a bare route measured in the same run.
 */
import { Controller, Get, Header, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { log, pad, padL, printSummary, scaled } from './report';

// ---------------------------------------------------------------------------------------------------------------
// autocannon 8 ships no type declarations: the part of its API used here.

export interface AutocannonRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** In worker mode: the absolute path of a module whose `module.exports` is the function. */
  setupRequest?: string;
}
export interface AutocannonOptions {
  url: string;
  connections: number;
  duration?: number;
  /** Exactly this many requests, then stop (takes precedence over duration). */
  amount?: number;
  workers?: number;
  timeout?: number;
  requests: AutocannonRequest[];
}
export interface AutocannonHistogram {
  average: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}
export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  resets: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
  latency: AutocannonHistogram;
  requests: AutocannonHistogram & { total: number };
}
export const autocannon = require('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;

// ---------------------------------------------------------------------------------------------------------------
// Sizes, the same for every scenario so the ratios compare like with like.

/**
 * 32 keep-alive connections: with 8 the bare routes are not saturated through one client worker (the server idles
 * between responses), with 32 the server is about 97% busy on every route; more only adds queueing latency.
 */
export const CONNECTIONS = 32;
export const DURATION_S = scaled(10);
export const WARMUP_S = scaled(2);
export const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * The platform as the HTTP benchmarks boot it: request logs not collected, fast password hashing, and an allowance
 * no run uses up. Every trader they register is in the one global tenant, whose monthly allowance (1000 credits:
 * 10,000 orders) the runs would exhaust, turning the rest into 402s; the credits gate still answers every command.
 * The rater pauses as in production (startTestApp's default is to rate at once).
 */
export const BENCH_APP_ENV = {
  LOG_LEVEL: 'warn',
  PASSWORD_HASH_COST: '10',
  BILLING_FREE_ALLOWANCE_CREDITS: '1000000000',
  BILLING_RATER_COALESCE_MS: '50',
  // Passed through, to compare the SQLite event store's two ways of committing (docs/operations.md).
  SQLITE_WRITER_THREAD: process.env.SQLITE_WRITER_THREAD ?? 'false',
};

export const fmtInt = (x: number): string => Math.round(x).toLocaleString('en-US');
export const fmtPct = (r: number): string => `${(r * 100).toFixed(r < 0.1 ? 1 : 0)}%`;

// ---------------------------------------------------------------------------------------------------------------
// The bare baseline: NestJS on Fastify with nothing of the platform's in the way.

/** What `GET /bare/page` answers (a benchmark sets it to a real page, to measure the transport ceiling). */
let barePage = '{}';
export const setBarePage = (body: string): void => {
  barePage = body;
};

/** What `POST /bare/committed` commits: the latency benchmark sets it to a durable one-row commit. */
let bareCommit: () => void = () => undefined;
export const setBareCommit = (commit: () => void): void => {
  bareCommit = commit;
};

@Controller()
class BareController {
  @Get('bare')
  get(): object {
    return {};
  }

  /** A string with a JSON content type goes out as it is: no serialization, no work but the bytes. */
  @Get('bare/page')
  @Header('content-type', 'application/json; charset=utf-8')
  page(): string {
    return barePage;
  }

  @Post('bare')
  post(): object {
    return {};
  }

  /**
   * The framework and the two durable commits every placement causes, and nothing else: one before the answer (the
   * order's own) and one right after it (the matching engine's decision), both on this thread as the event store
   * commits by default.
   */
  @Post('bare/committed')
  committed(): object {
    bareCommit();
    setImmediate(bareCommit);
    return {};
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

/** Starts the bare app on a loopback port (any free one unless `port`); returns it and its base URL. */
export async function startBareApp(port = 0): Promise<{ app: NestFastifyApplication; url: string }> {
  const app = await NestFactory.create<NestFastifyApplication>(BareModule, new FastifyAdapter(), { logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  return { app, url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
}

export const baseUrl = (app: NestFastifyApplication): string => `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;

// ---------------------------------------------------------------------------------------------------------------
// Scenarios.

export interface Measured {
  name: string;
  result: AutocannonResult;
  /** The warm-up run before it (requests that changed state count too); null when the caller warmed up itself. */
  warmup: AutocannonResult | null;
  okPerSec: number;
  /** Event-loop utilization of the main thread (where both servers run) during the measured run. */
  serverBusy: number;
  /**
   * The main thread's CPU time per 2xx response, in microseconds (null where /proc is not there). Steadier than req/s
   * on a shared VM: time stolen by neighbours is not counted.
   */
  cpuPerOk: number | null;
}

/** CPU time (user + system) of this process's main thread so far, in microseconds; null off Linux. */
export function mainThreadCpuMicros(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime (fields 14 and 15 of the line, 12 and 13 after the command name), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

export const failedCount = (r: AutocannonResult): number => r.non2xx + r.errors + r.timeouts;
export const statusCodes = (r: AutocannonResult): string =>
  Object.entries(r.statusCodeStats)
    .map(([code, { count }]) => `${code}×${count}`)
    .join(' ') || 'no responses';

export async function cannon(url: string, request: AutocannonRequest, duration: number, connections = CONNECTIONS): Promise<AutocannonResult> {
  return autocannon({ url, connections, duration, workers: 1, timeout: 10, requests: [request] });
}

export interface MeasureOptions {
  /** Seconds of the measured run (default DURATION_S). */
  durationS?: number;
  /** Settle, warm up and settle again first (default true; the profiler does these itself). */
  prepare?: boolean;
  /** Connections (default CONNECTIONS; 1 is one request at a time, as the latency benchmark sends them). */
  connections?: number;
}

export async function measure(name: string, url: string, request: AutocannonRequest, options: MeasureOptions = {}): Promise<Measured> {
  let warmup: AutocannonResult | null = null;
  if (options.prepare ?? true) {
    await settle();
    warmup = await cannon(url, request, WARMUP_S);
    await settle();
  }
  const elu = performance.eventLoopUtilization();
  const cpuBefore = mainThreadCpuMicros();
  const result = await cannon(url, request, options.durationS ?? DURATION_S, options.connections);
  const serverBusy = performance.eventLoopUtilization(elu).utilization;
  const cpuAfter = mainThreadCpuMicros();
  const okPerSec = result['2xx'] / result.duration;
  const cpuPerOk = cpuBefore === null || cpuAfter === null || result['2xx'] === 0 ? null : (cpuAfter - cpuBefore) / result['2xx'];
  const bad = failedCount(result);
  log(
    `   ${pad(name, 38)} ${padL(fmtInt(okPerSec), 7)} req/s  p50 ${padL(String(result.latency.p50), 3)} ms  p99 ${padL(String(result.latency.p99), 3)} ms  ` +
      `server busy ${fmtPct(serverBusy)}  ${cpuPerOk === null ? '' : `CPU ${fmtInt(cpuPerOk)} us/resp  `}[${statusCodes(result)}${bad > 0 ? `; NON-2XX ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}` : ''}]`,
  );
  return { name, result, warmup, okPerSec, serverBusy, cpuPerOk };
}

export const best = (a: Measured, b: Measured): Measured => (b.okPerSec > a.okPerSec ? b : a);

export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; headers: Headers }> {
  const response = await fetch(base + path, {
    method,
    headers: body === undefined ? headers : { ...JSON_HEADERS, ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/**
 * Waits until background work (projections, matching engines) has settled: the main thread's event loop less than 10%
 * busy over two consecutive 250 ms windows, so a scenario is not charged for the previous one's tail. Gives up (and
 * says so) after 120 s.
 */
export async function settle(): Promise<void> {
  const deadline = Date.now() + 120_000;
  let quiet = 0;
  while (quiet < 2) {
    const before = performance.eventLoopUtilization();
    await new Promise((resolve) => setTimeout(resolve, 250));
    quiet = performance.eventLoopUtilization(before).utilization < 0.1 ? quiet + 1 : 0;
    if (Date.now() > deadline) {
      log('   (background work did not settle within 120 s; measuring anyway)');
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The summary table.

export interface Row {
  name: string;
  m: Measured;
  /** Every run that went into the figure (a best-of counts the failures of both). */
  failed: AutocannonResult[];
  baseline?: Measured;
  /** Printed as "of <baselineName>" (e.g. "bare POST"). */
  baselineName?: string;
  target?: number;
}

export function printRows(rows: Row[]): void {
  const cells = (r: Row): string[] => {
    const ratio = r.baseline ? r.m.okPerSec / r.baseline.okPerSec : null;
    const non2xx = r.failed.reduce((a, x) => a + x.non2xx, 0);
    const errors = r.failed.reduce((a, x) => a + x.errors + x.timeouts, 0);
    return [
      r.name,
      fmtInt(r.m.okPerSec),
      String(r.m.result.latency.p50),
      String(r.m.result.latency.p99),
      fmtPct(r.m.serverBusy),
      r.m.cpuPerOk === null ? '—' : fmtInt(r.m.cpuPerOk),
      ratio === null ? '—' : `${fmtPct(ratio)} of ${r.baselineName ?? 'the baseline'}`,
      r.target === undefined ? '—' : `≥ ${fmtPct(r.target)}`,
      ratio === null ? 'baseline' : r.target === undefined ? 'reference' : ratio >= r.target ? 'PASS' : 'BELOW',
      non2xx + errors === 0 ? '0' : `non-2xx ${non2xx}, errors/timeouts ${errors}`,
    ];
  };
  const cols = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'server busy', 'CPU us/resp', 'vs baseline (same run)', 'target', 'result', 'failed requests'];
  printSummary(cols, rows.map(cells), new Set([1, 2, 3, 4, 5]));
  const failed = rows.filter((r) => r.failed.some((x) => failedCount(x) > 0));
  if (failed.length > 0) log(`WARNING: failed requests in ${failed.map((r) => r.name).join(', ')}; req/s and latencies count 2xx responses only.`);
}
