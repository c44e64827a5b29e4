/**
 * Trading on PostgreSQL read models: the engine's lease in the shared checkpoint table, the order list, cancels,
 * cancel-all, depth and positions, over HTTP on the real server.
 */
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from '../support/app';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';
import { registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';

describe('trading on PostgreSQL read models', () => {
  const schema = `t_${hex32().slice(0, 16)}`;
  let t: TestApp;
  let alice: Headers;
  let bob: Headers;

  beforeAll(async () => {
    t = await startTestApp({ DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema, ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    alice = await registerTrader(t);
    bob = await registerTrader(t);
  });
  afterAll(async () => {
    await t.close();
    const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
    await ds.initialize();
    await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await ds.destroy();
  });

  const place = async (h: Headers, body: Record<string, unknown>): Promise<string> => {
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: h, payload: { market: 'BTC-PERP', external_ref: 'cGc=', order_size: '0.010', ...body } });
    expect(r.statusCode).toBe(201);
    return r.json().response.order_uuid;
  };
  const list = async (h: Headers) => (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/orders', headers: h })).json().response as Array<Record<string, unknown>>;
  const find = async (h: Headers, id: string) => (await list(h)).find((o) => o.order_uuid === id)!;

  it('matches, cancels, cancels all, and shows depth and positions', async () => {
    const ask = await place(alice, { direction: 'SELL', limit_price: '50000' });
    const resting = await place(alice, { direction: 'SELL', limit_price: '50010', order_size: '0.020' });
    await until(() => find(alice, resting), (o) => o.status === 'OPEN');
    const bid = await place(bob, { direction: 'BUY', limit_price: '50000' });
    await until(() => find(bob, bid), (o) => o.status === 'FILLED');
    expect((await find(alice, ask)).status).toBe('FILLED');

    // The market's grid and limits come from the PostgreSQL read model too.
    const markets = (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: bob })).json().response;
    expect(markets['BTC-PERP']).toMatchObject({ tick_size: 0.5, lot_size: 0.001, maximum_quantity: 1000, price_precision: 1, quantity_precision: 3 });
    const depth = (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/orderbook?market=BTC-PERP', headers: bob })).json().response;
    expect(depth.asks).toEqual([{ price: '50010.000000000000000000', size: '0.020000000000000000', orders: 1 }]);
    const positions = (await t.app.inject({ method: 'GET', url: '/api/v1/trading/positions', headers: bob })).json().items;
    expect(positions).toEqual([expect.objectContaining({ market: 'BTC-PERP', side: 'LONG', quantity: '0.010000000000000000', entry_price: '50000.000000000000000000' })]);

    const r = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/cancel', headers: alice, payload: { order_ids: [resting, ask] } });
    expect(r.json().success).toBe(false);
    expect(r.json().response[resting]).toMatchObject({ success: true, update: { cancellation_attempted: true, market_id: 1 } });
    expect(r.json().response[ask]).toMatchObject({ success: false, message: 'The order is already FILLED.' });
    expect((await find(alice, resting)).status).toBe('CANCELLED');

    const more = await Promise.all([49000, 49001].map((p) => place(bob, { direction: 'BUY', limit_price: String(p) })));
    const all = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/cancel_all', headers: bob, payload: { cancel_all: true } });
    expect(Object.keys(all.json().response).sort()).toEqual([...more].sort());
    for (const id of more) expect((await find(bob, id)).cancel_reason).toBe('11_CancelReason_CancelAll');
  });
});
