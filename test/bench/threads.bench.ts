/**
 * Worker-threads benchmark (issue 48, "every core of one machine"): the platform with its background work on worker
 * threads against the same platform on one thread, in one run, on this machine. A plain node program (`npm run bench`).
 *
 * For each mode of THREADS_BENCH_MODES (default `0,default`: WORKER_THREADS=0, then WORKER_THREADS unset), one server
 * process (`node dist/src/main.js`, fresh temp DATA_DIR, free port; server-process.ts) and:
 *
 *   a. 12 clients, each its own trader on one keep-alive connection, resting orders on market i % 3 for
 *      THREADS_BENCH_SECONDS (15): acknowledged orders/s as a share of the same clients sending the same requests
 *      to the bare NestJS-on-Fastify route (bare-server.ts, a process of its own), measured right after each mode;
 *      the best bare run is the baseline. Target for the threaded modes: >= 15% (the issue: 8.4% on one thread).
 *   b. the server's CPU per order, thread by thread (/proc/<pid>/task, and the JavaScript threads' own metric
 *      `platform_thread_cpu_seconds_total` where the platform has it; thread-cpu.ts), from the start of the load until
 *      the server has settled after it, so background work the orders caused counts wherever and whenever it ran.
 *   c. one client, one request at a time after a warm-up: placement and cancel p50/p99, and GET /health/live quiet and
 *      while a second client places orders back to back. Targets against WORKER_THREADS=0 measured in the same run:
 *      placement and cancel p50 no worse, placement p99 and the busy probe's p99 better.
 *
 * Every answer other than 201/202 (placements), 200 (cancels, probes) or 2xx (bare) is counted and printed, and makes
 * the run fail (exit 1) after the table; otherwise it exits 0 whatever the figures are. Each server is stopped before
 * the next boots, so they never share the CPU; every child is killed and every temp dir removed at the end.
 */
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import type { ClientRequest, RunAnswer } from './latency-client';
import { acknowledged, fmtMicros, LoadClient, loadFor, MARKETS, ms, openTraders, orderBody, orderHeaders, percentile, placementFlow, price, refusedCount, refusedText, tally, type Trader } from './order-load';
import { cpuWindow, disturbed, flagDisturbed, processCpu, settleProcess } from './proc-cpu';
import { clock, log, printSummary, runBenchmark, SCALE, scaled, seconds } from './report';
import { guard, killAll, PASSED_THROUGH, sleep, startNode, stopNode, untilReady, type ServerNode } from './server-process';
import { nameThreads, sampleThreads, threadLines, threadUse, type ThreadUse } from './thread-cpu';

