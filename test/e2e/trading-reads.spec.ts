/** Reading over HTTP after real trades: order_meta, trade_meta, orderbook depth, market_history candles, positions. */
import { startTestApp, type TestApp } from '../support/app';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { hex32 } from '../support/events';
import { registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';

describe('MTF reads', () => {
  let t: TestApp;
  let maker: Headers;
  let taker: Headers;
  let outsider: Headers;
  const ids: Record<string, string> = {};

  const get = (h: Headers, url: string) => t.app.inject({ method: 'GET', url, headers: h });
  const place = async (h: Headers, body: Record<string, unknown>): Promise<string> => {
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: h, payload: { market: 'ETH-PERP', external_ref: 'cmVhZHM=', ...body } });
    expect(r.statusCode).toBe(201);
    return r.json().response.order_uuid;
  };
  const status = async (h: Headers, id: string) => (await get(h, `/api/v1/api/v1/mtf/order_meta?order_uuid=${id}`)).json().response.order.status as string;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    [maker, taker, outsider] = [await registerTrader(t), await registerTrader(t), await registerTrader(t)];
    ids.ask1 = await place(maker, { direction: 'SELL', order_size: '1', limit_price: '3000' });
    ids.ask2 = await place(maker, { direction: 'SELL', order_size: '2', limit_price: '3000' });
    ids.ask3 = await place(maker, { direction: 'SELL', order_size: '1.5', limit_price: '3010.05' });
    ids.bid = await place(maker, { direction: 'BUY', order_size: '4', limit_price: '2990' });
    await until(() => status(maker, ids.bid), (s) => s === 'OPEN');
    ids.take = await place(taker, { direction: 'BUY', order_size: '1.5', limit_price: null });
    await until(() => status(taker, ids.take), (s) => s === 'FILLED');
    // Positions are a read model of their own, which may pass the fill a turn of the event loop after the order list.
    await until(async () => (await get(maker, '/api/v1/trading/positions')).json().items.length, (n) => n > 0);
  });
  afterAll(async () => t.close());

  it('order_meta shows the caller\'s order with fills; another account gets 404', async () => {
    const r = await get(taker, `/api/v1/api/v1/mtf/order_meta?order_uuid=${ids.take}`);
    expect(r.statusCode).toBe(200);
    const meta = r.json().response;
    expect(meta.order).toMatchObject({ order_uuid: ids.take, status: 'FILLED', direction: 'BUY' });
    expect(meta).toMatchObject({ filled: '1.500000000000000000', remaining: '0.000000000000000000', average_price: '3000.000000000000000000' });
    expect(meta.trades).toHaveLength(2);
    expect((await get(outsider, `/api/v1/api/v1/mtf/order_meta?order_uuid=${ids.take}`)).statusCode).toBe(404);
    expect((await get(taker, '/api/v1/api/v1/mtf/order_meta?order_uuid=nope')).statusCode).toBe(400);
  });

  it('never shows a FILLED order without its fills: when the trades projector lags the orders projector, the read waits for it', async () => {
    const db = t.app.get(ReadModelDatabase);
    const runner = t.app.get(ProjectionRunner);
    const trades: Array<Record<string, unknown>> = await db.reader.query('SELECT * FROM mtf_trades WHERE taker_order_uuid = ?', [ids.take]);
    expect(trades).toHaveLength(2);
    // The trades projector "behind": its rows gone until the read waits for it, when they come back (as it catches up).
    await db.transaction((tx) => tx.query('DELETE FROM mtf_trades WHERE taker_order_uuid = ?', [ids.take]));
    const caughtUp = jest.spyOn(runner, 'waitFor').mockImplementationOnce(async () => {
      await db.transaction(async (tx) => {
        for (const row of trades) await tx.query(`INSERT INTO mtf_trades (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row).map(() => '?').join(', ')})`, Object.values(row));
      });
      return true;
    });
    try {
      const meta = (await get(taker, `/api/v1/api/v1/mtf/order_meta?order_uuid=${ids.take}`)).json().response;
      expect(meta.order.status).toBe('FILLED');
      expect(meta.trades.map((x: { trade_uuid: string }) => x.trade_uuid).sort()).toEqual(trades.map((x) => x.trade_uuid).sort());
      expect(caughtUp).toHaveBeenCalledWith(expect.any(BigInt), ['trading-trades'], 2000);
      // Caught up: no wait at all.
      await get(taker, `/api/v1/api/v1/mtf/order_meta?order_uuid=${ids.take}`);
      expect(caughtUp).toHaveBeenCalledTimes(1);
    } finally {
      caughtUp.mockRestore();
    }
  });

  it('trade_meta shows a trade to its parties, each with their own side and role, to nobody else', async () => {
    const trade = (await get(taker, `/api/v1/api/v1/mtf/order_meta?order_uuid=${ids.take}`)).json().response.trades[0].trade_uuid;
    const mine = (await get(taker, `/api/v1/api/v1/mtf/trade_meta?trade_uuid=${trade}`)).json().response;
    expect(mine).toMatchObject({ trade_uuid: trade, market: 'ETH-PERP', price: '3000.000000000000000000', size: '1.000000000000000000', side: 'BUY', role: 'TAKER', order_uuid: ids.take });
    const theirs = (await get(maker, `/api/v1/api/v1/mtf/trade_meta?trade_uuid=${trade}`)).json().response;
    expect(theirs).toMatchObject({ side: 'SELL', role: 'MAKER', order_uuid: ids.ask1 });
    expect(JSON.stringify(theirs)).not.toContain(ids.take);
    expect((await get(outsider, `/api/v1/api/v1/mtf/trade_meta?trade_uuid=${trade}`)).statusCode).toBe(404);
    expect((await get(outsider, `/api/v1/api/v1/mtf/trade_meta?trade_uuid=${hex32()}`)).statusCode).toBe(404);
  });

  it('orderbook aggregates the resting depth per price, best first', async () => {
    const r = await get(outsider, '/api/v1/api/v1/mtf/orderbook?market=ETH-PERP');
    expect(r.statusCode).toBe(200);
    expect(r.json().response).toEqual({
      market: 'ETH-PERP',
      bids: [{ price: '2990.000000000000000000', size: '4.000000000000000000', orders: 1 }],
      asks: [
        { price: '3000.000000000000000000', size: '1.500000000000000000', orders: 1 },
        { price: '3010.050000000000000000', size: '1.500000000000000000', orders: 1 },
      ],
    });
    expect((await get(outsider, '/api/v1/api/v1/mtf/orderbook?market=NOPE')).statusCode).toBe(404);
    expect((await get(outsider, '/api/v1/api/v1/mtf/orderbook?market=ETH-PERP&depth=0')).statusCode).toBe(400);
  });

  it('market_history makes a candle of this minute\'s trades', async () => {
    const r = await get(outsider, '/api/v1/api/v1/mtf/market_history?market=ETH-PERP&minutes=5');
    expect(r.statusCode).toBe(200);
    expect(r.json().response).toEqual([
      { start: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/), open: '3000.000000000000000000', high: '3000.000000000000000000', low: '3000.000000000000000000', close: '3000.000000000000000000', volume: '1.500000000000000000', trades: 2 },
    ]);
    expect((await get(outsider, '/api/v1/api/v1/mtf/market_history?market=ETH-PERP&minutes=1441')).statusCode).toBe(400);
  });

  it('positions: the taker is long at the average price, the maker short', async () => {
    const long = (await get(taker, '/api/v1/trading/positions')).json().items;
    expect(long).toEqual([expect.objectContaining({ market: 'ETH-PERP', side: 'LONG', quantity: '1.500000000000000000', signed_quantity: '1.500000000000000000', entry_price: '3000.000000000000000000' })]);
    const short = (await get(maker, '/api/v1/trading/positions?market=ETH-PERP')).json().items;
    expect(short).toEqual([expect.objectContaining({ side: 'SHORT', quantity: '1.500000000000000000', signed_quantity: '-1.500000000000000000' })]);
    expect((await get(outsider, '/api/v1/trading/positions')).json().items).toEqual([]);
  });
});
