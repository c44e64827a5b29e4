/**
 * Platform-admin routes (docs/api.md, "Who may call what"): authorization comes before validation. Walks every
 * operation the contract marks platform-admin only (`x-platform-admin` in the served OpenAPI document, which the
 * capability registry also notes) as (a) anonymous → 401 UNAUTHENTICATED, (b) a signed-in account without the role,
 * whatever the body or id → 403 FORBIDDEN in the envelope (never 404 "no such route", never 400), (c) the admin with an
 * invalid body → 400 VALIDATION_FAILED (validation still works for them); and another tenant's resource stays 404 on
 * the tenant's own routes (PLATFORM.md section 5).
 */
import { startTestApp, type TestApp } from '../support/app';
import { adminHeaders, registerTrader, TEST_ADMIN, type Headers } from '../support/traders';

const ID = '0123456789abcdef0123456789abcdef';
type Op = { method: string; path: string; operationId: string; summary?: string; requestBody?: { content: Record<string, { schema: { $ref?: string } }> }; 'x-platform-admin'?: boolean };

/** The admin routes the contract names (the list): each must be marked, beside any other the walk finds. */
const NAMED = [
  'POST /api/v1/commerce/admin/payments/{payment_uuid}/rail',
  'POST /api/v1/commerce/admin/settlement-intents/{settlement_intent_uuid}/treasury',
  'POST /api/v1/transfers/admin/{transfer_uuid}/screening',
  'POST /api/v1/transfers/admin/{transfer_uuid}/governance',
  'POST /api/v1/transfers/admin/{transfer_uuid}/rail',
  'POST /api/v1/billing/admin/topups/{topup_id}/rail',
  'POST /api/v1/identity/admin/accounts/{profile_uuid}/erasure',
  'POST /api/v1/travel-rule/recipient-keys',
  'POST /api/v1/travel-rule/recipient-keys/{recipient_key_id}/rotate',
  'POST /api/v1/travel-rule/recipient-keys/{recipient_key_id}/retire',
];

