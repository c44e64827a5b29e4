/**
 * HTTP benchmark over loopback with autocannon. A plain node program, not a jest test: `npm run bench`.
 *
 * Boots the real application in-process (the tests' factory, `startTestApp`, on a fresh temp DATA_DIR: SQLite event
 * store and read models) and, in the same process, a bare NestJS-on-Fastify app whose one route answers `{}`. Every
 * figure is printed next to the bare route measured in the same run, as a ratio, so it means something on any machine:
 *
 *   1. bare GET /bare and bare POST /bare (same JSON body as an order)                    baselines
 *   2. POST /api/v1/api/v1/mtf/orders, a new resting BUY limit order per request           target >= 25% of bare POST
 *   3. GET /api/v1/api/v1/mtf/orders (default limit 100) by a user with 10,000 orders      target >= 50% of bare GET
 *   4. bare GET /bare/page: the same bare route answering a constant copy of that list page   the transport ceiling
 *
 * The fourth shows what the list's target is measured against: a server that does no work at all, sending the same
 * bytes (about 70 KB for 100 orders against 2 for `{}`), is itself bounded by writing and parsing those bytes.
 *
 * The load generator runs in one autocannon worker thread, so the server keeps the main thread's event loop to itself
 * (on a 2-vCPU VM that is one core each); same connection count and duration for every scenario, each preceded by a
 * short warm-up. The bare routes are measured before and again after the platform scenarios and the better run is the
 * baseline (shared VMs drift by tens of percent within a minute; best-of keeps the ratios conservative). Latencies are
 * autocannon's (2xx responses only, 1 ms resolution); "server busy" is the main thread's event-loop utilization during
 * the measured run (about 100% means the server, not the load generator, is the bottleneck). Non-2xx answers, socket
 * errors and timeouts are counted and printed, never hidden. Sizes and durations scale with BENCH_SCALE (e.g. 0.2 for a
 * smoke run). The process exits 0 whatever the figures are (PASS/BELOW is informational); only a crash exits 1.
 */
import 'reflect-metadata';
import { Controller, Get, Header, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader } from '../support/traders';
import { clock, log, pad, padL, printSummary, runBenchmark, scaled, SCALE, seconds } from './report';

// ---------------------------------------------------------------------------------------------------------------
// autocannon 8 ships no type declarations: the part of its API used here.

interface AutocannonRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** In worker mode: the absolute path of a module whose `module.exports` is the function. */
  setupRequest?: string;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration?: number;
  /** Exactly this many requests, then stop (takes precedence over duration). */
  amount?: number;
  workers?: number;
  timeout?: number;
  requests: AutocannonRequest[];
}
interface AutocannonHistogram {
  average: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}
interface AutocannonResult {
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
const autocannon = require('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;

// ---------------------------------------------------------------------------------------------------------------
// Sizes (about 2 minutes in total at BENCH_SCALE=1 on a 2-vCPU VM).

const n = scaled;

/**
 * 32 keep-alive connections, the same for every scenario so the ratios compare like with like: with 8 the bare routes
 * are not saturated through one client worker (the server idles between responses), with 32 the server is about 97%
 * busy on every route; more only adds queueing latency.
 */
const CONNECTIONS = 32;
const DURATION_S = scaled(10);
const WARMUP_S = scaled(2);
const LIST_ORDERS = n(10_000);
const SEED_IN_FLIGHT = 64;

const TARGET_PLACEMENT_RATIO = 0.25;
const TARGET_LIST_RATIO = 0.5;

const ORDERS_PATH = '/api/v1/api/v1/mtf/orders';
const JSON_HEADERS = { 'content-type': 'application/json' };

// ---------------------------------------------------------------------------------------------------------------
// Formatting.

const fmtInt = (x: number): string => Math.round(x).toLocaleString('en-US');
const fmtPct = (r: number): string => `${(r * 100).toFixed(r < 0.1 ? 1 : 0)}%`;

// ---------------------------------------------------------------------------------------------------------------
// Order bodies. The factory below is serialized into a file in the temp dir (autocannon's worker mode takes a module
// path, not a function), so it must stay self-contained: no imports, no outer variables.
// BTC-PERP (DEMO_MARKETS): tick 0.5, contract size and minimum quantity 0.001. All BUY at 1000-10999.5 USD: nothing
// crosses, every order rests (NEW, then OPEN once a matching engine has booked it).

function placementSetupFactory(): (request: { body?: string }) => { body: string } {
  const prefix = Math.random().toString(36).slice(2, 8);
  let i = 0;
  return (request) => {
    i += 1;
    const price = (1000 + (i % 20000) / 2).toFixed(1);
    return { ...request, body: `{"direction":"BUY","market":"BTC-PERP","order_size":"0.010","limit_price":"${price}","external_ref":"bench-${prefix}-${i}"}` };
  };
}
const orderBody = placementSetupFactory();

// ---------------------------------------------------------------------------------------------------------------
// The bare baseline: NestJS on Fastify with nothing of the platform's in the way.

/** The list page the platform answered, byte for byte (set once the list user is seeded). */
let listPageBody = '{}';

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
    return listPageBody;
  }

