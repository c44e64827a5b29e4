/**
 * Tenant sprawl and registration leaks (issue 18, item 2) over HTTP: a per-account limit on self-service tenant
 * creation that holds under concurrency, the admin-only switch, and a registration that answers alike whether the
 * tenant exists, the address is taken or an account is created, with the activation mail only for a real account.
 */
import { readMailbox } from '../../src/modules/identity/delivery';
import { IdentityCrypto } from '../../src/modules/identity/identity.services';
import { GLOBAL_TENANT_UUID } from '../../src/modules/identity/domain/identity.constants';
import { startTestApp, type TestApp } from '../support/app';
import { hex32 } from '../support/events';
import { adminHeaders, registerTrader, TEST_ADMIN, type Headers } from '../support/traders';

const createTenant = (t: TestApp, headers: Headers, name = `Tenant ${hex32().slice(0, 6)}`) =>
  t.app.inject({ method: 'POST', url: '/api/v1/tenants', headers, payload: { name } });

describe('tenant creation: self-service with a per-account limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ TENANT_CREATION_LIMIT: '2', ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
  });
  afterAll(async () => t.close());

  it('lets an account create up to the limit, then answers 422 RULE_VIOLATION; a platform admin is not limited', async () => {
    const a = await registerTrader(t);
    expect((await createTenant(t, a)).statusCode).toBe(201);
    expect((await createTenant(t, a)).statusCode).toBe(201);
    const third = await createTenant(t, a);
    expect(third.statusCode).toBe(422);
    expect(third.json()).toMatchObject({ success: false, error: { code: 'RULE_VIOLATION', message: expect.stringContaining('(2)') } });
    // Another account has its own allowance.
    expect((await createTenant(t, await registerTrader(t))).statusCode).toBe(201);
    const admin = await adminHeaders(t);
    for (let i = 0; i < 3; i++) expect((await createTenant(t, admin)).statusCode).toBe(201);
  });

  it('gives the last slot to exactly one of several concurrent creations', async () => {
    const a = await registerTrader(t);
    expect((await createTenant(t, a)).statusCode).toBe(201);
    const racing = await Promise.all(Array.from({ length: 6 }, () => createTenant(t, a)));
    const statuses = racing.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, 422, 422, 422, 422, 422]);
  });
});

describe('tenant creation: TENANT_CREATION=admin-only', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ TENANT_CREATION: 'admin-only', ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
  });
  afterAll(async () => t.close());

  it('refuses ordinary accounts with 403 FORBIDDEN and lets platform admins create tenants', async () => {
    const refused = await createTenant(t, await registerTrader(t));
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('FORBIDDEN');
    expect((await createTenant(t, await adminHeaders(t))).statusCode).toBe(201);
  });

  it('refuses a value of TENANT_CREATION it does not know, at start', async () => {
    await expect(startTestApp({ TENANT_CREATION: 'anyone' })).rejects.toThrow(/TENANT_CREATION/);
  });
});

describe('registration tells nobody which tenants and addresses exist', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  const register = (email: string, tenant_uuid?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/identity/registrations',
      payload: { account_type: 'personal', first_name: 'Ada', last_name: 'Lovelace', email, password: 'Quartz-Lantern-92!', terms: { version: '1', accepted: true }, ...(tenant_uuid ? { tenant_uuid } : {}) },
    });
  /** The receipt's shape: its keys and the type of each value. */
  const shape = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v]));

  it('answers 201 with the same receipt shape for a new account, a taken address, an unknown tenant and a pending registration, and mails only the new account', async () => {
    const owner = await registerTrader(t);
    const tenant: string = (await createTenant(t, owner)).json().tenant_uuid;
    // Its owner opens it to registrations (by default it takes members by invitation only; that case is in
    // identity-tenant-invitations.spec.ts).
    expect((await t.app.inject({ method: 'PUT', url: `/api/v1/tenants/${tenant}/join-policy`, headers: owner, payload: { join_policy: 'OPEN' } })).statusCode).toBe(200);
    const hasher = t.app.get(IdentityCrypto).passwords;
    const hashes = jest.spyOn(hasher, 'hash');

    const fresh = `fresh.${hex32().slice(0, 8)}@example.com`;
    const active = `active.${hex32().slice(0, 8)}@example.com`;
    await register(active);
    const [{ token }] = await readMailbox(t.config.dataDir, active);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/identity/activations', payload: { token } })).statusCode).toBe(200);
    const cases: Array<{ name: string; email: string; tenant?: string; mails: number }> = [
      { name: 'a new account in an existing tenant', email: fresh, tenant, mails: 1 },
      { name: 'the same address again while its activation is pending', email: fresh, tenant, mails: 0 },
      { name: 'an address with an active account', email: active, mails: 0 },
      { name: 'an address with an active account, in a tenant that does not exist', email: active, tenant: hex32(), mails: 0 },
      { name: 'a new address in a tenant that does not exist', email: `ghost.${hex32().slice(0, 8)}@example.com`, tenant: hex32(), mails: 0 },
      { name: 'a new address in the global tenant', email: `global.${hex32().slice(0, 8)}@example.com`, mails: 1 },
    ];
    const shapes: Array<Record<string, string>> = [];
    for (const c of cases) {
      const before = (await readMailbox(t.config.dataDir, c.email)).length;
      hashes.mockClear();
      const r = await register(c.email, c.tenant);
      expect({ case: c.name, status: r.statusCode }).toEqual({ case: c.name, status: 201 });
      const body = r.json();
      expect(body).toMatchObject({ status: 'PENDING_ACTIVATION', activation_delivery: 'email', tenant_uuid: c.tenant ?? GLOBAL_TENANT_UUID });
      shapes.push(shape(body));
      // Every case pays for one password hash, the answer's dominant cost: the same timing class.
      expect({ case: c.name, hashes: hashes.mock.calls.length }).toEqual({ case: c.name, hashes: 1 });
      const mails = (await readMailbox(t.config.dataDir, c.email)).length - before;
      expect({ case: c.name, mails }).toEqual({ case: c.name, mails: c.mails });
    }
    for (const s of shapes) expect(s).toEqual(shapes[0]);

    // The unknown tenant's "registration" created nothing: the address is still free for a real one.
    const ghost = cases.find((c) => c.name === 'a new address in a tenant that does not exist')!.email;
    expect((await register(ghost)).statusCode).toBe(201);
    expect(await readMailbox(t.config.dataDir, ghost)).toHaveLength(1);
    hashes.mockRestore();
  });
});