describe('platform-admin routes: authorization before validation', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, { required?: string[] }> } };
  let ops: Op[];
  let admin: Headers;
  let someone: Headers;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })));
    admin = await adminHeaders(t);
    someone = await registerTrader(t);
  });
  afterAll(async () => t.close());

  /** Whose summary says "(platform admin…)". */
  const saysSo = (o: Op): boolean => /\(platform admins?[);,]/.test(o.summary ?? '');
  /** The walk: every operation marked, named above, or whose summary says so (so an unmarked one fails each test). */
  const adminOps = (): Op[] => ops.filter((o) => o['x-platform-admin'] === true || NAMED.includes(`${o.method} ${o.path}`) || saysSo(o));
  const urlOf = (o: Op, id = ID): string => o.path.replace(/\{[^}]+\}/g, id);
  const call = (method: string, url: string, headers: Headers, payload?: object) => t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
  /** Bodies a non-admin might send: none, empty, wrong types and unknown fields. */
  const bodiesFor = (o: Op): Array<object | undefined> => (o.method === 'GET' ? [undefined] : [undefined, {}, { expected_version: 'x', outcome: 7, transition: [], public_key: 1, reason_code: {}, unexpected: true }]);

  it('marks every platform-admin route of the contract: the named ones and every one whose summary says so', () => {
    const marked = ops.filter((o) => o['x-platform-admin'] === true).map((o) => `${o.method} ${o.path}`);
    expect(adminOps().map((o) => `${o.method} ${o.path}`).filter((k) => !marked.includes(k))).toEqual([]);
    expect(marked.length).toBeGreaterThanOrEqual(NAMED.length);
    // The registry notes it on each of them.
    return t.app.inject({ method: 'GET', url: '/api/v1/capabilities' }).then((r) => {
      const noted = r.json().operations.filter((o: any) => o.contract.notes.some((n: string) => /^Platform admins only/.test(n))).map((o: any) => `${o.method} ${o.path}`);
      expect(noted.sort()).toEqual([...marked].sort());
    });
  });

  it('(a) anonymous: 401 UNAUTHENTICATED on every admin route, whatever the body', async () => {
    for (const o of adminOps()) {
      for (const payload of bodiesFor(o)) {
        const r = await call(o.method, urlOf(o), {}, payload);
        expect({ op: o.operationId, payload, status: r.statusCode, code: r.json().error?.code }).toEqual({ op: o.operationId, payload, status: 401, code: 'UNAUTHENTICATED' });
      }
    }
  });

  it('(b) a signed-in account without the role: 403 FORBIDDEN in the envelope on every admin route, whatever the body or id', async () => {
    for (const o of adminOps()) {
      for (const id of [ID, 'not-an-id']) {
        for (const payload of bodiesFor(o)) {
          const r = await call(o.method, urlOf(o, id), { ...someone, 'idempotency-key': `k-${o.operationId}-${id}` }, payload);
          const body = r.json();
          expect({ op: o.operationId, id, payload, status: r.statusCode, code: body.error?.code }).toEqual({ op: o.operationId, id, payload, status: 403, code: 'FORBIDDEN' });
          expect(body).toEqual({ success: false, error: { code: 'FORBIDDEN', message: expect.stringMatching(/platform admins/), request_id: r.headers['x-request-id'], retryable: false, details: [] } });
        }
      }
    }
  });

  it('(c) the admin: an invalid body is still 400 VALIDATION_FAILED; a route without a required body is not refused', async () => {
    for (const o of adminOps()) {
      const ref = o.requestBody?.content['application/json']?.schema.$ref?.split('/').pop();
      const required = ref ? (doc.components.schemas[ref]?.required ?? []) : [];
      if (required.length > 0) {
        const r = await call(o.method, urlOf(o), admin, {});
        expect({ op: o.operationId, status: r.statusCode, code: r.json().error?.code }).toEqual({ op: o.operationId, status: 400, code: 'VALIDATION_FAILED' });
        expect(r.json().error.details.map((d: any) => d.field)).toEqual(expect.arrayContaining([required[0]]));
      } else {
        const r = await call(o.method, urlOf(o), admin, o.method === 'GET' ? undefined : {});
        expect({ op: o.operationId, refused: r.statusCode === 401 || r.statusCode === 403 || r.statusCode >= 500, status: r.statusCode }).toEqual({ op: o.operationId, refused: false, status: expect.any(Number) });
      }
    }
  });

  it("another tenant's resource: 404 on the tenant's routes for an outsider; the admin route answers the outsider 403 as for any id", async () => {
    const product = { code: 'ADMIN_WALK_5', name: 'Five', description: 'Five credits.', product_type: 'TOPUP', amount_minor: 500, currency: 'USD', credit_units: '5' };
    expect((await call('POST', '/api/v1/billing/products', someone, product)).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/billing/products', admin, product)).statusCode).toBe(201);
    const owner = await registerTrader(t);
    const tenant = (await call('POST', '/api/v1/tenants', owner, { name: 'Admin Walk Co' })).json().tenant_uuid;
    const topup = await call('POST', '/api/v1/billing/topups', owner, { product_code: product.code, tenant_uuid: tenant });
    expect(topup.statusCode).toBe(201);
    const id = topup.json().topup_id;
    const outsider = await call('GET', `/api/v1/billing/topups/${id}`, someone);
    expect([outsider.statusCode, outsider.json().error.code]).toEqual([404, 'NOT_FOUND']);
    const rail = `/api/v1/billing/admin/topups/${id}/rail`;
    for (const who of [someone, owner]) {
      const r = await call('POST', rail, who, { outcome: 'SETTLED', rail_reference: 'sim' });
      expect([r.statusCode, r.json().error.code]).toEqual([403, 'FORBIDDEN']);
    }
    expect((await call('POST', rail, admin, { outcome: 'SETTLED', rail_reference: 'sim' })).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/billing/topups/${id}`, owner)).json().status).toBe('SETTLED');
  });
});
