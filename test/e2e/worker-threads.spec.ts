/**
 * WORKER_THREADS (issue 48): the projectors run on a worker thread of the process, the request path on the main
 * thread. What a client sees is the same: an order placed is listed in the answer's read-back, /health/ready waits
 * for the thread, and a thread that dies is restarted and its projectors resume where they stopped.
 */
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader, until, TEST_ADMIN } from '../support/traders';
import { WorkerThreads } from '../../src/platform/workers/worker-threads.service';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';

describe('worker threads', () => {
  let t: TestApp;
  let alice: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ WORKER_THREADS: '1', ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    alice = await registerTrader(t);
  }, 60_000);
  afterAll(async () => t?.close());

  const place = (price: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/api/v1/mtf/orders',
      headers: alice,
      payload: { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: price, book_or_cancel: 0, fill_or_kill: 0, immediate_or_cancel: 0, external_ref: 'dGhyZWFkcw==' },
    });
  const listed = async () => (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/orders?limit=100', headers: alice })).json().response as Array<{ order_uuid: string; status: string }>;
  const metrics = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;

  it('runs the projectors on the background thread: the order list, projected there, answers the placement', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().checks.worker_threads).toEqual({ status: 'up', detail: '1 running' });
    const r = await place('1000.5');
    expect(r.statusCode).toBe(201);
    const order = r.json().response;
    expect((await listed()).map((o) => o.order_uuid)).toContain(order.order_uuid);
    // The engine runs on the main thread, the list's projector on the other: the order opens all the same.
    await until(listed, (orders) => orders.find((o) => o.order_uuid === order.order_uuid)?.status === 'OPEN', 5000, 'order open');
    const scraped = await metrics();
    expect(scraped).toMatch(/platform_worker_thread_up\{thread="background"\} 1/);
    // One /metrics for the process: each thread's CPU, and the jobs of both threads (every projector's among them).
    expect(scraped).toMatch(/^platform_thread_cpu_seconds_total\{thread="background"\} \d/m);
    expect(scraped).toMatch(/^platform_thread_cpu_seconds_total\{thread="main"\} \d/m);
    expect(Number(/^platform_jobs_held (\d+)$/m.exec(scraped)?.[1])).toBeGreaterThanOrEqual(t.app.get(ProjectionRunner).names.length + 1);
    expect(scraped.match(/^# TYPE process_cpu_seconds_total /gm)).toHaveLength(1);
    // Every projector's lease, and the rater's, is the background thread's member's; the engines' the main thread's.
    const runner = t.app.get(ProjectionRunner);
    const leases: Array<{ name: string; owner: string | null }> = await t.app.get(ReadModelDatabase).reader.query('SELECT name, owner FROM projection_checkpoints');
    const owner = (name: string) => leases.find((l) => l.name === name)?.owner ?? null;
    for (const name of [...runner.names, 'billing:rater']) expect([name, owner(name)]).toEqual([name, expect.stringMatching(new RegExp(`^${t.config.nodeId}\\.background#`))]);
    const engines = leases.filter((l) => l.name.startsWith('engine:'));
    expect(engines.length).toBeGreaterThan(0);
    for (const e of engines) expect(e.owner).toMatch(new RegExp(`^${t.config.nodeId}#`));
    // The main thread runs none of them itself; /health/ready shows them as the thread that runs them does.
    expect(runner.status().every((p) => p.state === 'stopped')).toBe(true);
    const report = (await t.app.inject({ method: 'GET', url: '/health/ready' })).json() as { projections: Array<{ name: string; state: string }> };
    expect(report.projections.map((p) => p.name).sort()).toEqual([...runner.names].sort());
    expect(report.projections.every((p) => p.state === 'running')).toBe(true);
    // Its log lines reach the app's log.
    expect(t.logs.some((line) => line.includes('"thread":"background"'))).toBe(true);
  });

  it('restarts a background thread that dies; its projectors resume from their checkpoints, nothing lost or twice', async () => {
    const threads = t.app.get(WorkerThreads);
    const before = (await place('1001.5')).json().response.order_uuid as string;
    await threads.thread('background')!.kill();
    // Orders placed while the thread is down are appended; the restarted thread projects them.
    const during: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await place(`${1002 + i}.5`);
      expect([201, 202]).toContain(r.statusCode);
      during.push(r.json().response.order_uuid);
    }
    const down = await t.app.inject({ method: 'GET', url: '/health/ready' });
    if (down.statusCode === 503) expect(down.json().checks.worker_threads.status).toBe('down');
    await until(async () => (await t.app.inject({ method: 'GET', url: '/health/ready' })).statusCode, (s) => s === 200, 20_000, 'ready again');
    expect(threads.thread('background')!.restarts).toBe(1);
    const orders = await until(listed, (os) => [before, ...during].every((id) => os.some((o) => o.order_uuid === id)), 10_000, 'orders listed');
    const ids = orders.map((o) => o.order_uuid);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await metrics()).toMatch(/platform_worker_thread_restarts_total\{thread="background"\} 1/);
  }, 60_000);
});
