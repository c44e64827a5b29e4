/**
 * AI-agent wallets on PostgreSQL read models, over HTTP on the real server: bindings with versioned policies and
 * list paging, budgets across a UTC midnight and a month end (injected clock), 30 concurrent live intents against a
 * budget that fits 6 (real HTTP), approvals and expiry, activity with its hash chain, and Idempotency-Key — checked in
 * the answers and in the rows the projectors wrote.
 */
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { IntentExpirySweep } from '../../src/modules/ai-wallets/commands';
import { SESSIONS_OUTLAST_THE_CLOCK_MOVES, startTestApp, type TestApp } from '../support/app';
import { intentBody, policy, walletApi, workspaceOwner, type Reply } from '../support/ai-wallets';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';
import { registerTrader, until, type Headers } from '../support/traders';

const schema = `t_${hex32().slice(0, 16)}`;
let now = new Date('2026-11-22T10:00:00.000Z');
let t: TestApp;
let owner: Headers;
let workspace: string;
let db: ReadModelDatabase;

const { call, agentToken, newBinding } = walletApi(() => ({ t, owner, workspace }));
/** Rows as the projectors wrote them, read straight from the suite's PostgreSQL schema. */
const rows = (sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> => db.reader.query(db.sql(sql), params);
const intentsUrl = (b: string) => `/api/v1/ai-wallets/bindings/${b}/intents`;
const budgetOf = async (b: string) => (await call('GET', `/api/v1/ai-wallets/bindings/${b}/budget`, owner)).json;

beforeAll(async () => {
  // The suite moves the clock by days and sweeps expiries itself: the periodic sweep must not race it.
  t = await startTestApp({ DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema, AI_WALLET_EXPIRY_SWEEP_MS: '3600000', SESSION_TTL_SECONDS: SESSIONS_OUTLAST_THE_CLOCK_MOVES }, { clock: () => now });
  db = t.app.get(ReadModelDatabase);
  ({ owner, workspace } = await workspaceOwner(t));
});
afterAll(async () => {
  await t?.close();
  const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
  await ds.initialize();
  await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await ds.destroy();
});
beforeEach(() => {
  now = new Date('2026-11-22T10:00:00.000Z');
});

it('runs on the PostgreSQL schema of this suite', async () => {
  expect(db.isPostgres).toBe(true);
  expect(await rows('SELECT current_schema() AS s')).toEqual([{ s: schema }]);
  const tables = (await rows("SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_name LIKE 'ai_wallet%' ORDER BY table_name", [schema])).map((r) => r.table_name);
  expect(tables).toEqual(['ai_wallet_activity', 'ai_wallet_approvals', 'ai_wallet_bindings', 'ai_wallet_budget_holds', 'ai_wallet_intents', 'ai_wallet_policies', 'ai_wallet_workload_tokens']);
});

describe('bindings and policies', () => {
  it('a binding created with its first policy is ACTIVE with policy version 1 and its budget; a second policy is version 2, both readable', async () => {
    const { binding } = await newBinding(policy());
    const b = binding.binding_uuid;
    const emptyBudget = {
      accounting_model: 'UTC_CALENDAR_RESERVATIONS', asset_code: 'ETH', currency: 'ETH', max_single_amount: '1',
      daily_limit: '10', daily_committed: '0', daily_remaining: '10', monthly_limit: '25', monthly_committed: '0', monthly_remaining: '25', active_intent_count: 0,
    };
    expect(binding).toMatchObject({ state: 'ACTIVE', policy: { version: 1, lifecycle: 'ACTIVE', daily_limit: '10' }, budget: emptyBudget });
    const got = await call('GET', `/api/v1/ai-wallets/bindings/${b}`, owner);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ binding_uuid: b, state: 'ACTIVE', policy: { version: 1, lifecycle: 'ACTIVE', binding_uuid: b }, budget: emptyBudget });
    expect(got.json.budget.per_asset).toEqual([expect.objectContaining({ asset_code: 'BTC', daily_limit: '0.05', daily_committed: '0', monthly_limit: '0.5', currency: 'ETH' })]);
    expect(got.json.client_secret).toBeUndefined();

    const v2 = await call('PUT', `/api/v1/ai-wallets/bindings/${b}/policy`, owner, policy({ daily_limit: '5' }));
    expect(v2.status).toBe(200);
    expect(v2.json).toMatchObject({ version: 2, lifecycle: 'ACTIVE', policy_uuid: got.json.policy.policy_uuid, daily_limit: '5' });
    expect(v2.json.policy_commitment).not.toBe(got.json.policy.policy_commitment);
    const v1 = await call('GET', `/api/v1/ai-wallets/bindings/${b}/policy?version=1`, owner);
    expect(v1.json).toMatchObject({ version: 1, lifecycle: 'SUPERSEDED', daily_limit: '10', policy_commitment: got.json.policy.policy_commitment });
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}/policy?version=2`, owner)).json).toMatchObject({ version: 2, lifecycle: 'ACTIVE', daily_limit: '5' });
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}/policy`, owner)).json.version).toBe(2);
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}/policy?version=3`, owner)).status).toBe(404);
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}`, owner)).json).toMatchObject({ policy: { version: 2 }, budget: { daily_limit: '5', daily_remaining: '5' } });

    expect(await rows('SELECT version FROM ai_wallet_policies WHERE binding_uuid = ? ORDER BY version', [b])).toEqual([{ version: 1 }, { version: 2 }]);
    const [row] = await rows('SELECT state, workspace_uuid, policy FROM ai_wallet_bindings WHERE binding_uuid = ?', [b]);
    expect(row).toMatchObject({ state: 'ACTIVE', workspace_uuid: workspace });
    expect(JSON.parse(row.policy as string)).toMatchObject({ version: 2, daily_limit: '5' });
  });

  it('lists a workspace’s bindings newest first in keyset pages, each with its budget', async () => {
    const ws = await call('POST', '/api/v1/workspaces', owner, { name: 'Paging' });
    expect(ws.status).toBe(201);
    const paging = ws.json.workspace_id as string;
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await newBinding(i === 4 ? null : policy(), paging)).binding.binding_uuid);

    const seen: Array<Record<string, any>> = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const r = await call('GET', `/api/v1/ai-wallets/bindings?workspace_uuid=${paging}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, owner);
      expect(r.status).toBe(200);
      sizes.push(r.json.items.length);
      seen.push(...r.json.items);
      cursor = r.json.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen.map((b) => b.binding_uuid)).toEqual([...created].reverse());
    expect(seen[0]).toMatchObject({ state: 'PENDING', policy: null, budget: { daily_limit: '0', active_intent_count: 0, asset_code: null } });
    for (const b of seen.slice(1)) expect(b).toMatchObject({ workspace_uuid: paging, state: 'ACTIVE', budget: { daily_limit: '10', daily_committed: '0' } });

    // A cursor belongs to its list: another workspace's list refuses it.
    const first = await call('GET', `/api/v1/ai-wallets/bindings?workspace_uuid=${paging}&limit=2`, owner);
    const misuse = await call('GET', `/api/v1/ai-wallets/bindings?workspace_uuid=${workspace}&limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}`, owner);
    expect(misuse.status).toBe(400);
    expect(misuse.json.error.code).toBe('VALIDATION_FAILED');
    expect(await rows('SELECT COUNT(*)::int AS n FROM ai_wallet_bindings WHERE workspace_uuid = ?', [paging])).toEqual([{ n: 5 }]);
  });
});

describe('budgets', () => {
  it('live intents reserve budget; the read model restarts at a UTC midnight and a month end', async () => {
    now = new Date('2026-11-30T23:50:00.000Z');
    const created = await newBinding(policy({ daily_limit: '1', monthly_limit: '1.5', velocity_max_count: 1000 }));
    const b = created.binding.binding_uuid;
    let agent = created.agent;
    const send = async (key: string, amount: string) => {
      const r = await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': key }, intentBody(amount));
      expect(r.status).toBe(201);
      return r.json;
    };
    const approve = async (intent_uuid: string) => {
      const pending = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals?state=PENDING`, owner)).json.items;
      const approval = pending.find((a: { intent_uuid: string }) => a.intent_uuid === intent_uuid);
      expect((await call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, owner, {})).json.state).toBe('APPROVED');
    };

    const n1 = await send('n1', '0.4');
    expect(n1.state).toBe('PENDING_APPROVAL');
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0.4', monthly_committed: '0.4', daily_remaining: '0.6', monthly_remaining: '1.1', active_intent_count: 1 });
    now = new Date('2026-11-30T23:59:59.999Z');
    const n2 = await send('n2', '0.3');
    expect(n2.state).toBe('PENDING_APPROVAL');
    expect((await send('n3', '0.4')).decision_code).toBe('DAILY_LIMIT_EXCEEDED');
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0.7', monthly_committed: '0.7', daily_remaining: '0.3', monthly_remaining: '0.8', active_intent_count: 2 });
    // Approved, both hold for their lifetime (24 h from creation), well into December.
    await approve(n1.intent_uuid);
    await approve(n2.intent_uuid);

    // Midnight and month end at once: nothing of November counts in December's day or month.
    now = new Date('2026-12-01T00:00:00.000Z');
    const december = await budgetOf(b);
    expect(december).toMatchObject({ daily_committed: '0', monthly_committed: '0', daily_remaining: '1', monthly_remaining: '1.5' });
    // Both November reservations are still open: the read model counts them as the decision does.
    const evaluated = await call('POST', `${intentsUrl(b)}/evaluate`, owner, intentBody('0.1'));
    expect(evaluated.json.budget_before).toMatchObject({ daily_committed: '0', monthly_committed: '0', active_intent_count: 2 });
    expect(december.active_intent_count).toBe(evaluated.json.budget_before.active_intent_count);

    now = new Date('2026-12-01T00:00:30.000Z');
    agent = await agentToken(created.binding, created.secret);
    const d1 = await send('d1', '0.9');
    expect(d1.state).toBe('PENDING_APPROVAL');
    await approve(d1.intent_uuid);
    now = new Date('2026-12-01T10:00:00.000Z');
    agent = await agentToken(created.binding, created.secret);
    expect((await send('d2', '0.2')).decision_code).toBe('DAILY_LIMIT_EXCEEDED');
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0.9', monthly_committed: '0.9', daily_remaining: '0.1', monthly_remaining: '0.6', active_intent_count: 3 });

    // The next day: d1 (created 00:00:30 yesterday) still holds for the month, not for the day; November's have ended.
    now = new Date('2026-12-02T00:00:10.000Z');
    agent = await agentToken(created.binding, created.secret);
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0', monthly_committed: '0.9', monthly_remaining: '0.6', active_intent_count: 1 });
    expect((await send('d3', '0.7')).decision_code).toBe('MONTHLY_LIMIT_EXCEEDED');
    expect((await send('d4', '0.6')).state).toBe('PENDING_APPROVAL');
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0.6', daily_remaining: '0.4', monthly_committed: '1.5', monthly_remaining: '0', active_intent_count: 2 });

    // One hold row per reservation, with the UTC day and month it counts against; denied intents reserve nothing.
    const holds = await rows('SELECT amount, day, month, state FROM ai_wallet_budget_holds WHERE binding_uuid = ? ORDER BY day, amount', [b]);
    expect(holds).toEqual([
      { amount: '0.3', day: '2026-11-30', month: '2026-11', state: 'APPROVED' },
      { amount: '0.4', day: '2026-11-30', month: '2026-11', state: 'APPROVED' },
      { amount: '0.9', day: '2026-12-01', month: '2026-12', state: 'APPROVED' },
      { amount: '0.6', day: '2026-12-02', month: '2026-12', state: 'PENDING_APPROVAL' },
    ]);
    const intents = await rows('SELECT state, COUNT(*)::int AS n FROM ai_wallet_intents WHERE binding_uuid = ? GROUP BY state ORDER BY state', [b]);
    expect(intents).toEqual([{ state: 'APPROVED', n: 3 }, { state: 'DENIED', n: 3 }, { state: 'PENDING_APPROVAL', n: 1 }]);
  });
});

