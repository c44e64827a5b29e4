/**
 * Arena administration over HTTP on a running app, on SQLite read models (test/e2e/arena.spec.ts) and on PostgreSQL
 * (test/integration/arena-postgres.spec.ts): the ArenaAdminResponse envelope, the role matrix and tenant boundary, a
 * season run by the arena clock (a clock the test moves) with real trades on the engine, counted only inside the
 * season's window and on its markets, a disqualification, and the leaderboard frozen at the season's end position.
 */
import { readMailbox } from '../../src/modules/identity/delivery';
import { ArenaClock } from '../../src/modules/arena/arena-clock';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { startTestApp, type TestApp } from './app';
import { hex32 } from './events';
import { openTenant, registerTrader, until, type Headers } from './traders';

const PASSWORD = 'Arena-Password-2026';
const ARENA = '/api/v1/admin/arena';
const MTF = '/api/v1/api/v1/mtf';

interface Reply {
  status: number;
  json: any;
}

export function arenaSuite(name: string, env: () => Record<string, string>, cleanup: () => Promise<void> = async () => undefined): void {
  describe(name, () => {
    let now = new Date('2026-11-25T10:00:00.000Z');
    let t: TestApp;

    async function call(method: 'GET' | 'POST', url: string, headers: Headers, payload?: unknown): Promise<Reply> {
      const r = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: r.statusCode, json: r.body ? r.json() : undefined };
    }
    async function member(tenant_uuid: string): Promise<{ headers: Headers; profile_uuid: string }> {
      const email = `arena-${hex32().slice(0, 10)}@example.com`;
      expect((await call('POST', '/api/v1/identity/registrations', {}, { account_type: 'personal', first_name: 'A', last_name: 'R', email, password: PASSWORD, terms: { version: '1', accepted: true }, tenant_uuid })).status).toBe(201);
      const [d] = await readMailbox(t.config.dataDir, email);
      expect((await call('POST', '/api/v1/identity/activations', {}, { token: d.token })).status).toBeLessThan(300);
      const headers = { authorization: `Bearer ${(await call('POST', '/api/v1/auth/sessions', {}, { email, password: PASSWORD })).json.access_token}` };
      return { headers, profile_uuid: (await call('GET', '/api/v1/identity/contact', headers)).json.profile_uuid };
    }
    async function league(label: string) {
      const founder = await registerTrader(t);
      const tenant = (await call('POST', '/api/v1/tenants', founder, { name: label })).json.tenant_uuid;
      await openTenant(t, founder, tenant);
      const admin = await member(tenant);
      expect((await call('POST', `/api/v1/tenants/${tenant}/authorities`, founder, { profile_uuid: admin.profile_uuid, role_code: 'TENANT_ADMIN', reason: 'Runs the trading league' })).status).toBe(201);
      const [a, b, c] = [await member(tenant), await member(tenant), await member(tenant)];
      return { tenant, admin: admin.headers, a, b, c };
    }
    const order = (who: Headers, direction: 'BUY' | 'SELL', limit_price: string, market = 'BTC-PERP') =>
      call('POST', `${MTF}/orders`, who, { direction, market, order_size: '0.010', limit_price, external_ref: 'YXJlbmE' });
    /** A BUY by `buyer` resting, then a SELL by `seller` at the same price: one trade, once the engine filled it and the log is projected. */
    async function cross(buyer: Headers, seller: Headers, price: string, market = 'BTC-PERP'): Promise<void> {
      expect((await order(buyer, 'BUY', price, market)).status).toBe(201);
      const sell = await order(seller, 'SELL', price, market);
      expect(sell.status).toBe(201);
      // The engine decides after the order's append: wait for its fill, not for a while.
      await until(async () => (await call('GET', `${MTF}/order_meta?order_uuid=${sell.json.response.order_uuid}`, seller)).json?.response?.order?.status, (s) => s === 'FILLED', 10_000);
      await settle();
    }
    async function settle(): Promise<void> {
      const store: EventStore = t.app.get(EVENT_STORE);
      expect(await t.app.get(ProjectionRunner).waitFor(await store.headPosition(), undefined, 8000)).toBe(true);
    }
    const season = async (who: Headers, id: string) => (await call('GET', `${ARENA}/seasons/${id}`, who)).json.data;

    beforeAll(async () => {
      // The arena clock runs only when the test says (a periodic run would move seasons between the test's steps).
      t = await startTestApp({ ...env(), ARENA_CLOCK_SWEEP_MS: '3600000' }, { clock: () => now });
    });
    afterAll(async () => {
      await t?.close();
      await cleanup();
    });

    it('the envelope is exactly { success, data }; tenant admins administer; others 403; another tenant 404', async () => {
      const l = await league('League One');
      const created = await call('POST', `${ARENA}/seasons`, l.admin, { name: 'Sprint', starts_at: '2026-11-25T10:10:00Z', ends_at: '2026-11-25T10:20:00Z', markets: ['BTC-PERP'] });
      expect(created.status).toBe(201);
      expect(Object.keys(created.json).sort()).toEqual(['data', 'success']);
      expect(created.json.success).toBe(true);
      expect(created.json.data).toMatchObject({ tenant_uuid: l.tenant, name: 'Sprint', status: 'DRAFT', version: 0, markets: ['BTC-PERP'], leaderboard: [], started_position: null, settled_position: null });
      expect((await call('POST', `${ARENA}/seasons`, l.a.headers, { name: 'X', starts_at: '2026-11-25T10:10:00Z', ends_at: '2026-11-25T10:20:00Z' })).status).toBe(403);
      expect((await call('GET', ARENA, l.a.headers)).status).toBe(403);
      const other = await league('League Two');
      expect((await call('GET', `${ARENA}/seasons/${created.json.data.season_uuid}`, other.admin)).status).toBe(404);
      expect((await call('POST', `${ARENA}/seasons/${created.json.data.season_uuid}/participants`, l.admin, { profile_uuid: other.a.profile_uuid })).status).toBe(404);
      const list = await call('GET', ARENA, l.admin);
      expect(list.json).toEqual({ success: true, data: { seasons: [expect.objectContaining({ season_uuid: created.json.data.season_uuid, leaderboard: [] })], limit: 50 } });
      const bad = await call('POST', `${ARENA}/seasons`, l.admin, { name: 'Backwards', starts_at: '2026-11-25T10:20:00Z', ends_at: '2026-11-25T10:10:00Z' });
      expect([bad.status, bad.json.error.details]).toEqual([400, [{ field: 'ends_at', issue: 'must be after starts_at' }]]);
    });

    it('a season run by the clock counts only its window and markets; a disqualified trader leaves the ranking; the board is frozen at the end position', async () => {
      const l = await league('League Three');
      const id = (await call('POST', `${ARENA}/seasons`, l.admin, { name: 'Window', starts_at: '2026-11-25T10:10:00Z', ends_at: '2026-11-25T10:20:00Z', markets: ['BTC-PERP'] })).json.data.season_uuid;
      for (const p of [l.a, l.b, l.c]) expect((await call('POST', `${ARENA}/seasons/${id}/participants`, l.admin, { profile_uuid: p.profile_uuid })).status).toBe(200);
      const stale = await call('POST', `${ARENA}/seasons/${id}/schedule`, l.admin, { expected_version: 0 });
      expect([stale.status, stale.json.error.current_version]).toEqual([409, 3]);
      expect((await call('POST', `${ARENA}/seasons/${id}/schedule`, l.admin, { expected_version: 3 })).json.data.status).toBe('SCHEDULED');

      // Before the start: not counted.
      await cross(l.a.headers, l.b.headers, '40000');
      const clock = t.app.get(ArenaClock);
      expect(await clock.run()).toBe(0);
      now = new Date('2026-11-25T10:10:00.000Z');
      expect(await clock.run()).toBe(1);
      await settle();
      expect((await season(l.admin, id)).status).toBe('LIVE');

      // In the window: A buys at 50000 from B, sells at 51000 to B (+10 for A, −10 for B); an ETH trade does not count.
      await cross(l.a.headers, l.b.headers, '50000');
      await cross(l.b.headers, l.a.headers, '51000');
      await cross(l.a.headers, l.c.headers, '3000', 'ETH-PERP');
      await cross(l.c.headers, l.b.headers, '52000');
      const disq = await call('POST', `${ARENA}/seasons/${id}/participants/${l.c.profile_uuid}/disqualify`, l.admin, { reason: 'Wash trading with a partner' });
      expect(disq.status).toBe(200);
      await cross(l.c.headers, l.b.headers, '52500');

      // The end: the settle freezes the board; a trade after it does not count.
      now = new Date('2026-11-25T10:20:00.000Z');
      expect(await clock.run()).toBe(1);
      await settle();
      await cross(l.a.headers, l.b.headers, '60000');
      const settling = await season(l.admin, id);
      expect(settling.status).toBe('SETTLING');
      expect(await clock.run()).toBe(1);
      await settle();
      const final = await season(l.admin, id);
      expect(final).toMatchObject({ status: 'FINAL', started_position: expect.stringMatching(/^\d+$/), settled_position: expect.stringMatching(/^\d+$/) });
      expect(BigInt(final.settled_position)).toBeGreaterThan(BigInt(final.started_position));
      expect(final.leaderboard.map((s: any) => [s.rank, s.profile_uuid, s.realized_pnl, s.trades, s.markets, s.disqualified])).toEqual([
        [1, l.a.profile_uuid, '10', 2, ['BTC-PERP'], false],
        [2, l.b.profile_uuid, '-10', 4, ['BTC-PERP'], false],
        [null, l.c.profile_uuid, '0', 1, ['BTC-PERP'], true],
      ]);
      expect(final.leaderboard[0].positions['BTC-PERP']).toEqual({ quantity: '0.000000000000000000', entry_price: '0.000000000000000000', realized_pnl: '10.000000000000000000' });
      expect(final.leaderboard[2].disqualification_reason).toBe('Wash trading with a partner');
      expect(final.leaderboard).toEqual(settling.leaderboard);
      expect(await clock.run()).toBe(0);
      expect((await call('POST', `${ARENA}/seasons/${id}/cancel`, l.admin, { expected_version: final.version })).json.error.code).toBe('STATE_CONFLICT');
      await until(async () => (await season(l.admin, id)).leaderboard, (b) => JSON.stringify(b) === JSON.stringify(final.leaderboard));
      now = new Date('2026-11-25T10:00:00.000Z');
    });
  });
}
