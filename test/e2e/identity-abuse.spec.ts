/** Identity under abuse: parallel guessing, enumeration through headers or races, undeliverable addresses. */
import { readMailbox } from '../../src/modules/identity/delivery';
import { startTestApp, type TestApp } from '../support/app';
import { hex32 } from '../support/events';

describe('identity under abuse', () => {
  let t: TestApp;
  let n = 0;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  const PASSWORD = 'Correct-Horse-42-Battery';
  const ip = (): string => `10.9.${Math.floor(++n / 250)}.${n % 250}`;
  const post = (url: string, payload: unknown, from = ip()) => t.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress: from });
  const registration = (email: string) => ({ account_type: 'personal', first_name: 'A', last_name: 'B', email, password: PASSWORD, terms: { version: '1', accepted: true } });

  async function activeAccount(): Promise<string> {
    const email = `abuse-${hex32().slice(0, 10)}@example.com`;
    expect((await post('/api/v1/identity/registrations', registration(email))).statusCode).toBe(201);
    const [d] = await readMailbox(t.config.dataDir, email);
    expect((await post('/api/v1/identity/activations', { token: d.token })).statusCode).toBe(200);
    return email;
  }

  it('throttles a burst of parallel guesses on one account, not only sequential ones', async () => {
    const email = await activeAccount();
    const results = await Promise.all(Array.from({ length: 30 }, () => post('/api/v1/auth/sessions', { email, password: 'Wrong-Password-123' })));
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(6);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(24);
    const limited = results.find((r) => r.statusCode === 429)!;
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('answers a failed sign-in of a known and of an unknown address alike (no X-Position, same body)', async () => {
    const known = await activeAccount();
    const a = await post('/api/v1/auth/sessions', { email: known, password: 'Wrong-Password-123' });
    const b = await post('/api/v1/auth/sessions', { email: `nobody-${hex32()}@example.com`, password: 'Wrong-Password-123' });
    expect([a.statusCode, b.statusCode]).toEqual([401, 401]);
    expect(a.headers['x-position']).toBeUndefined();
    expect(b.headers['x-position']).toBeUndefined();
    const strip = (r: typeof a) => ({ ...r.json().error, request_id: undefined });
    expect(strip(a)).toEqual(strip(b));
  });

  it('answers a registration of a taken and of a new address alike, headers included', async () => {
    const taken = await activeAccount();
    const again = await post('/api/v1/identity/registrations', registration(taken));
    const fresh = await post('/api/v1/identity/registrations', registration(`new-${hex32().slice(0, 10)}@example.com`));
    expect([again.statusCode, fresh.statusCode]).toEqual([201, 201]);
    expect(Object.keys(again.json()).sort()).toEqual(Object.keys(fresh.json()).sort());
    expect(again.headers['x-position']).toMatch(/^\d+$/);
    expect(fresh.headers['x-position']).toMatch(/^\d+$/);
  });

  it('answers concurrent registrations of one address with one uniform receipt each and one delivery', async () => {
    const email = `race-${hex32().slice(0, 10)}@example.com`;
    // Five: the per-recipient mail allowance of an hour (MAIL_ADDRESS_LIMIT_PER_HOUR); the sixth is throttled.
    const results = await Promise.all(Array.from({ length: 5 }, () => post('/api/v1/identity/registrations', registration(email))));
    expect(results.map((r) => r.statusCode)).toEqual(Array(5).fill(201));
    expect(await readMailbox(t.config.dataDir, email)).toHaveLength(1);
    const sixth = await post('/api/v1/identity/registrations', registration(email));
    expect(sixth.statusCode).toBe(429);
    expect(sixth.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  });

  it('refuses an address too long to deliver to before writing anything', async () => {
    const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}@example.com`;
    const r = await post('/api/v1/identity/registrations', registration(long));
    expect(r.statusCode).toBe(400);
    expect(r.json().error.details[0].field).toBe('email');
    const retry = await post('/api/v1/identity/registrations', registration(long));
    expect(retry.statusCode).toBe(400);
  });

  it('needs the current password to move the account to another address', async () => {
    const email = await activeAccount();
    const from = ip();
    const login = await post('/api/v1/auth/sessions', { email, password: PASSWORD }, from);
    const auth = { authorization: `Bearer ${login.json().access_token}` };
    const change = (current_password?: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/identity/contact-changes', headers: auth, remoteAddress: from, payload: { contact_type: 'email', value: `moved-${hex32().slice(0, 8)}@example.com`, ...(current_password ? { current_password } : {}) } });
    expect((await change()).statusCode).toBe(400);
    const wrong = await change('Not-The-Password-1');
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.details).toEqual([{ field: 'current_password', issue: 'incorrect' }]);
    expect((await change(PASSWORD)).statusCode).toBe(201);
  });

  it('lets a registration never activated within 24 h be replaced, so nobody can squat on an address', async () => {
    const email = `squat-${hex32().slice(0, 10)}@example.com`;
    expect((await post('/api/v1/identity/registrations', { ...registration(email), password: 'Squatters-Password-9' })).statusCode).toBe(201);
    const [squatToken] = await readMailbox(t.config.dataDir, email);
    const realNow = Date.now();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'queueMicrotask', 'hrtime', 'performance'], now: realNow + 25 * 3600_000 });
    try {
      expect((await post('/api/v1/identity/registrations', registration(email))).statusCode).toBe(201);
      const deliveries = await readMailbox(t.config.dataDir, email);
      expect(deliveries).toHaveLength(2);
      expect((await post('/api/v1/identity/activations', { token: squatToken.token })).statusCode).toBe(422);
      expect((await post('/api/v1/identity/activations', { token: deliveries[1].token })).statusCode).toBe(200);
      expect((await post('/api/v1/auth/sessions', { email, password: PASSWORD })).statusCode).toBe(201);
      expect((await post('/api/v1/auth/sessions', { email, password: 'Squatters-Password-9' })).statusCode).toBe(401);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('revocation does not wait for the read model', () => {
  it('refuses a logged-out token at once, even when the logout answered before the projections caught up', async () => {
    const t = await startTestApp({ READ_YOUR_WRITES_TIMEOUT_MS: '0' });
    try {
      const email = `fast-${hex32().slice(0, 10)}@example.com`;
      const reg = { account_type: 'personal', first_name: 'A', last_name: 'B', email, password: 'Correct-Horse-42-Battery', terms: { version: '1', accepted: true } };
      await t.app.inject({ method: 'POST', url: '/api/v1/identity/registrations', payload: reg });
      const [d] = await readMailbox(t.config.dataDir, email);
      await t.app.inject({ method: 'POST', url: '/api/v1/identity/activations', payload: { token: d.token } });
      let login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password: reg.password } });
      for (let i = 0; i < 50 && login.statusCode !== 201; i++) {
        await new Promise((r) => setTimeout(r, 20));
        login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password: reg.password } });
      }
      const { access_token, session_id } = login.json();
      const auth = { authorization: `Bearer ${access_token}` };
      let ok = await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: auth });
      for (let i = 0; i < 50 && ok.statusCode !== 200; i++) {
        await new Promise((r) => setTimeout(r, 20));
        ok = await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: auth });
      }
      expect(ok.statusCode).toBe(200);
      const logout = await t.app.inject({ method: 'DELETE', url: `/api/v1/auth/sessions/${session_id}`, headers: auth });
      expect([200, 202]).toContain(logout.statusCode);
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: auth })).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