describe('concurrency', () => {
  it('30 concurrent live intents over real HTTP against a daily budget that fits 6: exactly 6 reserved, never above', async () => {
    const { binding, agent } = await newBinding(policy({ daily_limit: '0.6', max_single_amount: '0.1', autonomous_threshold: '0.1' }));
    const b = binding.binding_uuid;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const http = async (method: string, path: string, headers: Headers, body?: unknown): Promise<Reply> => {
      const r = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return { status: r.status, json: await r.json(), headers: Object.fromEntries(r.headers) };
    };

    const posts = Array.from({ length: 30 }, (_, i) => http('POST', intentsUrl(b), { ...agent, 'idempotency-key': `race-${i}` }, intentBody('0.1')));
    // Budget reads race the intents: none ever sees more committed than the limit.
    const reads = Array.from({ length: 10 }, () => http('GET', `/api/v1/ai-wallets/bindings/${b}/budget`, agent));
    const [results, budgets] = await Promise.all([Promise.all(posts), Promise.all(reads)]);

    // 202 is the same decided intent answered before the read models caught up (READ_YOUR_WRITES_TIMEOUT_MS) under this burst.
    for (const r of results) expect([201, 202]).toContain(r.status);
    const reserved = results.filter((r) => r.json.state !== 'DENIED');
    const denied = results.filter((r) => r.json.state === 'DENIED');
    expect(reserved).toHaveLength(6);
    expect(reserved.every((r) => r.json.state === 'PENDING_APPROVAL' && r.json.decision_code === 'APPROVAL_REQUIRED')).toBe(true);
    expect(denied).toHaveLength(24);
    expect(denied.every((r) => r.json.decision_code === 'DAILY_LIMIT_EXCEEDED' && r.json.reservation_commitment === null)).toBe(true);
    for (const r of budgets) {
      expect(r.status).toBe(200);
      expect(Number(r.json.daily_committed)).toBeLessThanOrEqual(0.6);
    }

    const budget = await http('GET', `/api/v1/ai-wallets/bindings/${b}/budget`, agent);
    expect(budget.json).toMatchObject({ daily_limit: '0.6', daily_committed: '0.6', daily_remaining: '0', monthly_committed: '0.6', active_intent_count: 6 });
    const holds = await rows('SELECT intent_uuid, amount FROM ai_wallet_budget_holds WHERE binding_uuid = ?', [b]);
    expect(holds).toHaveLength(6);
    expect(holds.every((h) => h.amount === '0.1')).toBe(true);
    expect(holds.map((h) => h.intent_uuid).sort()).toEqual(reserved.map((r) => r.json.intent_uuid).sort());
    expect(await rows('SELECT state, COUNT(*)::int AS n FROM ai_wallet_intents WHERE binding_uuid = ? GROUP BY state ORDER BY state', [b])).toEqual([
      { state: 'DENIED', n: 24 }, { state: 'PENDING_APPROVAL', n: 6 },
    ]);
    expect(await rows('SELECT COUNT(*)::int AS n FROM ai_wallet_approvals WHERE binding_uuid = ?', [b])).toEqual([{ n: 6 }]);
    // Created + policy + activation, then per reserved intent a reservation and an approval request, per denied one a denial.
    const verified = await http('GET', `/api/v1/ai-wallets/bindings/${b}/activity/verify`, owner);
    expect(verified.json).toMatchObject({ verified: true, events: 3 + 6 * 2 + 24, first_break: null });
    expect(await rows('SELECT COUNT(*)::int AS n FROM ai_wallet_activity WHERE binding_uuid = ?', [b])).toEqual([{ n: 3 + 6 * 2 + 24 }]);
  });
});

