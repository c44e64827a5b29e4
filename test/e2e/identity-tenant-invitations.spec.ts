/**
 * Who joins a tenant (identity issue item 2) over HTTP: a tenant takes members by invitation unless its owner opens
 * it. Knowing a tenant_uuid is no longer enough: an uninvited registration answers exactly like one into a tenant that
 * does not exist and creates nothing; an invitation (its token from the mailbox) is spent once by a registration of the
 * invited address; a revoked one cannot be spent and its address is erased; OPEN keeps the old behaviour; only the
 * owner (policy) and tenant admins (invitations) decide. The invitations' read model on SQLite and on PostgreSQL.
 */
import { createHash } from 'node:crypto';
import { readMailbox } from '../../src/modules/identity/delivery';
import { AccountClosureSweep } from '../../src/modules/identity/closure-sweep';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { memoryApi, M, type Person } from '../support/agentic-memory';
import { startTestApp, type TestApp } from '../support/app';
import { suiteSchema } from '../support/databases';
import { hex32 } from '../support/events';
import { adminHeaders, registerTrader, TEST_ADMIN, type Headers } from '../support/traders';

const PASSWORD = 'Invited-Password-2026';
const sha256 = (v: string): string => createHash('sha256').update(v, 'utf8').digest('hex');
const email = (tag: string): string => `${tag}.${hex32().slice(0, 8)}@example.com`;