const CLIENTS = 12;
const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${process.env[name]}`);
  return value;
};
const MEASURE_S = positive('THREADS_BENCH_SECONDS', Math.max(1, 15 * SCALE));
const WARMUP_S = positive('THREADS_BENCH_WARMUP_SECONDS', Math.min(3, Math.max(1, MEASURE_S / 5)));
const REQUESTS = Math.round(positive('THREADS_BENCH_REQUESTS', scaled(2000)));
const WARMUP_REQUESTS = Math.max(20, Math.round(REQUESTS * 0.15));
/** The placer's BTC-PERP prices (warm-up, then measured); the 12 clients share the rest of the range. */
const RESERVED_BTC = WARMUP_REQUESTS + REQUESTS;
const TARGET_SHARE = 0.15;
const ISSUE_ONE_THREAD_SHARE = 0.084;

const ORDERS_PATH = '/api/v1/api/v1/mtf/orders';
const CANCEL_PATH = '/api/v1/api/v1/mtf/cancel';
const LIVE_PATH = '/health/live';
const BARE_SERVER = join(__dirname, 'bare-server.js');

interface Mode {
  label: string;
  env: Record<string, string>;
}
/** `default` leaves WORKER_THREADS unset (the platform's default); any other entry is its value. */
const MODES: Mode[] = (process.env.THREADS_BENCH_MODES ?? '0,default')
  .split(',')
  .map((m) => m.trim())
  .filter(Boolean)
  .map((m): Mode => (m === 'default' ? { label: 'WORKER_THREADS unset', env: {} } : { label: `WORKER_THREADS=${m}`, env: { WORKER_THREADS: m } }));

/** Every answer the run did not expect, said under the table and failing the run. */
const failures: string[] = [];

interface Percentiles {
  p50: number;
  p99: number;
}
const pcts = (samples: number[]): Percentiles => ({ p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) });

interface LoadFigures {
  ordersPerSec: number;
  latency: Percentiles;
  acked: number;
  refused: Record<string, number>;
  threads: ThreadUse;
  /** Seconds from the load's end until the server settled (its background tail, included in `threads`). */
  tailS: number;
  /** Cores the server kept busy during the load itself. */
  serverCores: number;
}

interface ModeFigures {
  mode: Mode;
  /** Tasks of the server process once booted, and the JavaScript threads its metric names (null: no metric). */
  taskCount: number;
  jsThreads: string[] | null;
  load: LoadFigures;
  placement: Percentiles;
  cancel: Percentiles;
  probeQuiet: Percentiles;
  probeBusy: Percentiles;
  flowed: number;
}

// ---------------------------------------------------------------------------------------------------------------
// One client (c).

/**
 * A run of `requests` one at a time; answers with a status `ok` refuses are counted as failures. Every request counts
 * in the percentiles (the worker answers statuses as counts): a failure fails the run anyway.
 */
async function sequential(what: string, client: LoadClient, requests: ClientRequest[], ok: (status: number) => boolean, keepBodies = false): Promise<RunAnswer> {
  const answer = await guard(client.run(requests, keepBodies));
  const wrong = Object.entries(answer.statuses).filter(([status]) => !ok(Number(status)));
  if (wrong.length > 0) failures.push(`${what}: ${wrong.map(([s, n]) => `${s}×${n}`).join(' ')}${answer.bodies ? ` (${answer.bodies.find((b) => !b.includes('"success":true'))?.slice(0, 200)})` : ''}`);
  return answer;
}

async function oneClient(node: ServerNode, placer: Trader, flower: Trader): Promise<Pick<ModeFigures, 'placement' | 'cancel' | 'probeQuiet' | 'probeBusy' | 'flowed'>> {
  const pid = node.child!.pid!;
  const btc = MARKETS[0];
  const placements = (from: number, count: number, tag: string): ClientRequest[] =>
    Array.from({ length: count }, (_, k) => ({ method: 'POST', path: ORDERS_PATH, headers: orderHeaders(placer.token), body: orderBody(btc, price(btc, from + k), `${placer.ref}-${tag}-${k}`) }));
  const cancels = (bodies: string[]): ClientRequest[] =>
    bodies
      .map((b) => JSON.parse(b))
      .map((j) => j.response?.order_uuid ?? j.order_uuid)
      .filter((id): id is string => typeof id === 'string')
      .map((id) => ({ method: 'POST', path: CANCEL_PATH, headers: orderHeaders(placer.token), body: JSON.stringify({ order_ids: [id] }) }));
  const probes = (count: number): ClientRequest[] => Array.from({ length: count }, () => ({ method: 'GET', path: LIVE_PATH }));
  const is200 = (s: number): boolean => s === 200;

  // Warm-up of every path measured (the JIT, the connection, the book's first levels).
  const warm = await sequential('one client: warm-up placements', placer.client, placements(0, WARMUP_REQUESTS, 'w'), acknowledged, true);
  await sequential('one client: warm-up cancels', placer.client, cancels(warm.bodies!), is200);
  await sequential('one client: warm-up probes', placer.client, probes(WARMUP_REQUESTS), is200);

  await settleProcess(pid);
  const placed = await sequential('one client: placements', placer.client, placements(WARMUP_REQUESTS, REQUESTS, 'm'), acknowledged, true);
  const placement = pcts(placed.latencies);
  await settleProcess(pid);
  const cancelled = await sequential('one client: cancels', placer.client, cancels(placed.bodies!), is200);
  const cancel = pcts(cancelled.latencies);
  await settleProcess(pid);
  const probeQuiet = pcts((await sequential('one client: probes, quiet', placer.client, probes(REQUESTS), is200)).latencies);

  // The probe while a second client places orders back to back (the flower's own prices and references).
  await settleProcess(pid);
  const flow = flower.client.timed(placementFlow(flower).request, flower.prices);
  await guard(sleep(200));
  const busy = await sequential('one client: probes while orders flow', placer.client, probes(REQUESTS), is200);
  const flowed = await guard(flow.stop());
  const flowTally = tally([flowed]);
  if (refusedCount(flowTally.refused) > 0) failures.push(`the second client's placements during the probes: ${refusedText(flowTally.refused)}`);
  const probeBusy = pcts(busy.latencies);
  log(
    `   one client, ${REQUESTS} each after ${WARMUP_REQUESTS} to warm up: placement p50 ${ms(placement.p50)} ms p99 ${ms(placement.p99)} ms; cancel p50 ${ms(cancel.p50)} ms p99 ${ms(cancel.p99)} ms; ` +
      `${LIVE_PATH} quiet p50 ${ms(probeQuiet.p50)} ms p99 ${ms(probeQuiet.p99)} ms, while ${flowTally.latencies.length} orders were placed p50 ${ms(probeBusy.p50)} ms p99 ${ms(probeBusy.p99)} ms`,
  );
  return { placement, cancel, probeQuiet, probeBusy, flowed: flowTally.latencies.length };
}

