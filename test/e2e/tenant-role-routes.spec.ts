/**
 * Tenant-role routes (docs/api.md, "Which refusal comes first"): authorization comes before validation, as for the
 * platform-admin routes (test/e2e/admin-routes.spec.ts). Walks every operation the contract marks `x-tenant-roles` in
 * the served OpenAPI document (which the capability registry also notes) as (a) anonymous → 401 UNAUTHENTICATED, (b) a
 * signed-in member of the tenant without the role, whatever the body, query or id → 403 FORBIDDEN in the envelope
 * (never 400), (c) a member holding the role with an invalid request → 400 VALIDATION_FAILED naming a field
 * (validation still runs for them); and (d) a role holder of another tenant still gets 404 for this tenant's resources.
 */
import { readMailbox } from '../../src/modules/identity/delivery';
import { startTestApp, type TestApp } from '../support/app';
import { hex32 } from '../support/events';
import { adminHeaders, openTenant, registerTrader, TEST_ADMIN, type Headers } from '../support/traders';

const ID = '0123456789abcdef0123456789abcdef';
const PASSWORD = 'Roles-Password-2026';
type Param = { name: string; in: string; required?: boolean };
type Op = {
  method: string; path: string; operationId: string; parameters?: Param[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> }; 'x-tenant-roles'?: string[]; 'x-platform-admin'?: boolean;
};

/** The tenant-role routes the handlers check (the list): each must be marked, beside any other the walk finds. */
const NAMED = [
  'GET /api/v1/admin/news', 'POST /api/v1/admin/news', 'GET /api/v1/admin/news/{article_uuid}', 'POST /api/v1/admin/news/{article_uuid}/revise',
  'POST /api/v1/admin/news/{article_uuid}/schedule', 'POST /api/v1/admin/news/{article_uuid}/unschedule', 'POST /api/v1/admin/news/{article_uuid}/publish',
  'POST /api/v1/admin/news/{article_uuid}/unpublish', 'POST /api/v1/admin/news/{article_uuid}/archive',
  'GET /api/v1/admin/arena', 'POST /api/v1/admin/arena/seasons', 'GET /api/v1/admin/arena/seasons/{season_uuid}', 'POST /api/v1/admin/arena/seasons/{season_uuid}/schedule',
  'POST /api/v1/admin/arena/seasons/{season_uuid}/cancel', 'POST /api/v1/admin/arena/seasons/{season_uuid}/participants',
  'POST /api/v1/admin/arena/seasons/{season_uuid}/participants/{profile_uuid}/disqualify',
  'POST /api/v1/billing/subscriptions', 'POST /api/v1/billing/subscriptions/{code}/cancel', 'POST /api/v1/billing/topups', 'POST /api/v1/billing/adjustments',
  'GET /api/v1/transfers/compliance-queue', 'POST /api/v1/transfers/{transfer_uuid}/compliance-cancel',
];

