/**
 * The auth guard's reuse of a token's session row (SESSION_CACHE_MS, SessionPrincipalResolver): a change the read
 * model shows without an event on the account's stream is seen within the bound, and at once with the reuse off.
 * What revokes sessions through events (closure, contact change, disabled authenticator, logout) holds at once
 * whatever the bound: identity-security.spec.ts, identity-closure and identity-sessions.spec.ts, which warm the row
 * before they revoke.
 */
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader, type Headers } from '../support/traders';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  { cacheMs: 1500, reused: true },
  { cacheMs: 0, reused: false },
])('session rows with SESSION_CACHE_MS=$cacheMs', ({ cacheMs, reused }) => {
  let t: TestApp;
  let headers: Headers;

  beforeAll(async () => {
    t = await startTestApp({ SESSION_CACHE_MS: String(cacheMs) });
    headers = await registerTrader(t);
  });
  afterAll(async () => t?.close());

  const contact = () => t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers });

  it(reused ? 'sees an account the read model no longer shows as active within the bound' : 'sees an account the read model no longer shows as active at once', async () => {
    expect((await contact()).statusCode).toBe(200);
    expect((await contact()).statusCode).toBe(200);
    // Not an event: the read model alone changes, so only reading the row again can tell.
    const db = t.app.get(ReadModelDatabase);
    await db.transaction((tx) => tx.query(`UPDATE identity_accounts SET status = 'CLOSED'`));
    expect((await contact()).statusCode).toBe(reused ? 200 : 401);
    await sleep(cacheMs + 50);
    const after = await contact();
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('UNAUTHENTICATED');
  });
});
