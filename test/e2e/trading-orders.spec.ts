/** MTF order placement (NEW orders) and the order list, exact to the seeds' Order record. */
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader, until } from '../support/traders';

const ORDER_KEYS = [
  'base_currency', 'book_or_cancel', 'cancel_reason', 'canceled', 'created', 'direction', 'engine_id', 'estim_market_value', 'external_ref', 'fill_or_kill',
  'immediate_or_cancel', 'limit_price', 'liquidity_pool', 'market', 'on_stop_loss', 'order_group', 'order_sequence', 'order_size', 'order_uuid',
  'quote_currency', 'status', 'trades', 'updated', 'vault_uuid',
];
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const ADMIN = { email: 'ops@platform.test', password: 'Root-Passw0rd-2026!' };

describe('MTF orders', () => {
  let t: TestApp;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  let admin: Record<string, string>;

  const trader = () => registerTrader(t);

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
    const a = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: ADMIN });
    admin = { authorization: `Bearer ${a.json().access_token}` };
    alice = await trader();
    bob = await trader();
  });
  afterAll(async () => t.close());

  const place = (headers: Record<string, string>, over: Record<string, unknown> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/api/v1/mtf/orders',
      headers,
      payload: { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '64000.5', book_or_cancel: 0, fill_or_kill: 0, immediate_or_cancel: 0, external_ref: 'cmVmLTE=', ...over },
    });
  const list = (headers: Record<string, string>, query = '') => t.app.inject({ method: 'GET', url: `/api/v1/api/v1/mtf/orders${query}`, headers });

  it('accepts a limit order as NEW, answering the seeds\' Order record exactly', async () => {
    const r = await place(alice);
    expect(r.statusCode).toBe(201);
    expect(Object.keys(r.json())).toEqual(['response', 'success']);
    const order = r.json().response;
    expect(Object.keys(order)).toEqual(ORDER_KEYS);
    expect(order).toEqual({
      base_currency: 'BTC', book_or_cancel: 0, cancel_reason: null, canceled: null, created: expect.stringMatching(HTTP_DATE), direction: 'BUY', engine_id: null,
      estim_market_value: '640.005000000000000000', external_ref: 'cmVmLTE=', fill_or_kill: 0, immediate_or_cancel: 0, limit_price: '64000.500000000000000000',
      liquidity_pool: expect.stringMatching(/^[0-9a-f]{32}$/), market: 'PERPETUAL', on_stop_loss: null,
      order_group: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), order_sequence: null, order_size: '0.010000000000000000',
      order_uuid: expect.stringMatching(/^[0-9a-f]{32}$/), quote_currency: '1', status: 'NEW', trades: [], updated: expect.stringMatching(HTTP_DATE), vault_uuid: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const listed = (await list(alice)).json().response.find((o: { order_uuid: string }) => o.order_uuid === order.order_uuid);
    // The same record; the engine may have opened it by now (it runs beside the projectors with worker threads).
    expect(['NEW', 'OPEN']).toContain(listed.status);
    const opened = { status: listed.status, engine_id: listed.engine_id, order_sequence: listed.order_sequence, updated: listed.updated };
    expect(listed).toEqual(listed.status === 'NEW' ? order : { ...order, ...opened });
  });

  it('a listed order shows every later change: the list never serves a stale rendering', async () => {
    const order = (await place(alice, { limit_price: '1000.5' })).json().response;
    const find = async () => {
      const r = await list(alice);
      // The body is compact JSON in the seeds' key order, exactly what serializing the parsed body gives.
      expect(r.body).toBe(JSON.stringify(r.json()));
      return r.json().response.find((o: { order_uuid: string }) => o.order_uuid === order.order_uuid);
    };
    // NEW until the engine decides; it may have by now (it runs beside the projectors with worker threads).
    expect(['NEW', 'OPEN']).toContain((await find()).status);
    const open = await until(find, (o) => o.status === 'OPEN');
    expect(open.engine_id).not.toBeNull();
    expect((await find()).status).toBe('OPEN'); // served again (rendered once already)
    const cancel = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/cancel', headers: alice, payload: { order_ids: [order.order_uuid] } });
    expect(cancel.statusCode).toBe(200);
    const cancelled = await until(find, (o) => o.status === 'CANCELLED');
    expect(cancelled.cancel_reason).toMatch(/^\d+_[A-Za-z]+/);
  });

  it('answers a list polled unchanged with the same page, and shows a new order or a change at the next poll', async () => {
    const carol = await trader();
    const placed = [(await place(carol, { limit_price: '2000.5' })).json().response.order_uuid];
    await until(async () => (await list(carol)).json().response[0].status, (s) => s === 'OPEN');
    const [a, b] = [await list(carol), await list(carol)];
    expect(b.body).toBe(a.body);
    placed.push((await place(carol, { limit_price: '2001.5' })).json().response.order_uuid);
    const c = await list(carol);
    expect(c.json().response.map((o: { order_uuid: string }) => o.order_uuid)).toEqual([...placed].reverse());
    await until(async () => (await list(carol)).json().response[0].status, (s) => s === 'OPEN');
    const cancel = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/cancel', headers: carol, payload: { order_ids: [placed[0]] } });
    expect(cancel.statusCode).toBe(200);
    const d = (await list(carol)).json().response;
    expect(d.map((o: { status: string }) => o.status)).toEqual(['OPEN', 'CANCELLED']);
    // Pages of one size and cursor are kept apart from another's.
    const first = await list(carol, '?limit=1');
    expect(first.json().response.map((o: { order_uuid: string }) => o.order_uuid)).toEqual([placed[1]]);
    const next = await list(carol, `?limit=1&cursor=${first.headers['x-next-cursor']}`);
    expect(next.json().response.map((o: { order_uuid: string }) => o.order_uuid)).toEqual([placed[0]]);
    expect(next.headers['x-next-cursor']).toBeUndefined();
    expect((await list(carol, '?limit=1')).body).toBe(first.body);
  });

  it('accepts a market order with a null limit price and a zero estimate written 0E-18', async () => {
    const r = await place(alice, { limit_price: null, direction: 'SELL', immediate_or_cancel: 1 });
    expect(r.statusCode).toBe(201);
    expect(r.json().response).toMatchObject({ limit_price: null, estim_market_value: '0E-18', immediate_or_cancel: 1, direction: 'SELL' });
  });

  it('refuses orders that break the market\'s rules, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ order_size: '0.0005' }, 'order_size'],
      [{ order_size: '0.0015' }, 'order_size'],
      [{ limit_price: '64000.3' }, 'limit_price'],
      [{ limit_price: null, book_or_cancel: 1 }, 'book_or_cancel'],
      [{ book_or_cancel: 1, fill_or_kill: 1 }, 'book_or_cancel'],
    ];
    for (const [over, field] of cases) {
      const r = await place(alice, over);
      expect(r.statusCode).toBe(422);
      expect(r.json().error.code).toBe('RULE_VIOLATION');
      expect(r.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });

  it('refuses malformed input with 400 and unknown markets with 404', async () => {
    for (const over of [{ limit_price: 64000.5 }, { order_size: 0.01 }, { book_or_cancel: true }, { fill_or_kill: 1, immediate_or_cancel: 1 }, { direction: 'HOLD' }, { external_ref: '' }]) {
      const r = await place(alice, over);
      expect(r.statusCode).toBe(400);
      expect(r.json().error.code).toBe('VALIDATION_FAILED');
    }
    expect((await place(alice, { market: 'NOPE-PERP' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', payload: {} })).statusCode).toBe(401);
  });

  it('follows the market flags: suspended and cancel-only refuse, maker-only needs book-or-cancel', async () => {
    const markets = (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: admin })).json().response;
    const flags = (symbol: string, body: object) => t.app.inject({ method: 'POST', url: `/api/v1/api/v1/mtf/markets/${markets[symbol].market_uuid}/flags`, headers: admin, payload: body });
    const eth = { market: 'ETH-PERP', order_size: '0.01', limit_price: '3000.05' };
    expect((await place(alice, eth)).statusCode).toBe(201);
    await flags('ETH-PERP', { is_suspended: true });
    expect((await place(alice, eth)).json().error.details[0].issue).toMatch(/suspended/);
    await flags('ETH-PERP', { is_suspended: false, is_cancel_only: true });
    expect((await place(alice, eth)).json().error.details[0].issue).toMatch(/cancellations only/);
    await flags('ETH-PERP', { is_cancel_only: false, is_maker_only: true });
    expect((await place(alice, eth)).statusCode).toBe(422);
    expect((await place(alice, { ...eth, book_or_cancel: 1 })).statusCode).toBe(201);
    await flags('ETH-PERP', { is_maker_only: false });
  });

  it('lists only the caller\'s orders, newest first, filtered and paged with X-Next-Cursor', async () => {
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) mine.push((await place(bob, { external_ref: `bob-${i}` })).json().response.order_uuid);
    const all = await list(bob);
    expect(all.statusCode).toBe(200);
    expect(Object.keys(all.json())).toEqual(['response', 'success']);
    expect(all.json().response.map((o: { order_uuid: string }) => o.order_uuid)).toEqual([...mine].reverse());
    expect(all.headers['x-next-cursor']).toBeUndefined();

    const first = await list(bob, '?limit=2');
    expect(first.json().response).toHaveLength(2);
    const cursor = first.headers['x-next-cursor'] as string;
    expect(cursor).toEqual(expect.any(String));
    const second = await list(bob, `?limit=2&cursor=${cursor}`);
    const third = await list(bob, `?limit=2&cursor=${second.headers['x-next-cursor']}`);
    const walked = [...first.json().response, ...second.json().response, ...third.json().response].map((o: { order_uuid: string }) => o.order_uuid);
    expect(walked).toEqual([...mine].reverse());
    expect(third.headers['x-next-cursor']).toBeUndefined();

    expect((await list(bob, `?limit=2&status=NEW&cursor=${cursor}`)).statusCode).toBe(400);
    expect((await list(bob, '?limit=1001')).statusCode).toBe(400);
    expect((await list(bob, '?status=DONE')).statusCode).toBe(400);
    expect((await list(bob, '?market=ETH-PERP')).json().response).toEqual([]);
    // The engine takes them: NEW → OPEN (none crosses).
    await until(async () => (await list(bob, '?status=OPEN')).json().response.length, (n) => n === 5);
    expect((await list(bob, '?status=NEW')).json().response).toHaveLength(0);
    expect((await list(alice)).json().response.some((o: { external_ref: string }) => o.external_ref.startsWith('bob-'))).toBe(false);
  });
});
