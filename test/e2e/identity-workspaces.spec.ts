/**
 * Workspace membership over HTTP (issue 18, item 7): add a member of the tenant, change roles, remove, leave; the
 * last owner stays; every change pinned to the workspace's version; the member list pages; and what a workspace
 * shows (agent wallets, the active workspace, notifications) follows membership and role.
 */
import { startTestApp, type TestApp } from '../support/app';
import { hex32 } from '../support/events';
import { readMailbox } from '../../src/modules/identity/delivery';
import { registerTrader, until, type Headers } from '../support/traders';

interface Person {
  headers: Headers;
  profile_uuid: string;
}

describe('workspace members', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, who: Person, payload?: object) => {
    const r = await t.app.inject({ method, url, headers: who.headers, ...(payload ? { payload } : {}) });
    return { status: r.statusCode, json: r.body ? r.json() : undefined, body: r.body };
  };
  const person = async (): Promise<Person> => {
    const headers = await registerTrader(t);
    const contact = await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers });
    return { headers, profile_uuid: contact.json().profile_uuid };
  };
  const workspaceOf = async (owner: Person): Promise<string> => {
    const r = await call('POST', '/api/v1/workspaces', owner, { name: `Desk ${hex32().slice(0, 4)}` });
    expect(r.status).toBe(201);
    return r.json.workspace_id;
  };
  const members = (w: string, who: Person, query = '') => call('GET', `/api/v1/workspaces/${w}/members${query}`, who);
  const version = async (w: string, who: Person): Promise<number> => (await members(w, who)).json.version;
  const add = async (w: string, actor: Person, target: Person | string, role = 'MEMBER', expected_version?: number) =>
    call('POST', `/api/v1/workspaces/${w}/members`, actor, { profile_uuid: typeof target === 'string' ? target : target.profile_uuid, role, expected_version: expected_version ?? (await version(w, actor)) });
  const withoutRequestId = (body: string) => body.replace(/"request_id":"[^"]*"/, '');

  it('adds a member of the tenant, lists members with the version, changes a role, removes; each change an event with its version', async () => {
    const owner = await person();
    const bob = await person();
    const w = await workspaceOf(owner);
    const listed = await members(w, owner);
    expect(listed).toMatchObject({ status: 200, json: { workspace_id: w, version: 0, items: [{ profile_uuid: owner.profile_uuid, role: 'OWNER', joined_at: expect.any(String) }] } });

    const added = await add(w, owner, bob, 'MEMBER', 0);
    expect(added).toMatchObject({ status: 201, json: { workspace_id: w, profile_uuid: bob.profile_uuid, role: 'MEMBER', status: 'ACTIVE', version: 1 } });
    // Bob now sees the workspace among his own, with his role.
    const bobs = await until(async () => (await call('GET', '/api/v1/workspaces', bob)).json.items as Array<{ workspace_id: string; role: string }>, (items) => items.length > 0);
    expect(bobs).toEqual([expect.objectContaining({ workspace_id: w, role: 'MEMBER' })]);

    const promoted = await call('PATCH', `/api/v1/workspaces/${w}/members/${bob.profile_uuid}`, owner, { role: 'ADMIN', expected_version: 1 });
    expect(promoted).toMatchObject({ status: 200, json: { role: 'ADMIN', version: 2 } });
    expect((await members(w, owner)).json).toMatchObject({ version: 2, items: [{ role: 'OWNER' }, { profile_uuid: bob.profile_uuid, role: 'ADMIN' }] });

    const removed = await call('DELETE', `/api/v1/workspaces/${w}/members/${bob.profile_uuid}?expected_version=2`, owner);
    expect(removed).toMatchObject({ status: 200, json: { profile_uuid: bob.profile_uuid, role: null, status: 'REMOVED', version: 3 } });
    expect((await members(w, owner)).json.items).toHaveLength(1);
    // Removed: the workspace no longer exists for Bob.
    await until(async () => (await members(w, bob)).status, (s) => s === 404);
  });

  it('answers a stale expected_version with 409 VERSION_CONFLICT and the current version, changing nothing', async () => {
    const owner = await person();
    const [bob, carol] = [await person(), await person()];
    const w = await workspaceOf(owner);
    expect((await add(w, owner, bob, 'MEMBER', 0)).status).toBe(201);
    const stale = await add(w, owner, carol, 'MEMBER', 0);
    expect(stale.status).toBe(409);
    expect(stale.json.error).toMatchObject({ code: 'VERSION_CONFLICT', current_version: 1 });
    expect((await members(w, owner)).json.items).toHaveLength(2);
  });

  it('keeps the last owner: it can neither leave nor be demoted or removed (422); with a second owner it may leave', async () => {
    const owner = await person();
    const bob = await person();
    const w = await workspaceOf(owner);
    const leave = await call('POST', `/api/v1/workspaces/${w}/leave`, owner, { expected_version: 0 });
    expect(leave.status).toBe(422);
    expect(leave.json.error.code).toBe('RULE_VIOLATION');
    expect((await call('PATCH', `/api/v1/workspaces/${w}/members/${owner.profile_uuid}`, owner, { role: 'ADMIN', expected_version: 0 })).status).toBe(422);
    expect((await call('DELETE', `/api/v1/workspaces/${w}/members/${owner.profile_uuid}?expected_version=0`, owner)).status).toBe(422);

    expect((await add(w, owner, bob, 'OWNER', 0)).status).toBe(201);
    const left = await call('POST', `/api/v1/workspaces/${w}/leave`, owner, { expected_version: 1 });
    expect(left).toMatchObject({ status: 200, json: { profile_uuid: owner.profile_uuid, status: 'LEFT', role: null, version: 2 } });
    expect((await members(w, owner)).status).toBe(404);
    const remaining = await until(async () => (await members(w, bob)).json, (j) => j?.version === 2);
    expect(remaining.items).toEqual([expect.objectContaining({ profile_uuid: bob.profile_uuid, role: 'OWNER' })]);
  });

  it('answers a profile of another tenant and a profile that does not exist with the same 404, byte for byte', async () => {
    const owner = await person();
    const w = await workspaceOf(owner);
    // A tenant of someone else, and an account registered into it.
    const founder = await person();
    const tenant = (await call('POST', '/api/v1/tenants', founder, { name: `Other ${hex32().slice(0, 4)}` })).json.tenant_uuid as string;
    // Its owner opens it to registrations (by default it takes members by invitation only).
    expect((await call('PUT', `/api/v1/tenants/${tenant}/join-policy`, founder, { join_policy: 'OPEN' })).status).toBe(200);
    const email = `foreign-${hex32().slice(0, 8)}@example.com`;
    await t.app.inject({ method: 'POST', url: '/api/v1/identity/registrations', payload: { account_type: 'personal', first_name: 'F', last_name: 'R', email, password: 'Trader-Password-2026', tenant_uuid: tenant, terms: { version: '1', accepted: true } } });
    const [mail] = await readMailbox(t.config.dataDir, email);
    await t.app.inject({ method: 'POST', url: '/api/v1/identity/activations', payload: { token: mail.token } });
    const login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password: 'Trader-Password-2026' } });
    const foreignHeaders = { authorization: `Bearer ${login.json().access_token}` };
    const foreigner = (await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: foreignHeaders })).json().profile_uuid as string;

    const foreign = await add(w, owner, foreigner, 'MEMBER', 0);
    const unknown = await add(w, owner, hex32(), 'MEMBER', 0);
    expect(foreign.status).toBe(404);
    expect(withoutRequestId(foreign.body)).toBe(withoutRequestId(unknown.body));
    expect((await members(w, owner)).json).toMatchObject({ version: 0, items: [{ profile_uuid: owner.profile_uuid }] });
  });

  it('gives someone outside the workspace 404 on every route, never its version; a MEMBER 403 on changes', async () => {
    const owner = await person();
    const [member, outsider] = [await person(), await person()];
    const w = await workspaceOf(owner);
    expect((await add(w, owner, member, 'MEMBER', 0)).status).toBe(201);
    const missing = hex32();
    for (const id of [w, missing]) {
      expect((await members(id, outsider)).status).toBe(404);
      expect((await call('POST', `/api/v1/workspaces/${id}/members`, outsider, { profile_uuid: outsider.profile_uuid, role: 'OWNER', expected_version: 99 })).status).toBe(404);
      expect((await call('PATCH', `/api/v1/workspaces/${id}/members/${owner.profile_uuid}`, outsider, { role: 'MEMBER', expected_version: 99 })).status).toBe(404);
      expect((await call('DELETE', `/api/v1/workspaces/${id}/members/${owner.profile_uuid}?expected_version=99`, outsider)).status).toBe(404);
      expect((await call('POST', `/api/v1/workspaces/${id}/leave`, outsider, { expected_version: 99 })).status).toBe(404);
    }
    const seen = await until(async () => (await members(w, member)).status, (s) => s === 200);
    expect(seen).toBe(200);
    expect((await call('PATCH', `/api/v1/workspaces/${w}/members/${owner.profile_uuid}`, member, { role: 'MEMBER', expected_version: 1 })).status).toBe(403);
    expect((await call('POST', `/api/v1/workspaces/${w}/members`, member, { profile_uuid: outsider.profile_uuid, role: 'MEMBER', expected_version: 1 })).status).toBe(403);
    // A member may leave.
    expect((await call('POST', `/api/v1/workspaces/${w}/leave`, member, { expected_version: 1 })).json).toMatchObject({ status: 'LEFT', version: 2 });
  });

  it('validates bodies: unknown role, missing expected_version, extra fields, malformed ids', async () => {
    const owner = await person();
    const w = await workspaceOf(owner);
    const bad = [
      await call('POST', `/api/v1/workspaces/${w}/members`, owner, { profile_uuid: owner.profile_uuid, role: 'KING', expected_version: 0 }),
      await call('POST', `/api/v1/workspaces/${w}/members`, owner, { profile_uuid: owner.profile_uuid, role: 'MEMBER' }),
      await call('POST', `/api/v1/workspaces/${w}/members`, owner, { profile_uuid: owner.profile_uuid, role: 'MEMBER', expected_version: 0, extra: 1 }),
      await call('POST', `/api/v1/workspaces/NOT-AN-ID/members`, owner, { profile_uuid: owner.profile_uuid, role: 'MEMBER', expected_version: 0 }),
      await call('DELETE', `/api/v1/workspaces/${w}/members/${owner.profile_uuid}?expected_version=-1`, owner),
      await call('POST', `/api/v1/workspaces/${w}/leave`, owner, { expected_version: 'zero' }),
    ];
    for (const r of bad) expect(r).toMatchObject({ status: 400, json: { error: { code: 'VALIDATION_FAILED' } } });
  });

  it('pages the member list with a cursor', async () => {
    const owner = await person();
    const w = await workspaceOf(owner);
    for (let i = 0; i < 4; i++) expect((await add(w, owner, await person(), 'MEMBER')).status).toBe(201);
    const first = await members(w, owner, '?limit=2');
    expect(first.json.items).toHaveLength(2);
    const second = await members(w, owner, `?limit=2&cursor=${first.json.next_cursor}`);
    const third = await members(w, owner, `?limit=2&cursor=${second.json.next_cursor}`);
    expect(third.json.next_cursor).toBeUndefined();
    const all = [...first.json.items, ...second.json.items, ...third.json.items].map((m: { profile_uuid: string }) => m.profile_uuid);
    expect(new Set(all).size).toBe(5);
    expect(all[0]).toBe(owner.profile_uuid);
    expect((await members(w, owner, '?cursor=garbage!')).status).toBe(400);
  });

  it('makes workspace-scoped data follow membership: wallets, the active workspace, notifications', async () => {
    const owner = await person();
    const bob = await person();
    const w = await workspaceOf(owner);
    const bindings = (who: Person) => call('GET', `/api/v1/ai-wallets/bindings?workspace_uuid=${w}`, who);
    expect((await bindings(bob)).status).toBe(404);
    expect((await add(w, owner, bob, 'MEMBER', 0)).status).toBe(201);
    expect(await until(async () => (await bindings(bob)).status, (s) => s === 200)).toBe(200);
    expect((await call('POST', '/api/v1/workspaces/active', bob, { workspace_id: w })).status).toBe(200);
    expect((await call('GET', '/api/v1/workspaces/active', bob)).json.workspace).toMatchObject({ workspace_id: w, role: 'MEMBER' });
    // Told about it in the inbox.
    const inbox = await until(async () => (await call('GET', '/api/v1/notifications', bob)).json, (j) => JSON.stringify(j ?? {}).includes('WORKSPACE_MEMBER_ADDED'));
    expect(JSON.stringify(inbox)).toContain(w);

    expect((await call('DELETE', `/api/v1/workspaces/${w}/members/${bob.profile_uuid}?expected_version=1`, owner)).status).toBe(200);
    expect(await until(async () => (await bindings(bob)).status, (s) => s === 404)).toBe(404);
    expect((await call('GET', '/api/v1/workspaces/active', bob)).json).toEqual({ workspace: null });
  });
});