function invitationSuite(database: 'SQLite' | 'PostgreSQL'): void {
  describe(`tenant invitations and join policy (${database} read models)`, () => {
    let t: TestApp;
    const pg = database === 'PostgreSQL' ? suiteSchema() : null;
    const { call, createCollection } = memoryApi(() => t);
    let founder: Headers;
    let founderProfile: string;
    let tenant: string;

    beforeAll(async () => {
      t = await startTestApp({ ...(pg ? pg.env() : {}), ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, ACCOUNT_CLOSURE_GRACE_SECONDS: '0' });
      founder = await registerTrader(t);
      founderProfile = (await call('GET', '/api/v1/identity/contact', founder)).json.profile_uuid;
      const created = await call('POST', '/api/v1/tenants', founder, { name: `Invite Co ${hex32().slice(0, 4)}` });
      expect(created.status).toBe(201);
      tenant = created.json.tenant_uuid;
    });
    afterAll(async () => {
      await t?.close();
      await pg?.drop();
    });

    const register = (address: string, extra: Record<string, unknown> = {}) =>
      call('POST', '/api/v1/identity/registrations', {}, { account_type: 'personal', first_name: 'I', last_name: 'N', email: address, password: PASSWORD, terms: { version: '1', accepted: true }, ...extra });
    const mails = (address: string) => readMailbox(t.config.dataDir, address);
    const signIn = (address: string) => call('POST', '/api/v1/auth/sessions', {}, { email: address, password: PASSWORD });
    const invite = (headers: Headers, address: string, extraHeaders: Record<string, string> = {}, into = tenant) => call('POST', `/api/v1/tenants/${into}/invitations`, { ...headers, ...extraHeaders }, { email: address });
    const list = (headers: Headers, query = '') => call('GET', `/api/v1/tenants/${tenant}/invitations${query}`, headers);
    const setPolicy = (headers: Headers, join_policy: string, into = tenant) => call('PUT', `/api/v1/tenants/${into}/join-policy`, headers, { join_policy });
    /** The invitation token mailed to an address (the last one). */
    const invitationToken = async (address: string): Promise<string> => {
      const invitations = (await mails(address)).filter((d) => d.kind === 'TENANT_INVITATION');
      expect(invitations.length).toBeGreaterThan(0);
      const last = invitations[invitations.length - 1];
      expect(last).toMatchObject({ to: address, channel: 'email', tenant_uuid: tenant, token: expect.stringMatching(/^hcti_[A-Za-z0-9_-]{43}$/) });
      return last.token;
    };
    /** Registers with an invitation, activates from the mailbox, signs in: a member of the tenant. */
    async function join(address: string, token: string): Promise<Person & { tenant_uuid: string }> {
      expect((await register(address, { tenant_uuid: tenant, invitation_token: token })).status).toBe(201);
      const activation = (await mails(address)).find((d) => d.kind === 'ACCOUNT_ACTIVATION');
      expect(activation).toBeDefined();
      const activated = await call('POST', '/api/v1/identity/activations', {}, { token: activation!.token });
      expect(activated.json).toMatchObject({ status: 'ACTIVE', tenant_uuid: tenant });
      const session = await signIn(address);
      expect(session.status).toBe(201);
      const headers = { authorization: `Bearer ${session.json.access_token}` };
      const profile_uuid = (await call('GET', '/api/v1/identity/contact', headers)).json.profile_uuid;
      const ws = await call('POST', '/api/v1/workspaces', headers, { name: 'Desk' });
      expect(ws.status).toBe(201);
      return { headers, profile_uuid, workspace: ws.json.workspace_id, tenant_uuid: tenant };
    }
    const shape = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v]));

    let alice: Person;
    let openCollection: string;

    it('a new tenant takes members by invitation; an uninvited registration answers like an unknown tenant, delivers nothing and creates no member', async () => {
      expect((await call('GET', `/api/v1/tenants/${tenant}/join-policy`, founder)).json).toEqual({ tenant_uuid: tenant, join_policy: 'INVITATION' });
      const uninvited = email('mallory');
      const intoTenant = await register(uninvited, { tenant_uuid: tenant });
      const ghost = email('ghost');
      const intoNowhere = await register(ghost, { tenant_uuid: hex32() });
      expect([intoTenant.status, intoNowhere.status]).toEqual([201, 201]);
      expect(intoTenant.json).toMatchObject({ status: 'PENDING_ACTIVATION', activation_delivery: 'email', tenant_uuid: tenant });
      expect(shape(intoTenant.json)).toEqual(shape(intoNowhere.json));
      expect(Object.keys(intoTenant.json)).toEqual(Object.keys(intoNowhere.json));
      // A made-up token answers the same too.
      const guessed = await register(email('guess'), { tenant_uuid: tenant, invitation_token: `hcti_${'A'.repeat(43)}` });
      expect(shape(guessed.json)).toEqual(shape(intoNowhere.json));
      // Nothing delivered, nobody to sign in as, no account holds the address.
      expect(await mails(uninvited)).toEqual([]);
      expect((await signIn(uninvited)).status).toBe(401);
      const accounts = await t.app.get(ReadModelDatabase).reader.query(t.app.get(ReadModelDatabase).sql('SELECT count(*) AS n FROM identity_accounts WHERE tenant_uuid = ?'), [tenant]);
      expect(Number(accounts[0].n)).toBe(0);
      // The address is still free: its owner can register it elsewhere.
      expect((await register(uninvited)).status).toBe(201);
      expect((await mails(uninvited)).map((d) => d.kind)).toEqual(['ACCOUNT_ACTIVATION']);
    });

    it('the owner invites an address; the token is mailed (only its hash is in the log), and a registration of that address carrying it joins', async () => {
      const address = email('alice');
      const r = await invite(founder, address);
      expect(r.status).toBe(201);
      expect(r.json).toEqual({
        invitation_uuid: expect.stringMatching(/^[0-9a-f]{32}$/), tenant_uuid: tenant, email: address, status: 'PENDING', invited_by_profile_uuid: founderProfile,
        created_at: expect.any(String), expires_at: expect.any(String), accepted_profile_uuid: null, accepted_at: null, revoked_at: null,
      });
      expect(Date.parse(r.json.expires_at) - Date.parse(r.json.created_at)).toBe(7 * 24 * 3600 * 1000);
      const token = await invitationToken(address);
      expect(JSON.stringify(r.json)).not.toContain(token);
      // The log holds the token's hash, sealed; the token itself nowhere.
      const events = await t.app.get<EventStore>(EVENT_STORE).readStream(`identity-tenant-${tenant}`);
      const issued = events.find((e) => e.type === 'TenantInvitationIssued' && e.data.invitation_uuid === r.json.invitation_uuid)!;
      expect(issued.data).toMatchObject({ email: address, token_hash: sha256(token) });
      const raw = JSON.stringify(await t.app.get<EventStore>(RAW_EVENT_STORE).readStream(`identity-tenant-${tenant}`), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
      expect(raw).not.toContain(token);
      expect(raw).not.toContain(address);
      expect(raw).not.toContain(sha256(token));

      // Someone else's address with alice's token: uninvited (the invitation is for her address), and it stays usable.
      const eve = email('eve');
      expect((await register(eve, { tenant_uuid: tenant, invitation_token: token })).status).toBe(201);
      expect(await mails(eve)).toEqual([]);

      alice = await join(address, token);
      const [row] = (await list(founder)).json.items.filter((i: { invitation_uuid: string }) => i.invitation_uuid === r.json.invitation_uuid);
      expect(row).toMatchObject({ status: 'ACCEPTED', accepted_profile_uuid: alice.profile_uuid, accepted_at: expect.any(String), email: address });
      // Alice is a member: the owner may give her authority, and her workspace is in the tenant.
      expect((await call('GET', '/api/v1/workspaces', alice.headers)).json.items[0]).toMatchObject({ tenant_uuid: tenant });
      openCollection = (await createCollection(alice, { slug: `open-${hex32().slice(0, 6)}`, access_mode: 'OPEN', discovery_mode: 'LISTED' })).collection_uuid;
    });

    it('a token is one-use: spent, it admits nobody else', async () => {
      const address = email('once');
      const r = await invite(founder, address);
      const token = await invitationToken(address);
      await join(address, token);
      // The same token again, with another address (the address itself now has an account): nothing happens.
      const second = email('twice');
      const again = await register(second, { tenant_uuid: tenant, invitation_token: token });
      expect(again.status).toBe(201);
      expect(await mails(second)).toEqual([]);
      expect((await signIn(second)).status).toBe(401);
      const accepted = (await t.app.get<EventStore>(EVENT_STORE).readStream(`identity-tenant-${tenant}`)).filter((e) => e.type === 'TenantInvitationAccepted' && e.data.invitation_uuid === r.json.invitation_uuid);
      expect(accepted).toHaveLength(1);
    });

    it('a revoked invitation cannot be spent, and the address it was sent to is erased', async () => {
      const address = email('bob');
      const r = await invite(founder, address);
      const token = await invitationToken(address);
      const url = `/api/v1/tenants/${tenant}/invitations/${r.json.invitation_uuid}/revoke`;
      const revoked = await call('POST', url, founder, {});
      expect(revoked.status).toBe(200);
      expect(revoked.json).toMatchObject({ invitation_uuid: r.json.invitation_uuid, status: 'REVOKED', email: '[erased]', revoked_at: expect.any(String) });
      // Again: the same answer, nothing new.
      const twice = await call('POST', url, founder, {});
      expect([twice.status, twice.json.status, twice.json.revoked_at]).toEqual([200, 'REVOKED', revoked.json.revoked_at]);

      expect((await register(address, { tenant_uuid: tenant, invitation_token: token })).status).toBe(201);
      expect((await mails(address)).map((d) => d.kind)).toEqual(['TENANT_INVITATION']);
      expect((await signIn(address)).status).toBe(401);
      const [row] = (await list(founder)).json.items.filter((i: { invitation_uuid: string }) => i.invitation_uuid === r.json.invitation_uuid);
      expect(row).toMatchObject({ status: 'REVOKED', email: '[erased]', accepted_profile_uuid: null });
      // The log's copy of the address no longer opens (its key was destroyed).
      const issued = (await t.app.get<EventStore>(EVENT_STORE).readStream(`identity-tenant-${tenant}`)).find((e) => e.type === 'TenantInvitationIssued' && e.data.invitation_uuid === r.json.invitation_uuid)!;
      expect(issued.data.email).toBe('[erased]');
      // An accepted invitation is not revoked: the person is a member.
      const accepted = (await list(founder)).json.items.find((i: { status: string }) => i.status === 'ACCEPTED');
      expect((await call('POST', `/api/v1/tenants/${tenant}/invitations/${accepted.invitation_uuid}/revoke`, founder, {})).status).toBe(409);
      expect((await call('POST', `/api/v1/tenants/${tenant}/invitations/${hex32()}/revoke`, founder, {})).status).toBe(404);
    });

    it('an invited member reads the tenant\'s OPEN collection; the uninvited never got an account to read it with', async () => {
      const address = email('reader');
      await invite(founder, address);
      const reader = await join(address, await invitationToken(address));
      expect((await call('GET', `${M}/collections/${openCollection}`, reader.headers)).status).toBe(200);
      const uninvited = email('lurker');
      expect((await register(uninvited, { tenant_uuid: tenant })).status).toBe(201);
      expect((await signIn(uninvited)).status).toBe(401);
    });

    it('OPEN, chosen by the owner, keeps the old behaviour; back to INVITATION closes it again', async () => {
      const opened = await setPolicy(founder, 'OPEN');
      expect(opened.status).toBe(200);
      expect(opened.json).toEqual({ tenant_uuid: tenant, join_policy: 'OPEN', version: expect.any(Number) });
      expect((await setPolicy(founder, 'OPEN')).json).toEqual(opened.json);
      const walkIn = email('walkin');
      expect((await register(walkIn, { tenant_uuid: tenant })).status).toBe(201);
      const [activation] = await mails(walkIn);
      expect((await call('POST', '/api/v1/identity/activations', {}, { token: activation.token })).json).toMatchObject({ status: 'ACTIVE', tenant_uuid: tenant });
      expect((await call('GET', `/api/v1/tenants/${tenant}/join-policy`, founder)).json.join_policy).toBe('OPEN');

      expect((await setPolicy(founder, 'INVITATION')).json).toMatchObject({ join_policy: 'INVITATION', version: opened.json.version + 1 });
      const late = email('late');
      expect((await register(late, { tenant_uuid: tenant })).status).toBe(201);
      expect(await mails(late)).toEqual([]);
    });

    it('only the owner sets the policy and only the owner or a tenant admin invites, lists and revokes: 401 anonymous, 403 members, 404 outsiders', async () => {
      const anonymous = {};
      expect((await invite(anonymous, email('x'))).status).toBe(401);
      expect((await setPolicy(anonymous, 'OPEN')).status).toBe(401);
      expect((await list(anonymous)).status).toBe(401);
      expect((await call('GET', `/api/v1/tenants/${tenant}/join-policy`, anonymous)).status).toBe(401);

      // Alice is a plain member: told no.
      for (const r of [await invite(alice.headers, email('x')), await setPolicy(alice.headers, 'OPEN'), await list(alice.headers)]) {
        expect([r.status, r.json.error.code]).toEqual([403, 'FORBIDDEN']);
      }
      expect((await call('GET', `/api/v1/tenants/${tenant}/join-policy`, alice.headers)).json.join_policy).toBe('INVITATION');
      // Someone of another tenant: the tenant does not exist for them.
      const outsider = await registerTrader(t);
      for (const r of [await invite(outsider, email('x')), await setPolicy(outsider, 'OPEN'), await list(outsider), await call('GET', `/api/v1/tenants/${tenant}/join-policy`, outsider)]) {
        expect([r.status, r.json.error.code]).toEqual([404, 'NOT_FOUND']);
      }
      const someInvitation = (await list(founder)).json.items[0].invitation_uuid;
      expect((await call('POST', `/api/v1/tenants/${tenant}/invitations/${someInvitation}/revoke`, outsider, {})).status).toBe(404);
      expect((await call('POST', `/api/v1/tenants/${tenant}/invitations/${someInvitation}/revoke`, alice.headers, {})).status).toBe(403);

      // Made a tenant admin, alice invites, lists and revokes, but the policy stays the owner's.
      expect((await call('POST', `/api/v1/tenants/${tenant}/authorities`, founder, { profile_uuid: alice.profile_uuid, role_code: 'TENANT_ADMIN', reason: 'Runs onboarding' })).status).toBe(201);
      const byAdmin = await invite(alice.headers, email('colleague'));
      expect([byAdmin.status, byAdmin.json.invited_by_profile_uuid]).toEqual([201, alice.profile_uuid]);
      expect((await list(alice.headers)).status).toBe(200);
      expect((await call('POST', `/api/v1/tenants/${tenant}/invitations/${byAdmin.json.invitation_uuid}/revoke`, alice.headers, {})).status).toBe(200);
      expect((await setPolicy(alice.headers, 'OPEN')).status).toBe(403);

      // An invitation takes only the address: an unknown field is refused, naming it (nothing is sent).
      const extra = await call('POST', `/api/v1/tenants/${tenant}/invitations`, founder, { email: email('extra'), role: 'TENANT_ADMIN' });
      expect([extra.status, extra.json.error.code, extra.json.error.details]).toEqual([400, 'VALIDATION_FAILED', [{ field: 'role', issue: expect.stringContaining('unknown field') }]]);

      // The global tenant is open to all: no policy, no invitations.
      const admin = await adminHeaders(t);
      expect((await setPolicy(admin, 'INVITATION', '0'.repeat(32))).status).toBe(422);
      expect((await invite(admin, email('x'), {}, '0'.repeat(32))).status).toBe(422);
    });

    it('answers bad input with 400 and replays an invitation under its Idempotency-Key (one mail)', async () => {
      expect((await invite(founder, 'not-an-address')).json.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'email' })] });
      expect((await setPolicy(founder, 'CLOSED')).json.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'join_policy' })] });
      expect((await call('PUT', `/api/v1/tenants/${tenant}/join-policy`, founder, { join_policy: 'OPEN', extra: 1 })).status).toBe(400);
      expect((await call('POST', `/api/v1/tenants/not-a-tenant/invitations`, founder, { email: email('x') })).status).toBe(400);
      expect((await register(email('x'), { tenant_uuid: tenant, invitation_token: 'hcti_short' })).json.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'invitation_token' })] });
      expect((await list(founder, '?limit=0')).status).toBe(400);
      expect((await list(founder, '?cursor=%21')).status).toBe(400);

      const address = email('retry');
      const key = { 'idempotency-key': `invite-${hex32()}` };
      const first = await invite(founder, address, key);
      const replay = await invite(founder, address, key);
      expect([first.status, replay.status, replay.headers['idempotent-replay']]).toEqual([201, 201, 'true']);
      expect(replay.json).toEqual(first.json);
      expect((await mails(address)).filter((d) => d.kind === 'TENANT_INVITATION')).toHaveLength(1);
      expect((await call('POST', `/api/v1/tenants/${tenant}/invitations`, { ...founder, ...key }, { email: email('other') })).status).toBe(409);
    });

    it('pages the invitations newest first with limit and next_cursor, each exactly once', async () => {
      const all = (await list(founder, '?limit=200')).json.items as Array<{ invitation_uuid: string; created_at: string }>;
      expect(all.length).toBeGreaterThanOrEqual(6);
      const times = all.map((i) => i.created_at);
      expect([...times].sort().reverse()).toEqual(times);
      const walked: string[] = [];
      let cursor: string | undefined;
      do {
        const page = (await list(founder, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json;
        expect(page.items.length).toBeLessThanOrEqual(2);
        walked.push(...page.items.map((i: { invitation_uuid: string }) => i.invitation_uuid));
        cursor = page.next_cursor;
      } while (cursor);
      expect(walked).toEqual(all.map((i) => i.invitation_uuid));
    });

    it('erasing the account that accepted an invitation erases the invited address too', async () => {
      const address = email('leaver');
      const r = await invite(founder, address);
      const leaver = await join(address, await invitationToken(address));
      const stepUp = async (headers: Headers, purpose: string, password: string) => (await call('POST', '/api/v1/auth/step-up', headers, { purpose, password })).json.step_up_token;
      expect((await call('POST', '/api/v1/identity/closure', leaver.headers, { current_password: PASSWORD, step_up_token: await stepUp(leaver.headers, 'ACCOUNT_CLOSURE', PASSWORD) })).status).toBe(202);
      const runner = t.app.get(ProjectionRunner);
      expect(await runner.waitFor(await t.app.get<EventStore>(EVENT_STORE).headPosition(), undefined, 10_000)).toBe(true);
      expect(await t.app.get(AccountClosureSweep).completeDueClosures(new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(1);
      const admin = await adminHeaders(t);
      const erased = await call('POST', `/api/v1/identity/admin/accounts/${leaver.profile_uuid}/erasure`, admin, { step_up_token: await stepUp(admin, 'ACCOUNT_ERASURE', TEST_ADMIN.password) });
      expect(erased.status).toBe(200);
      expect(erased.json.keys_destroyed).toBeGreaterThanOrEqual(2);
      expect(await runner.waitFor(await t.app.get<EventStore>(EVENT_STORE).headPosition(), undefined, 10_000)).toBe(true);
      const [row] = (await list(founder, '?limit=200')).json.items.filter((i: { invitation_uuid: string }) => i.invitation_uuid === r.json.invitation_uuid);
      expect(row).toMatchObject({ status: 'ACCEPTED', email: '[erased]', accepted_profile_uuid: leaver.profile_uuid });
      const issued = (await t.app.get<EventStore>(EVENT_STORE).readStream(`identity-tenant-${tenant}`)).find((e) => e.type === 'TenantInvitationIssued' && e.data.invitation_uuid === r.json.invitation_uuid)!;
      expect(issued.data.email).toBe('[erased]');
    });
  });
}

invitationSuite('SQLite');
invitationSuite('PostgreSQL');
