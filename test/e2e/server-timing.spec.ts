/** SERVER_TIMING=true: each answer names where its time went (Server-Timing); off by default, nothing is said. */
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader } from '../support/traders';

const ORDER = { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '1000', external_ref: 'dGltaW5n' };

const stagesOf = (header: unknown): Map<string, number> =>
  new Map(
    String(header)
      .split(', ')
      .map((part) => {
        const [stage, dur] = part.split(';dur=');
        return [stage, Number(dur)] as [string, number];
      }),
  );

describe('with SERVER_TIMING on', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SERVER_TIMING: 'true' });
  });
  afterAll(async () => t.close());

  it("a placement's answer names its stages in order, each a duration in milliseconds", async () => {
    const trader = await registerTrader(t);
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: { ...trader, 'idempotency-key': 'timing-1' }, payload: ORDER });
    expect(r.statusCode).toBe(201);
    const stages = stagesOf(r.headers['server-timing']);
    expect([...stages.keys()]).toEqual(['parse', 'auth', 'idempotency', 'validation', 'decide', 'append', 'serialize', 'read-your-writes', 'idempotency-record']);
    for (const ms of stages.values()) expect(ms).toBeGreaterThanOrEqual(0);
  });

  it("a cancel's answer names its wait for the matching engine apart from the rest of the handler", async () => {
    const trader = await registerTrader(t);
    const placed = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: trader, payload: { ...ORDER, limit_price: '1000.5' } });
    expect(placed.statusCode).toBe(201);
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/cancel', headers: trader, payload: { order_ids: [placed.json().response.order_uuid] } });
    expect(r.statusCode).toBe(200);
    expect(r.json().response[placed.json().response.order_uuid]).toMatchObject({ success: true });
    const stages = [...stagesOf(r.headers['server-timing']).keys()];
    expect(stages.indexOf('engine')).toBeGreaterThan(stages.indexOf('append'));
    expect(stages.indexOf('serialize')).toBeGreaterThan(stages.indexOf('engine'));
    expect(stages.indexOf('append')).toBeGreaterThan(-1);
  });

  it('a refusal and a public probe have the stages they reached, no more', async () => {
    const refused = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: { authorization: 'Bearer nope' }, payload: ORDER });
    expect(refused.statusCode).toBe(401);
    expect([...stagesOf(refused.headers['server-timing']).keys()]).toEqual(['parse', 'serialize', 'read-your-writes']);
    const live = await t.app.inject({ method: 'GET', url: '/health/live' });
    expect([...stagesOf(live.headers['server-timing']).keys()]).toEqual(['parse', 'idempotency', 'serialize', 'read-your-writes']);
  });
});

it('is off by default: no Server-Timing header', async () => {
  const t = await startTestApp();
  try {
    expect((await t.app.inject({ method: 'GET', url: '/health/live' })).headers['server-timing']).toBeUndefined();
  } finally {
    await t.close();
  }
});