// ---------------------------------------------------------------------------------------------------------------
// The 12 clients (a) and the CPU per thread (b).

async function load(node: ServerNode, traders: Trader[]): Promise<LoadFigures> {
  const pid = node.child!.pid!;
  const flows = traders.map((t) => placementFlow(t));
  const warm = tally((await loadFor(flows, WARMUP_S)).answers);
  if (refusedCount(warm.refused) > 0) failures.push(`${node.name}: the load's warm-up: ${refusedText(warm.refused)}`);
  await settleProcess(pid);

  // Read on the settled server, so the metric's threads and the tasks agree (nameThreads).
  const before = await guard(sampleThreads(node));
  const names = nameThreads(pid, before);
  const window = cpuWindow([pid]);
  const { answers, elapsed } = await loadFor(flows, MEASURE_S);
  const cpu = window.close();
  const ended = clock();
  await settleProcess(pid);
  const tailS = seconds(ended);
  const after = await guard(sampleThreads(node));

  const { latencies, refused } = tally(answers);
  if (refusedCount(refused) > 0) failures.push(`${node.name}: the 12 clients' load: ${refusedText(refused)}`);
  const acked = latencies.length;
  const figures: LoadFigures = {
    ordersPerSec: acked / elapsed,
    latency: pcts(latencies),
    acked,
    refused,
    threads: threadUse(before, after, names),
    tailS,
    serverCores: cpu.nodes === null ? NaN : cpu.nodes / (cpu.seconds * 1e6),
  };
  const reused = answers.reduce((sum, a) => sum + a.reused, 0);
  log(
    `   ${CLIENTS} clients on ${MARKETS.length} markets, ${elapsed.toFixed(1)} s: ${Math.round(figures.ordersPerSec).toLocaleString('en-US')} orders/s acknowledged, p50 ${ms(figures.latency.p50)} ms, ` +
      `p99 ${ms(figures.latency.p99)} ms, non-2xx ${refusedText(refused)}; the server kept ${figures.serverCores.toFixed(2)} cores busy, the clients ${cpu.selfCores.toFixed(2)}, ` +
      `the rest of the machine ${cpu.otherCores.toFixed(2)}; settled ${tailS.toFixed(1)} s after the load` +
      (reused > 0 ? `; ${reused} requests reused a price (a client ran out of its share)` : ''),
  );
  log(`   CPU per order (µs, from the load's start until the server settled, ${acked.toLocaleString('en-US')} orders):`);
  for (const line of threadLines(figures.threads, acked)) log(`     ${line}`);
  flagDisturbed(`${node.name}: the load`, cpu);
  return figures;
}