describe('approvals and expiry', () => {
  it('lists approvals; the owner approves one and rejects another, which releases its budget', async () => {
    const stranger = await registerTrader(t);
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    const i1 = await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'a1' }, intentBody('0.5'));
    const i2 = await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'a2' }, intentBody('0.7'));
    expect([i1.json.state, i2.json.state]).toEqual(['PENDING_APPROVAL', 'PENDING_APPROVAL']);
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '1.2', active_intent_count: 2 });

    const pending = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals?state=PENDING`, owner)).json.items;
    expect(pending.map((a: { intent_uuid: string }) => a.intent_uuid)).toEqual([i2.json.intent_uuid, i1.json.intent_uuid]);
    const [a2, a1] = pending;
    expect(a1).toMatchObject({ state: 'PENDING', amount: '0.5', asset_code: 'ETH', execution_available: false, policy_approved_is_execution: false, intent_commitment: i1.json.intent_commitment });
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${a1.approval_uuid}/approve`, stranger, {})).status).toBe(404);
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${a1.approval_uuid}/approve`, agent, {})).status).toBe(403);

    const ok = await call('POST', `/api/v1/ai-wallets/approvals/${a1.approval_uuid}/approve`, owner, { reason: 'Invoice checked' });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ state: 'APPROVED', execution_available: false });
    const no = await call('POST', `/api/v1/ai-wallets/approvals/${a2.approval_uuid}/reject`, owner, { reason: 'Unknown vendor' });
    expect(no.status).toBe(200);
    expect(no.json.state).toBe('REJECTED');
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${a1.approval_uuid}/reject`, owner, {})).status).toBe(409);
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${a2.approval_uuid}/approve`, owner, {})).status).toBe(409);

    expect((await call('GET', `/api/v1/ai-wallets/intents/${i1.json.intent_uuid}`, owner)).json.state).toBe('APPROVED');
    expect((await call('GET', `/api/v1/ai-wallets/intents/${i2.json.intent_uuid}`, owner)).json.state).toBe('REJECTED');
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals?state=PENDING`, owner)).json.items).toEqual([]);
    const approved = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals?state=APPROVED`, owner)).json.items;
    expect(approved).toEqual([expect.objectContaining({ approval_uuid: a1.approval_uuid, review_reason: 'Invoice checked' })]);
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0.5', active_intent_count: 1 });

    expect(await rows('SELECT approval_uuid, state FROM ai_wallet_approvals WHERE binding_uuid = ? ORDER BY position', [b])).toEqual([
      { approval_uuid: a1.approval_uuid, state: 'APPROVED' }, { approval_uuid: a2.approval_uuid, state: 'REJECTED' },
    ]);
    expect(await rows('SELECT intent_uuid, state FROM ai_wallet_budget_holds WHERE binding_uuid = ? ORDER BY amount', [b])).toEqual([
      { intent_uuid: i1.json.intent_uuid, state: 'APPROVED' }, { intent_uuid: i2.json.intent_uuid, state: 'REJECTED' },
    ]);
  });

  it('an unreviewed approval expires (the sweep) and releases its reservation', async () => {
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    const i = await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'x1' }, intentBody('0.4'));
    expect(i.json.state).toBe('PENDING_APPROVAL');
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0.4', active_intent_count: 1 });

    now = new Date(Date.parse(i.json.expires_at) + 1000);
    // Budget reads ignore it from the instant it expires, before any sweep.
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0', active_intent_count: 0 });
    expect(await rows('SELECT state FROM ai_wallet_budget_holds WHERE intent_uuid = ?', [i.json.intent_uuid])).toEqual([{ state: 'PENDING_APPROVAL' }]);

    expect(await t.app.get(IntentExpirySweep).sweep()).toBeGreaterThanOrEqual(1);
    await until(() => call('GET', `/api/v1/ai-wallets/intents/${i.json.intent_uuid}`, owner), (r) => r.json.state === 'EXPIRED');
    await until(() => rows('SELECT state FROM ai_wallet_budget_holds WHERE intent_uuid = ?', [i.json.intent_uuid]), (r) => r[0].state === 'EXPIRED');
    const [approval] = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals`, owner)).json.items;
    expect(approval.state).toBe('EXPIRED');
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, owner, {})).status).toBe(409);
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0', active_intent_count: 0 });
    // Nothing of this binding is left due: a second sweep records no second expiry.
    expect(await rows("SELECT COUNT(*)::int AS n FROM ai_wallet_intents WHERE binding_uuid = ? AND state IN ('PENDING_APPROVAL', 'POLICY_APPROVED', 'APPROVED')", [b])).toEqual([{ n: 0 }]);
    await t.app.get(IntentExpirySweep).sweep();
    const activity = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity`, owner)).json.items;
    expect(activity.map((e: { event_type: string }) => e.event_type).slice(3)).toEqual(['AiWalletIntentReserved', 'AiWalletApprovalRequested', 'AiWalletIntentExpired']);
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity/verify`, owner)).json).toMatchObject({ verified: true, events: 6 });
  });
});

