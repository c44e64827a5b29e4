/**
 * Identity end to end over HTTP (issue 3; seeds 001 "Identity and accounts", 000 "Authentication" and "Limits";
 * PLATFORM.md sections 4-6): registration, activation, sessions and bearer tokens, authentication history, login
 * throttling, and no secret in the event store or the logs. Runs the real application on a temp DATA_DIR; activation
 * tokens come from the file mailbox. Account closure is covered by its own suite.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Response as InjectResponse } from 'light-my-request';
import { readMailbox } from '../../src/modules/identity/delivery/file-mailbox.delivery';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { startTestApp, type TestApp } from '../support/app';

const HEX32 = /^[0-9a-f]{32}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const GLOBAL_TENANT = '0'.repeat(32);
const DAY_MS = 24 * 3600 * 1000;
const PASSWORD = 'Correct-Horse-42-Battery';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:120.0) Gecko/20100101 Firefox/120.0';
const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36';
const CURL = 'curl/8.4.0';

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');
const hex32 = (): string => randomBytes(16).toString('hex');
const randomActivationToken = (): string => `hcat_${randomBytes(32).toString('base64url')}`;

describe('Identity: registration, activation, sessions, history, throttling', () => {
  let t: TestApp;
  /** Every response payload this suite received: secrets must never show up in one. */
  const payloads: string[] = [];
  let seq = 0;
  let ipSeq = 0;
  /** The highest X-Position any response carried. */
  let lastPosition = 0n;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  const uniqueEmail = (tag = 'user'): string => `${tag}.${Date.now().toString(36)}.${++seq}@example.com`;
  /** Logins are throttled per client address too: each gets its own address unless a test wants to share one. */
  const freshIp = (): string => {
    ipSeq += 1;
    return `10.${(ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}`;
  };

  interface CallOptions {
    token?: string;
    ip?: string;
    ua?: string;
    headers?: Record<string, string>;
  }

  async function call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, o: CallOptions = {}): Promise<InjectResponse> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.ua) headers['user-agent'] = o.ua;
    const r = await t.app.inject({ method, url, payload: payload as object | string | undefined, headers, remoteAddress: o.ip ?? '127.0.0.1' });
    payloads.push(r.payload);
    const position = r.headers['x-position'];
    if (typeof position === 'string' && BigInt(position) > lastPosition) lastPosition = BigInt(position);
    return r;
  }
  const post = (url: string, payload?: unknown, o?: CallOptions) => call('POST', url, payload, o);
  const get = (url: string, o?: CallOptions) => call('GET', url, undefined, o);
  const del = (url: string, o?: CallOptions) => call('DELETE', url, undefined, o);

  function expectEnvelope(r: InjectResponse, status: number, code: string): { message: string; details: Array<{ field: string; issue: string }> } {
    expect(r.statusCode).toBe(status);
    const body = r.json();
    expect(body).toEqual({
      success: false,
      error: { code, message: expect.any(String), request_id: expect.any(String), retryable: code === 'RATE_LIMITED', details: expect.any(Array) },
    });
    expect(body.error.request_id).toBe(r.headers['x-request-id']);
    return body.error;
  }
  const fieldsOf = (error: { details: Array<{ field: string }> }): string[] => error.details.map((d) => d.field);

  const registration = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    account_type: 'personal',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: uniqueEmail(),
    password: PASSWORD,
    terms: { version: '2026-01', accepted: true },
    ...overrides,
  });
  const register = (body: Record<string, unknown>) => post('/api/v1/identity/registrations', body);
  const mailbox = (email: string) => readMailbox(t.config.dataDir, email);
  async function lastToken(email: string): Promise<string> {
    const lines = await mailbox(email);
    expect(lines.length).toBeGreaterThan(0);
    return lines[lines.length - 1].token;
  }
  const activate = (token: unknown) => post('/api/v1/identity/activations', { token });
  const login = (email: string, password: string, o: CallOptions = {}) => post('/api/v1/auth/sessions', { email, password }, { ip: freshIp(), ...o });

  interface User {
    email: string;
    password: string;
    registration_id: string;
    tenant_uuid: string;
    profile_uuid: string;
    token: string;
    session_id: string;
  }

  /** Registers, activates (token from the mailbox) and logs in a fresh personal account. */
  async function activeUser(overrides: Record<string, unknown> = {}, o: CallOptions = {}): Promise<User> {
    const body = registration(overrides);
    const receipt = await register(body);
    expect(receipt.statusCode).toBe(201);
    const activated = await activate(await lastToken(body.email as string));
    expect(activated.statusCode).toBe(200);
    const session = await login(body.email as string, body.password as string, o);
    expect(session.statusCode).toBe(201);
    const contact = await get('/api/v1/identity/contact', { token: session.json().access_token });
    expect(contact.statusCode).toBe(200);
    return {
      email: body.email as string,
      password: body.password as string,
      registration_id: receipt.json().registration_id,
      tenant_uuid: receipt.json().tenant_uuid,
      profile_uuid: contact.json().profile_uuid,
      token: session.json().access_token,
      session_id: session.json().session_id,
    };
  }

  function expectReceipt(r: InjectResponse, tenant_uuid: string): void {
    expect(r.statusCode).toBe(201);
    const body = r.json();
    expect(body).toEqual({
      registration_id: expect.stringMatching(HEX32),
      client_id: expect.stringMatching(HEX32),
      tenant_uuid,
      status: 'PENDING_ACTIVATION',
      activation_delivery: 'email',
      activation_expires_at: expect.stringMatching(RFC3339),
    });
    expect(Math.abs(Date.parse(body.activation_expires_at) - (Date.now() + DAY_MS))).toBeLessThan(60_000);
    expect(r.payload).not.toContain('hcat_');
  }

  // ------------------------------------------------------------------------------------------------------------
  describe('registration', () => {
    it('registers a personal account in the global tenant and delivers one activation token to the mailbox', async () => {
      const body = registration({ middle_name: 'King' });
      const r = await register(body);
      expectReceipt(r, GLOBAL_TENANT);

      const lines = await mailbox(body.email as string);
      expect(lines).toEqual([{ to: body.email, channel: 'email', kind: 'ACCOUNT_ACTIVATION', token: expect.stringMatching(/^hcat_[A-Za-z0-9_-]{43}$/), created: expect.stringMatching(RFC3339) }]);
      expect(r.payload).not.toContain(lines[0].token);
      expect(r.headers['x-position']).toMatch(/^\d+$/);
    });

    it('lowercases the email: the mailbox file and the login use the lowercased address', async () => {
      const mixed = `Grace.HOPPER.${++seq}@Example.COM`;
      const lower = mixed.toLowerCase();
      const r = await register(registration({ email: mixed }));
      expectReceipt(r, GLOBAL_TENANT);

      const files = readdirSync(join(t.config.dataDir, 'mailbox'));
      expect(files).toContain(`${lower}.jsonl`);
      expect(files).not.toContain(`${mixed}.jsonl`);
      const lines = await mailbox(lower);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ to: lower, kind: 'ACCOUNT_ACTIVATION' });

      expect((await activate(lines[0].token)).statusCode).toBe(200);
      const session = await login(mixed, PASSWORD);
      expect(session.statusCode).toBe(201);
      const contact = await get('/api/v1/identity/contact', { token: session.json().access_token });
      expect(contact.json().email).toBe(lower);
    });

    it('registers a corporate account with company_name only, in an explicit tenant (invited by its owner)', async () => {
      const owner = await activeUser();
      const tenant = await post('/api/v1/tenants', { name: 'Analytical Engines Ltd' }, { token: owner.token });
      expect(tenant.statusCode).toBe(201);
      const tenant_uuid = tenant.json().tenant_uuid;
      expect(tenant_uuid).toMatch(HEX32);

      // The tenant takes members by invitation: its owner invites the address, the token arrives by mail.
      const email = uniqueEmail('corp');
      expect((await post(`/api/v1/tenants/${tenant_uuid}/invitations`, { email }, { token: owner.token })).statusCode).toBe(201);
      const invitation_token = await lastToken(email);
      const r = await register({ account_type: 'corporate', company_name: 'Analytical Engines Ltd', email, password: PASSWORD, tenant_uuid, invitation_token, terms: { version: '2026-01', accepted: true } });
      expectReceipt(r, tenant_uuid);
      const activated = await activate(await lastToken(email));
      expect(activated.statusCode).toBe(200);
      expect(activated.json()).toEqual({ registration_id: r.json().registration_id, tenant_uuid, status: 'ACTIVE' });
    });

    /** The receipt fields, without asserting the exact key set (see the failing test below). */
    function expectReceiptFields(r: InjectResponse): void {
      expect(r.statusCode).toBe(201);
      expect(r.json()).toMatchObject({
        registration_id: expect.stringMatching(HEX32),
        client_id: expect.stringMatching(HEX32),
        tenant_uuid: GLOBAL_TENANT,
        status: 'PENDING_ACTIVATION',
        activation_delivery: 'email',
        activation_expires_at: expect.stringMatching(RFC3339),
      });
      expect(r.payload).not.toContain('hcat_');
    }

    it('answers an existing email with a 201 receipt, delivers nothing new and leaves the account untouched', async () => {
      const user = await activeUser();
      const before = (await mailbox(user.email)).length;

      const again = await register(registration({ email: user.email, password: 'Attacker-Chosen-77-pw' }));
      expectReceiptFields(again);
      expect(again.json().registration_id).not.toBe(user.registration_id);
      expect(again.json().profile_uuid).not.toBe(user.profile_uuid);
      const upper = await register(registration({ email: user.email.toUpperCase(), password: 'Attacker-Chosen-77-pw' }));
      expectReceiptFields(upper);

      expect(await mailbox(user.email)).toHaveLength(before);
      // The existing account is untouched: its password still works, the attacker's does not.
      expect((await login(user.email, 'Attacker-Chosen-77-pw')).statusCode).toBe(401);
      expect((await login(user.email, user.password)).statusCode).toBe(201);
    });

    it('answers an email that is registered but not yet activated with a 201 receipt and no new token', async () => {
      const body = registration();
      expectReceipt(await register(body), GLOBAL_TENANT);
      expect(await mailbox(body.email as string)).toHaveLength(1);
      expectReceiptFields(await register(body));
      expect(await mailbox(body.email as string)).toHaveLength(1);
      // The first token still activates the account.
      expect((await activate(await lastToken(body.email as string))).statusCode).toBe(200);
    });

    // The key set must not tell taken addresses from new ones (account enumeration).
    it('answers a taken address with exactly the key set of a new registration (no enumeration)', async () => {
      const fresh = await register(registration());
      const taken = await register(registration({ email: (await activeUser()).email }));
      expect(taken.statusCode).toBe(fresh.statusCode);
      expect(Object.keys(taken.json()).sort()).toEqual(Object.keys(fresh.json()).sort());
    });

    it('accepts passwords of exactly 12 and 128 characters', async () => {
      expectReceipt(await register(registration({ password: 'Abcdefghij1!' })), GLOBAL_TENANT);
      expectReceipt(await register(registration({ password: `Aa1-${'x'.repeat(124)}` })), GLOBAL_TENANT);
    });

    it.each([
      ['personal without first_name', { first_name: undefined }, 'first_name'],
      ['personal without last_name', { last_name: undefined }, 'last_name'],
      ['personal with an empty first_name', { first_name: '' }, 'first_name'],
      ['corporate without company_name', { account_type: 'corporate', first_name: undefined, last_name: undefined }, 'company_name'],
      ['an unknown account_type', { account_type: 'business' }, 'account_type'],
      ['a password of 11 characters', { password: 'Abcdefghi1!' }, 'password'],
      ['a password of 129 characters', { password: `Aa1-${'x'.repeat(125)}` }, 'password'],
      ['a password with two character classes', { password: 'abcdefgh12345678' }, 'password'],
      ['a password with a control character', { password: 'Abcdefgh123\u0007x' }, 'password'],
      ['a password with a zero-width space (Cf)', { password: 'Abcdefgh\u200b123x' }, 'password'],
      ['a password with a line separator (Zl)', { password: 'Abcdefgh\u2028123x' }, 'password'],
      ['a password with a paragraph separator (Zp)', { password: 'Abcdefgh\u2029123x' }, 'password'],
      ['a password with a lone surrogate (Cs)', { password: 'Abcdefgh123x\ud800' }, 'password'],
      ['a password with a private-use character (Co)', { password: 'Abcdefgh123x\ue000' }, 'password'],
      ['a password with an unassigned code point (Cn)', { password: 'Abcdefgh123x\u0378' }, 'password'],
      ['terms missing', { terms: undefined }, 'terms'],
      ['terms not accepted', { terms: { version: '2026-01', accepted: false } }, 'terms.accepted'],
      ['terms accepted as a string', { terms: { version: '2026-01', accepted: 'true' } }, 'terms.accepted'],
      ['terms without a version', { terms: { accepted: true } }, 'terms.version'],
      ['terms as a string', { terms: 'yes' }, 'terms'],
      ['a JSON number for first_name', { first_name: 123 }, 'first_name'],
      ['a JSON number for password', { password: 123456789012345 }, 'password'],
      ['a JSON number for email', { email: 42 }, 'email'],
      ['an email that is not one', { email: 'not-an-email' }, 'email'],
      ['a malformed tenant_uuid', { tenant_uuid: 'ABC' }, 'tenant_uuid'],
      ['a tenant_uuid as a number', { tenant_uuid: 12345 }, 'tenant_uuid'],
    ])('rejects %s with 400 naming the field', async (_name, overrides, field) => {
      const body = registration(overrides);
      const r = await register(body);
      const error = expectEnvelope(r, 400, 'VALIDATION_FAILED');
      expect(fieldsOf(error)).toContain(field);
      if (typeof body.email === 'string') expect(await mailbox(body.email)).toHaveLength(0);
      if (typeof body.password === 'string') expect(r.payload).not.toContain(body.password);
    });

    it('rejects a password containing the email local part (any case) with field password', async () => {
      const email = `zebrafish${++seq}@example.com`;
      const r = await register(registration({ email, password: `My-ZEBRAFISH${seq}-Pass!` }));
      const error = expectEnvelope(r, 400, 'VALIDATION_FAILED');
      expect(error.details).toEqual([{ field: 'password', issue: expect.stringContaining('local part') }]);
      expect(await mailbox(email)).toHaveLength(0);
    });

    it('answers an unknown tenant_uuid like a registration (no tenant oracle) and delivers nothing', async () => {
      const tenant_uuid = hex32();
      const body = registration({ tenant_uuid });
      const r = await register(body);
      expect(r.statusCode).toBe(201);
      expect(r.json()).toMatchObject({ tenant_uuid, status: 'PENDING_ACTIVATION' });
      expect(await mailbox(body.email as string)).toHaveLength(0);
    });

    it.each([
      ['an array body', [registration()]],
      ['a string body', '"hello"'],
      ['an empty object', {}],
    ])('rejects %s with the 400 envelope', async (_name, payload) => {
      const r = await post('/api/v1/identity/registrations', payload, typeof payload === 'string' ? { headers: { 'content-type': 'application/json' } } : {});
      expectEnvelope(r, 400, 'VALIDATION_FAILED');
    });

    it('rejects a body that is not JSON with the 400 envelope', async () => {
      const r = await post('/api/v1/identity/registrations', '{"account_type": "personal",', { headers: { 'content-type': 'application/json' } });
      expectEnvelope(r, 400, 'VALIDATION_FAILED');
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('activation', () => {
    it('activates once with the mailbox token; the same token again is a 422', async () => {
      const body = registration();
      const receipt = await register(body);
      const token = await lastToken(body.email as string);

      const r = await activate(token);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ registration_id: receipt.json().registration_id, tenant_uuid: GLOBAL_TENANT, status: 'ACTIVE' });
      expect(r.payload).not.toContain(token);

      const again = await activate(token);
      const error = expectEnvelope(again, 422, 'RULE_VIOLATION');
      expect(fieldsOf(error)).toEqual(['token']);
    });

    it('refuses a well-formed token that was never issued with 422', async () => {
      const error = expectEnvelope(await activate(randomActivationToken()), 422, 'RULE_VIOLATION');
      expect(fieldsOf(error)).toEqual(['token']);
    });

    it.each([
      ['a token without the prefix', randomBytes(32).toString('base64url')],
      ['a contact-change token', `hcct_${randomBytes(32).toString('base64url')}`],
      ['a truncated token', 'hcat_abc'],
      ['an empty string', ''],
      ['a number', 12345],
      ['null', null],
    ])('rejects %s with 400', async (_name, token) => {
      const error = expectEnvelope(await activate(token), 400, 'VALIDATION_FAILED');
      expect(fieldsOf(error)).toContain('token');
    });

    it('rejects a missing token with 400', async () => {
      const error = expectEnvelope(await post('/api/v1/identity/activations', {}), 400, 'VALIDATION_FAILED');
      expect(fieldsOf(error)).toContain('token');
    });

    it('refuses login before activation with 401, then allows it after', async () => {
      const body = registration();
      await register(body);
      expectEnvelope(await login(body.email as string, PASSWORD), 401, 'UNAUTHENTICATED');
      expect((await activate(await lastToken(body.email as string))).statusCode).toBe(200);
      expect((await login(body.email as string, PASSWORD)).statusCode).toBe(201);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('sessions and bearer tokens', () => {
    it('logs in with a Bearer grant that opens protected routes', async () => {
      const body = registration();
      await register(body);
      await activate(await lastToken(body.email as string));

      const r = await login(body.email as string, PASSWORD);
      expect(r.statusCode).toBe(201);
      const grant = r.json();
      expect(grant).toEqual({ access_token: expect.stringMatching(/^hcs_[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: expect.any(Number), session_id: expect.stringMatching(HEX32) });
      expect(grant.expires_in).toBe(t.config.sessionTtlSeconds);
      expect(grant.expires_in).toBeGreaterThan(0);
      // 256 random bits: 43 base64url characters after the prefix.
      expect(Buffer.from(grant.access_token.slice(4), 'base64url')).toHaveLength(32);

      const contact = await get('/api/v1/identity/contact', { token: grant.access_token });
      expect(contact.statusCode).toBe(200);
      expect(contact.json()).toEqual({ profile_uuid: expect.stringMatching(HEX32), email: body.email, email_verified: true, phone: null, phone_verified: false });
    });

    it('answers 401 envelopes without a token, with a garbage token and with a well-formed unknown token', async () => {
      const none = expectEnvelope(await get('/api/v1/identity/contact'), 401, 'UNAUTHENTICATED');
      expect(none.message).toMatch(/bearer token/i);
      expectEnvelope(await get('/api/v1/identity/contact', { token: 'garbage-garbage-garbage' }), 401, 'UNAUTHENTICATED');
      expectEnvelope(await get('/api/v1/identity/contact', { token: `hcs_${randomBytes(32).toString('base64url')}` }), 401, 'UNAUTHENTICATED');
      expectEnvelope(await get('/api/v1/identity/contact', { headers: { authorization: 'Basic dXNlcjpwYXNzd29yZA==' } }), 401, 'UNAUTHENTICATED');
      expectEnvelope(await get('/api/v1/auth/events'), 401, 'UNAUTHENTICATED');
      expectEnvelope(await del(`/api/v1/auth/sessions/${hex32()}`), 401, 'UNAUTHENTICATED');
    });

    it('verifies the SHA-256 of a live token; a wrong or malformed hash is refused', async () => {
      const user = await activeUser();
      const ok = await post('/api/v1/auth/verify', { hashed_token: sha256(user.token) });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ message: 'Credentials are valid.', success: true });

      expectEnvelope(await post('/api/v1/auth/verify', { hashed_token: sha256(`${user.token}x`) }), 401, 'UNAUTHENTICATED');
      // The raw token is not its hash.
      expectEnvelope(await post('/api/v1/auth/verify', { hashed_token: user.token }), 400, 'VALIDATION_FAILED');
      expectEnvelope(await post('/api/v1/auth/verify', { hashed_token: sha256(user.token).toUpperCase() }), 400, 'VALIDATION_FAILED');
      expectEnvelope(await post('/api/v1/auth/verify', {}), 400, 'VALIDATION_FAILED');
      expectEnvelope(await post('/api/v1/auth/verify', { hashed_token: 42 }), 400, 'VALIDATION_FAILED');
    });

    it('logs out: the token fails on its next request and no longer verifies', async () => {
      const user = await activeUser();
      const r = await del(`/api/v1/auth/sessions/${user.session_id}`, { token: user.token });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ session_id: user.session_id, status: 'REVOKED' });

      expectEnvelope(await get('/api/v1/identity/contact', { token: user.token }), 401, 'UNAUTHENTICATED');
      expectEnvelope(await del(`/api/v1/auth/sessions/${user.session_id}`, { token: user.token }), 401, 'UNAUTHENTICATED');
      expectEnvelope(await post('/api/v1/auth/verify', { hashed_token: sha256(user.token) }), 401, 'UNAUTHENTICATED');
      // A new login still works.
      expect((await login(user.email, user.password)).statusCode).toBe(201);
    });

    it('revokes another of my own sessions; mine stays live', async () => {
      const user = await activeUser();
      const second = (await login(user.email, user.password)).json();
      expect(second.session_id).not.toBe(user.session_id);
      expect((await get('/api/v1/identity/contact', { token: second.access_token })).statusCode).toBe(200);

      const r = await del(`/api/v1/auth/sessions/${second.session_id}`, { token: user.token });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ session_id: second.session_id, status: 'REVOKED' });
      expectEnvelope(await get('/api/v1/identity/contact', { token: second.access_token }), 401, 'UNAUTHENTICATED');
      expect((await get('/api/v1/identity/contact', { token: user.token })).statusCode).toBe(200);
    });

    it("answers 404 for another profile's session and leaves it live; 404 for an unknown one, 400 for a malformed id", async () => {
      const alice = await activeUser();
      const bob = await activeUser();
      const r = await del(`/api/v1/auth/sessions/${bob.session_id}`, { token: alice.token });
      expectEnvelope(r, 404, 'NOT_FOUND');
      expect((await get('/api/v1/identity/contact', { token: bob.token })).statusCode).toBe(200);

      expectEnvelope(await del(`/api/v1/auth/sessions/${hex32()}`, { token: alice.token }), 404, 'NOT_FOUND');
      expectEnvelope(await del('/api/v1/auth/sessions/NOT-A-SESSION', { token: alice.token }), 400, 'VALIDATION_FAILED');
    });

    it('answers a wrong password exactly like an unknown email (no enumeration)', async () => {
      const user = await activeUser();
      const wrong = expectEnvelope(await login(user.email, 'Wrong-Password-123'), 401, 'UNAUTHENTICATED');
      const unknown = expectEnvelope(await login(uniqueEmail('nobody'), 'Wrong-Password-123'), 401, 'UNAUTHENTICATED');
      expect(wrong.message).toBe(unknown.message);
      expect(wrong.details).toEqual(unknown.details);
      // A registered but not activated address with a wrong password answers the same too.
      const pending = registration();
      await register(pending);
      const pendingWrong = expectEnvelope(await login(pending.email as string, 'Wrong-Password-123'), 401, 'UNAUTHENTICATED');
      expect(pendingWrong.message).toBe(unknown.message);
    });

    it('rejects malformed login bodies with 400', async () => {
      expectEnvelope(await post('/api/v1/auth/sessions', { email: 'a@example.com' }), 400, 'VALIDATION_FAILED');
      expectEnvelope(await post('/api/v1/auth/sessions', { password: PASSWORD }), 400, 'VALIDATION_FAILED');
      const numeric = expectEnvelope(await post('/api/v1/auth/sessions', { email: 'a@example.com', password: 123456789012 }), 400, 'VALIDATION_FAILED');
      expect(fieldsOf(numeric)).toContain('password');
      expectEnvelope(await post('/api/v1/auth/sessions', { email: 'a@example.com', password: 'x'.repeat(1025) }), 400, 'VALIDATION_FAILED');
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('authentication history', () => {
    interface AuthEvent {
      event_id: string;
      event_type: string;
      outcome: string;
      authentication_method: string;
      device: { name: string; platform: string };
      session_status: string;
      current_session: boolean;
      last_seen_at?: string | null;
      occurred_at?: string;
      revoked_at?: string | null;
      reason: string | null;
    }
    /** Reads carry X-Min-Position with the last position seen, as a client on another node would. */
    const events = async (token: string, query = ''): Promise<{ items: AuthEvent[]; next_cursor?: string }> => {
      const r = await get(`/api/v1/auth/events${query}`, { token, headers: { 'x-min-position': lastPosition.toString() } });
      expect(r.statusCode).toBe(200);
      return r.json();
    };

    it('lists logins, failures and revocations newest first, with devices, session state and the current session', async () => {
      const user = await activeUser({}, { ua: FIREFOX_WINDOWS });
      const second = (await login(user.email, user.password, { ua: CHROME_MAC })).json();
      const failedLogin = await login(user.email, 'Not-The-Password-1', { ua: CURL });
      expectEnvelope(failedLogin, 401, 'UNAUTHENTICATED');
      // The failure is recorded (LoginFailed) but a refusal carries no X-Position: it would tell known addresses apart.
      expect(failedLogin.headers['x-position']).toBeUndefined();
      expect((await del(`/api/v1/auth/sessions/${second.session_id}`, { token: user.token })).statusCode).toBe(200);

      const page = await events(user.token);
      expect(Object.keys(page)).toEqual(['items']);
      const items = page.items;
      expect(items.map((e) => e.event_type)).toEqual(['SESSION_REVOKED', 'LOGIN_FAILED', 'LOGIN_SUCCEEDED', 'LOGIN_SUCCEEDED']);
      for (const e of items) {
        expect(Object.keys(e).sort()).toEqual(['authentication_method', 'current_session', 'device', 'event_id', 'event_type', 'last_seen_at', 'occurred_at', 'outcome', 'purpose', 'reason', 'revoked_at', 'session_status']);
        expect(e.event_id).toMatch(HEX32);
        expect(e.occurred_at).toMatch(RFC3339);
      }
      const times = items.map((e) => Date.parse(e.occurred_at!));
      expect([...times].sort((a, b) => b - a)).toEqual(times);

      const [revoked, failed, secondLogin, firstLogin] = items;
      expect(firstLogin).toMatchObject({
        event_type: 'LOGIN_SUCCEEDED',
        outcome: 'SUCCESS',
        authentication_method: 'PASSWORD',
        device: { name: 'Firefox 120', platform: 'Windows 10' },
        session_status: 'ACTIVE',
        current_session: true,
        revoked_at: null,
      });
      expect(secondLogin).toMatchObject({
        event_type: 'LOGIN_SUCCEEDED',
        outcome: 'SUCCESS',
        device: { name: 'Chrome 119', platform: 'macOS 10.15' },
        session_status: 'REVOKED',
        current_session: false,
        revoked_at: expect.stringMatching(RFC3339),
      });
      expect(failed).toMatchObject({
        event_type: 'LOGIN_FAILED',
        outcome: 'FAILURE',
        authentication_method: 'PASSWORD',
        device: { name: 'curl 8.4', platform: 'Unknown platform' },
        current_session: false,
        revoked_at: null,
      });
      // The method is how the revoked session was opened; why it was revoked is the reason, apart.
      expect(revoked).toMatchObject({
        event_type: 'SESSION_REVOKED',
        authentication_method: 'PASSWORD',
        reason: 'REVOKED_BY_USER',
        device: { name: 'Chrome 119', platform: 'macOS 10.15' },
        session_status: 'REVOKED',
        current_session: false,
        revoked_at: secondLogin.revoked_at,
      });
      expect(items.filter((e) => e.current_session)).toHaveLength(1);
      expect([failed, secondLogin, firstLogin].map((e) => e.reason)).toEqual([null, null, null]);

      // Seen from the other (still live) session of the same profile, "current" moves with the caller.
      const third = (await login(user.email, user.password, { ua: CURL })).json();
      const fromThird = (await events(third.access_token)).items;
      expect(fromThird[0]).toMatchObject({ event_type: 'LOGIN_SUCCEEDED', current_session: true, device: { name: 'curl 8.4' } });
      expect(fromThird.find((e) => e.event_id === firstLogin.event_id)).toMatchObject({ current_session: false, session_status: 'ACTIVE' });
    });

    it('shows a logout as SESSION_REVOKED in the history seen from another session', async () => {
      const user = await activeUser({}, { ua: FIREFOX_WINDOWS });
      const other = (await login(user.email, user.password, { ua: CHROME_MAC })).json();
      expect((await del(`/api/v1/auth/sessions/${user.session_id}`, { token: user.token })).statusCode).toBe(200);
      const items = (await events(other.access_token)).items;
      expect(items[0]).toMatchObject({ event_type: 'SESSION_REVOKED', authentication_method: 'PASSWORD', reason: 'LOGOUT', session_status: 'REVOKED', current_session: false, device: { name: 'Firefox 120', platform: 'Windows 10' } });
      const firstLogin = items.find((e) => e.event_type === 'LOGIN_SUCCEEDED' && e.device.name === 'Firefox 120');
      expect(firstLogin).toMatchObject({ session_status: 'REVOKED', revoked_at: expect.stringMatching(RFC3339) });
    });

    it('pages with limit=1 and next_cursor through every item exactly once', async () => {
      const user = await activeUser({}, { ua: FIREFOX_WINDOWS });
      for (let i = 0; i < 3; i++) expect((await login(user.email, user.password, { ua: CHROME_MAC })).statusCode).toBe(201);
      expect((await login(user.email, 'Not-The-Password-1')).statusCode).toBe(401);

      const all = (await events(user.token)).items;
      expect(all).toHaveLength(5);
      const walked: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const page = await events(user.token, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(page.items.length).toBeLessThanOrEqual(1);
        walked.push(...page.items.map((e) => e.event_id));
        cursor = page.next_cursor;
        if (!cursor) break;
      }
      expect(walked).toEqual(all.map((e) => e.event_id));
      expect(new Set(walked).size).toBe(walked.length);

      const two = await events(user.token, '?limit=2');
      expect(two.items.map((e) => e.event_id)).toEqual(walked.slice(0, 2));
      expect(two.next_cursor).toEqual(expect.any(String));
      const rest = await events(user.token, `?limit=200&cursor=${encodeURIComponent(two.next_cursor!)}`);
      expect(rest.items.map((e) => e.event_id)).toEqual(walked.slice(2));
      expect(rest.next_cursor).toBeUndefined();
    });

    it.each([
      ['a cursor that is not base64url', '?cursor=not%20a%20cursor!', 'cursor'],
      ['a cursor of the wrong shape', `?cursor=${Buffer.from(JSON.stringify(['abc'])).toString('base64url')}`, 'cursor'],
      ['a cursor that is not JSON', `?cursor=${Buffer.from('{{{').toString('base64url')}`, 'cursor'],
      ['limit=0', '?limit=0', 'limit'],
      ['limit=201', '?limit=201', 'limit'],
      ['a negative limit', '?limit=-1', 'limit'],
    ])('rejects %s with 400', async (_name, query, field) => {
      const user = await activeUser();
      const error = expectEnvelope(await get(`/api/v1/auth/events${query}`, { token: user.token }), 400, 'VALIDATION_FAILED');
      expect(fieldsOf(error)).toContain(field);
    });

    it("never shows another profile's events", async () => {
      const alice = await activeUser({}, { ua: FIREFOX_WINDOWS });
      const bob = await activeUser({}, { ua: CHROME_MAC });
      expect((await login(bob.email, 'Not-The-Password-1')).statusCode).toBe(401);
      expect((await login(alice.email, 'Not-The-Password-1')).statusCode).toBe(401);

      const aliceItems = (await events(alice.token)).items;
      const bobItems = (await events(bob.token)).items;
      expect(aliceItems.map((e) => e.event_type)).toEqual(['LOGIN_FAILED', 'LOGIN_SUCCEEDED']);
      expect(bobItems.map((e) => e.event_type)).toEqual(['LOGIN_FAILED', 'LOGIN_SUCCEEDED']);
      const aliceIds = new Set(aliceItems.map((e) => e.event_id));
      expect(bobItems.some((e) => aliceIds.has(e.event_id))).toBe(false);
      expect(aliceItems.find((e) => e.event_type === 'LOGIN_SUCCEEDED')!.device.name).toBe('Firefox 120');
      expect(bobItems.find((e) => e.event_type === 'LOGIN_SUCCEEDED')!.device.name).toBe('Chrome 119');

      // A cursor taken from bob's history does not reveal alice's.
      const bobPage = await events(bob.token, '?limit=1');
      const withBobsCursor = await events(alice.token, `?cursor=${encodeURIComponent(bobPage.next_cursor!)}`);
      expect(withBobsCursor.items.every((e) => aliceIds.has(e.event_id))).toBe(true);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('login throttling', () => {
    it('locks an account after repeated wrong passwords (from any address) with 429 and Retry-After, even for the right password', async () => {
      const user = await activeUser();
      const statuses: number[] = [];
      let limited: InjectResponse | undefined;
      for (let i = 0; i < 12 && !limited; i++) {
        const r = await login(user.email, `Wrong-Password-${i}!`); // a fresh address each time: the account key locks
        statuses.push(r.statusCode);
        if (r.statusCode === 429) limited = r;
      }
      expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 401]);
      expect(limited).toBeDefined();

      const locked = await login(user.email, user.password);
      expectEnvelope(locked, 429, 'RATE_LIMITED');
      const retryAfter = Number(locked.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(limited!.headers['retry-after']).toMatch(/^\d+$/);
      expectEnvelope(limited!, 429, 'RATE_LIMITED');
      // The session the user already had is not affected.
      expect((await get('/api/v1/identity/contact', { token: user.token })).statusCode).toBe(200);

      // After the lock, the right password works again.
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 200));
      expect((await login(user.email, user.password)).statusCode).toBe(201);
    });

    it('does not lock out others behind an address where someone sprays guesses: the source ceiling is coarse', async () => {
      const user = await activeUser();
      const ip = freshIp();
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await login(uniqueEmail('spray'), 'Wrong-Password-1!', { ip })).statusCode);
      expect(statuses).toEqual(Array(12).fill(401));
      // Someone else behind the same address signs in (the account key, not the address, backs off).
      expect((await login(user.email, user.password, { ip })).statusCode).toBe(201);
    });
  });

  // ------------------------------------------------------------------------------------------------------------
  describe('secrets are never stored or logged', () => {
    const jsonOf = (value: unknown): string => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));

    it('keeps the password, the activation token and the access token out of every event, metadata and log line', async () => {
      const password = `Unique-Secret-${randomBytes(6).toString('hex')}-9!`;
      const wrongPassword = `Wrong-Secret-${randomBytes(6).toString('hex')}-9!`;
      const body = registration({ password });
      const email = body.email as string;
      expectReceipt(await register(body), GLOBAL_TENANT);
      const activationToken = await lastToken(email);
      expect((await activate(activationToken)).statusCode).toBe(200);
      expect((await login(email, wrongPassword)).statusCode).toBe(401);
      const grant = (await login(email, password, { ua: FIREFOX_WINDOWS })).json();
      const accessToken: string = grant.access_token;
      expect((await get('/api/v1/identity/contact', { token: accessToken })).statusCode).toBe(200);
      expect((await post('/api/v1/auth/verify', { hashed_token: sha256(accessToken) })).statusCode).toBe(200);
      expect((await del(`/api/v1/auth/sessions/${grant.session_id}`, { token: accessToken })).statusCode).toBe(200);
      expect((await get('/api/v1/identity/contact', { token: accessToken })).statusCode).toBe(401);

      const secrets = { password, wrongPassword, activationToken, accessToken };
      const store: EventStore = t.app.get(EVENT_STORE);
      const all = await store.readAll({ maxCount: 100000 });
      expect(all.length).toBeGreaterThan(0);
      const eventsText = all.map((e) => jsonOf({ data: e.data, metadata: e.metadata, stream: e.stream, type: e.type })).join('\n');
      for (const [name, secret] of Object.entries(secrets)) {
        expect({ name, inEvents: eventsText.includes(secret) }).toEqual({ name, inEvents: false });
      }
      // What is stored instead: the hashes.
      expect(eventsText).toContain(sha256(activationToken));
      expect(eventsText).toContain(sha256(accessToken));

      expect(t.logs.length).toBeGreaterThan(0);
      const logText = t.logs.join('\n');
      for (const [name, secret] of Object.entries(secrets)) {
        expect({ name, inLogs: logText.includes(secret) }).toEqual({ name, inLogs: false });
      }
      // Only login itself and the mailbox ever hand out tokens; no response echoes a password or the activation token.
      const answers = payloads.join('\n');
      expect(answers.includes(password)).toBe(false);
      expect(answers.includes(wrongPassword)).toBe(false);
      expect(answers.includes(activationToken)).toBe(false);
      expect(existsSync(join(t.config.dataDir, 'mailbox', `${email}.jsonl`))).toBe(true);
    });

    it('no activation token from any mailbox ever appears in a response, an event or a log line', async () => {
      const dir = join(t.config.dataDir, 'mailbox');
      const tokens: string[] = [];
      for (const file of readdirSync(dir)) for (const line of await mailbox(file.replace(/\.jsonl$/, ''))) tokens.push(line.token);
      expect(tokens.length).toBeGreaterThan(5);
      const store: EventStore = t.app.get(EVENT_STORE);
      const eventsText = (await store.readAll({ maxCount: 100000 })).map((e) => jsonOf([e.data, e.metadata])).join('\n');
      const answers = payloads.join('\n');
      const logText = t.logs.join('\n');
      const leaked = tokens.filter((tk) => eventsText.includes(tk) || answers.includes(tk) || logText.includes(tk));
      expect(leaked).toEqual([]);
    });

    // Responses carrying secrets are never retained for replay (@SecretResponse): tokens exist only as SHA-256.
    it('does not retain a plaintext bearer token in the idempotency store for a login sent with an Idempotency-Key', async () => {
      const user = await activeUser();
      const ip = freshIp();
      const key = `login-${hex32()}`;
      const first = await login(user.email, user.password, { ip, headers: { 'idempotency-key': key } });
      expect(first.statusCode).toBe(201);
      const db = t.app.get(ReadModelDatabase);
      const rows: Array<{ response_body: string | null }> = await db.reader.query('SELECT response_body FROM idempotency_records');
      expect(rows.some((r) => (r.response_body ?? '').includes(first.json().access_token))).toBe(false);
    });
  });
});

