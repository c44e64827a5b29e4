/**
 * Identity end to end over HTTP (issue 3; PLATFORM.md sections 4-6; seeds 001 "Identity and accounts", 000
 * "Authentication" and "Limits"): authenticator enrollment and disable, step-up, contact change, account closure,
 * tenants and workspaces, the admin bootstrap and the authentication profiles. Accounts are registered, activated
 * (token read from the file mailbox) and logged in over HTTP; TOTP codes are computed from the returned secret.
 *
 * Each test account talks from its own client address, so the per-address login throttle of one flow never
 * spills into another.
 */
import { createHash } from 'node:crypto';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { CommandExecutor } from '../../src/platform/command/command-executor';
import { readMailbox } from '../../src/modules/identity/delivery';
import { totpCode } from '../../src/modules/identity/security/totp';
import { AccountClosureSweep } from '../../src/modules/identity/closure-sweep';
import { accountDecider } from '../../src/modules/identity/domain/account';
import { accountStream, GLOBAL_TENANT_UUID } from '../../src/modules/identity/domain/identity.constants';
import { closureView } from '../../src/modules/identity/commands/account-lifecycle.commands';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { leaseHeldElsewhere } from '../support/leases';
import { startTestApp, type TestApp } from '../support/app';

const HEX32 = /^[0-9a-f]{32}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const BASE32 = /^[A-Z2-7]+=*$/;
const PASSWORD = 'Quartz-Lantern-92!';
const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';