/** The same clients' requests, bytes for bytes (token included, which the bare route ignores), to the bare route. */
async function bareLoad(bare: ServerNode, clients: LoadClient[], traders: Trader[], after: string): Promise<{ perSec: number; cpuPerRequest: number }> {
  const flows = traders.map((t, i) => placementFlow(t, clients[i], '/bare'));
  const isOk = (code: number): boolean => code >= 200 && code < 300;
  tally((await loadFor(flows, WARMUP_S)).answers, isOk);
  await settleProcess(bare.child!.pid!);
  const before = processCpu(bare.child!.pid!);
  const window = cpuWindow([bare.child!.pid!]);
  const { answers, elapsed } = await loadFor(flows, MEASURE_S);
  const cpu = window.close();
  const used = processCpu(bare.child!.pid!)! - before!;
  const { latencies, refused } = tally(answers, isOk);
  if (refusedCount(refused) > 0) failures.push(`bare route (after ${after}): ${refusedText(refused)}`);
  const perSec = latencies.length / elapsed;
  log(
    `   bare POST /bare after ${after}, the same ${CLIENTS} clients and requests: ${Math.round(perSec).toLocaleString('en-US')} req/s, p50 ${ms(percentile(latencies, 0.5))} ms, ` +
      `CPU ${fmtMicros(used / latencies.length)} µs per request; the rest of the machine ${cpu.otherCores.toFixed(2)} cores`,
  );
  flagDisturbed(`the bare route after ${after}`, cpu);
  return { perSec, cpuPerRequest: used / latencies.length };
}

// ---------------------------------------------------------------------------------------------------------------
// The run.

async function runMode(mode: Mode, bare: ServerNode, bareClients: LoadClient[]): Promise<{ figures: ModeFigures; bare: number }> {
  log(`\n${mode.label}`);
  const started = clock();
  const node = await startNode(`wt-${MODES.indexOf(mode)}`, mode.env);
  await untilReady(node);
  const traders = await openTraders([node], CLIENTS, RESERVED_BTC);
  const booted = await guard(sampleThreads(node));
  const jsThreads = booted.js === null ? null : [...booted.js.keys()];
  log(
    `   booted and ${CLIENTS} traders signed in after ${seconds(started).toFixed(1)} s; the process has ${booted.tasks.size} tasks; ` +
      `JavaScript threads: ${jsThreads === null ? 'not reported (no platform_thread_cpu_seconds_total)' : jsThreads.join(', ')}`,
  );
  const one = await oneClient(node, traders[0], traders[1]);
  const loaded = await load(node, traders);
  await Promise.all(traders.map((t) => t.client.close()));
  await stopNode(node);
  const bareRun = await bareLoad(bare, bareClients, traders, mode.label);
  return { figures: { mode, taskCount: booted.tasks.size, jsThreads, load: loaded, ...one }, bare: bareRun.perSec };
}

