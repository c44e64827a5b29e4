/**
 * Planned operations (docs/capabilities.md, "Planned operations"): every operation the registry lists as planned
 * answers 404 NOT_FOUND in the error envelope to anyone — anonymous, a signed-in account, a platform admin — with any
 * body, even where a live route's path template would otherwise catch it (GET …/price-feeds/providers and the live
 * GET …/price-feeds/{feed_id}). The walk reads the registry itself, so a newly planned entry is covered by this test.
 */
import { startTestApp, type TestApp } from '../support/app';
import { adminHeaders, registerTrader, TEST_ADMIN, type Headers } from '../support/traders';

const ID = '0123456789abcdef0123456789abcdef';

describe('planned operations of the capability registry', () => {
  let t: TestApp;
  let planned: Array<{ id: string; method: string; path: string }>;
  let callers: Array<[string, Headers]>;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/capabilities' });
    planned = r.json().operations.filter((o: any) => o.status === 'planned');
    callers = [
      ['anonymous', {}],
      ['a signed-in account', await registerTrader(t)],
      ['a platform admin', await adminHeaders(t)],
    ];
  });
  afterAll(async () => t.close());

  const expectPlanned404 = (r: { statusCode: number; headers: Record<string, unknown>; json(): any }, what: string): void => {
    const body = r.json();
    expect({ what, status: r.statusCode, code: body?.error?.code, success: body?.success }).toEqual({ what, status: 404, code: 'NOT_FOUND', success: false });
    expect(body.error.request_id).toBe(r.headers['x-request-id']);
    expect(body.error.message).toMatch(/planned/);
    expect(body.error.details).toEqual([]);
  };

  it('lists the planned operations, the price providers listing among them', () => {
    expect(planned.map((p) => `${p.method} ${p.path}`)).toContain('GET /api/v1/trading/price-feeds/providers');
  });

  it('answers every planned operation 404 NOT_FOUND in the envelope, to anonymous, a signed-in account and an admin', async () => {
    for (const p of planned) {
      const url = p.path.replace(/\{[^}]+\}/g, ID);
      for (const [who, headers] of callers) {
        const bodies = p.method === 'GET' || p.method === 'DELETE' ? [undefined] : [{}, { unexpected: 1 }];
        for (const payload of bodies) {
          const r = await t.app.inject({ method: p.method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
          expectPlanned404(r, `${p.method} ${url} as ${who} with ${JSON.stringify(payload)}`);
        }
        const q = await t.app.inject({ method: p.method as 'GET', url: `${url}?limit=50&cursor=x`, headers });
        expectPlanned404(q, `${p.method} ${url}?query as ${who}`);
      }
    }
  });

  it('answers a planned POST 404 before its body is read: no 400 for malformed JSON, no 415 for another media type', async () => {
    const post = planned.find((p) => p.method === 'POST');
    expect(post).toBeDefined();
    const url = post!.path.replace(/\{[^}]+\}/g, ID);
    for (const [who, headers] of callers) {
      expectPlanned404(await t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: '{"broken' }), `${url} malformed as ${who}`);
      expectPlanned404(await t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'text/plain' }, payload: 'x' }), `${url} text as ${who}`);
    }
  });

  it('leaves the live route beside it alone: GET …/price-feeds/{feed_id} still validates the id and needs a token', async () => {
    const [, , [, admin]] = callers;
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/trading/price-feeds/not-an-id' })).statusCode).toBe(401);
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/trading/price-feeds/not-an-id', headers: admin });
    expect([bad.statusCode, bad.json().error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const none = await t.app.inject({ method: 'GET', url: `/api/v1/trading/price-feeds/${ID}`, headers: admin });
    expect([none.statusCode, none.json().error.code]).toEqual([404, 'NOT_FOUND']);
    expect(none.json().error.message).not.toMatch(/planned/);
  });
});
