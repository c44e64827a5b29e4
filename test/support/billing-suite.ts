/**
 * The billing suite over HTTP on a running app, run on SQLite read models (test/e2e/billing.spec.ts) and on
 * PostgreSQL (test/integration/billing-postgres.spec.ts): the catalogue, accounts and their pools, usage rated from
 * the trading events of the log (traced back to them), the 402 gate and its overrun bound, top-ups through the
 * simulated rail, adjustments, subscriptions and the period close at the boundary — checked in the answers, in the
 * account stream and in the rows the projectors wrote.
 */
import { readMailbox } from '../../src/modules/identity/delivery';
import { accountStream } from '../../src/modules/billing/domain/account';
import { billingAccountKey } from '../../src/modules/billing/domain/account-key';
import { BillingJobs } from '../../src/modules/billing/billing-jobs';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { SESSIONS_OUTLAST_THE_CLOCK_MOVES, startTestApp, type TestApp } from './app';
import { hex32 } from './events';
import { intentBody, policy } from './ai-wallets';
import { adminHeaders, openTenant, registerTrader, TEST_ADMIN, until, type Headers } from './traders';

const PASSWORD = 'Billing-Password-2026';
const GLOBAL = '0'.repeat(32);
const MTF = '/api/v1/api/v1/mtf';

export interface Reply {
  status: number;
  json: any;
}