async function main(): Promise<void> {
  const started = clock();
  const passed = PASSED_THROUGH.filter((v) => process.env[v] !== undefined).map((v) => `${v}=${process.env[v]}`);
  log(
    `Worker-threads benchmark: Node ${process.versions.node}, availableParallelism ${availableParallelism()} (${cpus().length} CPUs), BENCH_SCALE ${SCALE}; ` +
      `modes ${MODES.map((m) => m.label).join(', ')}; ${CLIENTS} clients, warm-up ${WARMUP_S} s, measured ${MEASURE_S} s; one client ${REQUESTS} requests per figure; ` +
      `passed to the servers: ${passed.join(' ') || 'nothing'}`,
  );
  if (MODES.length < 2) throw new Error('THREADS_BENCH_MODES needs two modes at least: the first is the baseline of the others');
  try {
    const bare = await startNode('bare', {}, BARE_SERVER);
    await untilReady(bare, '/bare');
    const bareClients = await Promise.all(Array.from({ length: CLIENTS }, () => LoadClient.open(bare)));
    const runs: Array<{ figures: ModeFigures; bare: number }> = [];
    for (const mode of MODES) runs.push(await runMode(mode, bare, bareClients));
    printTable(
      runs.map((r) => r.figures),
      Math.max(...runs.map((r) => r.bare)),
    );
  } finally {
    await killAll();
    log(`(the whole run took ${seconds(started).toFixed(0)} s)`);
  }
  if (failures.length > 0) throw new Error(`unexpected answers, the figures above count the expected ones only:\n  ${failures.join('\n  ')}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The summary.

function printTable(modes: ModeFigures[], bare: number): void {
  const [base, ...others] = modes;
  const pct = (r: number): string => `${(r * 100).toFixed(1)}%`;
  const verdict = (ok: (m: ModeFigures) => boolean): string => others.map((m) => (ok(m) ? 'PASS' : 'BELOW')).join(' / ');
  const each = (cell: (m: ModeFigures) => string): string[] => modes.map(cell);
  const perOrder = (m: ModeFigures, us: number): string => fmtMicros(us / m.load.acked);
  const main = (m: ModeFigures): number => m.load.threads.byTask.find((t) => t.label === 'main')?.used ?? NaN;
  const share = (m: ModeFigures): number => m.load.ordersPerSec / bare;
  const rows: string[][] = [
    ['server tasks / JavaScript threads', ...each((m) => `${m.taskCount} / ${m.jsThreads?.join(' ') ?? '?'}`), '—', ''],
    [`bare POST, ${CLIENTS} clients: req/s (best run)`, ...each(() => Math.round(bare).toLocaleString('en-US')), 'baseline', ''],
    [`${CLIENTS} clients, 3 markets: orders/s`, ...each((m) => Math.round(m.load.ordersPerSec).toLocaleString('en-US')), '—', ''],
    ['  share of bare', ...each((m) => pct(share(m))), `≥ ${pct(TARGET_SHARE)} (1 thread: issue ${pct(ISSUE_ONE_THREAD_SHARE)})`, verdict((m) => share(m) >= TARGET_SHARE)],
    ['  p50 / p99 ms', ...each((m) => `${ms(m.load.latency.p50)} / ${ms(m.load.latency.p99)}`), '—', ''],
    ['  CPU µs/order, whole process', ...each((m) => perOrder(m, m.load.threads.total)), '—', ''],
    ['  CPU µs/order, main thread', ...each((m) => perOrder(m, main(m))), '—', ''],
    ['  CPU µs/order, other threads', ...each((m) => perOrder(m, m.load.threads.total - main(m))), '—', ''],
    ['one client: placement p50 ms', ...each((m) => ms(m.placement.p50)), `≤ ${base.mode.label}`, verdict((m) => m.placement.p50 <= base.placement.p50)],
    ['  placement p99 ms', ...each((m) => ms(m.placement.p99)), `< ${base.mode.label}`, verdict((m) => m.placement.p99 < base.placement.p99)],
    ['  cancel p50 ms', ...each((m) => ms(m.cancel.p50)), `≤ ${base.mode.label}`, verdict((m) => m.cancel.p50 <= base.cancel.p50)],
    ['  cancel p99 ms', ...each((m) => ms(m.cancel.p99)), '—', ''],
    [`  ${LIVE_PATH} quiet p50 / p99 ms`, ...each((m) => `${ms(m.probeQuiet.p50)} / ${ms(m.probeQuiet.p99)}`), '—', ''],
    [`  ${LIVE_PATH} while orders flow p50 ms`, ...each((m) => ms(m.probeBusy.p50)), '—', ''],
    [`  ${LIVE_PATH} while orders flow p99 ms`, ...each((m) => ms(m.probeBusy.p99)), `< ${base.mode.label}`, verdict((m) => m.probeBusy.p99 < base.probeBusy.p99)],
  ];
  log('');
  printSummary(['figure', ...modes.map((m) => m.mode.label), 'target (same run)', `result (${others.map((m) => m.mode.label).join(' / ')})`], rows, new Set(modes.map((_, i) => i + 1)));
  log('Shares are of the best bare run; CPU per order counts every thread from the load\'s start until the server settled after it.');
  if (disturbed.length > 0) log(`WARNING: something else kept the machine busy during ${disturbed.join(', ')}: those figures are disturbed`);
  if (failures.length > 0) log(`FAILED: ${failures.length} kinds of unexpected answers (below); every figure counts the expected answers only.`);
}

runBenchmark(main);
