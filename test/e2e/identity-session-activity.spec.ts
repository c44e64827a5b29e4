/**
 * `last_seen_at` in the authentication history (issue 18, item 6): a session's last authenticated request, written at
 * most once a minute per session and without an event per request.
 */
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader, type Headers } from '../support/traders';

describe('authentication history: last_seen_at', () => {
  let t: TestApp;
  // Minutes move by hand; the base is the real time so sessions made now are current for it.
  const base = Math.floor(Date.now() / 1000) * 1000;
  let offset = 0;
  const at = (ms: number) => new Date(base + ms).toISOString();

  beforeAll(async () => {
    t = await startTestApp({}, { clock: () => new Date(base + offset) });
  });
  afterAll(async () => t.close());

  const history = async (headers: Headers) => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/auth/events', headers });
    expect(r.statusCode).toBe(200);
    return r.json().items as Array<{ event_type: string; current_session: boolean; last_seen_at: string | null }>;
  };
  const loginOf = async (headers: Headers) => (await history(headers)).find((e) => e.event_type === 'LOGIN_SUCCEEDED' && e.current_session)!;

  it('shows the session\'s last request, refreshed at most once a minute, with no event per request', async () => {
    offset = 0;
    const a = await registerTrader(t);
    expect((await loginOf(a)).last_seen_at).toBe(at(0));

    const store = t.app.get<EventStore>(EVENT_STORE);
    const head = await store.headPosition();
    offset = 30_000;
    for (let i = 0; i < 20; i++) await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: a });
    expect((await loginOf(a)).last_seen_at).toBe(at(0)); // within the minute: not written again
    expect(await store.headPosition()).toBe(head); // requests append nothing

    offset = 61_000;
    await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: a });
    expect((await loginOf(a)).last_seen_at).toBe(at(61_000));
    expect(await store.headPosition()).toBe(head);
  });

  it('keeps each session apart: another session of the same account has its own', async () => {
    offset = 120_000;
    const a = await registerTrader(t);
    offset = 300_000;
    const email = (await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: a })).json().email as string;
    const second = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password: 'Trader-Password-2026' } });
    const b = { authorization: `Bearer ${second.json().access_token}` };
    offset = 400_000;
    const seenFromB = await history(b);
    const logins = seenFromB.filter((e) => e.event_type === 'LOGIN_SUCCEEDED');
    expect(logins.map((e) => [e.current_session, e.last_seen_at])).toEqual([
      [true, at(400_000)], // b, newest first: this request
      [false, at(300_000)], // a: its last request
    ]);
  });

  it('shows null for an entry without a session, and for a session never used since sign-in', async () => {
    offset = 500_000;
    const a = await registerTrader(t);
    const email = (await t.app.inject({ method: 'GET', url: '/api/v1/identity/contact', headers: a })).json().email as string;
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password: 'Wrong-Password-2026' } })).statusCode).toBe(401);
    await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password: 'Trader-Password-2026' } }); // never used
    const items = await history(a);
    expect(items.find((e) => e.event_type === 'LOGIN_FAILED')!.last_seen_at).toBeNull();
    const unused = items.find((e) => e.event_type === 'LOGIN_SUCCEEDED' && !e.current_session)!;
    expect(unused.last_seen_at).toBeNull();
  });
});