/**
 * Lifetimes, with only the clock (Date) moved forward: timers, I/O and the projection runner run for real. Its own
 * app so the jump in time touches no other suite's state.
 */
describe('Identity: token and session lifetimes (clock moved forward)', () => {
  let t: TestApp;
  const TIMERS_KEPT_REAL = [
    'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame', 'requestIdleCallback',
    'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout',
  ] as const;
  let seq = 0;

  beforeAll(async () => {
    t = await startTestApp({ SESSION_TTL_SECONDS: '60' });
  });
  afterAll(async () => t?.close());
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: [...TIMERS_KEPT_REAL], now: Date.now() });
  });
  afterEach(() => {
    jest.useRealTimers();
  });
  const advance = (ms: number): void => jest.setSystemTime(Date.now() + ms);

  const post = (url: string, payload: unknown, token?: string) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers: token ? { authorization: `Bearer ${token}` } : {}, remoteAddress: `10.200.0.${++seq}` });
  async function registerPending(): Promise<{ email: string; token: string }> {
    const email = `clock.${Date.now().toString(36)}.${++seq}@example.com`;
    const r = await post('/api/v1/identity/registrations', { account_type: 'personal', first_name: 'Ada', last_name: 'Lovelace', email, password: PASSWORD, terms: { version: '2026-01', accepted: true } });
    expect(r.statusCode).toBe(201);
    const lines = await readMailbox(t.config.dataDir, email);
    return { email, token: lines[lines.length - 1].token };
  }

  it('activates with a token just under 24 hours old', async () => {
    const { email, token } = await registerPending();
    advance(DAY_MS - 60_000);
    const r = await post('/api/v1/identity/activations', { token });
    expect(r.statusCode).toBe(200);
    expect(r.json().status).toBe('ACTIVE');
    expect((await post('/api/v1/auth/sessions', { email, password: PASSWORD })).statusCode).toBe(201);
  });

  it('refuses an activation token older than 24 hours with a 4xx naming the token; the account stays inactive', async () => {
    const { email, token } = await registerPending();
    advance(DAY_MS + 60_000);
    const r = await post('/api/v1/identity/activations', { token });
    expect(r.statusCode).toBe(422);
    expect(r.json()).toMatchObject({ success: false, error: { code: 'RULE_VIOLATION', details: [{ field: 'token', issue: expect.any(String) }] } });
    expect((await post('/api/v1/auth/sessions', { email, password: PASSWORD })).statusCode).toBe(401);
  });

  it('expires a session after SESSION_TTL_SECONDS', async () => {
    const { email, token } = await registerPending();
    expect((await post('/api/v1/identity/activations', { token })).statusCode).toBe(200);
    const grant = (await post('/api/v1/auth/sessions', { email, password: PASSWORD })).json();
    expect(grant.expires_in).toBe(60);
    const contact = () => t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: { authorization: `Bearer ${grant.access_token}` } });
    expect((await contact()).statusCode).toBe(200);
    advance(59_000);
    expect((await contact()).statusCode).toBe(200);
    advance(2_000);
    const expired = await contact();
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('UNAUTHENTICATED');
    expect((await post('/api/v1/auth/verify', { hashed_token: sha256(grant.access_token) })).statusCode).toBe(401);
  });
});