describe('tenant-role routes: authorization before validation', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, { required?: string[] }> } };
  let ops: Op[];
  let tenant: string;
  let member: Headers;
  let roleHolder: Headers;
  let elsewhere: { tenant: string; admin: Headers };

  const call = (method: string, url: string, headers: Headers, payload?: object) => t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
  /** A person registered into the tenant (their session's tenant), with the role if one is named. */
  async function person(tenant_uuid: string, founder: Headers, role_code?: 'TENANT_ADMIN'): Promise<Headers> {
    const email = `roles-${hex32().slice(0, 10)}@example.com`;
    expect((await call('POST', '/api/v1/identity/registrations', {}, { account_type: 'personal', first_name: 'R', last_name: 'H', email, password: PASSWORD, terms: { version: '1', accepted: true }, tenant_uuid })).statusCode).toBe(201);
    const [d] = await readMailbox(t.config.dataDir, email);
    await call('POST', '/api/v1/identity/activations', {}, { token: d.token });
    const headers = { authorization: `Bearer ${(await call('POST', '/api/v1/auth/sessions', {}, { email, password: PASSWORD })).json().access_token}` };
    if (role_code) {
      const profile_uuid = (await call('GET', '/api/v1/identity/contact', headers)).json().profile_uuid;
      expect((await call('POST', `/api/v1/tenants/${tenant_uuid}/authorities`, founder, { profile_uuid, role_code, reason: 'Runs the tenant' })).statusCode).toBe(201);
    }
    return headers;
  }
  async function company(name: string): Promise<{ tenant: string; member: Headers; admin: Headers }> {
    const founder = await registerTrader(t);
    const created = (await call('POST', '/api/v1/tenants', founder, { name })).json().tenant_uuid;
    await openTenant(t, founder, created);
    return { tenant: created, member: await person(created, founder), admin: await person(created, founder, 'TENANT_ADMIN') };
  }

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })));
    ({ tenant, member, admin: roleHolder } = await company('Roles Co'));
    const other = await company('Other Roles Co');
    elsewhere = { tenant: other.tenant, admin: other.admin };
  });
  afterAll(async () => t.close());

  const roleOps = (): Op[] => ops.filter((o) => Array.isArray(o['x-tenant-roles']) || NAMED.includes(`${o.method} ${o.path}`));
  const urlOf = (o: Op, id = ID, query = ''): string => o.path.replace(/\{[^}]+\}/g, id) + query;
  /** Requests a member without the role might send: no body, empty, wrong types and unknown fields; bad queries. */
  const requestsFor = (o: Op): Array<{ query: string; payload?: object }> =>
    o.method === 'GET'
      ? [{ query: '' }, { query: '?limit=abc&tenant_uuid=nope&unexpected=1' }, { query: `?tenant_uuid=${tenant}` }]
      : [{ query: '' }, { query: '', payload: {} }, { query: '', payload: { expected_version: 'x', slug: 7, name: [], product_code: {}, credits: true, reason_code: 1, unexpected: true } }];

  it('marks every tenant-role route the handlers check, with its roles; the registry notes each; none is also platform-admin only', async () => {
    const marked = ops.filter((o) => Array.isArray(o['x-tenant-roles'])).map((o) => `${o.method} ${o.path}`);
    expect(NAMED.filter((k) => !marked.includes(k))).toEqual([]);
    for (const o of roleOps()) {
      expect({ op: o.operationId, roles: o['x-tenant-roles'], admin: o['x-platform-admin'] }).toEqual({ op: o.operationId, roles: expect.arrayContaining(['OWNER', 'TENANT_ADMIN']), admin: undefined });
      expect((o as any).responses['403'].description).toMatch(/refused before the request is validated/);
    }
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/capabilities' });
    const noted = r.json().operations.filter((o: any) => o.contract.notes.some((n: string) => /^Tenant roles only/.test(n))).map((o: any) => `${o.method} ${o.path}`);
    expect(noted.sort()).toEqual([...marked].sort());
  });

  it('(a) anonymous: 401 UNAUTHENTICATED on every tenant-role route, whatever the request', async () => {
    for (const o of roleOps()) {
      for (const { query, payload } of requestsFor(o)) {
        const r = await call(o.method, urlOf(o, ID, query), {}, payload);
        expect({ op: o.operationId, query, payload, status: r.statusCode, code: r.json().error?.code }).toEqual({ op: o.operationId, query, payload, status: 401, code: 'UNAUTHENTICATED' });
      }
    }
  });

  it('(b) a member of the tenant without the role: 403 FORBIDDEN in the envelope on every tenant-role route, whatever the body, query or id', async () => {
    for (const o of roleOps()) {
      for (const id of [ID, 'not-an-id']) {
        for (const { query, payload } of requestsFor(o)) {
          const r = await call(o.method, urlOf(o, id, query), { ...member, 'idempotency-key': `k-${o.operationId}-${id}` }, payload);
          const body = r.json();
          expect({ op: o.operationId, id, query, payload, status: r.statusCode, code: body.error?.code }).toEqual({ op: o.operationId, id, query, payload, status: 403, code: 'FORBIDDEN' });
          expect(body).toEqual({ success: false, error: { code: 'FORBIDDEN', message: expect.stringMatching(/^Only the tenant's/), request_id: r.headers['x-request-id'], retryable: false, details: [] } });
        }
      }
    }
  });

  it('(c) a member holding the role: an invalid request is still 400 VALIDATION_FAILED naming a field', async () => {
    for (const o of roleOps()) {
      const ref = o.requestBody?.content['application/json']?.schema.$ref?.split('/').pop();
      const required = ref ? (doc.components.schemas[ref]?.required ?? []) : [];
      const requiredQuery = (o.parameters ?? []).filter((p) => p.in === 'query' && p.required).map((p) => p.name);
      const pathParams = (o.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      let r;
      let field: string;
      if (required.length > 0) [r, field] = [await call(o.method, urlOf(o), roleHolder, {}), required[0]];
      else if (requiredQuery.length > 0) [r, field] = [await call(o.method, urlOf(o), roleHolder), requiredQuery[0]];
      else if (pathParams.length > 0) [r, field] = [await call(o.method, urlOf(o, 'not-an-id'), roleHolder, o.method === 'GET' ? undefined : {}), pathParams[0]];
      else [r, field] = [await call(o.method, urlOf(o, ID, '?limit=abc'), roleHolder), 'limit'];
      expect({ op: o.operationId, status: r.statusCode, code: r.json().error?.code }).toEqual({ op: o.operationId, status: 400, code: 'VALIDATION_FAILED' });
      expect({ op: o.operationId, fields: r.json().error.details.map((d: any) => d.field) }).toEqual({ op: o.operationId, fields: expect.arrayContaining([field]) });
    }
  });

  it("(d) another tenant's resource: 404 for a role holder of another tenant, as before; the tenant's own role holder reaches it", async () => {
    const article = await call('POST', '/api/v1/admin/news', roleHolder, { slug: `roles-${hex32().slice(0, 6)}`, title: 'Roles', summary: 'Who may.', body: 'Text.' });
    expect(article.statusCode).toBe(201);
    const article_uuid = article.json().article_uuid;
    const season = await call('POST', '/api/v1/admin/arena/seasons', roleHolder, { name: 'Roles', starts_at: '2099-01-01T00:00:00Z', ends_at: '2099-02-01T00:00:00Z' });
    expect(season.statusCode).toBe(201);
    const season_uuid = season.json().data.season_uuid;
    const other = elsewhere.admin;
    const cases: Array<[string, string, object | undefined]> = [
      ['GET', `/api/v1/admin/news/${article_uuid}`, undefined],
      ['POST', `/api/v1/admin/news/${article_uuid}/publish`, { expected_version: 0 }],
      ['GET', `/api/v1/admin/arena/seasons/${season_uuid}`, undefined],
      ['POST', `/api/v1/admin/arena/seasons/${season_uuid}/cancel`, { expected_version: 0 }],
      ['GET', `/api/v1/transfers/compliance-queue?tenant_uuid=${tenant}`, undefined],
      ['POST', '/api/v1/billing/topups', { product_code: 'NONE_SUCH', tenant_uuid: tenant }],
      ['POST', '/api/v1/billing/adjustments', { tenant_uuid: tenant, direction: 'CREDIT', credits: '1', reason: 'A goodwill gift' }],
    ];
    for (const [method, url, payload] of cases) {
      const r = await call(method, url, { ...other, 'idempotency-key': `d-${url}` }, payload);
      expect({ url, status: r.statusCode, code: r.json().error?.code }).toEqual({ url, status: 404, code: 'NOT_FOUND' });
    }
    // The tenant's own role holder and a platform admin get past the guard to the same resources.
    expect((await call('GET', `/api/v1/admin/news/${article_uuid}`, roleHolder)).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/admin/arena/seasons/${season_uuid}`, roleHolder)).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/transfers/compliance-queue?tenant_uuid=${tenant}`, roleHolder)).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/transfers/compliance-queue?tenant_uuid=${tenant}`, await adminHeaders(t))).statusCode).toBe(200);
  });

  it('a person of the global tenant manages their own billing account without a role (the guard lets them through); adjusting it is still 403', async () => {
    const person = await registerTrader(t);
    const r = await call('POST', '/api/v1/billing/topups', person, {});
    expect([r.statusCode, r.json().error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const adjust = await call('POST', '/api/v1/billing/adjustments', person, {});
    expect([adjust.statusCode, adjust.json().error.code]).toEqual([403, 'FORBIDDEN']);
  });
});