  @Post('bare')
  post(): object {
    return {};
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios.

interface Measured {
  name: string;
  result: AutocannonResult;
  okPerSec: number;
  /** Event-loop utilization of the main thread (where both servers run) during the measured run. */
  serverBusy: number;
}

const failedCount = (r: AutocannonResult): number => r.non2xx + r.errors + r.timeouts;
const statusCodes = (r: AutocannonResult): string =>
  Object.entries(r.statusCodeStats)
    .map(([code, { count }]) => `${code}×${count}`)
    .join(' ') || 'no responses';

async function cannon(url: string, request: AutocannonRequest, duration: number): Promise<AutocannonResult> {
  return autocannon({ url, connections: CONNECTIONS, duration, workers: 1, timeout: 10, requests: [request] });
}

async function measure(name: string, url: string, request: AutocannonRequest): Promise<Measured> {
  await settle();
  await cannon(url, request, WARMUP_S);
  await settle();
  const elu = performance.eventLoopUtilization();
  const result = await cannon(url, request, DURATION_S);
  const serverBusy = performance.eventLoopUtilization(elu).utilization;
  const okPerSec = result['2xx'] / result.duration;
  const bad = failedCount(result);
  log(
    `   ${pad(name, 38)} ${padL(fmtInt(okPerSec), 7)} req/s  p50 ${padL(String(result.latency.p50), 3)} ms  p99 ${padL(String(result.latency.p99), 3)} ms  ` +
      `server busy ${fmtPct(serverBusy)}  [${statusCodes(result)}${bad > 0 ? `; NON-2XX ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}` : ''}]`,
  );
  return { name, result, okPerSec, serverBusy };
}

const best = (a: Measured, b: Measured): Measured => (b.okPerSec > a.okPerSec ? b : a);

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; headers: Headers }> {
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
async function settle(): Promise<void> {
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

/**
 * Places exactly `count` orders over HTTP with SEED_IN_FLIGHT connections (one request in flight on each). Any refusal
 * is a crash: the list scenario would not measure what it says (the count is checked again by walking the list).
 */
async function seedOrders(url: string, auth: Record<string, string>, count: number, setupPath: string): Promise<number> {
  const started = clock();
  const result = await autocannon({
    url, connections: SEED_IN_FLIGHT, amount: count, workers: 1, timeout: 10,
    requests: [{ method: 'POST', path: ORDERS_PATH, headers: { ...JSON_HEADERS, ...auth }, setupRequest: setupPath }],
  });
  if (result['2xx'] !== count || failedCount(result) > 0) {
    throw new Error(`seeding ${count} orders: ${result['2xx']} accepted, non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts} [${statusCodes(result)}]`);
  }
  return count / seconds(started);
}

/** Walks the caller's whole order list in pages of 1000 (X-Next-Cursor) and counts it. */
async function countOrders(base: string, auth: Record<string, string>): Promise<number> {
  let total = 0;
  let cursor: string | null = null;
  do {
    const r = await call(base, 'GET', `${ORDERS_PATH}?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, auth);
    if (r.status !== 200) throw new Error(`order list answered ${r.status}: ${JSON.stringify(r.json)}`);
    total += r.json.response.length;
    cursor = r.headers.get('x-next-cursor');
  } while (cursor);
  return total;
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const totalStart = clock();
  const dir = mkdtempSync(join(tmpdir(), 'http-bench-'));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const setupPath = join(dir, 'placement-setup.js');
  writeFileSync(setupPath, `'use strict';\nmodule.exports = (${placementSetupFactory.toString()})();\n`);

  let platform: TestApp | undefined;
  let bare: NestFastifyApplication | undefined;
  try {
    log(`HTTP benchmark (autocannon, loopback): node ${process.version}, ${cpus().length} vCPU, ${CONNECTIONS} connections, ` +
      `${DURATION_S} s per scenario after a ${WARMUP_S} s warm-up, load generator in 1 worker thread, BENCH_SCALE=${SCALE}`);

    bare = await NestFactory.create<NestFastifyApplication>(BareModule, new FastifyAdapter(), { logger: false });
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const bareUrl = `http://127.0.0.1:${(bare.getHttpServer().address() as AddressInfo).port}`;

    platform = await startTestApp({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10' });
    await platform.app.listen({ port: 0, host: '127.0.0.1' });
    const appUrl = `http://127.0.0.1:${(platform.app.getHttpServer().address() as AddressInfo).port}`;

    const placer = await registerTrader(platform);
    const lister = await registerTrader(platform);

    // A sample placement checked by hand before the load: 201 and the new order (over the socket, as the load does).
    const sample = await call(appUrl, 'POST', ORDERS_PATH, orderBody({}).body, placer);
    if (sample.status !== 201 || typeof sample.json?.response?.order_uuid !== 'string') throw new Error(`sample placement answered ${sample.status}: ${JSON.stringify(sample.json)}`);

    log();
    log('Scenarios (2xx responses per second; latency of 2xx responses)');
    const bareGet1 = await measure('bare GET /bare', bareUrl, { method: 'GET', path: '/bare' });
    const barePost1 = await measure('bare POST /bare (order body)', bareUrl, { method: 'POST', path: '/bare', headers: JSON_HEADERS, setupRequest: setupPath });
    const placement = await measure('POST orders (new resting order)', appUrl, {
      method: 'POST', path: ORDERS_PATH, headers: { ...JSON_HEADERS, ...placer }, setupRequest: setupPath,
    });

    const seedRate = await seedOrders(appUrl, lister, LIST_ORDERS, setupPath);
    const listed = await countOrders(appUrl, lister);
    if (listed !== LIST_ORDERS) throw new Error(`the list user has ${listed} orders, expected ${LIST_ORDERS}`);
    const page = await call(appUrl, 'GET', ORDERS_PATH, undefined, lister);
    if (page.status !== 200 || page.json.response.length !== Math.min(100, LIST_ORDERS)) throw new Error(`sample list answered ${page.status} with ${page.json?.response?.length} rows`);
    log(`   (list user seeded with ${fmtInt(LIST_ORDERS)} orders over HTTP, ${SEED_IN_FLIGHT} in flight: ${fmtInt(seedRate)} orders/s; list walked: ${fmtInt(listed)})`);
    const list = await measure(`GET orders (limit 100 of ${fmtInt(listed)})`, appUrl, { method: 'GET', path: ORDERS_PATH, headers: lister });
    listPageBody = JSON.stringify(page.json);
    const ceiling = await measure(`bare GET /bare/page (${fmtInt(Buffer.byteLength(listPageBody) / 1000)} KB constant)`, bareUrl, { method: 'GET', path: '/bare/page' });

    const bareGet2 = await measure('bare GET /bare (again)', bareUrl, { method: 'GET', path: '/bare' });
    const barePost2 = await measure('bare POST /bare (order body, again)', bareUrl, { method: 'POST', path: '/bare', headers: JSON_HEADERS, setupRequest: setupPath });
    const bareGet = best(bareGet1, bareGet2);
    const barePost = best(barePost1, barePost2);
    log();

    interface Row {
      name: string;
      m: Measured;
      failed: AutocannonResult[];
      baseline?: Measured;
      target?: number;
    }
    const rows: Row[] = [
      { name: 'bare GET /bare (best of 2)', m: bareGet, failed: [bareGet1.result, bareGet2.result] },
      { name: 'bare POST /bare (best of 2)', m: barePost, failed: [barePost1.result, barePost2.result] },
      { name: 'placement: POST orders', m: placement, failed: [placement.result], baseline: barePost, target: TARGET_PLACEMENT_RATIO },
      { name: `list: GET orders (${fmtInt(listed)} orders)`, m: list, failed: [list.result], baseline: bareGet, target: TARGET_LIST_RATIO },
      { name: 'ceiling: bare GET, same page bytes', m: ceiling, failed: [ceiling.result], baseline: bareGet },
    ];
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
        ratio === null ? '—' : `${fmtPct(ratio)} of bare ${r.baseline === barePost ? 'POST' : 'GET'}`,
        r.target === undefined ? '—' : `≥ ${fmtPct(r.target)}`,
        ratio === null ? 'baseline' : r.target === undefined ? 'reference' : ratio >= r.target ? 'PASS' : 'BELOW',
        non2xx + errors === 0 ? '0' : `non-2xx ${non2xx}, errors/timeouts ${errors}`,
      ];
    };
    const cols = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'server busy', 'vs bare (same run)', 'target', 'result', 'failed requests'];
    const table = rows.map(cells);
    printSummary(cols, table, new Set([1, 2, 3, 4]));
    const failed = rows.filter((r) => r.failed.some((x) => failedCount(x) > 0));
    const ceilingRatio = ceiling.okPerSec / bareGet.okPerSec;
    log(
      `The list answers ${fmtPct(list.okPerSec / ceiling.okPerSec)} of what a route doing no work at all reaches with the same bytes; ` +
        `that ceiling is ${fmtPct(ceilingRatio)} of bare GET` +
        (ceilingRatio < TARGET_LIST_RATIO ? `, below the list's target of ${fmtPct(TARGET_LIST_RATIO)}: no server can meet it with ${fmtInt(Math.min(100, listed))}-order pages on this machine.` : '.'),
    );
    if (failed.length > 0) log(`WARNING: failed requests in ${failed.map((r) => r.name).join(', ')}; req/s and latencies count 2xx responses only.`);
    log();
  } finally {
    if (bare) await bare.close().catch(() => undefined);
    if (platform) await platform.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  log(`total run time ${seconds(totalStart).toFixed(1)} s`);
}

runBenchmark(main);
