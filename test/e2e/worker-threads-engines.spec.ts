/**
 * WORKER_THREADS above 1 (issue 48): the matching engines run on engine threads of their own, spread by market as the
 * membership spreads them over nodes; the main thread serves HTTP alone. Orders match as on one thread.
 */
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader, until, TEST_ADMIN } from '../support/traders';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';

describe('engine threads', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ WORKER_THREADS: '3', ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
  }, 90_000);
  afterAll(async () => t?.close());

  it('spreads the markets\' engines over the engine threads; crossing orders fill', async () => {
    const [a, b] = [await registerTrader(t), await registerTrader(t)];
    const place = (headers: Record<string, string>, direction: string, market: string, order_size: string, limit_price: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers, payload: { direction, market, order_size, limit_price, book_or_cancel: 0, fill_or_kill: 0, immediate_or_cancel: 0, external_ref: 'ZW5naW5lcw==' } });
    const markets = [['BTC-PERP', '0.010', '61000.5'], ['ETH-PERP', '0.10', '3000.05'], ['SOL-PERP', '1.0', '150.001']];
    const bids: string[] = [];
    for (const [market, size, price] of markets) {
      expect((await place(a, 'SELL', market, size, price)).statusCode).toBe(201);
      const bid = await place(b, 'BUY', market, size, price);
      expect(bid.statusCode).toBe(201);
      bids.push(bid.json().response.order_uuid);
    }
    const list = async () => (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/orders?limit=100', headers: b })).json().response as Array<{ order_uuid: string; status: string }>;
    await until(list, (os) => bids.every((id) => os.find((o) => o.order_uuid === id)?.status === 'FILLED'), 15_000, 'every bid filled');
    // Every engine on an engine thread, and both engine threads hold a share once both have joined (a thread that
    // joins takes its share within heartbeats, as a node does).
    const holders = async () => {
      const leases: Array<{ owner: string | null }> = await t.app.get(ReadModelDatabase).reader.query("SELECT owner FROM projection_checkpoints WHERE name LIKE 'engine:%'");
      return leases.map((l) => (l.owner ?? '').replace(/#.*/, '')).sort();
    };
    const spread = await until(holders, (h) => h.every(Boolean) && new Set(h).size === 2, 15_000, 'engines on both engine threads');
    expect(spread).toHaveLength(3);
    expect([...new Set(spread)]).toEqual([`${t.config.nodeId}.engines-1`, `${t.config.nodeId}.engines-2`]);
    const ready = (await t.app.inject({ method: 'GET', url: '/health/ready' })).json();
    expect(ready.checks.worker_threads).toEqual({ status: 'up', detail: '3 running' });
  }, 60_000);
});
