/** MTF markets: the seeds' Market record exactly, demo markets, admin creation and flags. */
import { readMailbox } from '../../src/modules/identity/delivery';
import { startTestApp, type TestApp } from '../support/app';
import { hex32 } from '../support/events';

const ADMIN = { email: 'admin@platform.test', password: 'Root-Passw0rd-2026!' };
/** The seeds' Market fields, and ours beside them (lot_size, maximum_quantity, *_precision, tick_size), alphabetical. */
const MARKET_KEYS = [
  'contract_size', 'expiration_date', 'instrument_isin', 'is_cancel_only', 'is_maker_only', 'is_suspended', 'lot_size', 'market_id', 'market_symbol',
  'market_type', 'market_uuid', 'maximum_quantity', 'minimum_execution_quantity', 'mininum_quantity', 'operating_mic', 'price_currency', 'price_precision',
  'quantity_precision', 'quote_currency', 'segment_mic', 'tick_size',
];

describe('MTF markets', () => {
  let t: TestApp;
  let admin: Record<string, string>;
  let user: Record<string, string>;

  async function signIn(email: string, password: string): Promise<Record<string, string>> {
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password } });
    expect(r.statusCode).toBe(201);
    return { authorization: `Bearer ${r.json().access_token}` };
  }

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
    admin = await signIn(ADMIN.email, ADMIN.password);
    const email = `trader-${hex32().slice(0, 8)}@example.com`;
    const password = 'Trader-Password-2026';
    await t.app.inject({ method: 'POST', url: '/api/v1/identity/registrations', payload: { account_type: 'personal', first_name: 'T', last_name: 'R', email, password, terms: { version: '1', accepted: true } } });
    const [d] = await readMailbox(t.config.dataDir, email);
    await t.app.inject({ method: 'POST', url: '/api/v1/identity/activations', payload: { token: d.token } });
    user = await signIn(email, password);
  });
  afterAll(async () => t.close());

  const get = (headers?: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers });
  const newMarket = (over: Record<string, unknown> = {}) => ({
    market_symbol: `X${hex32().slice(0, 6).toUpperCase()}-PERP`, instrument_isin: 'XF0000XYZ009', contract_size: '0.5', mininum_quantity: '1', minimum_execution_quantity: '0.5',
    tick_size: '0.01', operating_mic: 'XMTF', segment_mic: 'XMTS', price_currency: 'USD', quote_currency: 'USD', base_currency: 'XYZ', ...over,
  });

  it('needs a bearer token', async () => {
    const r = await get();
    expect(r.statusCode).toBe(401);
    expect(r.json().error.code).toBe('UNAUTHENTICATED');
  });

  it('lists the demo markets keyed by symbol, every Market field typed as the seeds say, in their order', async () => {
    const r = await get(user);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(Object.keys(body)).toEqual(['response', 'success']);
    expect(body.success).toBe(true);
    expect(Object.keys(body.response)).toEqual(['BTC-PERP', 'ETH-PERP', 'SOL-PERP']);
    const btc = body.response['BTC-PERP'];
    expect(Object.keys(btc)).toEqual(MARKET_KEYS);
    expect(btc).toEqual({
      contract_size: 0.001, expiration_date: null, instrument_isin: 'XF0000BTC001', is_cancel_only: false, is_maker_only: false, is_suspended: false,
      lot_size: 0.001, market_id: 1, market_symbol: 'BTC-PERP', market_type: 'PERPETUAL', market_uuid: expect.stringMatching(/^[0-9a-f]{32}$/), maximum_quantity: 1000,
      minimum_execution_quantity: 0.001, mininum_quantity: 0.001, operating_mic: 'XMTF', price_currency: 'USD', price_precision: 1, quantity_precision: 3,
      quote_currency: 'USD', segment_mic: 'XMTS', tick_size: 0.5,
    });
    expect(r.body).toContain('"mininum_quantity":0.001');
    expect(body.response['SOL-PERP'].market_id).toBe(3);
  });

  it('lets only a platform admin create a market, with unique symbols and decimal strings', async () => {
    const create = (payload: unknown, headers = admin) => t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/markets', headers, payload: payload as object });
    expect((await create(newMarket(), user)).statusCode).toBe(403);
    const body = newMarket();
    const r = await create(body);
    expect(r.statusCode).toBe(201);
    const market = r.json().response[body.market_symbol as string];
    expect(Object.keys(market)).toEqual(MARKET_KEYS);
    expect(market).toMatchObject({ market_id: 4, contract_size: 0.5, mininum_quantity: 1, market_type: 'PERPETUAL', expiration_date: null, maximum_quantity: null, tick_size: 0.01, price_precision: 2 });
    expect((await get(user)).json().response[body.market_symbol as string]).toEqual(market);
    const dup = await create({ ...newMarket(), market_symbol: body.market_symbol });
    expect(dup.statusCode).toBe(409);
    for (const bad of [{ contract_size: 0.5 }, { contract_size: '0' }, { instrument_isin: 'nope' }, { market_symbol: 'lower' }, { minimum_execution_quantity: '5' }, { maximum_quantity: '0.5' }, { maximum_quantity: 100 }]) {
      const res = await create(newMarket(bad));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('publishes what a valid order needs, and refuses an order past the maximum or off the grid naming the field', async () => {
    const create = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/markets', headers: admin, payload: newMarket({ maximum_quantity: '20' }) });
    expect(create.statusCode).toBe(201);
    const [symbol, market] = Object.entries(create.json().response)[0] as [string, Record<string, unknown>];
    expect(market).toMatchObject({ tick_size: 0.01, lot_size: 0.5, mininum_quantity: 1, maximum_quantity: 20, price_precision: 2, quantity_precision: 1 });
    const place = (over: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/v1/trading/orders', headers: user, payload: { venue: 'MTF', market: symbol, side: 'BUY', order_type: 'LIMIT', time_in_force: 'GTC', external_reference: 'eA==', leverage: 1, reduce_only: false, combos: [], quantity: '2', limit_price: '10.25', ...over } });
    expect((await place({})).statusCode).toBe(201);
    const tooMany = await place({ quantity: '20.5' });
    expect(tooMany.statusCode).toBe(422);
    expect(JSON.stringify(tooMany.json().error.details)).toContain('maximum quantity 20');
    const offTick = await place({ limit_price: '10.255' });
    expect(offTick.statusCode).toBe(422);
    expect(offTick.json().error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'limit_price' })]));
  });

  it('changes the admin flags, refusing non-admins, empty changes, extra fields and unknown markets', async () => {
    const uuid = (await get(user)).json().response['ETH-PERP'].market_uuid;
    const flags = (payload: unknown, headers = admin, id = uuid) => t.app.inject({ method: 'POST', url: `/api/v1/api/v1/mtf/markets/${id}/flags`, headers, payload: payload as object });
    expect((await flags({ is_suspended: true }, user)).statusCode).toBe(403);
    const r = await flags({ is_suspended: true, is_maker_only: true });
    expect(r.statusCode).toBe(200);
    expect(r.json().response['ETH-PERP']).toMatchObject({ is_suspended: true, is_maker_only: true, is_cancel_only: false });
    expect((await get(user)).json().response['ETH-PERP']).toMatchObject({ is_suspended: true, is_maker_only: true });
    expect((await flags({})).statusCode).toBe(400);
    expect((await flags({ is_suspended: 'yes' })).statusCode).toBe(400);
    const extra = await flags({ is_suspended: false, colour: 'red' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.details[0].field).toBe('colour');
    expect((await flags({ is_suspended: false }, admin, 'f'.repeat(32))).statusCode).toBe(404);
  });
});

describe('MTF markets without demo seeding', () => {
  it('starts empty with SEED_MARKETS=false', async () => {
    const t = await startTestApp({ SEED_MARKETS: 'false', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
    try {
      const login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: ADMIN });
      const r = await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: { authorization: `Bearer ${login.json().access_token}` } });
      expect(r.json()).toEqual({ response: {}, success: true });
    } finally {
      await t.close();
    }
  });
});
