/**
 * HTTP benchmark over loopback with autocannon. A plain node program, not a jest test: `npm run bench`.
 *
 * Boots the real application in-process (the tests' factory, `startTestApp`, on a fresh temp DATA_DIR: SQLite event
 * store and read models) and, in the same process, a bare NestJS-on-Fastify app whose one route answers `{}`. Every
 * figure is printed next to the bare route measured in the same run, as a ratio, so it means something on any machine:
 *
 *   1. bare GET /bare and bare POST /bare (same JSON body as an order)                    baselines
 *   2. POST /api/v1/api/v1/mtf/orders, a new resting BUY limit order per request           target >= 25% of bare POST
 *   3. GET /api/v1/api/v1/mtf/orders (default limit 100) by a user with 10,000 orders      target >= 50% of scenario 4
 *   4. bare GET /bare/page: the same bare route answering a constant copy of that list page   the same bytes from memory
 *
 * The list's target is against the fourth (issue 30): a server that does no work at all, sending the same bytes (about
 * 70 KB for 100 orders against 2 for `{}`), is itself bounded by writing and parsing those bytes.
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
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader } from '../support/traders';
import {
  autocannon, baseUrl, BENCH_APP_ENV, best, call, CONNECTIONS, DURATION_S, failedCount, fmtInt, fmtPct, JSON_HEADERS, measure, printRows, setBarePage, startBareApp, statusCodes, WARMUP_S,
} from './http-harness';
import { placementSetupFactory } from './order-flow';
import { clock, log, runBenchmark, scaled, SCALE, seconds } from './report';

// ---------------------------------------------------------------------------------------------------------------
// Sizes (about 2 minutes in total at BENCH_SCALE=1 on a 2-vCPU VM).

const n = scaled;

const LIST_ORDERS = n(10_000);
const SEED_IN_FLIGHT = 64;

const TARGET_PLACEMENT_RATIO = 0.25;
const TARGET_LIST_RATIO = 0.5;

const ORDERS_PATH = '/api/v1/api/v1/mtf/orders';

const orderBody = placementSetupFactory();

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

    let bareUrl: string;
    ({ app: bare, url: bareUrl } = await startBareApp());

    platform = await startTestApp({ ...BENCH_APP_ENV, DATA_DIR: dataDir });
    await platform.app.listen({ port: 0, host: '127.0.0.1' });
    const appUrl = baseUrl(platform.app);

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
    const listPageBody = JSON.stringify(page.json);
    setBarePage(listPageBody);
    const ceiling = await measure(`bare GET /bare/page (${fmtInt(Buffer.byteLength(listPageBody) / 1000)} KB constant)`, bareUrl, { method: 'GET', path: '/bare/page' });

    const bareGet2 = await measure('bare GET /bare (again)', bareUrl, { method: 'GET', path: '/bare' });
    const barePost2 = await measure('bare POST /bare (order body, again)', bareUrl, { method: 'POST', path: '/bare', headers: JSON_HEADERS, setupRequest: setupPath });
    const bareGet = best(bareGet1, bareGet2);
    const barePost = best(barePost1, barePost2);
    log();

    printRows([
      { name: 'bare GET /bare (best of 2)', m: bareGet, failed: [bareGet1.result, bareGet2.result] },
      { name: 'bare POST /bare (best of 2)', m: barePost, failed: [barePost1.result, barePost2.result] },
      { name: 'placement: POST orders', m: placement, failed: [placement.result], baseline: barePost, baselineName: 'bare POST', target: TARGET_PLACEMENT_RATIO },
      { name: `list: GET orders (${fmtInt(listed)} orders)`, m: list, failed: [list.result], baseline: ceiling, baselineName: 'the same bytes', target: TARGET_LIST_RATIO },
      { name: 'ceiling: bare GET, same page bytes', m: ceiling, failed: [ceiling.result], baseline: bareGet, baselineName: 'bare GET' },
    ]);
    log(
      `The list answers ${fmtPct(list.okPerSec / ceiling.okPerSec)} of what a route doing no work at all reaches with the same bytes ` +
        `(target ${fmtPct(TARGET_LIST_RATIO)}); against bare GET's '{}' it is ${fmtPct(list.okPerSec / bareGet.okPerSec)}, and the same-bytes route itself ${fmtPct(ceiling.okPerSec / bareGet.okPerSec)}.`,
    );
    log();
  } finally {
    if (bare) await bare.close().catch(() => undefined);
    if (platform) await platform.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  log(`total run time ${seconds(totalStart).toFixed(1)} s`);
}

runBenchmark(main);
