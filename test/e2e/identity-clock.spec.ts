/**
 * Identity keeps the platform's time (the injected clock, CLOCK), as every other module does: an activation's and a
 * session's expiry are worked out from it and checked against it, and so is the closure sweep's "due". Here the
 * clock is a variable the test moves; the process's own clock never is.
 */
import { readMailbox } from '../../src/modules/identity/delivery';
import { AccountClosureSweep } from '../../src/modules/identity/closure-sweep';
import { startTestApp, type TestApp } from '../support/app';

const START = Date.parse('2031-03-01T12:00:00.000Z');
let now = new Date(START);
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ SESSION_TTL_SECONDS: '3600', ACCOUNT_CLOSURE_GRACE_SECONDS: '86400', CLOSURE_SWEEP_INTERVAL_MS: '3600000' }, { clock: () => now });
});
afterAll(() => t.close());
beforeEach(() => {
  now = new Date(START);
});

const post = (url: string, payload: object, token?: string) =>
  t.app.inject({ method: 'POST', url, payload, headers: token ? { authorization: `Bearer ${token}` } : {} });

async function register(name: string): Promise<{ email: string; password: string; token: string }> {
  const email = `${name}-${Math.random().toString(16).slice(2, 10)}@example.com`;
  const password = 'Clock-Password-2031';
  const r = await post('/api/v1/identity/registrations', { account_type: 'personal', first_name: 'C', last_name: 'K', email, password, terms: { version: '1', accepted: true } });
  expect(r.statusCode).toBe(201);
  const [delivery] = await readMailbox(t.config.dataDir, email);
  return { email, password, token: delivery.token };
}

async function signIn(name: string): Promise<{ email: string; password: string; access_token: string }> {
  const a = await register(name);
  expect((await post('/api/v1/identity/activations', { token: a.token })).statusCode).toBe(200);
  const grant = await post('/api/v1/auth/sessions', { email: a.email, password: a.password });
  expect(grant.statusCode).toBe(201);
  return { ...a, access_token: grant.json().access_token };
}

it('an activation token lives 24 hours of the platform clock', async () => {
  const late = await register('late');
  now = new Date(START + 24 * 3600_000 + 1000);
  const refused = await post('/api/v1/identity/activations', { token: late.token });
  expect(refused.statusCode).toBe(422);
  expect(refused.json().error).toMatchObject({ code: 'RULE_VIOLATION', details: [{ field: 'token', issue: expect.any(String) }] });

  now = new Date(START);
  const inTime = await register('in-time');
  now = new Date(START + 24 * 3600_000 - 1000);
  expect((await post('/api/v1/identity/activations', { token: inTime.token })).statusCode).toBe(200);
});

it('a session ends SESSION_TTL_SECONDS of the platform clock after sign-in', async () => {
  const { access_token } = await signIn('session');
  const contact = () => t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: { authorization: `Bearer ${access_token}` } });
  expect((await contact()).statusCode).toBe(200);
  now = new Date(START + 3600_000 - 1000);
  expect((await contact()).statusCode).toBe(200);
  now = new Date(START + 3600_000);
  const expired = await contact();
  expect(expired.statusCode).toBe(401);
  expect(expired.json().error.code).toBe('UNAUTHENTICATED');
});

it('the closure sweep completes a closure once its grace period has passed on the platform clock', async () => {
  const a = await signIn('closing');
  const requested = await post('/api/v1/identity/closure', { current_password: a.password }, a.access_token);
  expect(requested.statusCode).toBe(202);
  expect(requested.json().scheduled_for).toBe(new Date(START + 86400_000).toISOString());
  const sweep = t.app.get(AccountClosureSweep);
  now = new Date(START + 86400_000 - 1000);
  expect(await sweep.tick()).toBe(0);
  now = new Date(START + 86400_000);
  expect(await sweep.tick()).toBe(1);
  expect((await post('/api/v1/auth/sessions', { email: a.email, password: a.password })).statusCode).toBe(401);
});
