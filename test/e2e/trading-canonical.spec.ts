/**
 * The canonical trading API: CanonicalOrder placement (what the engine cannot do is a 422 naming the field),
 * stops triggered by the last trade, reduce-only against the position, single cancel, cancel-all receipts, and
 * closing a position.
 */
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';

type Order = Record<string, unknown> & { order_uuid: string; status: string; trades: string[]; cancel_reason: string | null };

describe('canonical trading API', () => {
  let t: TestApp;
  let alice: Headers;
  let bob: Headers;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    alice = await registerTrader(t);
    bob = await registerTrader(t);
  });
  afterAll(async () => t.close());

  const base = { venue: 'MTF', market: 'ETH-PERP', side: 'BUY', order_type: 'LIMIT', time_in_force: 'GTC', external_reference: 'Y2Fub24=', leverage: 1, reduce_only: false, combos: [], quantity: '1', limit_price: '3000' };
  const place = (h: Headers, over: Record<string, unknown> = {}) => t.app.inject({ method: 'POST', url: '/api/v1/trading/orders', headers: h, payload: { ...base, ...over } });
  const placed = async (h: Headers, over: Record<string, unknown> = {}): Promise<string> => {
    const r = await place(h, over);
    if (r.statusCode !== 201) throw new Error(`${r.statusCode} ${r.body}`);
    return r.json().order_uuid;
  };
  const order = async (h: Headers, id: string): Promise<Order> =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/orders?limit=1000', headers: h })).json().response.find((o: Order) => o.order_uuid === id);
  const settled = (h: Headers, id: string, status: string) => until(() => order(h, id), (o) => o?.status === status);
  const positions = async (h: Headers) => (await t.app.inject({ method: 'GET', url: '/api/v1/trading/positions', headers: h })).json().items as Array<Record<string, string>>;

  it('places a CanonicalOrder and answers the order record with its id and status', async () => {
    const r = await place(alice, { limit_price: '2000.05', client_reference: 'c-1', reporting_identifier: 'rep-1' });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({
      order_uuid: expect.stringMatching(/^[0-9a-f]{32}$/),
      status: 'NEW',
      venue: 'MTF',
      market: 'ETH-PERP',
      side: 'BUY',
      order_type: 'LIMIT',
      time_in_force: 'GTC',
      external_reference: 'Y2Fub24=',
      leverage: 1,
      reduce_only: false,
      combos: [],
      limit_price: '2000.050000000000000000',
      quantity: '1.000000000000000000',
      trigger_price: null,
      client_reference: 'c-1',
      reporting_identifier: 'rep-1',
    });
    await settled(alice, r.json().order_uuid, 'OPEN');
  });

  it('reads one order back: the record as placed, its status, fills and version; 404 for anyone else', async () => {
    const get = (h: Headers, id: string) => t.app.inject({ method: 'GET', url: `/api/v1/trading/orders/${id}`, headers: h });
    const id = await placed(alice, { limit_price: '2950', quantity: '2', client_reference: 'read-back', reporting_identifier: 'rep-9' });
    const fresh = await get(alice, id);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toMatchObject({
      order_uuid: id, venue: 'MTF', market: 'ETH-PERP', side: 'BUY', order_type: 'LIMIT', time_in_force: 'GTC', leverage: 1,
      quantity: '2.000000000000000000', limit_price: '2950.000000000000000000', client_reference: 'read-back', reporting_identifier: 'rep-9',
      status: expect.stringMatching(/^(NEW|OPEN)$/), filled: '0.000000000000000000', remaining: '2.000000000000000000', average_price: null, fills: [], version: 0,
    });
    // Bob sells 1 into it: Alice's order shows the fill from its side.
    await placed(bob, { side: 'SELL', limit_price: '2950', quantity: '1', time_in_force: 'IOC' });
    const filled = await until(async () => (await get(alice, id)).json(), (o) => o.filled === '1.000000000000000000');
    expect(filled).toMatchObject({ status: 'OPEN', remaining: '1.000000000000000000', average_price: '2950.000000000000000000', in_book: true, version: 0 });
    expect(filled.fills).toEqual([expect.objectContaining({ trade_uuid: expect.stringMatching(/^[0-9a-f]{32}$/) })]);
    // A cancellation moves the order's own version.
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/trading/orders/${id}/cancel`, headers: alice, payload: { venue: 'MTF' } })).statusCode).toBe(200);
    expect((await get(alice, id)).json()).toMatchObject({ cancel_requested: true, version: 1 });

    const foreign = await get(bob, id);
    const unknown = await get(bob, 'f'.repeat(32));
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body.replace(/"request_id":"[^"]*"/, '')).toBe(unknown.body.replace(/"request_id":"[^"]*"/, ''));
    const malformed = await get(alice, 'NOT-AN-ID');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.code).toBe('VALIDATION_FAILED');
  });

  it.each([
    ['a venue it is not', { venue: 'NYSE' }, 'venue'],
    ['an order type it lacks', { order_type: 'ICEBERG' }, 'order_type'],
    ['a time in force it lacks', { time_in_force: 'GTD' }, 'time_in_force'],
    ['combination orders', { combos: [{ ...base }] }, 'combos'],
    ['leverage', { leverage: 5 }, 'leverage'],
    ['iceberg tips', { tip_quantity: '0.1' }, 'tip_quantity'],
    ['trailing stops', { trailing_percent: '1.5' }, 'trailing_percent'],
    ['notional sizing', { notional_amount: '100' }, 'notional_amount'],
    ['an expiry', { expiry_timestamp: '2030-01-01T00:00:00Z' }, 'expiry_timestamp'],
  ])('refuses %s with 422 RULE_VIOLATION naming the field', async (_label, over, field) => {
    const r = await place(alice, over);
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toMatchObject({ code: 'RULE_VIOLATION', details: expect.arrayContaining([expect.objectContaining({ field })]) });
  });

  it.each([
    ['a JSON number for a decimal', { quantity: 1 }, 'quantity'],
    ['a missing side', { side: undefined }, 'side'],
    ['a negative leverage', { leverage: -1 }, 'leverage'],
    ['a non-boolean reduce_only', { reduce_only: 'yes' }, 'reduce_only'],
  ])('refuses %s with 400', async (_label, over, field) => {
    const r = await place(alice, over);
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(r.json().error.details)).toContain(field);
  });

  it('refuses what the market forbids: below the minimum, off the tick, a limit on a market order', async () => {
    expect((await place(alice, { quantity: '0.001' })).statusCode).toBe(422);
    expect((await place(alice, { limit_price: '3000.01' })).json().error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'limit_price' })]));
    expect((await place(alice, { order_type: 'MARKET' })).statusCode).toBe(422);
    expect((await place(alice, { order_type: 'STOP_LIMIT' })).json().error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'trigger_price' })]));
    expect((await place(alice, { reduce_only: true })).json().error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'reduce_only' })]));
  });

  it('releases a STOP order when the last trade reaches its trigger, and closes a position with a reduce-only market order', async () => {
    const carol = await registerTrader(t);
    const dave = await registerTrader(t);
    // dave's stop: buy 1 when the last price reaches 3100.
    const stop = await placed(dave, { order_type: 'STOP', limit_price: undefined, trigger_price: '3100', time_in_force: 'IOC' });
    await settled(dave, stop, 'OPEN');
    await placed(carol, { side: 'SELL', limit_price: '3100', quantity: '1' });
    await placed(carol, { side: 'SELL', limit_price: '3105', quantity: '1' });
    await placed(bob, { side: 'BUY', limit_price: '3100', quantity: '1', time_in_force: 'IOC' }); // trades at 3100 → stop fires
    const fired = await settled(dave, stop, 'FILLED');
    expect(fired.trades).toHaveLength(1);
    const davePosition = await until(() => positions(dave), (ps) => ps.length === 1);
    expect(davePosition[0]).toMatchObject({ market: 'ETH-PERP', side: 'LONG', quantity: '1.000000000000000000', entry_price: '3105.000000000000000000' });

    // reduce-only: selling 5 against a long 1 only sells 1; the excess is cancelled with its reason.
    await placed(bob, { side: 'BUY', limit_price: '3000', quantity: '10' });
    const close = await t.app.inject({ method: 'POST', url: '/api/v1/trading/positions/close', headers: dave, payload: { external_reference: 'Y2xvc2U=', venue: 'MTF' } });
    expect(close.statusCode).toBe(201);
    expect(close.json()).toMatchObject({ side: 'SELL', order_type: 'MARKET', time_in_force: 'IOC', reduce_only: true, quantity: '1.000000000000000000' });
    await settled(dave, close.json().order_uuid, 'FILLED');
    await until(() => positions(dave), (ps) => ps[0]?.side === 'FLAT');
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/trading/positions/close', headers: dave, payload: { external_reference: 'Y2xvc2U=' } });
    expect(again.statusCode).toBe(409);
    const extra = await t.app.inject({ method: 'POST', url: '/api/v1/trading/positions/close', headers: dave, payload: { external_reference: 'Y2xvc2U=', market: 'ETH-PERP' } });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.details[0].field).toBe('market');

    const over = await placed(dave, { side: 'SELL', order_type: 'MARKET', limit_price: undefined, time_in_force: 'IOC', reduce_only: true, quantity: '5' });
    expect((await settled(dave, over, 'CANCELLED')).cancel_reason).toBe('50_CancelReason_ReduceOnlyNoPosition');
  });

  it('cancels one order (CancelOrderRequest, no extra fields), 404 for another account\'s, 409 when final', async () => {
    const id = await placed(alice, { limit_price: '1000' });
    await settled(alice, id, 'OPEN');
    const extra = await t.app.inject({ method: 'POST', url: `/api/v1/trading/orders/${id}/cancel`, headers: alice, payload: { reason: 'no longer needed', colour: 'red' } });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.details[0].field).toBe('colour');
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/trading/orders/${id}/cancel`, headers: bob, payload: {} })).statusCode).toBe(404);
    const r = await t.app.inject({ method: 'POST', url: `/api/v1/trading/orders/${id}/cancel`, headers: alice, payload: { reason: 'no longer needed', venue: 'MTF' } });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ order_uuid: id, status: 'CANCELLED', cancelled: true, cancellation_attempted: true });
    const twice = await t.app.inject({ method: 'POST', url: `/api/v1/trading/orders/${id}/cancel`, headers: alice, payload: {} });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.code).toBe('STATE_CONFLICT');
  });

  it('cancel-all answers a CancelAllOrdersReceipt, optionally for one market', async () => {
    const erin = await registerTrader(t);
    const eth = await Promise.all([900, 901].map((p) => placed(erin, { limit_price: String(p) })));
    const sol = await placed(erin, { market: 'SOL-PERP', limit_price: '10' });
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/trading/orders/cancel-all', headers: erin, payload: { market: 'ETH-PERP' } });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'COMPLETED', requested_count: 2, cancelled_count: 2, order_ids: expect.arrayContaining(eth) });
    expect((await settled(erin, sol, 'OPEN')).status).toBe('OPEN');
    const rest = await t.app.inject({ method: 'POST', url: '/api/v1/trading/orders/cancel-all', headers: erin, payload: {} });
    expect(rest.json()).toEqual({ status: 'COMPLETED', requested_count: 1, cancelled_count: 1, order_ids: [sol] });
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/trading/orders/cancel-all', headers: erin, payload: { all: true } })).statusCode).toBe(400);
  });
});