let seq = 0;
const run = Date.now().toString(36);
const uniqueEmail = (tag: string): string => `${tag}.${run}.${++seq}@example.com`;
let ipSeq = 0;
const nextIp = (): string => `10.9.${Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;

/** A six-digit code that is none of the codes valid at the current, previous or next step. */
function wrongCode(secret: string): string {
  const now = Date.now();
  const valid = new Set([-1, 0, 1, 2].map((d) => totpCode(secret, now + d * 30_000)));
  for (let n = 123456; ; n = (n + 7919) % 1_000_000) {
    const c = String(n).padStart(6, '0');
    if (!valid.has(c)) return c;
  }
}

function expectEnvelope(body: unknown, code: string): void {
  expect(body).toMatchObject({ success: false, error: { code, message: expect.any(String), request_id: expect.any(String), retryable: expect.any(Boolean), details: expect.any(Array) } });
}

interface Session {
  token: string;
  session_id: string;
}

interface Account extends Session {
  email: string;
  password: string;
  profile_uuid: string;
  tenant_uuid: string;
  ip: string;
}

/** HTTP helpers bound to one running app, plus every secret seen (checked against the event store at the end). */
function client(t: TestApp) {
  const secrets = new Set<string>();
  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, opts: { payload?: unknown; token?: string; ip?: string; headers?: Record<string, string> } = {}) =>
    t.app.inject({
      method,
      url,
      payload: opts.payload as object,
      remoteAddress: opts.ip ?? '10.255.255.254',
      headers: { 'user-agent': UA, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.headers ?? {}) },
    });
  const post = (url: string, payload: unknown, token?: string, ip?: string, headers?: Record<string, string>) => inject('POST', url, { payload, token, ip, headers });
  const get = (url: string, token?: string, ip?: string) => inject('GET', url, { token, ip });
  const put = (url: string, payload: unknown, token?: string, ip?: string) => inject('PUT', url, { payload, token, ip });

  const registration = (email: string, password = PASSWORD, extra: Record<string, unknown> = {}) => ({
    account_type: 'personal',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email,
    password,
    terms: { version: '2026-01', accepted: true },
    ...extra,
  });

  async function lastToken(recipient: string, kind: string): Promise<{ to: string; channel: string; kind: string; token: string; created: string }> {
    const box = (await readMailbox(t.config.dataDir, recipient)).filter((d) => d.kind === kind);
    expect(box.length).toBeGreaterThan(0);
    const entry = box[box.length - 1];
    secrets.add(entry.token);
    return entry;
  }

  async function login(email: string, password: string, ip: string, totp_code?: string): Promise<Session> {
    const r = await post('/api/v1/auth/sessions', { email, password, ...(totp_code !== undefined ? { totp_code } : {}) }, undefined, ip);
    expect(r.statusCode).toBe(201);
    const body = r.json();
    expect(body).toEqual({ access_token: expect.stringMatching(/^hcs_/), token_type: 'Bearer', expires_in: expect.any(Number), session_id: expect.stringMatching(HEX32) });
    secrets.add(body.access_token);
    return { token: body.access_token, session_id: body.session_id };
  }

  /** Register, activate with the mailbox token, log in; answers the account with its first session. */
  async function newAccount(tag: string, opts: { tenant_uuid?: string; password?: string } = {}): Promise<Account> {
    const email = uniqueEmail(tag);
    const password = opts.password ?? PASSWORD;
    secrets.add(password);
    const ip = nextIp();
    const reg = await post('/api/v1/identity/registrations', registration(email, password, opts.tenant_uuid ? { tenant_uuid: opts.tenant_uuid } : {}), undefined, ip);
    expect(reg.statusCode).toBe(201);
    expect(reg.json()).toMatchObject({ status: 'PENDING_ACTIVATION', tenant_uuid: opts.tenant_uuid ?? GLOBAL_TENANT_UUID });
    const { token } = await lastToken(email, 'ACCOUNT_ACTIVATION');
    expect(token).toMatch(/^hcat_/);
    const act = await post('/api/v1/identity/activations', { token }, undefined, ip);
    expect(act.statusCode).toBe(200);
    expect(act.json()).toMatchObject({ status: 'ACTIVE' });
    const session = await login(email, password, ip);
    const contact = await get('/api/v1/identity/contact', session.token, ip);
    expect(contact.statusCode).toBe(200);
    return { email, password, ip, ...session, profile_uuid: contact.json().profile_uuid, tenant_uuid: opts.tenant_uuid ?? GLOBAL_TENANT_UUID };
  }

  /** Starts an enrollment in the account's session and confirms it with the code of the step at atMs. */
  async function enroll(a: Account, atMs = Date.now()): Promise<{ secret: string; recovery_codes: string[] }> {
    const e = await post('/api/v1/identity/authenticator/enrollments', {}, a.token, a.ip);
    expect(e.statusCode).toBe(201);
    const { enrollment_id, secret } = e.json();
    secrets.add(secret);
    const c = await post(`/api/v1/identity/authenticator/enrollments/${enrollment_id}/confirm`, { code: totpCode(secret, atMs) }, a.token, a.ip);
    expect(c.statusCode).toBe(200);
    const recovery_codes: string[] = c.json().recovery_codes;
    recovery_codes.forEach((rc) => secrets.add(rc));
    return { secret, recovery_codes };
  }

  const stepUp = (a: Session & { ip: string }, purpose: string, password: string, totp_code?: string) =>
    post('/api/v1/auth/step-up', { purpose, password, ...(totp_code !== undefined ? { totp_code } : {}) }, a.token, a.ip);

  const events = async (a: Session & { ip: string }): Promise<Array<Record<string, unknown>>> => {
    const r = await get('/api/v1/auth/events?limit=200', a.token, a.ip);
    expect(r.statusCode).toBe(200);
    return r.json().items;
  };

  return { post, get, put, inject, registration, lastToken, login, newAccount, enroll, stepUp, events, secrets };
}

describe('identity security (e2e)', () => {
  let t: TestApp;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await startTestApp();
    c = client(t);
  });
  afterAll(async () => t.close());

  // ------------------------------------------------------------------------------------------------------------
  describe('authenticator enrollment', () => {
    it('enrolls with a session-bound enrollment, issues ten recovery codes, and then requires a fresh code at login', async () => {
      const a = await c.newAccount('totp');
      const other = await c.login(a.email, a.password, a.ip); // a second session, opened before enrollment

      const tooLong = await c.post('/api/v1/identity/authenticator/enrollments', { issuer: 'x'.repeat(65) }, a.token, a.ip);
      expect(tooLong.statusCode).toBe(400);
      expectEnvelope(tooLong.json(), 'VALIDATION_FAILED');
      expect(tooLong.json().error.details.map((d: { field: string }) => d.field)).toContain('issuer');

      const ok64 = await c.post('/api/v1/identity/authenticator/enrollments', { issuer: 'i'.repeat(64), label: 'ada-laptop' }, a.token, a.ip);
      expect(ok64.statusCode).toBe(201);

      const r = await c.post('/api/v1/identity/authenticator/enrollments', { issuer: 'Acme Exchange', label: 'ada@acme' }, a.token, a.ip);
      expect(r.statusCode).toBe(201);
      const enrollment = r.json();
      expect(enrollment).toEqual({
        enrollment_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        secret: expect.stringMatching(BASE32),
        otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\//),
        label: 'ada@acme',
        expires_in: 600,
      });
      expect(enrollment.enrollment_id).toHaveLength(32);
      expect(enrollment.otpauth_uri).toContain(`secret=${enrollment.secret}`);
      expect(enrollment.otpauth_uri).toContain('issuer=Acme');
      c.secrets.add(enrollment.secret);
      const secret: string = enrollment.secret;

      // Defaults: issuer and label are the service name.
      const defaults = await c.post('/api/v1/identity/authenticator/enrollments', {}, other.token, a.ip);
      expect(defaults.statusCode).toBe(201);
      expect(defaults.json().label).toBe('Trading and Account Platform');
      // That started a new enrollment in the other session; start ours again so the latest is bound to `a`.
      const again = await c.post('/api/v1/identity/authenticator/enrollments', { issuer: 'Acme Exchange', label: 'ada@acme' }, a.token, a.ip);
      expect(again.statusCode).toBe(201);
      const { enrollment_id, secret: secret2 } = again.json();
      c.secrets.add(secret2);
      expect(secret2).not.toBe(secret);

      const code = totpCode(secret2, Date.now());
      // Confirming from another session: the enrollment does not exist there.
      const foreign = await c.post(`/api/v1/identity/authenticator/enrollments/${enrollment_id}/confirm`, { code }, other.token, a.ip);
      expect(foreign.statusCode).toBe(404);
      expectEnvelope(foreign.json(), 'NOT_FOUND');

      const wrong = await c.post(`/api/v1/identity/authenticator/enrollments/${enrollment_id}/confirm`, { code: wrongCode(secret2) }, a.token, a.ip);
      expect(wrong.statusCode).toBeGreaterThanOrEqual(400);
      expect(wrong.statusCode).toBeLessThan(500);
      expect(wrong.json().error.details.map((d: { field: string }) => d.field)).toContain('code');

      const malformed = await c.post(`/api/v1/identity/authenticator/enrollments/${enrollment_id}/confirm`, { code: '12345' }, a.token, a.ip);
      expect(malformed.statusCode).toBe(400);
      expectEnvelope(malformed.json(), 'VALIDATION_FAILED');

      const confirmed = await c.post(`/api/v1/identity/authenticator/enrollments/${enrollment_id}/confirm`, { code }, a.token, a.ip);
      expect(confirmed.statusCode).toBe(200);
      const receipt = confirmed.json();
      expect(receipt).toEqual({ status: expect.any(String), recovery_codes: expect.any(Array), warning: expect.any(String) });
      expect(receipt.recovery_codes).toHaveLength(10);
      expect(new Set(receipt.recovery_codes).size).toBe(10);
      receipt.recovery_codes.forEach((rc: string) => {
        expect(typeof rc).toBe('string');
        c.secrets.add(rc);
      });

      // Confirming twice: the enrollment is gone.
      const twice = await c.post(`/api/v1/identity/authenticator/enrollments/${enrollment_id}/confirm`, { code: totpCode(secret2, Date.now() + 30_000) }, a.token, a.ip);
      expect(twice.statusCode).toBeGreaterThanOrEqual(400);
      expect(twice.statusCode).toBeLessThan(500);

      // Login now needs the code.
      const missing = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password }, undefined, a.ip);
      expect(missing.statusCode).toBe(401);
      expectEnvelope(missing.json(), 'UNAUTHENTICATED');
      expect(missing.json().error.details.map((d: { field: string }) => d.field)).toContain('totp_code');

      // The code used for confirmation is spent: replay refused.
      const replay = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password, totp_code: code }, undefined, a.ip);
      expect(replay.statusCode).toBe(401);
      expect(replay.json().error.details.map((d: { field: string }) => d.field)).toContain('totp_code');

      const next = totpCode(secret2, Date.now() + 30_000);
      const fresh = await c.login(a.email, a.password, a.ip, next);
      expect(fresh.token).not.toBe(a.token);
      const replayNext = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password, totp_code: next }, undefined, a.ip);
      expect(replayNext.statusCode).toBe(401);

      // The right password with a wrong code is still a failure (and does not tell which part was wrong beyond totp_code).
      const wrongLogin = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password, totp_code: wrongCode(secret2) }, undefined, a.ip);
      expect(wrongLogin.statusCode).toBe(401);

      // Enrolling a second authenticator while one is active is refused.
      const second = await c.post('/api/v1/identity/authenticator/enrollments', {}, a.token, a.ip);
      expect(second.statusCode).toBe(409);

      const history = await c.events(a);
      const enrolled = history.find((e) => e.event_type === 'TOTP_ENROLLED');
      expect(enrolled).toMatchObject({ event_type: 'TOTP_ENROLLED', outcome: 'SUCCESS', current_session: true });
      expect(history.filter((e) => e.event_type === 'LOGIN_FAILED').length).toBeGreaterThanOrEqual(3);
      const login = history.find((e) => e.event_type === 'LOGIN_SUCCEEDED' && e.authentication_method === 'PASSWORD_TOTP');
      expect(login).toMatchObject({ device: { name: 'Firefox 120', platform: expect.any(String) }, session_status: 'ACTIVE', current_session: false });
    });

    it('needs a bearer token', async () => {
      const r = await c.post('/api/v1/identity/authenticator/enrollments', {});
      expect(r.statusCode).toBe(401);
      expectEnvelope(r.json(), 'UNAUTHENTICATED');
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('authenticator disable', () => {
    it('takes exactly one of recovery_code and step_up_token', async () => {
      const a = await c.newAccount('dis-shape');
      await c.enroll(a);
      for (const body of [{}, { recovery_code: 'aaaa-bbbb-cccc', step_up_token: `hcsu_${'A'.repeat(43)}` }]) {
        const r = await c.post('/api/v1/identity/authenticator/disable', body, a.token, a.ip);
        expect(r.statusCode).toBe(400);
        expectEnvelope(r.json(), 'VALIDATION_FAILED');
      }
      const bad = await c.post('/api/v1/identity/authenticator/disable', { recovery_code: 'zzzz-zzzz-zzzz' }, a.token, a.ip);
      expect(bad.statusCode).toBe(422);
      expect(bad.json().error.details).toEqual([{ field: 'recovery_code', issue: expect.any(String) }]);
    });

    it('disables with a recovery code, revokes every session, and never accepts that code again', async () => {
      const a = await c.newAccount('dis-rc');
      const other = await c.login(a.email, a.password, a.ip);
      const { recovery_codes } = await c.enroll(a);
      const used = recovery_codes[3];

      const r = await c.post('/api/v1/identity/authenticator/disable', { recovery_code: used }, a.token, a.ip);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ status: expect.any(String), sessions_revoked: true });

      // Every interactive session is revoked, the caller's and the other one.
      for (const token of [a.token, other.token]) {
        const after = await c.get('/api/v1/identity/contact', token, a.ip);
        expect(after.statusCode).toBe(401);
        expectEnvelope(after.json(), 'UNAUTHENTICATED');
      }

      // The event of use holds the code's hash only.
      const store: EventStore = t.app.get(EVENT_STORE);
      const stream = await store.readStream(accountStream(a.profile_uuid));
      const use = stream.find((e) => e.type === 'RecoveryCodeUsed');
      expect(use).toBeDefined();
      // Stored keyed (HMAC with the identity key): neither the code nor its plain SHA-256.
      expect((use!.data as { code_hash: string }).code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect((use!.data as { code_hash: string }).code_hash).not.toBe(createHash('sha256').update(used).digest('hex'));
      expect(JSON.stringify(stream.map((e) => e.data))).not.toContain(used);
      expect(stream.map((e) => e.type)).toContain('AuthenticatorDisabled');

      // Without an authenticator a password is enough again; enroll anew with a newer code.
      const s2 = await c.login(a.email, a.password, a.ip);
      const b = { ...a, ...s2 };
      const second = await c.enroll(b, Date.now() + 30_000);
      expect(second.recovery_codes).not.toContain(used);
      const reused = await c.post('/api/v1/identity/authenticator/disable', { recovery_code: used }, b.token, b.ip);
      expect(reused.statusCode).toBe(422);
      expectEnvelope(reused.json(), 'RULE_VIOLATION');
      // Still enrolled: login asks for the code.
      const still = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password }, undefined, a.ip);
      expect(still.statusCode).toBe(401);
      expect(still.json().error.details.map((d: { field: string }) => d.field)).toContain('totp_code');

      const history = await c.events(b);
      expect(history.map((e) => e.event_type)).toEqual(expect.arrayContaining(['TOTP_DISABLED', 'SESSIONS_REVOKED', 'TOTP_ENROLLED']));
      const revokedLogin = history.find((e) => e.event_type === 'LOGIN_SUCCEEDED' && e.session_status === 'REVOKED');
      expect(revokedLogin).toMatchObject({ revoked_at: expect.stringMatching(ISO) });
    });

    it('disables with a step-up of purpose AUTHENTICATOR_DISABLE, and refuses a step-up of another purpose', async () => {
      const a = await c.newAccount('dis-su');
      // A step-up of another purpose, issued before enrollment (password only).
      const wrongPurpose = await c.stepUp(a, 'ACCOUNT_CLOSURE', a.password);
      expect(wrongPurpose.statusCode).toBe(201);
      c.secrets.add(wrongPurpose.json().step_up_token);
      const { secret } = await c.enroll(a);

      const refused = await c.post('/api/v1/identity/authenticator/disable', { step_up_token: wrongPurpose.json().step_up_token }, a.token, a.ip);
      expect(refused.statusCode).toBe(403);
      expectEnvelope(refused.json(), 'STEP_UP_REQUIRED');

      // Once enrolled, step-up needs the code too.
      const noCode = await c.stepUp(a, 'AUTHENTICATOR_DISABLE', a.password);
      expect(noCode.statusCode).toBe(403);
      expectEnvelope(noCode.json(), 'STEP_UP_REQUIRED');
      expect(noCode.json().error.details.map((d: { field: string }) => d.field)).toContain('totp_code');

      const su = await c.stepUp(a, 'AUTHENTICATOR_DISABLE', a.password, totpCode(secret, Date.now() + 30_000));
      expect(su.statusCode).toBe(201);
      c.secrets.add(su.json().step_up_token);
      const ok = await c.post('/api/v1/identity/authenticator/disable', { step_up_token: su.json().step_up_token }, a.token, a.ip);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ status: expect.any(String), sessions_revoked: true });
      expect((await c.get('/api/v1/identity/contact', a.token, a.ip)).statusCode).toBe(401);
      // Password only again.
      const again = await c.login(a.email, a.password, a.ip);
      // The history records how each step-up was earned: password alone before enrollment, password and code after.
      const stepUps = (await c.events({ ...a, ...again })).filter((e) => e.event_type === 'STEP_UP_ISSUED');
      expect(stepUps.map((e) => [e.authentication_method, e.purpose])).toEqual([
        ['PASSWORD_TOTP', 'AUTHENTICATOR_DISABLE'],
        ['PASSWORD', 'ACCOUNT_CLOSURE'],
      ]);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('step-up on another module\'s route: validated first, spent only with the action', () => {
    const openLedger = async (balance: string): Promise<string> => {
      const opened = await c.post('/api/v1/test-ledgers', { owner: 'step-up test' }, undefined, '203.0.113.250');
      const ledger_id = opened.json().ledger_id as string;
      expect((await c.post(`/api/v1/test-ledgers/${ledger_id}/credits`, { amount: balance }, undefined, '203.0.113.250')).statusCode).toBe(200);
      return ledger_id;
    };
    const debit = (a: Session & { ip: string }, ledger_id: string, body: Record<string, unknown>) => c.post(`/api/v1/test-sensitive/ledgers/${ledger_id}/debits`, body, a.token, a.ip);
    const freshStepUp = async (a: Account, purpose = 'MERCHANT_PROFILE_ACTIVATION'): Promise<string> => {
      const r = await c.stepUp(a, purpose, a.password);
      expect(r.statusCode).toBe(201);
      c.secrets.add(r.json().step_up_token);
      return r.json().step_up_token as string;
    };

    it('refuses a missing, wrong-purpose or unknown token with 403, and needs a session', async () => {
      const a = await c.newAccount('guarded');
      const ledger = await openLedger('100');
      const missing = await debit(a, ledger, { amount: '10' });
      expectEnvelope(missing.json(), 'VALIDATION_FAILED'); // the body declares step_up_token: a missing one is a 400
      const wrong = await debit(a, ledger, { amount: '10', step_up_token: await freshStepUp(a, 'ACCOUNT_CLOSURE') });
      expect(wrong.statusCode).toBe(403);
      expectEnvelope(wrong.json(), 'STEP_UP_REQUIRED');
      const forged = await debit(a, ledger, { amount: '10', step_up_token: `hcsu_${'Q'.repeat(43)}` });
      expect(forged.statusCode).toBe(403);
      const token = await freshStepUp(a);
      expect((await c.post(`/api/v1/test-sensitive/ledgers/${ledger}/debits`, { amount: '10', step_up_token: token }, undefined, a.ip)).statusCode).toBe(401);
      expect((await debit(a, ledger, { amount: '10', step_up_token: token })).statusCode).toBe(200);
    });

    it('keeps the token on a 400, a 404, a 409 and a 422; spends it on the success; a reuse is 403', async () => {
      const a = await c.newAccount('keeps');
      const ledger = await openLedger('100');
      const token = await freshStepUp(a);

      const invalid = await debit(a, ledger, { amount: '-5', step_up_token: token });
      expect(invalid.statusCode).toBe(400);
      expectEnvelope(invalid.json(), 'VALIDATION_FAILED');
      const extra = await debit(a, ledger, { amount: '5', step_up_token: token, surprise: true });
      expect(extra.statusCode).toBe(400);
      const unknown = await debit(a, 'f'.repeat(32), { amount: '5', step_up_token: token });
      expect(unknown.statusCode).toBe(404);
      const stale = await debit(a, ledger, { amount: '5', expected_version: 0, step_up_token: token });
      expect(stale.statusCode).toBe(409);
      expectEnvelope(stale.json(), 'VERSION_CONFLICT');
      const tooMuch = await debit(a, ledger, { amount: '1000', step_up_token: token });
      expect(tooMuch.statusCode).toBe(422);

      const ok = await debit(a, ledger, { amount: '5', expected_version: 1, step_up_token: token });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ balance: '95', version: 2 });
      const reuse = await debit(a, ledger, { amount: '5', step_up_token: token });
      expect(reuse.statusCode).toBe(403);
      expectEnvelope(reuse.json(), 'STEP_UP_REQUIRED');
    });

    it('lets one of two concurrent requests with one token act, on different streams', async () => {
      const a = await c.newAccount('race');
      const [first, second] = [await openLedger('100'), await openLedger('100')];
      const token = await freshStepUp(a);
      const answers = await Promise.all([debit(a, first, { amount: '7', step_up_token: token }), debit(a, second, { amount: '7', step_up_token: token })]);
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 403]);
      const balances = await Promise.all([first, second].map(async (id) => (await c.get(`/api/v1/test-ledgers/${id}`, undefined, a.ip)).json().balance));
      expect(balances.sort()).toEqual(['100', '93']);
    });

    it('keeps the token when the action is refused: closure already scheduled, authenticator not enrolled', async () => {
      const a = await c.newAccount('refused-keeps');
      const disable = await freshStepUp(a, 'AUTHENTICATOR_DISABLE');
      const notEnrolled = await c.post('/api/v1/identity/authenticator/disable', { step_up_token: disable }, a.token, a.ip);
      expect(notEnrolled.statusCode).toBe(409);
      const { secret } = await c.enroll(a);
      // Enrolled now: the same token still works (it was not spent on the 409).
      const ok = await c.post('/api/v1/identity/authenticator/disable', { step_up_token: disable }, a.token, a.ip);
      expect(ok.statusCode).toBe(200);
      expect(secret).toEqual(expect.any(String));

      const b = await c.newAccount('closure-keeps');
      const closure = await freshStepUp(b, 'ACCOUNT_CLOSURE');
      const noClosure = await c.post('/api/v1/identity/closure/cancel', { step_up_token: closure }, b.token, b.ip);
      expect(noClosure.statusCode).toBe(409);
      const scheduled = await c.post('/api/v1/identity/closure', { current_password: b.password, step_up_token: closure }, b.token, b.ip);
      expect(scheduled.statusCode).toBe(202);
      const reuse = await c.post('/api/v1/identity/closure/cancel', { step_up_token: closure }, b.token, b.ip);
      expect(reuse.statusCode).toBe(403);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('step-up', () => {
    it('issues a one-use, session- and purpose-bound hcsu_ token for five minutes', async () => {
      const a = await c.newAccount('stepup');
      const before = Date.now();
      const r = await c.stepUp(a, 'ACCOUNT_CLOSURE', a.password);
      const after = Date.now();
      expect(r.statusCode).toBe(201);
      const body = r.json();
      expect(body).toEqual({ step_up_token: expect.stringMatching(/^hcsu_[A-Za-z0-9_-]{43}$/), purpose: 'ACCOUNT_CLOSURE', expires_at: expect.stringMatching(ISO) });
      c.secrets.add(body.step_up_token);
      const expires = Date.parse(body.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 300_000 - 1000);
      expect(expires).toBeLessThanOrEqual(after + 300_000 + 1000);

      // One use: the closure consumes it, the cancellation cannot use it again.
      const closure = await c.post('/api/v1/identity/closure', { current_password: a.password, step_up_token: body.step_up_token }, a.token, a.ip);
      expect(closure.statusCode).toBe(202);
      const reuse = await c.post('/api/v1/identity/closure/cancel', { step_up_token: body.step_up_token }, a.token, a.ip);
      expect(reuse.statusCode).toBe(403);
      expectEnvelope(reuse.json(), 'STEP_UP_REQUIRED');
      const cancel = await c.post('/api/v1/identity/closure/cancel', {}, a.token, a.ip);
      expect(cancel.statusCode).toBe(200);
      expect(cancel.json().status).toBe('CANCELLED');

      // A wrong purpose is refused.
      const disableToken = await c.stepUp(a, 'AUTHENTICATOR_DISABLE', a.password);
      expect(disableToken.statusCode).toBe(201);
      c.secrets.add(disableToken.json().step_up_token);
      const wrongPurpose = await c.post('/api/v1/identity/closure', { current_password: a.password, step_up_token: disableToken.json().step_up_token }, a.token, a.ip);
      expect(wrongPurpose.statusCode).toBe(403);
      expectEnvelope(wrongPurpose.json(), 'STEP_UP_REQUIRED');

      // Another session's token is refused in this session (and stays usable in its own).
      const other = await c.login(a.email, a.password, a.ip);
      const foreign = await c.stepUp({ ...other, ip: a.ip }, 'ACCOUNT_CLOSURE', a.password);
      expect(foreign.statusCode).toBe(201);
      c.secrets.add(foreign.json().step_up_token);
      const cross = await c.post('/api/v1/identity/closure', { current_password: a.password, step_up_token: foreign.json().step_up_token }, a.token, a.ip);
      expect(cross.statusCode).toBe(403);
      expectEnvelope(cross.json(), 'STEP_UP_REQUIRED');
      const own = await c.post('/api/v1/identity/closure', { current_password: a.password, step_up_token: foreign.json().step_up_token }, other.token, a.ip);
      expect(own.statusCode).toBe(202);

      // A made-up token of the right shape is refused the same way.
      const forged = await c.post('/api/v1/identity/closure/cancel', { step_up_token: `hcsu_${'Q'.repeat(43)}` }, a.token, a.ip);
      expect(forged.statusCode).toBe(403);
      expectEnvelope(forged.json(), 'STEP_UP_REQUIRED');

      const history = await c.events(a);
      const issued = history.filter((e) => e.event_type === 'STEP_UP_ISSUED');
      expect(issued.length).toBe(3);
      expect(issued.filter((e) => e.current_session === true).length).toBe(2);
      // The method proved (password only: no authenticator here) and the purpose, each in its own field.
      expect(issued.map((e) => e.authentication_method)).toEqual(['PASSWORD', 'PASSWORD', 'PASSWORD']);
      expect(issued.map((e) => e.purpose).sort()).toEqual(['ACCOUNT_CLOSURE', 'ACCOUNT_CLOSURE', 'AUTHENTICATOR_DISABLE']);
      expect(history.filter((e) => e.event_type !== 'STEP_UP_ISSUED').every((e) => e.purpose === null)).toBe(true);
    });

    it('refuses a wrong password with 403 STEP_UP_REQUIRED, and bad shapes with 400', async () => {
      const a = await c.newAccount('stepup-bad');
      const wrong = await c.stepUp(a, 'ACCOUNT_CLOSURE', 'Not-The-Password-1');
      expect(wrong.statusCode).toBe(403);
      expectEnvelope(wrong.json(), 'STEP_UP_REQUIRED');
      expect(wrong.body).not.toContain('Not-The-Password-1');

      const unknown = await c.stepUp(a, 'LAUNCH_MISSILES', a.password);
      expect(unknown.statusCode).toBe(400);
      expectEnvelope(unknown.json(), 'VALIDATION_FAILED');
      expect(unknown.json().error.details.map((d: { field: string }) => d.field)).toContain('purpose');

      const missing = await c.post('/api/v1/auth/step-up', { purpose: 'ACCOUNT_CLOSURE' }, a.token, a.ip);
      expect(missing.statusCode).toBe(400);
      expect(missing.json().error.details.map((d: { field: string }) => d.field)).toContain('password');

      const typed = await c.post('/api/v1/auth/step-up', { purpose: 'ACCOUNT_CLOSURE', password: 12345678 }, a.token, a.ip);
      expect(typed.statusCode).toBe(400);

      const anonymous = await c.post('/api/v1/auth/step-up', { purpose: 'ACCOUNT_CLOSURE', password: a.password }, undefined, a.ip);
      expect(anonymous.statusCode).toBe(401);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('contact change', () => {
    it('changes the email through a token sent to the new address, revoking sessions', async () => {
      const a = await c.newAccount('contact');
      const newEmail = uniqueEmail('renamed');
      const r = await c.post('/api/v1/identity/contact-changes', { current_password: a.password, contact_type: 'email', value: newEmail.toUpperCase() }, a.token, a.ip);
      expect(r.statusCode).toBe(201);
      const receipt = r.json();
      expect(receipt).toEqual({
        status: expect.any(String),
        contact_type: 'email',
        target_hint: expect.any(String),
        delivery_channel: 'email',
        expires_at: expect.stringMatching(ISO),
        profile_uuid: a.profile_uuid,
        request_id: expect.any(String),
        sessions_revoked: false,
      });
      expect(receipt.target_hint).not.toContain(newEmail);
      expect(receipt.target_hint).not.toContain(newEmail.split('@')[0]);
      expect(receipt.target_hint).toContain('***');

      // The token goes to the new address (lowercased), not the old one.
      const delivery = await c.lastToken(newEmail, 'CONTACT_CHANGE');
      expect(delivery).toMatchObject({ to: newEmail, channel: 'email', token: expect.stringMatching(/^hcct_/) });
      expect((await readMailbox(t.config.dataDir, a.email)).filter((d) => d.kind === 'CONTACT_CHANGE')).toEqual([]);
      expect(r.body).not.toContain(delivery.token);

      const extra = await c.post('/api/v1/identity/contact-changes/confirm', { token: delivery.token, profile_uuid: a.profile_uuid }, undefined, a.ip);
      expect(extra.statusCode).toBe(400);
      expectEnvelope(extra.json(), 'VALIDATION_FAILED');
      expect(extra.json().error.details).toEqual([{ field: 'profile_uuid', issue: expect.any(String) }]);

      const bogus = await c.post('/api/v1/identity/contact-changes/confirm', { token: `hcct_${'B'.repeat(43)}` }, undefined, a.ip);
      expect(bogus.statusCode).toBeGreaterThanOrEqual(400);
      expect(bogus.statusCode).toBeLessThan(500);

      const ok = await c.post('/api/v1/identity/contact-changes/confirm', { token: delivery.token }, undefined, a.ip);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ status: expect.any(String), contact_type: 'email', target_hint: receipt.target_hint, sessions_revoked: true });

      const again = await c.post('/api/v1/identity/contact-changes/confirm', { token: delivery.token }, undefined, a.ip);
      expect(again.statusCode).toBeGreaterThanOrEqual(400);
      expect(again.statusCode).toBeLessThan(500);

      expect((await c.get('/api/v1/identity/contact', a.token, a.ip)).statusCode).toBe(401);

      const oldLogin = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password }, undefined, a.ip);
      expect(oldLogin.statusCode).toBe(401);
      const s = await c.login(newEmail, a.password, a.ip);
      const contact = await c.get('/api/v1/identity/contact', s.token, a.ip);
      expect(contact.statusCode).toBe(200);
      expect(contact.json()).toEqual({ profile_uuid: a.profile_uuid, email: newEmail, email_verified: true, phone: null, phone_verified: false });

      // The old address is free again: someone else may register it.
      const reuse = await c.post('/api/v1/identity/registrations', c.registration(a.email), undefined, nextIp());
      expect(reuse.statusCode).toBe(201);

      // Phone: E.164, delivered by sms to the number's mailbox.
      const phone = '+491511234567';
      const bad = await c.post('/api/v1/identity/contact-changes', { current_password: a.password, contact_type: 'phone', value: '0151-1234567' }, s.token, a.ip);
      expect(bad.statusCode).toBe(400);
      expectEnvelope(bad.json(), 'VALIDATION_FAILED');
      expect(bad.json().error.details.map((d: { field: string }) => d.field)).toContain('value');
      const pr = await c.post('/api/v1/identity/contact-changes', { current_password: a.password, contact_type: 'phone', value: phone }, s.token, a.ip);
      expect(pr.statusCode).toBe(201);
      expect(pr.json()).toMatchObject({ contact_type: 'phone', delivery_channel: 'sms', sessions_revoked: false });
      expect(pr.json().target_hint).not.toContain(phone);
      expect(pr.json().target_hint).not.toContain('1511234567');
      const sms = await c.lastToken(phone, 'CONTACT_CHANGE');
      expect(sms).toMatchObject({ to: phone, channel: 'sms' });
      const pc = await c.post('/api/v1/identity/contact-changes/confirm', { token: sms.token }, undefined, a.ip);
      expect(pc.statusCode).toBe(200);
      expect(pc.json()).toMatchObject({ contact_type: 'phone', sessions_revoked: true });
      expect((await c.get('/api/v1/identity/contact', s.token, a.ip)).statusCode).toBe(401);
      const s2 = await c.login(newEmail, a.password, a.ip);
      const contact2 = await c.get('/api/v1/identity/contact', s2.token, a.ip);
      expect(contact2.json()).toEqual({ profile_uuid: a.profile_uuid, email: newEmail, email_verified: true, phone, phone_verified: true });
    });

    it('refuses malformed values and an address another account uses', async () => {
      const a = await c.newAccount('contact-bad');
      const b = await c.newAccount('contact-taken');
      const taken = await c.post('/api/v1/identity/contact-changes', { current_password: a.password, contact_type: 'email', value: b.email }, a.token, a.ip);
      expect(taken.statusCode).toBe(409);
      expectEnvelope(taken.json(), 'STATE_CONFLICT');
      expect(await readMailbox(t.config.dataDir, b.email)).toHaveLength(1); // only b's activation

      for (const body of [
        { contact_type: 'email', value: 'not-an-address' },
        { contact_type: 'fax', value: '+491511234567' },
        { contact_type: 'phone', value: '+49 151' },
        { contact_type: 'email' },
      ]) {
        const r = await c.post('/api/v1/identity/contact-changes', { current_password: a.password, ...body }, a.token, a.ip);
        expect(r.statusCode).toBe(400);
        expectEnvelope(r.json(), 'VALIDATION_FAILED');
      }
      const badToken = await c.post('/api/v1/identity/contact-changes/confirm', { token: 'hcat_nope' }, undefined, a.ip);
      expect(badToken.statusCode).toBe(400);
      expect(badToken.json().error.details.map((d: { field: string }) => d.field)).toContain('token');
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('account closure', () => {
    const GRACE_MS = 14 * 24 * 3600 * 1000;

    it('schedules, reads, cancels and idempotently re-requests a closure', async () => {
      const a = await c.newAccount('closure');
      const wrong = await c.post('/api/v1/identity/closure', { current_password: 'Wrong-Password-77!' }, a.token, a.ip);
      expect(wrong.statusCode).toBe(403);
      expectEnvelope(wrong.json(), 'FORBIDDEN');
      expect(wrong.body).not.toContain('Wrong-Password-77!');

      const extra = await c.post('/api/v1/identity/closure', { current_password: a.password, note: 'bye' }, a.token, a.ip);
      expect(extra.statusCode).toBe(400);
      expectEnvelope(extra.json(), 'VALIDATION_FAILED');
      expect(extra.json().error.details).toEqual([{ field: 'note', issue: expect.any(String) }]);
      expect(extra.body).not.toContain(a.password);

      const badReason = await c.post('/api/v1/identity/closure', { current_password: a.password, reason_code: 'x'.repeat(100) }, a.token, a.ip);
      expect(badReason.statusCode).toBe(400);

      const none = await c.get('/api/v1/identity/closure', a.token, a.ip);
      expect(none.statusCode).toBe(404);

      const r = await c.post('/api/v1/identity/closure', { current_password: a.password, reason_code: 'NO_LONGER_NEEDED' }, a.token, a.ip);
      expect(r.statusCode).toBe(202);
      expect(r.body).not.toContain(a.password);
      const closure = r.json();
      expect(closure).toEqual({
        request_uuid: expect.stringMatching(HEX32),
        profile_uuid: a.profile_uuid,
        tenant_uuid: GLOBAL_TENANT_UUID,
        status: 'SCHEDULED',
        reason_code: 'NO_LONGER_NEEDED',
        version: expect.any(Number),
        requested_at: expect.stringMatching(ISO),
        scheduled_for: expect.stringMatching(ISO),
        blocked_until: null,
        blocker_code: null,
        cancelled_at: null,
        completed_at: null,
        idempotent_replay: false,
        last_error_code: null,
        processing_attempts: 0,
      });
      expect(Number.isInteger(closure.version)).toBe(true);
      expect(closure.version).toBeGreaterThanOrEqual(0);
      expect(Date.parse(closure.scheduled_for) - Date.parse(closure.requested_at)).toBe(GRACE_MS);
      expect(closure.profile_uuid).not.toContain('@');

      const duplicate = await c.post('/api/v1/identity/closure', { current_password: a.password }, a.token, a.ip);
      expect(duplicate.statusCode).toBe(409);

      const read = await c.get('/api/v1/identity/closure', a.token, a.ip);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(closure);

      const cancelExtra = await c.post('/api/v1/identity/closure/cancel', { reason: 'changed my mind' }, a.token, a.ip);
      expect(cancelExtra.statusCode).toBe(400);
      expect(cancelExtra.json().error.details).toEqual([{ field: 'reason', issue: expect.any(String) }]);

      const cancel = await c.post('/api/v1/identity/closure/cancel', {}, a.token, a.ip);
      expect(cancel.statusCode).toBe(200);
      expect(cancel.json()).toMatchObject({ request_uuid: closure.request_uuid, status: 'CANCELLED', cancelled_at: expect.stringMatching(ISO), completed_at: null });
      expect(cancel.json().version).toBeGreaterThan(closure.version);
      const cancelTwice = await c.post('/api/v1/identity/closure/cancel', {}, a.token, a.ip);
      expect(cancelTwice.statusCode).toBe(409);
      expect((await c.get('/api/v1/identity/closure', a.token, a.ip)).json().status).toBe('CANCELLED');

      // Idempotent retry: same key, byte-equal body.
      const body = JSON.stringify({ current_password: a.password, reason_code: 'PRIVACY' });
      const headers = { 'content-type': 'application/json', 'idempotency-key': `closure-${run}` };
      const first = await c.post('/api/v1/identity/closure', body, a.token, a.ip, headers);
      expect(first.statusCode).toBe(202);
      expect(first.json()).toMatchObject({ status: 'SCHEDULED', reason_code: 'PRIVACY', idempotent_replay: false });
      expect(first.json().request_uuid).not.toBe(closure.request_uuid);
      const second = await c.post('/api/v1/identity/closure', body, a.token, a.ip, headers);
      expect(second.statusCode).toBe(202);
      expect(second.headers['idempotent-replay']).toBe('true');
      expect(second.json()).toEqual({ ...first.json(), idempotent_replay: true });
      expect(second.body).not.toContain(a.password);
      // Another body under the same key is refused.
      const changed = await c.post('/api/v1/identity/closure', JSON.stringify({ current_password: a.password, reason_code: 'OTHER' }), a.token, a.ip, headers);
      expect(changed.statusCode).toBe(409);
      expectEnvelope(changed.json(), 'IDEMPOTENCY_KEY_REUSED');
      // Acceptance is not completion.
      expect((await c.get('/api/v1/identity/closure', a.token, a.ip)).json()).toMatchObject({ status: 'SCHEDULED', completed_at: null });
      // Not due: the job leaves it alone.
      await t.app.get(AccountClosureSweep).completeDueClosures(new Date());
      expect((await c.get('/api/v1/identity/closure', a.token, a.ip)).json()).toMatchObject({ status: 'SCHEDULED', completed_at: null });
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('tenants and authorities', () => {
    it('makes the creator OWNER and lets only OWNER and TENANT_ADMIN assign authorities', async () => {
      const owner = await c.newAccount('owner');
      const outsider = await c.newAccount('outsider');

      const created = await c.post('/api/v1/tenants', { name: 'Acme Holdings' }, owner.token, owner.ip);
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({ tenant_uuid: expect.stringMatching(HEX32), name: 'Acme Holdings', role_code: 'OWNER' });
      const tenant: string = created.json().tenant_uuid;
      // The owner opens the tenant to registrations (by default it takes members by invitation only).
      expect((await c.put(`/api/v1/tenants/${tenant}/join-policy`, { join_policy: 'OPEN' }, owner.token, owner.ip)).statusCode).toBe(200);
      // Authority goes to the tenant's members: accounts registered into it.
      const admin = await c.newAccount('tadmin', { tenant_uuid: tenant });
      const moderator = await c.newAccount('tmod', { tenant_uuid: tenant });
      const member = await c.newAccount('member', { tenant_uuid: tenant });
      const url = `/api/v1/tenants/${tenant}/authorities`;

      const list0 = await c.get(url, owner.token, owner.ip);
      expect(list0.statusCode).toBe(200);
      expect(list0.json().items).toEqual([expect.objectContaining({ profile_uuid: owner.profile_uuid, role_code: 'OWNER' })]);

      const assign = (by: Account, body: Record<string, unknown>) => c.post(url, body, by.token, by.ip);
      const r = await assign(owner, { profile_uuid: admin.profile_uuid, role_code: 'TENANT_ADMIN', reason: 'Runs the support desk' });
      expect(r.statusCode).toBe(201);
      expect(r.json()).toMatchObject({ tenant_uuid: tenant, profile_uuid: admin.profile_uuid, role_code: 'TENANT_ADMIN' });

      const asOwner = await assign(owner, { profile_uuid: member.profile_uuid, role_code: 'OWNER', reason: 'Co-founder of the tenant' });
      expect(asOwner.statusCode).toBe(400);
      expectEnvelope(asOwner.json(), 'VALIDATION_FAILED');
      expect(asOwner.json().error.details.map((d: { field: string }) => d.field)).toContain('role_code');

      const shortReason = await assign(owner, { profile_uuid: member.profile_uuid, role_code: 'TENANT_ADMIN', reason: '1234567' });
      expect(shortReason.statusCode).toBe(400);
      expect(shortReason.json().error.details.map((d: { field: string }) => d.field)).toContain('reason');
      const longReason = await assign(owner, { profile_uuid: member.profile_uuid, role_code: 'TENANT_ADMIN', reason: 'r'.repeat(321) });
      expect(longReason.statusCode).toBe(400);
      const badProfile = await assign(owner, { profile_uuid: 'ABC', role_code: 'TENANT_ADMIN', reason: 'Runs the support desk' });
      expect(badProfile.statusCode).toBe(400);
      expect(badProfile.json().error.details.map((d: { field: string }) => d.field)).toContain('profile_uuid');
      const unknownProfile = await assign(owner, { profile_uuid: 'f'.repeat(32), role_code: 'TENANT_ADMIN', reason: 'Runs the support desk' });
      expect(unknownProfile.statusCode).toBe(404);
      const demoteOwner = await assign(admin, { profile_uuid: owner.profile_uuid, role_code: 'TENANT_MODERATOR', reason: 'Taking over the tenant' });
      expect(demoteOwner.statusCode).toBe(422);

      const mod = await assign(owner, { profile_uuid: moderator.profile_uuid, role_code: 'TENANT_MODERATOR', reason: 'Moderates the forum' });
      expect(mod.statusCode).toBe(201);

      const byModerator = await assign(moderator, { profile_uuid: member.profile_uuid, role_code: 'TENANT_MODERATOR', reason: 'Helps moderating' });
      expect(byModerator.statusCode).toBe(403);
      expectEnvelope(byModerator.json(), 'FORBIDDEN');

      const outsiderPost = await assign(outsider, { profile_uuid: outsider.profile_uuid, role_code: 'TENANT_ADMIN', reason: 'Let me in please' });
      expect(outsiderPost.statusCode).toBe(404);
      expectEnvelope(outsiderPost.json(), 'NOT_FOUND');
      const outsiderGet = await c.get(url, outsider.token, outsider.ip);
      expect(outsiderGet.statusCode).toBe(404);
      expectEnvelope(outsiderGet.json(), 'NOT_FOUND');
      // Indistinguishable from a tenant that does not exist.
      const ghost = await c.get(`/api/v1/tenants/${'e'.repeat(32)}/authorities`, outsider.token, outsider.ip);
      expect(ghost.statusCode).toBe(404);
      expect(ghost.json().error.message).toBe(outsiderGet.json().error.message);

      const byAdmin = await assign(admin, { profile_uuid: member.profile_uuid, role_code: 'TENANT_MODERATOR', reason: 'Helps moderating' });
      expect(byAdmin.statusCode).toBe(201);
      expect(byAdmin.json()).toMatchObject({ profile_uuid: member.profile_uuid, role_code: 'TENANT_MODERATOR' });

      const list = await c.get(url, moderator.token, moderator.ip);
      expect(list.statusCode).toBe(200);
      const roles = Object.fromEntries(list.json().items.map((i: { profile_uuid: string; role_code: string }) => [i.profile_uuid, i.role_code]));
      expect(roles).toEqual({
        [owner.profile_uuid]: 'OWNER',
        [admin.profile_uuid]: 'TENANT_ADMIN',
        [moderator.profile_uuid]: 'TENANT_MODERATOR',
        [member.profile_uuid]: 'TENANT_MODERATOR',
      });

      const badParam = await c.get('/api/v1/tenants/not-a-tenant/authorities', owner.token, owner.ip);
      expect(badParam.statusCode).toBe(400);

      // Registering into the tenant.
      const inTenant = await c.newAccount('tenant-user', { tenant_uuid: tenant });
      expect(inTenant.tenant_uuid).toBe(tenant);
      const email = uniqueEmail('tenant-receipt');
      const reg = await c.post('/api/v1/identity/registrations', c.registration(email, PASSWORD, { tenant_uuid: tenant }), undefined, nextIp());
      expect(reg.statusCode).toBe(201);
      expect(reg.json()).toEqual({
        registration_id: expect.stringMatching(HEX32),
        client_id: expect.any(String),
        tenant_uuid: tenant,
        status: 'PENDING_ACTIVATION',
        activation_delivery: 'email',
        activation_expires_at: expect.stringMatching(ISO),
      });
      const { token } = await c.lastToken(email, 'ACCOUNT_ACTIVATION');
      const act = await c.post('/api/v1/identity/activations', { token }, undefined, nextIp());
      expect(act.json()).toMatchObject({ registration_id: reg.json().registration_id, tenant_uuid: tenant, status: 'ACTIVE' });
    });

    it('gives authority only to members of the tenant: another tenant\'s profile and a missing one get the same 404', async () => {
      const owner = await c.newAccount('owner2');
      const tenant: string = (await c.post('/api/v1/tenants', { name: 'Borrowed Authority Ltd' }, owner.token, owner.ip)).json().tenant_uuid;
      const elsewhere = await c.newAccount('elsewhere'); // an active account of the global tenant
      const url = `/api/v1/tenants/${tenant}/authorities`;
      const body = (profile_uuid: string) => ({ profile_uuid, role_code: 'TENANT_ADMIN', reason: 'Runs the support desk' });

      const foreign = await c.post(url, body(elsewhere.profile_uuid), owner.token, owner.ip);
      const missing = await c.post(url, body('f'.repeat(32)), owner.token, owner.ip);
      expect(foreign.statusCode).toBe(404);
      expect(missing.statusCode).toBe(404);
      const withoutRequestId = (r: typeof foreign) => {
        const b = r.json();
        expect(b.error.request_id).toEqual(expect.any(String));
        delete b.error.request_id;
        return JSON.stringify(b);
      };
      // Byte for byte the same apart from the request id: no existence oracle.
      expect(withoutRequestId(foreign)).toBe(withoutRequestId(missing));
      expect(foreign.headers['content-length']).toBe(missing.headers['content-length']);
      const list = (await c.get(url, owner.token, owner.ip)).json().items.map((i: { profile_uuid: string }) => i.profile_uuid);
      expect(list).toEqual([owner.profile_uuid]);

      // A profile registered into the tenant (opened by its owner) is a member and can be given authority.
      expect((await c.put(`/api/v1/tenants/${tenant}/join-policy`, { join_policy: 'OPEN' }, owner.token, owner.ip)).statusCode).toBe(200);
      const insider = await c.newAccount('insider', { tenant_uuid: tenant });
      expect((await c.post(url, body(insider.profile_uuid), owner.token, owner.ip)).statusCode).toBe(201);
    });

    it('validates the tenant body', async () => {
      const a = await c.newAccount('tenant-bad');
      for (const body of [{}, { name: '' }, { name: 42 }, { name: 'n'.repeat(201) }]) {
        const r = await c.post('/api/v1/tenants', body, a.token, a.ip);
        expect(r.statusCode).toBe(400);
        expectEnvelope(r.json(), 'VALIDATION_FAILED');
      }
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('workspaces', () => {
    it('creates, lists and selects workspaces of the caller only', async () => {
      const a = await c.newAccount('ws');
      const b = await c.newAccount('ws-other');

      const none = await c.get('/api/v1/workspaces/active', a.token, a.ip);
      expect(none.statusCode).toBe(200);
      expect(none.json()).toEqual({ workspace: null });

      const r = await c.post('/api/v1/workspaces', { name: 'Research' }, a.token, a.ip);
      expect(r.statusCode).toBe(201);
      const ws = r.json();
      expect(ws).toEqual({ workspace_id: expect.stringMatching(HEX32), tenant_uuid: a.tenant_uuid, name: 'Research', role: 'OWNER', created: expect.stringMatching(ISO) });
      const theirs = (await c.post('/api/v1/workspaces', { name: 'Private' }, b.token, b.ip)).json();

      const list = await c.get('/api/v1/workspaces', a.token, a.ip);
      expect(list.statusCode).toBe(200);
      expect(list.json().items).toEqual([ws]);

      const bad = await c.post('/api/v1/workspaces', { name: '' }, a.token, a.ip);
      expect(bad.statusCode).toBe(400);

      const extra = await c.post('/api/v1/workspaces/active', { workspace_id: ws.workspace_id, pinned: true }, a.token, a.ip);
      expect(extra.statusCode).toBe(400);
      expectEnvelope(extra.json(), 'VALIDATION_FAILED');
      expect(extra.json().error.details).toEqual([{ field: 'pinned', issue: expect.any(String) }]);

      const malformed = await c.post('/api/v1/workspaces/active', { workspace_id: 'WS-1' }, a.token, a.ip);
      expect(malformed.statusCode).toBe(400);

      const foreign = await c.post('/api/v1/workspaces/active', { workspace_id: theirs.workspace_id }, a.token, a.ip);
      expect(foreign.statusCode).toBe(404);
      expectEnvelope(foreign.json(), 'NOT_FOUND');

      const selected = await c.post('/api/v1/workspaces/active', { workspace_id: ws.workspace_id }, a.token, a.ip);
      expect(selected.statusCode).toBe(200);
      expect(selected.json()).toEqual({ workspace: ws });

      const active = await c.get('/api/v1/workspaces/active', a.token, a.ip);
      expect(active.statusCode).toBe(200);
      expect(active.json()).toEqual({ workspace: ws });
      // b's own active workspace is untouched.
      expect((await c.get('/api/v1/workspaces/active', b.token, b.ip)).json()).toEqual({ workspace: null });
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('authentication profiles', () => {
    it('describes the profiles and the agent conventions, publicly', async () => {
      const r = await c.get('/api/v1/auth/profiles');
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body.profiles.length).toBeGreaterThan(0);
      for (const p of body.profiles) {
        const { lifetimeSeconds, ...rest } = p;
        expect(rest).toEqual({ id: expect.any(String), principal: expect.any(String), credential: expect.any(String), requestSigning: expect.any(String) });
        // lifetimeSeconds? (int32 >= 0): absent where the credential does not expire (a provider's push key, until rotated).
        if (lifetimeSeconds !== undefined) expect(Number.isInteger(lifetimeSeconds) && lifetimeSeconds >= 0).toBe(true);
      }
      expect(body.profiles.find((p: { id: string }) => p.id === 'interactive-session').lifetimeSeconds).toBeGreaterThan(0);
      const keys = ['errorEnvelope', 'pagination', 'idempotency', 'requestSigning', 'retryPolicy', 'decimalPolicy'];
      expect(Object.keys(body.agent_integration).sort()).toEqual([...keys].sort());
      for (const k of keys) {
        expect(typeof body.agent_integration[k]).toBe('string');
        expect(body.agent_integration[k].length).toBeGreaterThan(10);
      }
      expect(body.agent_integration.idempotency).toContain('Idempotency-Key');
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('login throttling', () => {
    it('answers 429 RATE_LIMITED with Retry-After after repeated failures', async () => {
      const a = await c.newAccount('throttle');
      const statuses: number[] = [];
      for (let i = 0; i < 7; i += 1) {
        statuses.push((await c.post('/api/v1/auth/sessions', { email: a.email, password: `Wrong-Password-${i}x` }, undefined, a.ip)).statusCode);
      }
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      const limited = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password }, undefined, a.ip);
      expect(limited.statusCode).toBe(429);
      expectEnvelope(limited.json(), 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // The session already held is unaffected.
      expect((await c.get('/api/v1/identity/contact', a.token, a.ip)).statusCode).toBe(200);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  // Defects found in review, fixed: each test pins the corrected behaviour.
  describe('review regressions', () => {
    // Changing the email to the current one is refused; the address stays claimed by the account.
    it('changing the email to the current address keeps it claimed by the account', async () => {
      const a = await c.newAccount('self-change');
      const r = await c.post('/api/v1/identity/contact-changes', { current_password: a.password, contact_type: 'email', value: a.email }, a.token, a.ip);
      if (r.statusCode === 201) {
        const { token } = await c.lastToken(a.email, 'CONTACT_CHANGE');
        await c.post('/api/v1/identity/contact-changes/confirm', { token }, undefined, a.ip);
      }
      const back = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password }, undefined, a.ip);
      expect(back.statusCode).toBe(201);
      const before = (await readMailbox(t.config.dataDir, a.email)).filter((d) => d.kind === 'ACCOUNT_ACTIVATION').length;
      await c.post('/api/v1/identity/registrations', c.registration(a.email), undefined, nextIp());
      expect((await readMailbox(t.config.dataDir, a.email)).filter((d) => d.kind === 'ACCOUNT_ACTIVATION').length).toBe(before);
    });

    // ConfirmContactChangeHandler consumes the (superseded) token, then claims the *latest* pending target before the
    // A superseded contact-change token is refused before it can claim the newer pending address.
    it('a superseded contact-change token does not claim the newer pending address', async () => {
      const a = await c.newAccount('squatter');
      const mine = uniqueEmail('mine');
      const victim = uniqueEmail('victim');
      expect((await c.post('/api/v1/identity/contact-changes', { current_password: a.password, contact_type: 'email', value: mine }, a.token, a.ip)).statusCode).toBe(201);
      expect((await c.post('/api/v1/identity/contact-changes', { current_password: a.password, contact_type: 'email', value: victim }, a.token, a.ip)).statusCode).toBe(201);
      const { token } = await c.lastToken(mine, 'CONTACT_CHANGE');
      const stale = await c.post('/api/v1/identity/contact-changes/confirm', { token }, undefined, a.ip);
      expect(stale.statusCode).toBeGreaterThanOrEqual(400);
      // The victim can still register their own address and gets an activation.
      const reg = await c.post('/api/v1/identity/registrations', c.registration(victim), undefined, nextIp());
      expect(reg.statusCode).toBe(201);
      expect((await readMailbox(t.config.dataDir, victim)).filter((d) => d.kind === 'ACCOUNT_ACTIVATION')).toHaveLength(1);
    });

    // completeDueClosures(now) lists closures due at `now` (ListDueClosures) but CompleteDueClosureHandler decides
    // completeDueClosures(now) decides with the instant it is given, not the wall clock.
    it('completeDueClosures(now) completes closures due at the given instant', async () => {
      const a = await c.newAccount('closure-later');
      expect((await c.post('/api/v1/identity/closure', { current_password: a.password }, a.token, a.ip)).statusCode).toBe(202);
      const completed = await t.app.get(AccountClosureSweep).completeDueClosures(new Date(Date.now() + 15 * 24 * 3600 * 1000));
      // Other tests' scheduled closures in this shared app are due too; this account's must be among them.
      expect(completed).toBeGreaterThanOrEqual(1);
      const back = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password }, undefined, a.ip);
      expect(back.statusCode).toBe(401);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('no secrets at rest', () => {
    it('keeps passwords, tokens, TOTP secrets and recovery codes out of events and logs', async () => {
      const store: EventStore = t.app.get(EVENT_STORE);
      const all = JSON.stringify((await store.readAll()).map((e) => ({ data: e.data, metadata: e.metadata })));
      const logs = t.logs.join('\n');
      expect(c.secrets.size).toBeGreaterThan(20);
      const leaks = [...c.secrets].filter((s) => all.includes(s) || logs.includes(s));
      expect(leaks).toEqual([]);
    });
  });
});

// ------------------------------------------------------------------------------------------------------------
describe('identity: closure completion by the job (grace 0)', () => {
  let t: TestApp;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    // The node's own periodic run stays out of the way (the tests run the sweep themselves).
    // One thread (WORKER_THREADS=0): the suite drives this thread's job objects themselves (docs/operations.md 10.4).
    t = await startTestApp({ ACCOUNT_CLOSURE_GRACE_SECONDS: '0', CLOSURE_SWEEP_INTERVAL_MS: '3600000', WORKER_THREADS: '0' });
    c = client(t);
  });
  afterAll(async () => t.close());

  it('completes a due closure: completed_at set, sessions revoked, login refused', async () => {
    const a = await c.newAccount('closing');
    const r = await c.post('/api/v1/identity/closure', { current_password: a.password }, a.token, a.ip);
    expect(r.statusCode).toBe(202);
    expect(r.json()).toMatchObject({ status: 'SCHEDULED', reason_code: expect.any(String), completed_at: null });
    expect(r.json().scheduled_for).toBe(r.json().requested_at);
    // Acceptance is not completion.
    expect((await c.get('/api/v1/identity/closure', a.token, a.ip)).json()).toMatchObject({ status: 'SCHEDULED', completed_at: null });

    const completed = await t.app.get(AccountClosureSweep).completeDueClosures(new Date(Date.now() + 1000));
    expect(completed).toBe(1);
    const store: EventStore = t.app.get(EVENT_STORE);
    expect(await t.app.get(ProjectionRunner).waitFor(await store.headPosition(), undefined, 5000)).toBe(true);

    const { state, version } = await t.app.get(CommandExecutor).load(accountStream(a.profile_uuid), accountDecider);
    const view = closureView(state, version);
    expect(view).toMatchObject({ request_uuid: r.json().request_uuid, status: 'COMPLETED', completed_at: expect.stringMatching(ISO), cancelled_at: null });
    expect(state.status).toBe('CLOSED');

    const after = await c.get('/api/v1/identity/closure', a.token, a.ip);
    expect(after.statusCode).toBe(401);
    expectEnvelope(after.json(), 'UNAUTHENTICATED');
    const login = await c.post('/api/v1/auth/sessions', { email: a.email, password: a.password }, undefined, a.ip);
    expect(login.statusCode).toBe(401);
    expectEnvelope(login.json(), 'UNAUTHENTICATED');

    // Running the job again changes nothing.
    expect(await t.app.get(AccountClosureSweep).completeDueClosures(new Date(Date.now() + 1000))).toBe(0);
  });

  it('runs on the node holding the identity-closure-sweep lease only', async () => {
    const a = await c.newAccount('closing-leased');
    expect((await c.post('/api/v1/identity/closure', { current_password: a.password }, a.token, a.ip)).statusCode).toBe(202);
    const status = async (): Promise<string> => (await t.app.get(CommandExecutor).load(accountStream(a.profile_uuid), accountDecider)).state.status;
    const sweep = t.app.get(AccountClosureSweep);
    // Another node holds the lease: this node's run does nothing, and the closure stays due.
    const other = await leaseHeldElsewhere(t.app.get(ReadModelDatabase), 'identity-closure-sweep');
    await new Promise((resolve) => setTimeout(resolve, 5)); // past scheduled_for (grace 0) on any clock resolution
    expect(await sweep.tick()).toBeNull();
    expect(await status()).not.toBe('CLOSED');
    // Once it lets go, this node takes the lease and completes it.
    await other.release('identity-closure-sweep');
    expect(await sweep.tick()).toBe(1);
    expect(await status()).toBe('CLOSED');
    await expect(other.acquire('identity-closure-sweep')).rejects.toThrow();
  });
});

// ------------------------------------------------------------------------------------------------------------
describe('identity: platform admin bootstrap', () => {
  const ADMIN_EMAIL = `root.${run}@example.com`;
  const ADMIN_PASSWORD = 'Bootstrap-Adm1n-Pass';
  let t: TestApp;
  let c: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL, ADMIN_PASSWORD });
    c = client(t);
  });
  afterAll(async () => t.close());

  it('lets the bootstrapped admin log in at once and read the global tenant', async () => {
    const ip = nextIp();
    const s = await c.login(ADMIN_EMAIL.toUpperCase(), ADMIN_PASSWORD, ip);
    expect(await readMailbox(t.config.dataDir, ADMIN_EMAIL)).toEqual([]); // no activation needed, none sent
    const r = await c.get(`/api/v1/tenants/${GLOBAL_TENANT_UUID}/authorities`, s.token, ip);
    expect(r.statusCode).toBe(200);
    expect(r.json().tenant_uuid).toBe(GLOBAL_TENANT_UUID);
    const me = (await c.get('/api/v1/identity/contact', s.token, ip)).json();
    expect(r.json().items).toEqual(expect.arrayContaining([expect.objectContaining({ profile_uuid: me.profile_uuid, role_code: 'OWNER' })]));

    // An ordinary user of the global tenant does not see its authorities.
    const user = await c.newAccount('plain');
    const denied = await c.get(`/api/v1/tenants/${GLOBAL_TENANT_UUID}/authorities`, user.token, user.ip);
    expect(denied.statusCode).toBe(404);
  });

  // An admin asking for a tenant that does not exist gets 404, like everyone else.
  it('answers 404 to the admin for a tenant that does not exist', async () => {
    const ip = nextIp();
    const s = await c.login(ADMIN_EMAIL, ADMIN_PASSWORD, ip);
    const r = await c.get(`/api/v1/tenants/${'e'.repeat(32)}/authorities`, s.token, ip);
    expect(r.statusCode).toBe(404);
  });
});