describe('activity', () => {
  it('pages every change oldest first with the chain fields, and the chain verifies', async () => {
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    const approved = await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'act-1' }, intentBody('0.3'));
    await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'act-2' }, intentBody('1.5'));
    await call('PUT', `/api/v1/ai-wallets/bindings/${b}/execution-mode`, owner, { mode: 'SUPERVISED', state_reason: 'Small top-ups may go alone' });
    const alone = await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'act-3' }, intentBody('0.1'));
    expect(alone.json).toMatchObject({ state: 'POLICY_APPROVED', decision_code: 'ALLOWED' });
    const [approval] = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals?state=PENDING`, owner)).json.items;
    expect(approval.intent_uuid).toBe(approved.json.intent_uuid);
    await call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, owner, {});

    const all: Array<Record<string, any>> = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const r = await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, owner);
      expect(r.status).toBe(200);
      sizes.push(r.json.items.length);
      all.push(...r.json.items);
      cursor = r.json.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([4, 4, 1]);
    expect(all.map((e) => e.event_type)).toEqual([
      'AiWalletBindingCreated', 'AiWalletPolicyPublished', 'AiWalletBindingStateChanged', 'AiWalletIntentReserved', 'AiWalletApprovalRequested',
      'AiWalletIntentDenied', 'AiWalletExecutionModeChanged', 'AiWalletIntentReserved', 'AiWalletApprovalApproved',
    ]);
    expect(all[0].previous_event_commitment).toBeNull();
    for (const e of all) expect(e.event_commitment).toMatch(/^[0-9a-f]{64}$/);
    for (let i = 1; i < all.length; i++) expect(all[i].previous_event_commitment).toBe(all[i - 1].event_commitment);
    expect(new Set(all.map((e) => e.event_uuid)).size).toBe(all.length);
    expect(all[3]).toMatchObject({ actor_type: 'workload', actor_reference: binding.workload_client_id, intent_uuid: approved.json.intent_uuid });
    expect(all[5]).toMatchObject({ evidence: { decision_code: 'SINGLE_LIMIT_EXCEEDED', state: 'DENIED' } });
    expect(all[8]).toMatchObject({ actor_type: 'profile', intent_uuid: approved.json.intent_uuid });

    const verified = await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity/verify`, owner);
    expect(verified.status).toBe(200);
    expect(verified.json).toEqual({ binding_uuid: b, verified: true, events: 9, head_commitment: all[8].event_commitment, first_break: null });
    const stored = await rows('SELECT revision FROM ai_wallet_activity WHERE binding_uuid = ? ORDER BY revision', [b]);
    expect(stored.map((r) => Number(r.revision))).toEqual(Array.from({ length: 9 }, (_, i) => Number(stored[0].revision) + i));
  });
});

