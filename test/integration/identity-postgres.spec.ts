/** Identity's read models on the real PostgreSQL: migrations apply, and a full sign-up and sign-in works on them. */
import { DataSource } from 'typeorm';
import { readMailbox } from '../../src/modules/identity/delivery';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { startTestApp, type TestApp } from '../support/app';
import { hex32 } from '../support/events';
import { TEST_DATABASE_URL } from '../support/databases';
import { registerTrader } from '../support/traders';

describe('identity on PostgreSQL read models', () => {
  const schema = `t_${hex32().slice(0, 16)}`;
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema });
  });
  afterAll(async () => {
    await t.close();
    const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
    await ds.initialize();
    await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await ds.destroy();
  });

  it('registers, activates, signs in, lists history and revokes on PostgreSQL', async () => {
    const email = `pg-${hex32().slice(0, 8)}@example.com`;
    const password = 'Correct-Horse-Battery-9';
    const reg = await t.app.inject({
      method: 'POST',
      url: '/api/v1/identity/registrations',
      payload: { account_type: 'corporate', company_name: 'Acme', email, password, terms: { version: '1', accepted: true } },
    });
    expect(reg.statusCode).toBe(201);
    const [delivery] = await readMailbox(t.config.dataDir, email);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/identity/activations', payload: { token: delivery.token } })).json().status).toBe('ACTIVE');
    const login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password } });
    expect(login.statusCode).toBe(201);
    const auth = { authorization: `Bearer ${login.json().access_token}` };
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: auth })).json()).toMatchObject({ email, email_verified: true });
    const events = await t.app.inject({ method: 'GET', url: '/api/v1/auth/events', headers: auth });
    expect(events.json().items[0]).toMatchObject({ event_type: 'LOGIN_SUCCEEDED', current_session: true, session_status: 'ACTIVE', last_seen_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const stepUp = await t.app.inject({ method: 'POST', url: '/api/v1/auth/step-up', headers: auth, payload: { purpose: 'ACCOUNT_CLOSURE', password } });
    expect(stepUp.statusCode).toBe(201);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/auth/events', headers: auth })).json().items[0]).toMatchObject({ event_type: 'STEP_UP_ISSUED', authentication_method: 'PASSWORD', purpose: 'ACCOUNT_CLOSURE' });
    const ws = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: auth, payload: { name: 'Desk' } });
    expect(ws.statusCode).toBe(201);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: auth })).json().items).toHaveLength(1);
    // Membership on PostgreSQL: add a second account, page the list, the version column moves.
    const w = ws.json().workspace_id as string;
    const bob = await registerTrader(t);
    const bobProfile = (await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: bob })).json().profile_uuid as string;
    const added = await t.app.inject({ method: 'POST', url: `/api/v1/workspaces/${w}/members`, headers: auth, payload: { profile_uuid: bobProfile, role: 'ADMIN', expected_version: 0 } });
    expect(added.json()).toMatchObject({ role: 'ADMIN', version: 1 });
    const page = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${w}/members?limit=1`, headers: auth });
    expect(page.json()).toMatchObject({ version: 1, items: [{ role: 'OWNER' }], next_cursor: expect.any(String) });
    const rest = await t.app.inject({ method: 'GET', url: `/api/v1/workspaces/${w}/members?limit=1&cursor=${page.json().next_cursor}`, headers: auth });
    expect(rest.json().items).toEqual([expect.objectContaining({ profile_uuid: bobProfile, role: 'ADMIN' })]);
    expect((await t.app.inject({ method: 'POST', url: `/api/v1/workspaces/${w}/leave`, headers: auth, payload: { expected_version: 1 } })).statusCode).toBe(422);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/v1/auth/sessions/${login.json().session_id}`, headers: auth })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: auth })).statusCode).toBe(401);
    const tables: Array<{ table_name: string }> = await t.app.get(ReadModelDatabase).reader.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [schema],
    );
    expect(tables.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['identity_accounts', 'identity_sessions', 'identity_auth_events', 'identity_tenants', 'identity_tenant_authorities', 'identity_workspaces', 'identity_workspace_members']),
    );
  });
});
