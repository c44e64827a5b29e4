/**
 * A worker thread killed mid-load (issue 48): the background thread (projectors, billing rater, sweeps) is terminated
 * while three traders place orders on three markets. It is restarted, its jobs resume from their checkpoints, and
 * nothing is lost or applied twice: every acknowledged order is listed exactly once, and every billable event of the
 * log is rated exactly once.
 */
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader, until, TEST_ADMIN } from '../support/traders';
import { WorkerThreads } from '../../src/platform/workers/worker-threads.service';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import type { EventStore, RecordedEvent } from '../../src/platform/event-store/event-store.port';

const MARKETS = [
  { market: 'BTC-PERP', order_size: '0.010', price: (i: number) => `${1000 + i}.5` },
  { market: 'ETH-PERP', order_size: '0.10', price: (i: number) => `${100 + i}.05` },
  { market: 'SOL-PERP', order_size: '1.0', price: (i: number) => `${10 + i}.001` },
];
const ORDERS_PER_TRADER = 24;

describe('a worker thread killed mid-load', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ WORKER_THREADS: '1', ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, BILLING_FREE_ALLOWANCE_CREDITS: '1000' });
  }, 60_000);
  afterAll(async () => t?.close());

  async function allEvents(): Promise<RecordedEvent[]> {
    const store = t.app.get<EventStore>(RAW_EVENT_STORE);
    const all: RecordedEvent[] = [];
    for (let after = 0n, page: RecordedEvent[]; (page = await store.readAll({ after, maxCount: 2000 })).length > 0; after = page[page.length - 1].position) all.push(...page);
    return all;
  }

  it('restarts it; its jobs resume from their checkpoints with nothing lost or applied twice', async () => {
    const traders = await Promise.all(MARKETS.map(() => registerTrader(t)));
    const threads = t.app.get(WorkerThreads);
    const acknowledged: string[][] = traders.map(() => []);
    let placed = 0;
    let killed: Promise<void> | null = null;
    // Each trader places resting orders one after another on its market; the thread dies after the first few.
    await Promise.all(
      traders.map(async (headers, k) => {
        for (let i = 0; i < ORDERS_PER_TRADER; i++) {
          const { market, order_size, price } = MARKETS[k];
          const r = await t.app.inject({
            method: 'POST',
            url: '/api/v1/api/v1/mtf/orders',
            headers,
            payload: { direction: 'BUY', market, order_size, limit_price: price(i), book_or_cancel: 0, fill_or_kill: 0, immediate_or_cancel: 0, external_ref: 'Y3Jhc2g=' },
          });
          // 202: acknowledged while the read models were catching up (the thread was down).
          expect([201, 202]).toContain(r.statusCode);
          acknowledged[k].push(r.json().response.order_uuid);
          if (++placed === 9) killed = threads.thread('background')!.kill();
        }
      }),
    );
    await killed;
    expect(threads.thread('background')!.restarts).toBe(1);
    await until(async () => (await t.app.inject({ method: 'GET', url: '/health/ready' })).statusCode, (s) => s === 200, 30_000, 'ready again');

    // Every acknowledged order is listed, once.
    for (const [k, headers] of traders.entries()) {
      const list = async () => ((await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/orders?limit=100', headers })).json().response as Array<{ order_uuid: string }>).map((o) => o.order_uuid);
      const ids = await until(list, (listed) => acknowledged[k].every((id) => listed.includes(id)), 15_000, `trader ${k}'s orders listed`);
      expect(ids).toHaveLength(acknowledged[k].length);
      expect(new Set(ids).size).toBe(ids.length);
    }

    // Every placement is rated once, by whichever incarnation of the rater got to it.
    const placements = (await allEvents()).filter((e) => e.type === 'OrderAccepted');
    expect(placements).toHaveLength(MARKETS.length * ORDERS_PER_TRADER);
    const rated = await until(
      async () => (await allEvents()).filter((e) => e.type === 'BillingUsageRated').map((e) => (e.data as { source_event_id: string }).source_event_id),
      (sources) => placements.every((p) => sources.includes(p.event_id)),
      15_000,
      'every placement rated',
    );
    const bySource = new Map<string, number>();
    for (const source of rated) bySource.set(source, (bySource.get(source) ?? 0) + 1);
    expect(placements.map((p) => bySource.get(p.event_id))).toEqual(placements.map(() => 1));

    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^platform_worker_thread_restarts_total\{thread="background"\} 1$/m);
    expect(metrics).toMatch(/^platform_worker_thread_up\{thread="background"\} 1$/m);
  }, 120_000);
});
