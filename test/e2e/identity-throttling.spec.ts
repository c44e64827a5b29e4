/**
 * Throttling (issue 18, item 8): per account and per source together, the client address behind trusted proxies,
 * mail-sending requests per recipient and per source, and counters shared by the nodes of one deployment.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from '../support/app';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';
import { registerTrader } from '../support/traders';

const PASSWORD = 'Trader-Password-2026';
const registration = (email: string) => ({ account_type: 'personal', first_name: 'T', last_name: 'R', email, password: PASSWORD, terms: { version: '1', accepted: true } });

async function login(t: TestApp, email: string, password: string, headers: Record<string, string> = {}, remoteAddress = '192.0.2.10') {
  return t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password }, headers, remoteAddress });
}
async function emailOf(t: TestApp): Promise<string> {
  const headers = await registerTrader(t);
  return (await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers })).json().email;
}

describe('sign-in throttling: account back-off and a coarse source ceiling', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LOGIN_SOURCE_FAILURE_LIMIT: '10', TRUSTED_PROXIES: '10.0.0.0/8, 2001:db8::1' });
  });
  afterAll(async () => t.close());

  it('refuses a source past its ceiling with 429 and Retry-After; other sources are unaffected', async () => {
    const email = await emailOf(t);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await login(t, `nobody-${i}@example.com`, 'Wrong-Password-1!', {}, '192.0.2.66')).statusCode);
    expect(statuses).toEqual(Array(10).fill(401));
    const limited = await login(t, email, PASSWORD, {}, '192.0.2.66');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(60); // the 15-minute window, not a second
    expect((await login(t, email, PASSWORD, {}, '192.0.2.67')).statusCode).toBe(201);
  });

  it('backs off on the account whatever the source, and a success from elsewhere is not blocked by the source', async () => {
    const email = await emailOf(t);
    for (let i = 0; i < 6; i++) await login(t, email, 'Wrong-Password-1!', {}, `198.51.100.${i + 1}`);
    const locked = await login(t, email, PASSWORD, {}, '198.51.100.200');
    expect(locked.statusCode).toBe(429);
    expect(locked.json().error.message).toContain('account');
  });

  it('takes the client from X-Forwarded-For only behind a trusted proxy: the right-most untrusted address', async () => {
    const email = await emailOf(t);
    // Through the trusted proxy 10.1.2.3, a client at 203.0.113.9 (the left-most entry is whatever the client claimed).
    const viaProxy = (client: string) => ({ 'x-forwarded-for': `1.2.3.4, ${client}, 10.9.9.9` });
    for (let i = 0; i < 10; i++) expect((await login(t, `ghost-${i}@example.com`, 'Wrong-1-Password!', viaProxy('203.0.113.9'), '10.1.2.3')).statusCode).toBe(401);
    // That client is at its ceiling, through any trusted proxy…
    expect((await login(t, email, PASSWORD, viaProxy('203.0.113.9'), '10.7.7.7')).statusCode).toBe(429);
    // …another client behind the same proxy is not, and neither is the proxy's own address.
    expect((await login(t, email, PASSWORD, viaProxy('203.0.113.10'), '10.1.2.3')).statusCode).toBe(201);
    // An untrusted peer's X-Forwarded-For is ignored: it cannot claim to be someone else (or escape its own ceiling).
    for (let i = 0; i < 10; i++) await login(t, `spoof-${i}@example.com`, 'Wrong-1-Password!', { 'x-forwarded-for': `203.0.113.${100 + i}` }, '192.0.2.99');
    expect((await login(t, email, PASSWORD, { 'x-forwarded-for': '203.0.113.200' }, '192.0.2.99')).statusCode).toBe(429);
  });

  it('refuses TRUSTED_PROXIES that are not addresses or ranges, at start', async () => {
    await expect(startTestApp({ TRUSTED_PROXIES: '10.0.0.0/33' })).rejects.toThrow(/TRUSTED_PROXIES/);
    await expect(startTestApp({ TRUSTED_PROXIES: 'proxy.example.com' })).rejects.toThrow(/TRUSTED_PROXIES/);
  });
});

describe('mail-sending requests: per recipient and per source', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ MAIL_SOURCE_LIMIT_PER_HOUR: '8' });
  });
  afterAll(async () => t.close());

  const register = (email: string, remoteAddress: string) => t.app.inject({ method: 'POST', url: '/api/v1/identity/registrations', payload: registration(email), remoteAddress });

  it('stops mailing one address after five requests an hour, from any source, whether or not it has an account', async () => {
    const email = `bombed-${hex32().slice(0, 8)}@example.com`;
    for (let i = 0; i < 5; i++) expect((await register(email, `198.18.0.${i + 1}`)).statusCode).toBe(201);
    const refused = await register(email, '198.18.0.50');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(60);
  });

  it('stops one source after its hourly ceiling of requests', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await register(`src-${hex32().slice(0, 8)}@example.com`, '198.18.1.1')).statusCode);
    expect(statuses).toEqual([...Array(8).fill(201), 429]);
    expect((await register(`src-${hex32().slice(0, 8)}@example.com`, '198.18.1.2')).statusCode).toBe(201);
  });
});

describe('throttle counters are shared by the nodes of one deployment', () => {
  it('on SQLite read models: a source throttled through one node is throttled through the other', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'throttle-nodes-'));
    const a = await startTestApp({ DATA_DIR: dataDir, LOGIN_SOURCE_FAILURE_LIMIT: '5' });
    const b = await startTestApp({ DATA_DIR: dataDir, LOGIN_SOURCE_FAILURE_LIMIT: '5', PROJECTIONS_AUTOSTART: 'false' });
    try {
      for (let i = 0; i < 5; i++) expect((await login(a, `n-${i}@example.com`, 'Wrong-Password-1!', {}, '192.0.2.200')).statusCode).toBe(401);
      expect((await login(b, 'n-9@example.com', 'Wrong-Password-1!', {}, '192.0.2.200')).statusCode).toBe(429);
    } finally {
      await b.close();
      await a.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('on PostgreSQL read models: the same', async () => {
    const schema = `t_${hex32().slice(0, 16)}`;
    const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema, LOGIN_SOURCE_FAILURE_LIMIT: '5' };
    const dataDir = mkdtempSync(join(tmpdir(), 'throttle-pg-'));
    const a = await startTestApp({ ...env, DATA_DIR: dataDir });
    const b = await startTestApp({ ...env, DATA_DIR: dataDir, PROJECTIONS_AUTOSTART: 'false' });
    try {
      for (let i = 0; i < 5; i++) expect((await login(a, `p-${i}@example.com`, 'Wrong-Password-1!', {}, '192.0.2.201')).statusCode).toBe(401);
      expect((await login(b, 'p-9@example.com', 'Wrong-Password-1!', {}, '192.0.2.201')).statusCode).toBe(429);
    } finally {
      await b.close();
      await a.close();
      rmSync(dataDir, { recursive: true, force: true });
      const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
      await ds.initialize();
      await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await ds.destroy();
    }
  });
});