describe('idempotency', () => {
  it('the same Idempotency-Key and body return the same intent; another body is 409; nothing is reserved twice', async () => {
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    const first = await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'k-1' }, intentBody('0.2'));
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ state: 'PENDING_APPROVAL', idempotency_key: 'k-1', amount: '0.2' });
    const retry = await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'k-1' }, intentBody('0.2'));
    // The same caller: the platform replays the retained first response (docs/api.md), status included.
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replay']).toBe('true');
    expect(retry.json).toEqual(first.json);
    const misuse = await call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'k-1' }, intentBody('0.3'));
    expect(misuse.status).toBe(409);
    expect(misuse.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');

    // Another caller (the owner) with the agent's key: no stored response to replay, but the binding knows the key.
    const ownerMisuse = await call('POST', intentsUrl(b), { ...owner, 'idempotency-key': 'k-1' }, intentBody('0.3'));
    expect(ownerMisuse.status).toBe(409);
    expect(ownerMisuse.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const ownerRetry = await call('POST', intentsUrl(b), { ...owner, 'idempotency-key': 'k-1' }, intentBody('0.2'));
    expect(ownerRetry.status).toBe(200);
    expect(ownerRetry.headers['idempotent-replay']).toBeUndefined();
    expect(ownerRetry.json.intent_uuid).toBe(first.json.intent_uuid);

    // Ten at once with one new key: one intent, whatever each request was answered.
    const burst = await Promise.all(Array.from({ length: 10 }, () => call('POST', intentsUrl(b), { ...agent, 'idempotency-key': 'k-burst' }, intentBody('0.25'))));
    for (const r of burst) expect([200, 201, 409]).toContain(r.status);
    const answered = burst.filter((r) => r.status !== 409);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    expect(new Set(answered.map((r) => r.json.intent_uuid)).size).toBe(1);
    for (const r of burst.filter((x) => x.status === 409)) expect(r.json.error.code).toBe('STATE_CONFLICT');

    expect(await rows('SELECT COUNT(*)::int AS n FROM ai_wallet_intents WHERE binding_uuid = ?', [b])).toEqual([{ n: 2 }]);
    expect(await budgetOf(b)).toMatchObject({ daily_committed: '0.45', active_intent_count: 2 });
    expect(await rows('SELECT COUNT(*)::int AS n FROM idempotency_records WHERE idempotency_key IN (?, ?)', ['k-1', 'k-burst'])).toEqual([{ n: 3 }]);
  });
});