export function billingSuite(name: string, env: () => Record<string, string>, cleanup: () => Promise<void> = async () => undefined): void {
  describe(name, () => {
    let now = new Date('2026-11-25T10:00:00.000Z');
    let t: TestApp;
    let admin: Headers;
    let db: ReadModelDatabase;

    async function call(method: 'GET' | 'POST', url: string, headers: Headers, payload?: unknown): Promise<Reply> {
      const r = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: r.statusCode, json: r.body ? r.json() : undefined };
    }
    const rows = (sql: string, params: unknown[] = []): Promise<Array<Record<string, any>>> => db.reader.query(db.sql(sql), params);
    const store = (): EventStore => t.app.get(EVENT_STORE);
    const accountEvents = async (tenant: string): Promise<RecordedEvent[]> => store().readStream(accountStream(tenant));
    /** Waits until the rater has rated the log as it is now and the billing read models show it. */
    async function rated(): Promise<void> {
      const head = await store().headPosition();
      expect(await t.app.get(BillingJobs).raterReached(head, 8000)).toBe(true);
      expect(await t.app.get(ProjectionRunner).waitFor(await store().headPosition(), undefined, 8000)).toBe(true);
    }

    /** A person registered into `tenant_uuid` (none: the global tenant). */
    async function member(tenant_uuid?: string): Promise<{ headers: Headers; profile_uuid: string }> {
      const email = `bill-${hex32().slice(0, 10)}@example.com`;
      const reg = await call('POST', '/api/v1/identity/registrations', {}, { account_type: 'personal', first_name: 'B', last_name: 'M', email, password: PASSWORD, terms: { version: '1', accepted: true }, tenant_uuid });
      expect(reg.status).toBe(201);
      const [d] = await readMailbox(t.config.dataDir, email);
      expect((await call('POST', '/api/v1/identity/activations', {}, { token: d.token })).status).toBeLessThan(300);
      const headers = { authorization: `Bearer ${(await call('POST', '/api/v1/auth/sessions', {}, { email, password: PASSWORD })).json.access_token}` };
      return { headers, profile_uuid: (await call('GET', '/api/v1/identity/contact', headers)).json.profile_uuid };
    }
    /** A tenant of its own: its founder (OWNER, a person of the global tenant) and a member trading in it. */
    async function tenant(label: string): Promise<{ tenant: string; owner: Headers; trader: Headers; trader_uuid: string }> {
      const owner = await registerTrader(t);
      const created = await call('POST', '/api/v1/tenants', owner, { name: label });
      expect(created.status).toBe(201);
      await openTenant(t, owner, created.json.tenant_uuid);
      const m = await member(created.json.tenant_uuid);
      return { tenant: created.json.tenant_uuid, owner, trader: m.headers, trader_uuid: m.profile_uuid };
    }
    const order = (who: Headers, over: Record<string, unknown> = {}) =>
      call('POST', `${MTF}/orders`, who, { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '50000', external_ref: 'YmlsbGluZw', ...over });
    const account = async (who: Headers, tenant_uuid: string) => {
      const r = await call('GET', `/api/v1/billing/account?tenant_uuid=${tenant_uuid}`, who);
      expect(r.status).toBe(200);
      return r.json;
    };

    beforeAll(async () => {
      // One credit per period: ten orders at 0.1 (RATE_CARD_V1) use it up.
      t = await startTestApp({ ...env(), ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, BILLING_FREE_ALLOWANCE_CREDITS: '1', BILLING_PERIOD_CLOSE_SWEEP_MS: '3600000', BILLING_RATER_COALESCE_MS: '50', SESSION_TTL_SECONDS: SESSIONS_OUTLAST_THE_CLOCK_MOVES }, { clock: () => now });
      db = t.app.get(ReadModelDatabase);
      admin = await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined');
    });
    afterAll(async () => {
      await t?.close();
      await cleanup();
    });

    it('catalogue: platform admins define plans and top-ups; the catalogue lists those on sale with the free allowance', async () => {
      const plan = { code: 'PRO_MONTHLY', name: 'Pro', description: '5 credits every month.', product_type: 'PLAN', amount_minor: 4900, currency: 'USD', credit_units: '5', interval: 'month' };
      const someone = await registerTrader(t);
      expect((await call('POST', '/api/v1/billing/products', someone, plan)).json.error.code).toBe('FORBIDDEN');
      const bad = await call('POST', '/api/v1/billing/products', admin, { ...plan, credit_units: 5, amount_minor: -1 });
      expect([bad.status, bad.json.error.details.map((d: any) => d.field).sort()]).toEqual([400, ['amount_minor', 'credit_units']]);
      const { interval: _i, ...noInterval } = plan;
      expect((await call('POST', '/api/v1/billing/products', admin, noInterval)).json.error.details).toEqual([{ field: 'interval', issue: 'required for a PLAN' }]);
      expect((await call('POST', '/api/v1/billing/products', admin, { ...plan, currency: 'EUR' })).json.error.details).toEqual([{ field: 'currency', issue: 'must be USD' }]);
      const created = await call('POST', '/api/v1/billing/products', admin, plan);
      expect(created.status).toBe(201);
      expect(created.json).toEqual({ ...plan, product_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      expect((await call('POST', '/api/v1/billing/products', admin, { ...plan, name: 'Again' })).json.error.code).toBe('STATE_CONFLICT');
      for (const p of [
        { code: 'CREDITS_5', name: '5 credits', description: 'Never expire.', product_type: 'TOPUP', amount_minor: 500, currency: 'USD', credit_units: '5' },
        { code: 'TEAM_MONTHLY', name: 'Team', description: '2 credits every month.', product_type: 'PLAN', amount_minor: 9900, currency: 'USD', credit_units: '2', interval: 'month' },
        { code: 'OLD_PLAN', name: 'Old', description: 'Retired.', product_type: 'PLAN', amount_minor: 100, currency: 'USD', credit_units: '1', interval: 'month' },
      ]) {
        expect((await call('POST', '/api/v1/billing/products', admin, p)).status).toBe(201);
      }
      expect((await call('POST', '/api/v1/billing/products/OLD_PLAN/retire', someone, {})).status).toBe(403);
      expect((await call('POST', '/api/v1/billing/products/OLD_PLAN/retire', admin, {})).status).toBe(200);
      const catalog = (await call('GET', '/api/v1/billing/products', someone)).json;
      expect(catalog.plans.map((p: any) => p.code)).toEqual(['PRO_MONTHLY', 'TEAM_MONTHLY']);
      expect(catalog.topups).toEqual([expect.objectContaining({ code: 'CREDITS_5', product_type: 'TOPUP', credit_units: '5', amount_minor: 500 })]);
      expect(catalog.topups[0].interval).toBeUndefined();
      expect([catalog.free_allowance_credits, catalog.currency]).toEqual(['1', 'USD']);
    });

    it('a new tenant\'s account: the free allowance of the UTC month; members read it, only owners manage, other tenants see nothing', async () => {
      const a = await tenant('Fresh Co');
      const view = await account(a.trader, a.tenant);
      expect(view).toEqual({
        account_id: expect.stringMatching(/^[0-9a-f]{32}$/), account_key: a.tenant, tenant_uuid: a.tenant, profile_uuid: null, status: 'ACTIVE', available_credits: '1', included_credits: '1', rated_usage_credits: '0', uncovered_credits: '0',
        usage_events: 0, pending_usage_events: 0, period: { started_at: '2026-11-01T00:00:00.000Z', ends_at: '2026-12-01T00:00:00.000Z' },
        credit_pools: {
          allowance: { granted_credits: '1', remaining_credits: '1', expires: true, first_expires_at: '2026-12-01T00:00:00.000Z', last_expires_at: '2026-12-01T00:00:00.000Z' },
          subscriptions: { granted_credits: '0', remaining_credits: '0', expires: false },
          topups: { granted_credits: '0', remaining_credits: '0', expires: false },
          adjustments: { granted_credits: '0', remaining_credits: '0', expires: false },
        },
        subscriptions: [], settlement_methods: ['SIMULATED_RAIL'], settlement_state: 'CURRENT', version: -1,
      });
      expect(view.account_id).not.toBe(a.tenant);
      // The member's own session tenant is the default; the founder (of the global tenant) names it.
      expect((await call('GET', '/api/v1/billing/account', a.trader)).json.account_id).toBe(view.account_id);
      const outsider = await tenant('Other Co');
      expect((await call('GET', `/api/v1/billing/account?tenant_uuid=${a.tenant}`, outsider.owner)).status).toBe(404);
      expect((await call('GET', `/api/v1/billing/account?tenant_uuid=${a.tenant}&x=1`, a.owner)).status).toBe(400);
      const grant = { tenant_uuid: a.tenant, direction: 'CREDIT', credits: '1', reason: 'Welcome credit for the pilot' };
      expect((await call('POST', '/api/v1/billing/adjustments', a.trader, grant)).json.error.code).toBe('FORBIDDEN');
      expect((await call('POST', '/api/v1/billing/adjustments', outsider.owner, grant)).json.error.code).toBe('NOT_FOUND');
    });

    it('usage is rated from the trading log exactly as it happened: each OrderAccepted once, traced to its event, drawn from the allowance', async () => {
      const a = await tenant('Trading Co');
      const placed: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await order(a.trader);
        expect(r.status).toBe(201);
        placed.push(r.json.response.order_uuid);
      }
      await rated();
      const view = await account(a.owner, a.tenant);
      expect(view).toMatchObject({ status: 'ACTIVE', available_credits: '0.7', rated_usage_credits: '0.3', usage_events: 3, pending_usage_events: 0, version: 3 });
      expect(view.credit_pools.allowance).toMatchObject({ granted_credits: '1', remaining_credits: '0.7' });
      // The account stream: opened, then one BillingUsageRated per order, each naming its source event.
      const events = await accountEvents(a.tenant);
      expect(events.map((e) => e.type)).toEqual(['BillingAccountOpened', 'BillingUsageRated', 'BillingUsageRated', 'BillingUsageRated']);
      const sources = await Promise.all(events.slice(1).map(async (e) => (await store().readAll({ after: BigInt(String(e.data.source_position)) - 1n, maxCount: 1 }))[0]));
      expect(sources.map((s) => [s.type, s.data.order_uuid ?? (s.data as any).placement?.order_uuid])).toEqual(placed.map((id) => ['OrderAccepted', id]));
      expect(events.slice(1).map((e) => e.data.source_event_id)).toEqual(sources.map((s) => s.event_id));
      expect(events[1].data).toMatchObject({ source_type: 'OrderAccepted', rate_card_version: 1, credits: '0.1', uncovered_added: '0', draws: [{ lot_id: expect.any(String), credits: '0.1' }] });
      expect(events[1].metadata).toMatchObject({ tenant_uuid: a.tenant, causation_id: sources[0].event_id, actor: { type: 'system' } });
      const usage = (await call('GET', '/api/v1/billing/usage', a.trader)).json;
      expect(usage).toEqual({
        period: { started_at: '2026-11-01T00:00:00.000Z', ends_at: '2026-12-01T00:00:00.000Z' }, rated_usage_credits: '0.3', usage_events: 3, pending_usage_events: 0,
        reconciliation: { mode: 'INGEST_TIME', checked: 3, posted: 3, pending: 0 }, by_source: [{ source_type: 'OrderAccepted', credits: '0.3', usage_events: 3 }],
      });
      expect((await call('GET', '/api/v1/billing/usage?period=2026-10', a.trader)).json).toMatchObject({ rated_usage_credits: '0', usage_events: 0, reconciliation: { checked: 0, posted: 0, pending: 0 }, by_source: [] });
      expect((await call('GET', '/api/v1/billing/usage?period=2026-13', a.trader)).status).toBe(400);
    });

    it('402 CREDITS_REQUIRED: a client placing one order after another stops exactly where its credits end; reduce-only orders still pass', async () => {
      const a = await tenant('Busy Co');
      let accepted = 0;
      let refused: Reply | null = null;
      for (let i = 0; i < 15 && !refused; i++) {
        const r = await order(a.trader);
        if (r.status === 201) accepted++;
        else refused = r;
      }
      expect(accepted).toBe(10);
      expect(refused!.status).toBe(402);
      expect(refused!.json.error).toMatchObject({ code: 'CREDITS_REQUIRED', retryable: false, details: [{ field: 'available_credits', issue: '0' }, { field: 'required_credits', issue: '0.1' }] });
      await rated();
      expect(await account(a.owner, a.tenant)).toMatchObject({ status: 'CREDITS_REQUIRED', available_credits: '0', rated_usage_credits: '1', usage_events: 10, uncovered_credits: '0' });
      // A refused command wrote nothing: ten usages on the account, in the read model and in the stream.
      const periods = await rows('SELECT period_started_at, credits, events FROM billing_usage_periods WHERE account_key = ?', [a.tenant]);
      expect(periods.map((p) => [p.period_started_at, p.credits, Number(p.events)])).toEqual([['2026-11-01T00:00:00.000Z', '1', 10]]);
      expect((await accountEvents(a.tenant)).filter((e) => e.type === 'BillingUsageRated')).toHaveLength(10);
      // Running out of credits traps nobody in a position: a reduce-only order is not refused (it is still rated).
      const reduce = await call('POST', '/api/v1/trading/orders', a.trader, {
        venue: 'MTF', market: 'BTC-PERP', side: 'SELL', order_type: 'LIMIT', time_in_force: 'GTC', external_reference: 'cmVkdWNl', leverage: 1, reduce_only: true, combos: [], quantity: '0.010', limit_price: '60000',
      });
      expect(reduce.status).not.toBe(402);

      // A grant of 0.5 credits: with eight orders in flight at once, at most those eight pass beyond the five covered.
      const grant = await call('POST', '/api/v1/billing/adjustments', a.owner, { tenant_uuid: a.tenant, direction: 'CREDIT', credits: '0.5', reason: 'Extra credit for the load test' });
      expect(grant.status).toBe(201);
      await rated();
      const burst = await Promise.all(Array.from({ length: 8 }, () => order(a.trader)));
      const passed = burst.filter((r) => r.status === 201).length;
      expect(burst.every((r) => r.status === 201 || r.status === 402)).toBe(true);
      expect(passed).toBeGreaterThanOrEqual(5);
      expect(passed).toBeLessThanOrEqual(8);
      await rated();
      // The overrun is rated all the same: owed (uncovered), and the account refuses until a grant pays it off.
      const after = await account(a.owner, a.tenant);
      const reduceOnly = (await accountEvents(a.tenant)).filter((e) => e.type === 'BillingUsageRated').length - 10 - passed;
      expect(reduceOnly).toBeLessThanOrEqual(1);
      expect(after).toMatchObject({ status: 'CREDITS_REQUIRED', available_credits: '0' });
      expect(Number(after.uncovered_credits)).toBeCloseTo(0.1 * (passed + reduceOnly - 5), 10);
      expect((await order(a.trader)).status).toBe(402);
      // The tenant's owner was told once that the credits ran out (the overrun after the grant tells again: it ran out again).
      const inbox = (await call('GET', '/api/v1/notifications', a.owner)).json.items.filter((n: any) => n.type === 'BILLING_CREDITS_EXHAUSTED');
      expect(inbox).toHaveLength(2);
      expect(inbox[0]).toMatchObject({ source: 'billing', reference: a.tenant, href: '/api/v1/billing/account', title: 'Credits used up' });
      expect((await call('GET', '/api/v1/notifications', a.trader)).json.items.filter((n: any) => n.source === 'billing')).toEqual([]);
    });

    it('the global tenant: each person who registered without a tenant is billed on an account of their own; a real tenant\'s members share theirs', async () => {
      const a = await member();
      const b = await member();
      // A uses up their own allowance (1 credit: ten orders at 0.1) and is refused; B, of the same global tenant, is not.
      for (let i = 0; i < 10; i++) expect((await order(a.headers)).status).toBe(201);
      await rated();
      const refused = await order(a.headers);
      expect([refused.status, refused.json.error.code]).toEqual([402, 'CREDITS_REQUIRED']);
      expect((await order(b.headers)).status).toBe(201);
      await rated();
      // Each reads their own account, usage, subscriptions and top-ups without naming anything.
      const mine = (await call('GET', '/api/v1/billing/account', a.headers)).json;
      const theirs = (await call('GET', '/api/v1/billing/account', b.headers)).json;
      expect(mine).toMatchObject({ tenant_uuid: GLOBAL, profile_uuid: a.profile_uuid, status: 'CREDITS_REQUIRED', available_credits: '0', rated_usage_credits: '1', usage_events: 10 });
      expect(theirs).toMatchObject({ tenant_uuid: GLOBAL, profile_uuid: b.profile_uuid, status: 'ACTIVE', available_credits: '0.9', rated_usage_credits: '0.1', usage_events: 1 });
      expect(mine.account_id).not.toBe(theirs.account_id);
      expect((await call('GET', '/api/v1/billing/usage', a.headers)).json.reconciliation).toEqual({ mode: 'INGEST_TIME', checked: 10, posted: 10, pending: 0 });
      expect((await call('GET', '/api/v1/billing/usage', b.headers)).json.reconciliation).toEqual({ mode: 'INGEST_TIME', checked: 1, posted: 1, pending: 0 });
      expect((await call('GET', '/api/v1/billing/subscriptions', b.headers)).json).toEqual({ account_id: theirs.account_id, items: [] });
      // Rated on their own streams, each usage traced to that person's order.
      const aRated = (await accountEvents(mine.account_key)).filter((e) => e.type === 'BillingUsageRated');
      expect(aRated).toHaveLength(10);
      expect((await accountEvents(theirs.account_key)).filter((e) => e.type === 'BillingUsageRated')).toHaveLength(1);
      const source = (await store().readAll({ after: BigInt(String(aRated[0].data.source_position)) - 1n, maxCount: 1 }))[0];
      expect(source.metadata.actor).toEqual({ type: 'profile', reference: a.profile_uuid });
      // A person buys a top-up for themselves; nobody else sees it; the rail's settlement is on A's account.
      const topup = await call('POST', '/api/v1/billing/topups', a.headers, { product_code: 'CREDITS_5' });
      expect(topup.status).toBe(201);
      expect(topup.json).toMatchObject({ tenant_uuid: GLOBAL, profile_uuid: a.profile_uuid, status: 'PENDING' });
      expect((await call('GET', '/api/v1/billing/topups', a.headers)).json.items.map((x: any) => x.topup_id)).toEqual([topup.json.topup_id]);
      expect((await call('GET', '/api/v1/billing/topups', b.headers)).json.items).toEqual([]);
      expect((await call('GET', `/api/v1/billing/topups/${topup.json.topup_id}`, b.headers)).status).toBe(404);
      expect((await call('POST', `/api/v1/billing/admin/topups/${topup.json.topup_id}/rail`, admin, { outcome: 'SETTLED', rail_reference: 'sim-global' })).status).toBe(200);
      expect((await call('GET', '/api/v1/billing/account', a.headers)).json).toMatchObject({ status: 'ACTIVE', available_credits: '5', credit_pools: { topups: { remaining_credits: '5' } } });
      expect((await call('GET', '/api/v1/billing/account', b.headers)).json.available_credits).toBe('0.9');
      expect((await order(a.headers)).status).toBe(201);
      // Another person's account does not exist for B; a platform admin reaches it by the person's profile_uuid.
      expect((await call('GET', `/api/v1/billing/account?profile_uuid=${a.profile_uuid}`, b.headers)).status).toBe(404);
      expect((await call('GET', `/api/v1/billing/account?tenant_uuid=${GLOBAL}&profile_uuid=${a.profile_uuid}`, admin)).json.account_id).toBe(mine.account_id);
      // Adjusting a person's account is for platform admins (a person does not grant themselves credits).
      const gift = { tenant_uuid: GLOBAL, profile_uuid: b.profile_uuid, direction: 'CREDIT', credits: '2', reason: 'Welcome credit for a tester' };
      expect((await call('POST', '/api/v1/billing/adjustments', b.headers, gift)).json.error.code).toBe('FORBIDDEN');
      expect((await call('POST', '/api/v1/billing/adjustments', admin, gift)).status).toBe(201);
      expect((await call('GET', '/api/v1/billing/account', b.headers)).json.available_credits).toBe('2.9');
      expect((await call('GET', '/api/v1/billing/adjustments', b.headers)).json.items.map((x: any) => [x.credits, x.profile_uuid])).toEqual([['2', b.profile_uuid]]);
      expect((await call('GET', '/api/v1/billing/adjustments', a.headers)).json.items).toEqual([]);
      // A tenant's account stays shared: a second member is refused once the first used it up.
      const co = await tenant('Shared Co');
      const second = await member(co.tenant);
      for (let i = 0; i < 10; i++) expect((await order(co.trader)).status).toBe(201);
      await rated();
      expect((await order(second.headers)).status).toBe(402);
      expect((await call('GET', '/api/v1/billing/account', second.headers)).json).toMatchObject({ tenant_uuid: co.tenant, profile_uuid: null, account_key: co.tenant, status: 'CREDITS_REQUIRED' });
      expect((await call('GET', `/api/v1/billing/account?profile_uuid=${second.profile_uuid}`, second.headers)).status).toBe(400);
      // The read model: one row per account, keyed by the account key.
      const keyed = await rows('SELECT account_key, account_id FROM billing_accounts WHERE account_key IN (?, ?, ?)', [mine.account_key, theirs.account_key, co.tenant]);
      expect(keyed.map((r) => r.account_id).sort()).toEqual([mine.account_id, theirs.account_id, (await account(co.owner, co.tenant)).account_id].sort());
    });

    it('the global tenant: an agent\'s usage is billed to the person who owns its binding, on their account and allowance, shared by their agents', async () => {
      /** A global-tenant person, a workspace of theirs, and `n` agents (bindings with a first policy) with their workload tokens. */
      async function personWithAgents(n: number) {
        const p = await member();
        const ws = await call('POST', '/api/v1/workspaces', p.headers, { name: 'Agents' });
        expect(ws.status).toBe(201);
        const agents: Array<{ binding_uuid: string; client_id: string; headers: Headers }> = [];
        for (let i = 0; i < n; i++) {
          const b = await call('POST', '/api/v1/ai-wallets/bindings', p.headers, {
            workspace_uuid: ws.json.workspace_id, agent_label: `agent-${i}`, environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: '0x52908400098527886E0F7030069857D2E4169EE7', policy: policy(),
          });
          expect(b.status).toBe(201);
          const token = await call('POST', '/api/v1/auth/token', {}, { grant_type: 'client_credentials', client_id: b.json.workload_client_id, client_secret: b.json.client_secret });
          expect(token.status).toBe(200);
          agents.push({ binding_uuid: b.json.binding_uuid, client_id: b.json.workload_client_id, headers: { authorization: `Bearer ${token.json.access_token}` } });
        }
        return { ...p, agents };
      }
      // A live intent that reserves budget costs 1 credit (RATE_CARD_V1): the whole allowance of 1.
      let n = 0;
      const intent = (agent: { binding_uuid: string; headers: Headers }) => call('POST', `/api/v1/ai-wallets/bindings/${agent.binding_uuid}/intents`, { ...agent.headers, 'idempotency-key': `billing-agent-${++n}` }, intentBody('0.05'));
      const agentsOwnAccount = (client_id: string) => rows('SELECT account_key FROM billing_accounts WHERE account_key = ?', [billingAccountKey({ tenant_uuid: GLOBAL, profile_uuid: client_id })]);

      // P's agent reserves: the usage is on P's account (P reads it as their own), not on an account of the agent's.
      const p = await personWithAgents(2);
      const [first, second] = p.agents;
      const reserved = await intent(first);
      expect([reserved.status, reserved.json.reservation_commitment]).toEqual([201, expect.stringMatching(/^[0-9a-f]{64}$/)]);
      await rated();
      const mine = (await call('GET', '/api/v1/billing/account', p.headers)).json;
      expect(mine).toMatchObject({ tenant_uuid: GLOBAL, profile_uuid: p.profile_uuid, status: 'CREDITS_REQUIRED', available_credits: '0', rated_usage_credits: '1', usage_events: 1 });
      expect(await agentsOwnAccount(first.client_id)).toEqual([]);
      const [usage] = (await accountEvents(mine.account_key)).filter((e) => e.type === 'BillingUsageRated');
      expect(usage.data).toMatchObject({ source_type: 'AiWalletIntentReserved' });
      const source = (await store().readAll({ after: BigInt(String(usage.data.source_position)) - 1n, maxCount: 1 }))[0];
      expect(source.metadata).toMatchObject({ actor: { type: 'workload', reference: first.client_id }, on_behalf_of: { type: 'profile', reference: p.profile_uuid } });
      // P's allowance is used up: P is refused, and so are P's agents, this one and the other (no allowance of their own).
      const refusedP = await order(p.headers);
      expect([refusedP.status, refusedP.json.error.code]).toEqual([402, 'CREDITS_REQUIRED']);
      for (const agent of [first, second]) {
        const refused = await intent(agent);
        expect([refused.status, refused.json.error.code]).toEqual([402, 'CREDITS_REQUIRED']);
      }

      // And the other way round: Q uses up the allowance with orders; Q's agent is refused.
      const q = await personWithAgents(1);
      for (let i = 0; i < 10; i++) expect((await order(q.headers)).status).toBe(201);
      await rated();
      const refusedAgent = await intent(q.agents[0]);
      expect([refusedAgent.status, refusedAgent.json.error.code]).toEqual([402, 'CREDITS_REQUIRED']);
      const theirs = (await call('GET', '/api/v1/billing/account', q.headers)).json;
      expect(theirs).toMatchObject({ profile_uuid: q.profile_uuid, status: 'CREDITS_REQUIRED', usage_events: 10 });
      // A person's own order names the person and nobody else: on_behalf_of is only ever on an agent's events.
      const [qUsage] = (await accountEvents(theirs.account_key)).filter((e) => e.type === 'BillingUsageRated');
      const qOrder = (await store().readAll({ after: BigInt(String(qUsage.data.source_position)) - 1n, maxCount: 1 }))[0];
      expect(qOrder.metadata.actor).toEqual({ type: 'profile', reference: q.profile_uuid });
      expect(qOrder.metadata.on_behalf_of).toBeUndefined();
      expect(await agentsOwnAccount(q.agents[0].client_id)).toEqual([]);
    });

    it('usage by source: the credits each product (the rated usage\'s source_type) consumed in the period, summed exactly, sorted by source_type', async () => {
      // A global-tenant person: two orders of their own (0.1 each), then their agent's live intent (1), on the same account.
      const p = await member();
      for (let i = 0; i < 2; i++) expect((await order(p.headers)).status).toBe(201);
      const ws = await call('POST', '/api/v1/workspaces', p.headers, { name: 'Products' });
      expect(ws.status).toBe(201);
      const b = await call('POST', '/api/v1/ai-wallets/bindings', p.headers, {
        workspace_uuid: ws.json.workspace_id, agent_label: 'by-source', environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: '0x52908400098527886E0F7030069857D2E4169EE7', policy: policy(),
      });
      expect(b.status).toBe(201);
      const token = await call('POST', '/api/v1/auth/token', {}, { grant_type: 'client_credentials', client_id: b.json.workload_client_id, client_secret: b.json.client_secret });
      const agent = { authorization: `Bearer ${token.json.access_token}`, 'idempotency-key': `by-source-${b.json.binding_uuid}` };
      expect((await call('POST', `/api/v1/ai-wallets/bindings/${b.json.binding_uuid}/intents`, agent, intentBody('0.05'))).status).toBe(201);
      await rated();
      const usage = (await call('GET', '/api/v1/billing/usage', p.headers)).json;
      expect(usage).toMatchObject({ rated_usage_credits: '1.2', usage_events: 3, pending_usage_events: 0 });
      expect(usage.by_source).toEqual([
        { source_type: 'AiWalletIntentReserved', credits: '1', usage_events: 1 },
        { source_type: 'OrderAccepted', credits: '0.2', usage_events: 2 },
      ]);
      // The same period named explicitly; another period has none; the rows are the read model's.
      expect((await call('GET', '/api/v1/billing/usage?period=2026-11', p.headers)).json.by_source).toEqual(usage.by_source);
      expect((await call('GET', '/api/v1/billing/usage?period=2026-10', p.headers)).json.by_source).toEqual([]);
      const key = billingAccountKey({ tenant_uuid: GLOBAL, profile_uuid: p.profile_uuid });
      const stored = await rows('SELECT period_started_at, source_type, tenant_uuid, credits, events FROM billing_usage_by_source WHERE account_key = ? ORDER BY source_type', [key]);
      expect(stored.map((r) => [r.period_started_at, r.source_type, r.tenant_uuid, r.credits, Number(r.events)])).toEqual([
        ['2026-11-01T00:00:00.000Z', 'AiWalletIntentReserved', GLOBAL, '1', 1],
        ['2026-11-01T00:00:00.000Z', 'OrderAccepted', GLOBAL, '0.2', 2],
      ]);
    });

    it('reconciliation under load: checked and posted agree and pending returns to 0 once the rater and the account have caught up', async () => {
      const tenants = await Promise.all(['Load A', 'Load B', 'Load C'].map((n) => tenant(n)));
      for (const a of tenants) {
        expect((await call('POST', '/api/v1/billing/adjustments', a.owner, { tenant_uuid: a.tenant, direction: 'CREDIT', credits: '100', reason: 'Credits for the load run' })).status).toBe(201);
      }
      const ORDERS = 40;
      const seen: number[] = [];
      await Promise.all(
        tenants.map(async (a) => {
          for (let wave = 0; wave < ORDERS / 8; wave++) {
            const placed = await Promise.all(Array.from({ length: 8 }, () => order(a.trader)));
            // Accepted either way: 202 is the same placement answered before the read model caught up under this load.
            for (const r of placed) expect([201, 202]).toContain(r.status);
            expect(placed.every((r) => typeof r.json.response.order_uuid === 'string')).toBe(true);
            seen.push((await call('GET', '/api/v1/billing/usage', a.trader)).json.reconciliation.pending);
          }
        }),
      );
      expect(seen.every((p) => Number.isInteger(p) && p >= 0)).toBe(true);
      await rated();
      for (const a of tenants) {
        expect((await call('GET', '/api/v1/billing/usage', a.trader)).json).toMatchObject({
          rated_usage_credits: '4', usage_events: ORDERS, pending_usage_events: 0, reconciliation: { mode: 'INGEST_TIME', checked: ORDERS, posted: ORDERS, pending: 0 },
        });
        expect((await account(a.owner, a.tenant)).available_credits).toBe('97');
      }
    });

    it('top-ups: credits only once the rail reports SETTLED (paying what is owed first); a reversal is flagged for review, never taken back', async () => {
      const a = await tenant('Topup Co');
      // Use the allowance up and overrun it by one order (owed 0.1 after).
      for (let i = 0; i < 10; i++) expect((await order(a.trader)).status).toBe(201);
      await rated();
      expect((await order(a.trader)).status).toBe(402);
      await call('POST', '/api/v1/billing/adjustments', a.owner, { tenant_uuid: a.tenant, direction: 'DEBIT', credits: '0.1', reason: 'Manual charge for a support call' });

      expect((await call('POST', '/api/v1/billing/topups', a.trader, { product_code: 'CREDITS_5', tenant_uuid: a.tenant })).status).toBe(403);
      expect((await call('POST', '/api/v1/billing/topups', a.owner, { product_code: 'PRO_MONTHLY', tenant_uuid: a.tenant })).json.error.code).toBe('STATE_CONFLICT');
      expect((await call('POST', '/api/v1/billing/topups', a.owner, { product_code: 'NOPE', tenant_uuid: a.tenant })).status).toBe(404);
      const topup = await call('POST', '/api/v1/billing/topups', a.owner, { product_code: 'CREDITS_5', tenant_uuid: a.tenant });
      expect(topup.status).toBe(201);
      expect(topup.json).toMatchObject({ tenant_uuid: a.tenant, product_code: 'CREDITS_5', credit_units: '5', amount_minor: 500, currency: 'USD', status: 'PENDING', rail_reference: null, settled_at: null });
      const id = topup.json.topup_id;
      expect(await account(a.owner, a.tenant)).toMatchObject({ status: 'CREDITS_REQUIRED', settlement_state: 'PAYMENT_PENDING', uncovered_credits: '0.1' });
      const rail = (outcome: string, who = admin) => call('POST', `/api/v1/billing/admin/topups/${id}/rail`, who, { outcome, rail_reference: `sim-${outcome}` });
      // Platform admins only: anyone else is refused 403 before the request is looked at (@PlatformAdminOnly).
      expect((await rail('SETTLED', a.owner)).status).toBe(403);
      const settled = await rail('SETTLED');
      expect(settled.json).toMatchObject({ status: 'SETTLED', rail_reference: 'sim-SETTLED', settled_at: now.toISOString() });
      expect((await rail('SETTLED')).status).toBe(200);
      expect((await rail('FAILED')).json.error.code).toBe('STATE_CONFLICT');
      const credited = await account(a.owner, a.tenant);
      expect(credited).toMatchObject({ status: 'ACTIVE', available_credits: '4.9', uncovered_credits: '0', settlement_state: 'CURRENT' });
      expect(credited.credit_pools.topups).toEqual({ granted_credits: '5', remaining_credits: '4.9', expires: false });
      expect((await order(a.trader)).status).toBe(201);
      const reversed = await rail('REVERSED');
      expect(reversed.json.status).toBe('REVIEW_REQUIRED');
      expect(await account(a.owner, a.tenant)).toMatchObject({ settlement_state: 'REVIEW_REQUIRED', status: 'ACTIVE' });
      await rated();
      const told = (await call('GET', '/api/v1/notifications', a.owner)).json.items.filter((n: any) => n.reference === id).map((n: any) => [n.type, n.message]);
      expect(told).toEqual([
        ['BILLING_TOPUP_REVIEW_REQUIRED', 'The payment of your top-up CREDITS_5 was reversed after it settled; the credits stay while the platform reviews it.'],
        ['BILLING_TOPUP_SETTLED', 'Your top-up CREDITS_5 was paid: 5 credits were added.'],
      ]);
      const list = (await call('GET', `/api/v1/billing/topups?tenant_uuid=${a.tenant}`, a.trader)).json;
      expect(list.items.map((x: any) => [x.topup_id, x.status])).toEqual([[id, 'REVIEW_REQUIRED']]);
      expect((await call('GET', `/api/v1/billing/topups/${id}`, (await tenant('Nosy Co')).owner)).status).toBe(404);
    });

    it('adjustments: governed grants and debits with a reason an auditor sees; debits draw in consumption order; pages', async () => {
      const a = await tenant('Adjusted Co');
      const adjust = (body: Record<string, unknown>, who = a.owner) => call('POST', '/api/v1/billing/adjustments', who, { tenant_uuid: a.tenant, ...body });
      expect((await adjust({ direction: 'CREDIT', credits: '1', reason: 'short' })).json.error.details).toEqual([{ field: 'reason', issue: expect.stringContaining('8') }]);
      expect((await adjust({ direction: 'DEBIT', credits: '1', reason: 'Debit that expires', expires_at: '2027-01-01T00:00:00Z' })).json.error.details[0].field).toBe('expires_at');
      expect((await adjust({ direction: 'CREDIT', credits: '1', reason: 'Already lapsed credit', expires_at: '2026-01-01T00:00:00Z' })).json.error.details[0].field).toBe('expires_at');
      const credit = await adjust({ direction: 'CREDIT', credits: '2.5', reason: 'Goodwill credit for the outage', expires_at: '2027-02-01T00:00:00Z' });
      expect(credit.status).toBe(201);
      expect(credit.json).toMatchObject({ direction: 'CREDIT', credits: '2.5', reason: 'Goodwill credit for the outage', expires_at: '2027-02-01T00:00:00.000Z', lot_id: credit.json.adjustment_id, draws: [] });
      // The platform admin adjusts any tenant; a debit of 2 draws the allowance (expiring sooner) first.
      const debit = await adjust({ direction: 'DEBIT', credits: '2', reason: 'Correction of a double grant' }, admin);
      expect(debit.status).toBe(201);
      const view = await account(a.owner, a.tenant);
      expect(debit.json.draws).toEqual([
        { lot_id: expect.any(String), credits: '1' },
        { lot_id: credit.json.adjustment_id, credits: '1' },
      ]);
      expect(view).toMatchObject({ available_credits: '1.5', credit_pools: { allowance: { remaining_credits: '0' }, adjustments: { granted_credits: '2.5', remaining_credits: '1.5', first_expires_at: '2027-02-01T00:00:00.000Z' } } });
      const first = (await call('GET', `/api/v1/billing/adjustments?tenant_uuid=${a.tenant}&limit=1`, a.trader)).json;
      expect(first.items.map((x: any) => x.adjustment_id)).toEqual([debit.json.adjustment_id]);
      const second = (await call('GET', `/api/v1/billing/adjustments?tenant_uuid=${a.tenant}&limit=1&cursor=${first.next_cursor}`, a.trader)).json;
      expect(second.items.map((x: any) => x.adjustment_id)).toEqual([credit.json.adjustment_id]);
      expect(second.next_cursor).toBeUndefined();
      expect((await call('GET', `/api/v1/billing/topups?tenant_uuid=${a.tenant}&cursor=${first.next_cursor}`, a.trader)).status).toBe(400);
      // The reason is personal: sealed in the log under the adjuster's key, plain in the read model for the tenant.
      const stored = (await accountEvents(a.tenant)).find((e) => e.type === 'BillingCreditsDebited')!;
      expect(stored.data.reason).toBe('Correction of a double grant');
    });

    it('subscriptions and the period close: grants now and at each boundary, cancel at period end, an event at ends_at in the next period', async () => {
      const a = await tenant('Subscribed Co');
      const sub = await call('POST', '/api/v1/billing/subscriptions', a.owner, { product_code: 'PRO_MONTHLY', tenant_uuid: a.tenant });
      expect(sub.status).toBe(201);
      expect(sub.json).toEqual({ product_code: 'PRO_MONTHLY', status: 'ACTIVE', cancel_at_period_end: false, period_started_at: now.toISOString(), period_ends_at: '2026-12-01T00:00:00.000Z' });
      expect((await call('POST', '/api/v1/billing/subscriptions', a.owner, { product_code: 'PRO_MONTHLY', tenant_uuid: a.tenant })).json.error.code).toBe('STATE_CONFLICT');
      expect((await call('POST', '/api/v1/billing/subscriptions', a.owner, { product_code: 'OLD_PLAN', tenant_uuid: a.tenant })).status).toBe(404);
      const team = await call('POST', '/api/v1/billing/subscriptions', a.owner, { product_code: 'TEAM_MONTHLY', tenant_uuid: a.tenant, trial: true });
      expect(team.json.status).toBe('TRIALING');
      const cancelled = await call('POST', '/api/v1/billing/subscriptions/TEAM_MONTHLY/cancel', a.owner, { tenant_uuid: a.tenant });
      expect(cancelled.json).toMatchObject({ product_code: 'TEAM_MONTHLY', cancel_at_period_end: true });
      const before = await account(a.owner, a.tenant);
      expect(before).toMatchObject({ available_credits: '8', included_credits: '8', credit_pools: { subscriptions: { granted_credits: '7', remaining_credits: '7', expires: true } } });
      expect((await call('GET', '/api/v1/billing/subscriptions', a.trader)).json.items.map((s: any) => [s.product_code, s.status, s.cancel_at_period_end])).toEqual([
        ['PRO_MONTHLY', 'ACTIVE', false],
        ['TEAM_MONTHLY', 'TRIALING', true],
      ]);
      expect((await order(a.trader)).status).toBe(201);

      const quiet = await tenant('Quiet Co');
      expect((await call('POST', '/api/v1/billing/adjustments', quiet.owner, { tenant_uuid: quiet.tenant, direction: 'CREDIT', credits: '1', reason: 'Opening credit for Quiet' })).status).toBe(201);

      // The boundary: an order stamped at exactly ends_at belongs to December. The rater closes November first.
      now = new Date('2026-12-01T00:00:00.000Z');
      expect((await order(a.trader)).status).toBe(201);
      await rated();
      const types = (await accountEvents(a.tenant)).map((e) => e.type);
      expect(types.slice(-3)).toEqual(['BillingUsageRated', 'BillingPeriodClosed', 'BillingUsageRated']);
      const december = await account(a.owner, a.tenant);
      expect(december).toMatchObject({
        period: { started_at: '2026-12-01T00:00:00.000Z', ends_at: '2027-01-01T00:00:00.000Z' }, usage_events: 1, rated_usage_credits: '0.1', available_credits: '5.9', included_credits: '6',
      });
      expect(december.subscriptions).toEqual([
        { product_code: 'PRO_MONTHLY', status: 'ACTIVE', cancel_at_period_end: false, period_started_at: '2026-12-01T00:00:00.000Z', period_ends_at: '2027-01-01T00:00:00.000Z' },
        expect.objectContaining({ product_code: 'TEAM_MONTHLY', status: 'CANCELED' }),
      ]);
      expect((await call('GET', '/api/v1/billing/usage?period=2026-11', a.trader)).json).toMatchObject({ rated_usage_credits: '0.1', usage_events: 1, reconciliation: { checked: 1, posted: 1, pending: 0 } });

      // A quiet account is closed by the leased job, only after the grace and once the rater has passed the log.
      now = new Date('2026-12-01T00:00:04.999Z');
      expect(await t.app.get(BillingJobs).closeTick()).toBe(0);
      expect(await account(quiet.owner, quiet.tenant)).toMatchObject({ period: { started_at: '2026-11-01T00:00:00.000Z' } });
      now = new Date('2026-12-01T00:00:05.000Z');
      expect(await t.app.get(BillingJobs).closeTick()).toBeGreaterThanOrEqual(1);
      await rated();
      const closed = (await accountEvents(quiet.tenant)).at(-1)!;
      expect(closed.type).toBe('BillingPeriodClosed');
      expect(closed.data).toMatchObject({ closed: { started_at: '2026-11-01T00:00:00.000Z' }, next: { started_at: '2026-12-01T00:00:00.000Z' }, expired: [{ credits: '1' }], renewals: [], ended: [] });
      expect(await account(quiet.owner, quiet.tenant)).toMatchObject({ period: { started_at: '2026-12-01T00:00:00.000Z' }, available_credits: '2', credit_pools: { allowance: { granted_credits: '1', remaining_credits: '1' } } });
      // Closing again changes nothing.
      expect(await t.app.get(BillingJobs).closeDuePeriods()).toBe(0);
      now = new Date('2026-11-25T10:00:00.000Z');
    });
  });
}
