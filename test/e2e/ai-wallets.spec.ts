/**
 * AI-agent wallets over HTTP on the real app: bindings and workload clients, versioned policies, evaluation (a dry
 * run that writes nothing), live intents with reservations (50 in parallel against a budget that fits 10), approvals,
 * execution mode, budgets across a UTC midnight and month end (injected clock), activity and its hash chain, and what
 * an agent's token may not do.
 */
import { IntentExpirySweep } from '../../src/modules/ai-wallets/commands';
import { canonicalJson, sha256Hex } from '../../src/platform/commitments/commitment';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { leaseHeldElsewhere } from '../support/leases';
import { SESSIONS_OUTLAST_THE_CLOCK_MOVES, startTestApp, type TestApp } from '../support/app';
import { DEST, intentBody, policy, rationale, walletApi, workspaceOwner } from '../support/ai-wallets';
import { registerTrader, until, type Headers } from '../support/traders';

let now = new Date('2026-11-22T10:00:00.000Z');
let t: TestApp;
let owner: Headers;
let stranger: Headers;
let workspace: string;

const { call, agentToken, newBinding } = walletApi(() => ({ t, owner, workspace }));

beforeAll(async () => {
  // The node's own periodic expiry run stays out of the way (the tests run the sweep themselves).
  t = await startTestApp({ AI_WALLET_EXPIRY_SWEEP_MS: '3600000', SESSION_TTL_SECONDS: SESSIONS_OUTLAST_THE_CLOCK_MOVES }, { clock: () => now });
  ({ owner, workspace } = await workspaceOwner(t));
  stranger = await registerTrader(t);
});
afterAll(() => t.close());
beforeEach(() => {
  now = new Date('2026-11-22T10:00:00.000Z');
});

describe('bindings and workload clients', () => {
  it('creates a binding with every seed field, a commitment and a client secret shown once', async () => {
    const { binding } = await newBinding(null);
    expect(binding).toMatchObject({
      workspace_uuid: workspace, agent_label: 'payments-agent', environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: DEST, state: 'PENDING', legacy_primary_binding: false, policy: null,
    });
    for (const f of ['binding_uuid', 'owner_profile_uuid', 'workload_client_id', 'enrollment_uuid', 'activation_uuid', 'created_by_profile_uuid']) expect(binding[f]).toMatch(/^[0-9a-f]{32}$/);
    expect(binding.binding_commitment).toMatch(/^[0-9a-f]{64}$/);
    expect(binding.client_secret).toMatch(/^hcws_[A-Za-z0-9_-]{43}$/);
    expect(binding.execution_mode).toMatchObject({ mode: 'MANUAL_APPROVAL', mode_version: 1, autonomous_available: false });
    const again = await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}`, owner);
    expect(again.status).toBe(200);
    expect(again.json.client_secret).toBeUndefined();
    expect(again.json.binding_commitment).toBe(binding.binding_commitment);
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}`, stranger)).status).toBe(404);
  });

  it('refuses a wrong client secret and tokens of a revoked binding', async () => {
    const { binding, agent } = await newBinding();
    const wrong = await call('POST', '/api/v1/auth/token', {}, { grant_type: 'client_credentials', client_id: binding.workload_client_id, client_secret: 'hcws_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe('UNAUTHENTICATED');
    expect((await call('POST', '/api/v1/auth/token', {}, { grant_type: 'password', client_id: binding.workload_client_id, client_secret: 'x' })).status).toBe(400);
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/budget`, agent)).status).toBe(200);
    const revoked = await call('PATCH', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}`, owner, { state: 'REVOKED', state_reason: 'Agent host compromised' });
    expect(revoked.status).toBe(200);
    expect(revoked.json.state).toBe('REVOKED');
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/budget`, agent)).status).toBe(401);
  });

  it('an agent token reaches only its own binding, and never approvals, policies or other routes', async () => {
    const a = await newBinding();
    const b = await newBinding();
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b.binding.binding_uuid}/budget`, a.agent)).status).toBe(404);
    expect((await call('POST', `/api/v1/ai-wallets/bindings/${b.binding.binding_uuid}/intents/evaluate`, a.agent, intentBody('0.01'))).status).toBe(404);
    expect((await call('PUT', `/api/v1/ai-wallets/bindings/${a.binding.binding_uuid}/policy`, a.agent, policy())).status).toBe(403);
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${a.binding.binding_uuid}`, a.agent)).status).toBe(403);
    expect((await call('GET', '/api/v1/api/v1/mtf/orders', a.agent)).status).toBe(403);
    const intent = await call('POST', `/api/v1/ai-wallets/bindings/${a.binding.binding_uuid}/intents`, { ...a.agent, 'idempotency-key': 'agent-approve-1' }, intentBody('0.5'));
    expect(intent.status).toBe(201);
    const approvals = await call('GET', `/api/v1/ai-wallets/bindings/${a.binding.binding_uuid}/approvals`, owner);
    const approval = approvals.json.items[0];
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, a.agent, {})).status).toBe(403);
  });
});

describe('policies', () => {
  it('versions a policy, keeps old versions readable, activates the binding with the first one', async () => {
    const { binding } = await newBinding(null);
    const b = binding.binding_uuid;
    const v1 = await call('PUT', `/api/v1/ai-wallets/bindings/${b}/policy`, owner, policy());
    expect(v1.status).toBe(200);
    expect(v1.json).toMatchObject({ version: 1, lifecycle: 'ACTIVE', binding_uuid: b, currency: 'ETH', destinations: [DEST] });
    expect(v1.json.policy_commitment).toMatch(/^[0-9a-f]{64}$/);
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}`, owner)).json.state).toBe('ACTIVE');
    const v2 = await call('PUT', `/api/v1/ai-wallets/bindings/${b}/policy`, owner, policy({ daily_limit: '5' }));
    expect(v2.json).toMatchObject({ version: 2, lifecycle: 'ACTIVE', policy_uuid: v1.json.policy_uuid, daily_limit: '5' });
    expect(v2.json.policy_commitment).not.toBe(v1.json.policy_commitment);
    const old = await call('GET', `/api/v1/ai-wallets/bindings/${b}/policy?version=1`, owner);
    expect(old.json).toMatchObject({ version: 1, lifecycle: 'SUPERSEDED', daily_limit: '10', policy_commitment: v1.json.policy_commitment });
    // Every published version recomputes to its commitment from its own published body, superseded or active
    // (docs/ai-wallets.md: SHA-256 of the RFC 8785 JSON without policy_commitment and lifecycle).
    const recompute = (record: Record<string, unknown>): string => {
      const { policy_commitment: _c, lifecycle: _l, ...committed } = record;
      return sha256Hex(canonicalJson(committed as never));
    };
    expect(recompute(old.json)).toBe(old.json.policy_commitment);
    expect(recompute(v2.json)).toBe(v2.json.policy_commitment);
    expect(recompute({ ...old.json, daily_limit: '11' })).not.toBe(old.json.policy_commitment);
  });

  it('evaluates without a policy as a well-formed refusal: a decision code, every required field typed, the nil id and commitment', async () => {
    const { binding, agent } = await newBinding(null);
    const r = await call('POST', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents/evaluate`, agent, intentBody('0.01'));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      // A binding becomes ACTIVE with its first policy: until then the refusal says so.
      dry_run: true, state: 'DENIED', decision_code: 'BINDING_INACTIVE', policy_uuid: '0'.repeat(32), policy_version: 0, policy_commitment: '0'.repeat(64),
      execution_created: false, reservation_created: false, event_created: false,
    });
    // The served OpenAPI schema of the answer: every required field present, and null only where it says nullable.
    const doc = (await call('GET', '/api/v1/openapi.json', owner)).json;
    const schema = doc.components.schemas.AiWalletIntentEvaluation;
    expect(schema).toBeDefined();
    const nullable = (props: Record<string, { nullable?: boolean }>, key: string) => props[key]?.nullable === true;
    for (const key of schema.required as string[]) expect(r.json[key]).toBeDefined();
    for (const [key, value] of Object.entries(r.json)) if (value === null) expect([key, nullable(schema.properties, key)]).toEqual([key, true]);
    expect(nullable(schema.properties, 'policy_uuid')).toBe(false);
    expect(nullable(schema.properties, 'policy_commitment')).toBe(false);
  });

  it('refuses invalid policies with the field named, and fiat currencies', async () => {
    const { binding } = await newBinding(null);
    const r = await call('PUT', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/policy`, owner, policy({ currency: 'USD', capabilities: ['TRANSFER', 'PRINT_MONEY'] }));
    expect(r.status).toBe(422);
    const fields = r.json.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['currency', 'capabilities']));
    const numeric = await call('PUT', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/policy`, owner, policy({ daily_limit: 10 }));
    expect(numeric.status).toBe(400);
    expect(JSON.stringify(numeric.json.error.details)).toContain('not a JSON number');
  });
});

describe('evaluation and live intents', () => {
  it('evaluates as a dry run: decision code, budgets, nothing written', async () => {
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    const before = await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity`, owner);
    const r = await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents/evaluate`, agent, intentBody('0.5'));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      dry_run: true, state: 'APPROVAL_REQUIRED', decision_code: 'APPROVAL_REQUIRED', capability: 'TRANSFER', asset_code: 'ETH', amount: '0.5', policy_version: 1,
      execution_created: false, reservation_created: false, event_created: false,
      budget_before: { daily_limit: '10', daily_committed: '0', daily_remaining: '10', monthly_limit: '25', active_intent_count: 0, asset_code: 'ETH' },
      projected_budget: { daily_committed: '0.5', monthly_committed: '0.5', asset_code: 'ETH' },
    });
    const preview = await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents/evaluate`, agent, { ...intentBody('0.5'), rationale: undefined, purpose: 'check' });
    expect(preview.json.state).toBe('PREVIEW');
    const after = await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity`, owner);
    expect(after.json.items.length).toBe(before.json.items.length);
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}/budget`, agent)).json.daily_committed).toBe('0');
  });

  it.each([
    ['a capability the policy lacks', intentBody('0.1', { type: 'CONTRACT_CALL' }), 'CAPABILITY_NOT_ALLOWED'],
    ['an asset the policy lacks', intentBody('0.1', { asset: 'SOL' }), 'ASSET_NOT_ALLOWED'],
    ['a destination differing in case', intentBody('0.1', { destination: { type: 'ADDRESS', id: DEST.toLowerCase() } }), 'DESTINATION_NOT_ALLOWLISTED'],
    ['a destination with whitespace', intentBody('0.1', { destination: { type: 'ADDRESS', id: ` ${DEST}` } }), 'DESTINATION_NOT_ALLOWLISTED'],
    ['more than the single limit', intentBody('1.5'), 'SINGLE_LIMIT_EXCEEDED'],
    ['more than an asset budget allows', intentBody('0.02', { asset: 'BTC' }), 'SINGLE_LIMIT_EXCEEDED'],
  ])('denies %s with its decision code, reserving nothing', async (_, body, code) => {
    const { binding, agent } = await newBinding();
    const r = await call('POST', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`, { ...agent, 'idempotency-key': `deny-${code}` }, body);
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ state: 'DENIED', decision_code: code, reservation_commitment: null });
    const budget = await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/budget`, agent);
    expect(budget.json).toMatchObject({ daily_committed: '0', active_intent_count: 0 });
  });

  it.each([
    ['a JSON number', 0.5],
    ['a negative amount', '-1'],
    ['zero', '0'],
    ['exponent notation', '1e-3'],
    ['more decimals than the asset has', '0.0000000000000000001'],
  ])('answers 400 for %s, never reserving', async (_, amount) => {
    const { binding, agent } = await newBinding();
    for (const path of ['intents/evaluate', 'intents']) {
      const r = await call('POST', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/${path}`, { ...agent, 'idempotency-key': `bad-${path}` }, intentBody(amount as string));
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe('VALIDATION_FAILED');
    }
    const btc = await call('POST', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents/evaluate`, agent, intentBody('0.000000001', { asset: 'BTC' }));
    expect(btc.status).toBe(400);
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/budget`, agent)).json.daily_committed).toBe('0');
  });

  it('needs an Idempotency-Key and a complete rationale; a retry returns the same intent', async () => {
    const { binding, agent } = await newBinding();
    const url = `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`;
    expect((await call('POST', url, agent, intentBody('0.2'))).status).toBe(400);
    const partial = await call('POST', url, { ...agent, 'idempotency-key': 'k-partial' }, intentBody('0.2', { rationale: { ...rationale, reference: undefined } }));
    expect(partial.status).toBe(400);
    const first = await call('POST', url, { ...agent, 'idempotency-key': 'k-1' }, intentBody('0.2'));
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ state: 'PENDING_APPROVAL', decision_code: 'APPROVAL_REQUIRED', idempotency_key: 'k-1', amount: '0.2', destination_reference: DEST });
    for (const f of ['intent_commitment', 'rationale_commitment', 'reservation_commitment']) expect(first.json[f]).toMatch(/^[0-9a-f]{64}$/);
    const retry = await call('POST', url, { ...agent, 'idempotency-key': 'k-1' }, intentBody('0.2'));
    expect(retry.json.intent_uuid).toBe(first.json.intent_uuid);
    const misuse = await call('POST', url, { ...agent, 'idempotency-key': 'k-1' }, intentBody('0.3'));
    expect(misuse.status).toBe(409);
    const budget = await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/budget`, agent);
    expect(budget.json).toMatchObject({ daily_committed: '0.2', active_intent_count: 1 });
  });

  it("lists a binding's intents newest first, paged, to its workspace and not to a stranger", async () => {
    const { binding, agent } = await newBinding();
    const url = `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`;
    const made: string[] = [];
    for (const [i, amount] of ['0.1', '0.2', '0.3'].entries()) made.push((await call('POST', url, { ...agent, 'idempotency-key': `list-${i}` }, intentBody(amount))).json.intent_uuid);
    const first = await call('GET', `${url}?limit=2`, owner);
    expect(first.status).toBe(200);
    expect(first.json.items.map((i: { intent_uuid: string }) => i.intent_uuid)).toEqual([made[2], made[1]]);
    expect(first.json.items[0]).toMatchObject({ amount: '0.3', state: 'PENDING_APPROVAL', binding_uuid: binding.binding_uuid });
    const rest = await call('GET', `${url}?limit=2&cursor=${first.json.next_cursor}`, owner);
    expect(rest.json.items.map((i: { intent_uuid: string }) => i.intent_uuid)).toEqual([made[0]]);
    expect(rest.json.next_cursor).toBeUndefined();
    expect((await call('GET', url, stranger)).status).toBe(404);
  });

  it('50 concurrent live intents against a budget that fits 10: exactly 10 reserved', async () => {
    const { binding, agent } = await newBinding(policy({ daily_limit: '1', max_single_amount: '0.1', autonomous_threshold: '0.1' }));
    const url = `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => call('POST', url, { ...agent, 'idempotency-key': `race-${i}` }, intentBody('0.1'))));
    expect(results.every((r) => r.status === 201)).toBe(true);
    const reserved = results.filter((r) => r.json.state !== 'DENIED');
    const denied = results.filter((r) => r.json.state === 'DENIED');
    expect(reserved).toHaveLength(10);
    expect(denied.every((r) => r.json.decision_code === 'DAILY_LIMIT_EXCEEDED')).toBe(true);
    const budget = await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/budget`, agent);
    expect(budget.json).toMatchObject({ daily_limit: '1', daily_committed: '1', daily_remaining: '0', active_intent_count: 10 });
  });

  it('budgets restart at a UTC midnight and a month end; velocity counts the window', async () => {
    now = new Date('2026-11-30T23:59:00.000Z');
    const created = await newBinding(policy({ daily_limit: '1', monthly_limit: '1.2', velocity_window_seconds: 120, velocity_max_count: 2 }));
    let agent = created.agent;
    const url = `/api/v1/ai-wallets/bindings/${created.binding.binding_uuid}/intents`;
    const send = (key: string, amount: string) => call('POST', url, { ...agent, 'idempotency-key': key }, intentBody(amount));
    expect((await send('m1', '0.9')).json.state).not.toBe('EXPIRED');
    expect((await send('m2', '0.2')).json.decision_code).toBe('DAILY_LIMIT_EXCEEDED');
    now = new Date('2026-12-01T00:00:30.000Z');
    const budget = await call('GET', `/api/v1/ai-wallets/bindings/${created.binding.binding_uuid}/budget`, agent);
    expect(budget.json).toMatchObject({ daily_committed: '0', monthly_committed: '0', daily_remaining: '1', monthly_remaining: '1.2' });
    expect((await send('m3', '0.3')).json.state).not.toBe('EXPIRED');
    // m1 (23:59:00) and m3 are both inside the 120 s window: a third is one too many.
    expect((await send('m4', '0.3')).json.decision_code).toBe('VELOCITY_LIMIT_EXCEEDED');
    now = new Date('2026-12-01T00:02:00.000Z');
    expect((await send('m5', '0.8')).json.decision_code).toBe('DAILY_LIMIT_EXCEEDED');
    // Approved, m3 holds its reservation for the intent's lifetime (24 h from its creation), past its approval window.
    const [approval] = (await call('GET', `/api/v1/ai-wallets/bindings/${created.binding.binding_uuid}/approvals?state=PENDING`, owner)).json.items;
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, owner, {})).json.state).toBe('APPROVED');
    now = new Date('2026-12-02T00:00:10.000Z');
    agent = await agentToken(created.binding, created.secret);
    expect((await send('m6', '1')).json.decision_code).toBe('MONTHLY_LIMIT_EXCEEDED');
    expect((await send('m7', '0.9')).json.state).not.toBe('EXPIRED');
    const december = await call('GET', `/api/v1/ai-wallets/bindings/${created.binding.binding_uuid}/budget`, agent);
    expect(december.json).toMatchObject({ daily_committed: '0.9', monthly_committed: '1.2', monthly_remaining: '0', active_intent_count: 2 });
  });

  it('denies on a suspended binding and an expired policy', async () => {
    const { binding, secret } = await newBinding(policy({ expires_at: '2026-11-23T00:00:00Z' }));
    const url = `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`;
    now = new Date('2026-11-23T00:00:01.000Z');
    const later = await agentToken(binding, secret);
    expect((await call('POST', url, { ...later, 'idempotency-key': 'e1' }, intentBody('0.1'))).json.decision_code).toBe('POLICY_EXPIRED');
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/policy`, owner)).json.lifecycle).toBe('EXPIRED');
    // Back to before the expiry (a newer token replaced the first one: expired tokens are dropped as new ones come).
    now = new Date('2026-11-22T10:30:00.000Z');
    await call('PATCH', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}`, owner, { state: 'SUSPENDED', state_reason: 'Quarterly review' });
    const suspended = await call('POST', url, { ...later, 'idempotency-key': 'e2' }, intentBody('0.1'));
    expect(suspended.json).toMatchObject({ state: 'DENIED', decision_code: 'BINDING_INACTIVE' });
  });
});

describe('approvals, expiry and execution mode', () => {
  it('a person approves or rejects; approval is not execution; rejection releases the budget', async () => {
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    const url = `/api/v1/ai-wallets/bindings/${b}/intents`;
    const i1 = await call('POST', url, { ...agent, 'idempotency-key': 'a1' }, intentBody('0.5'));
    const i2 = await call('POST', url, { ...agent, 'idempotency-key': 'a2' }, intentBody('0.7'));
    const approvals = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals?state=PENDING`, owner)).json.items;
    expect(approvals).toHaveLength(2);
    const a1 = approvals.find((a: { intent_uuid: string }) => a.intent_uuid === i1.json.intent_uuid);
    expect(a1).toMatchObject({
      state: 'PENDING', execution_available: false, policy_approved_is_execution: false, readiness_gate: 'TRANSACTION_BUILDER_NOT_CONFIGURED', chain_family: 'EVM',
      network_id: 'ethereum-sepolia', asset_code: 'ETH', amount: '0.5', confirmations: 0, intent_commitment: i1.json.intent_commitment,
    });
    expect(a1.unsigned_transaction).toBeUndefined();
    expect(a1.approval_commitment).toMatch(/^[0-9a-f]{64}$/);
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${a1.approval_uuid}/approve`, stranger, {})).status).toBe(404);
    const ok = await call('POST', `/api/v1/ai-wallets/approvals/${a1.approval_uuid}/approve`, owner, { reason: 'Invoice checked' });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ state: 'APPROVED', execution_available: false, policy_approved_is_execution: false });
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${a1.approval_uuid}/reject`, owner, {})).status).toBe(409);
    expect((await call('GET', `/api/v1/ai-wallets/intents/${i1.json.intent_uuid}`, owner)).json.state).toBe('APPROVED');
    const a2 = approvals.find((a: { intent_uuid: string }) => a.intent_uuid === i2.json.intent_uuid);
    await call('POST', `/api/v1/ai-wallets/approvals/${a2.approval_uuid}/reject`, owner, { reason: 'Unknown vendor' });
    expect((await call('GET', `/api/v1/ai-wallets/intents/${i2.json.intent_uuid}`, owner)).json.state).toBe('REJECTED');
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}/budget`, agent)).json).toMatchObject({ daily_committed: '0.5', active_intent_count: 1 });
  });

  it('an unreviewed approval expires and releases its reservation', async () => {
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    const i = await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': 'x1' }, intentBody('0.4'));
    now = new Date(Date.parse(i.json.expires_at) + 1000);
    // Budget decisions ignore it from the instant it expires, before any sweep.
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}/budget`, agent)).json.daily_committed).toBe('0');
    expect(await t.app.get(IntentExpirySweep).sweep()).toBeGreaterThanOrEqual(1);
    // The sweep runs outside any request: the read model follows shortly.
    await until(() => call('GET', `/api/v1/ai-wallets/intents/${i.json.intent_uuid}`, owner), (r) => r.json.state === 'EXPIRED');
    const approvals = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals`, owner)).json.items;
    expect(approvals[0].state).toBe('EXPIRED');
    const approve = await call('POST', `/api/v1/ai-wallets/approvals/${approvals[0].approval_uuid}/approve`, owner, {});
    expect(approve.status).toBe(409);
  });

  it('the expiry sweep runs on the node holding the ai-wallet-intent-expiry lease only', async () => {
    const { binding, agent } = await newBinding();
    const i = await call('POST', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`, { ...agent, 'idempotency-key': 'lease1' }, intentBody('0.1'));
    now = new Date(Date.parse(i.json.expires_at) + 1000);
    const other = await leaseHeldElsewhere(t.app.get(ReadModelDatabase), 'ai-wallet-intent-expiry');
    const sweep = t.app.get(IntentExpirySweep);
    expect(await sweep.tick()).toBeNull();
    expect((await call('GET', `/api/v1/ai-wallets/intents/${i.json.intent_uuid}`, owner)).json.state).not.toBe('EXPIRED');
    await other.release('ai-wallet-intent-expiry');
    expect(await sweep.tick()).toBeGreaterThanOrEqual(1);
    await until(() => call('GET', `/api/v1/ai-wallets/intents/${i.json.intent_uuid}`, owner), (r) => r.json.state === 'EXPIRED');
    await expect(other.acquire('ai-wallet-intent-expiry')).rejects.toThrow();
  });

  it('a person records an approved intent as settled: it holds its reservation for good, past the intent lifetime', async () => {
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    const tx = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060';
    const i = await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': 's1' }, intentBody('0.6'));
    const settleUrl = `/api/v1/ai-wallets/intents/${i.json.intent_uuid}/settle`;
    // Not before a person approved it; never by the agent; a malformed hash is a 400.
    const early = await call('POST', settleUrl, owner, { transaction_hash: tx });
    expect(early.status).toBe(409);
    expect(early.json.error.message).toContain('PENDING_APPROVAL');
    const [approval] = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals?state=PENDING`, owner)).json.items;
    expect((await call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, owner, {})).status).toBe(200);
    expect((await call('POST', settleUrl, agent, { transaction_hash: tx })).status).toBe(403);
    expect((await call('POST', settleUrl, stranger, { transaction_hash: tx })).status).toBe(404);
    const bad = await call('POST', settleUrl, owner, { transaction_hash: 'not a hash!' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].field).toBe('transaction_hash');

    now = new Date('2026-11-22T11:00:00.000Z');
    const settled = await call('POST', settleUrl, owner, { transaction_hash: tx });
    expect(settled.status).toBe(200);
    expect(settled.json).toMatchObject({ intent_uuid: i.json.intent_uuid, state: 'SETTLED', settled_at: '2026-11-22T11:00:00.000Z' });
    // The same report again changes nothing; another transaction for it is a conflict.
    expect((await call('POST', settleUrl, owner, { transaction_hash: tx })).status).toBe(200);
    expect((await call('POST', settleUrl, owner, { transaction_hash: '0x' + 'ab'.repeat(32) })).status).toBe(409);
    expect((await call('GET', `/api/v1/ai-wallets/intents/${i.json.intent_uuid}`, owner)).json).toMatchObject({ state: 'SETTLED', settled_at: '2026-11-22T11:00:00.000Z' });
    const reviewed = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals`, owner)).json.items[0];
    expect(reviewed).toMatchObject({ state: 'APPROVED', transaction_hash: tx, execution_available: false });

    // Two days later (past the intent lifetime): the sweep leaves it alone and the month still counts it.
    now = new Date('2026-11-24T12:00:00.000Z');
    await t.app.get(IntentExpirySweep).sweep();
    // (The agent's token has expired by now: the owner reads.)
    const budget = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/budget`, owner)).json;
    expect(budget).toMatchObject({ daily_committed: '0', monthly_committed: '0.6', active_intent_count: 0 });
    expect((await call('GET', `/api/v1/ai-wallets/intents/${i.json.intent_uuid}`, owner)).json.state).toBe('SETTLED');
    const activity = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity?limit=100`, owner)).json.items;
    const settledEvent = activity.find((a: { event_type: string }) => a.event_type === 'AiWalletIntentSettled');
    expect(settledEvent).toMatchObject({ intent_uuid: i.json.intent_uuid, evidence: { transaction_hash: tx }, actor_type: 'profile' });
    expect((await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity/verify`, owner)).json.verified).toBe(true);
  });

  it('refuses autonomous mode naming the open gates; SUPERVISED lets small intents through without a person', async () => {
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    const auto = await call('PUT', `/api/v1/ai-wallets/bindings/${b}/execution-mode`, owner, { mode: 'AUTONOMOUS', state_reason: 'Let it run alone' });
    expect(auto.status).toBe(422);
    expect(auto.json.error.details.map((d: { issue: string }) => d.issue).join(' ')).toContain('SIGNING_PROVIDER_NOT_CONFIGURED');
    const sup = await call('PUT', `/api/v1/ai-wallets/bindings/${b}/execution-mode`, owner, { mode: 'SUPERVISED', state_reason: 'Small top-ups may go alone' });
    expect(sup.status).toBe(200);
    expect(sup.json).toMatchObject({ mode: 'SUPERVISED', mode_version: 2, autonomous_available: false });
    const read = await call('GET', `/api/v1/ai-wallets/bindings/${b}/execution-mode`, owner);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(sup.json);
    const small = await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': 's1' }, intentBody('0.1'));
    expect(small.json).toMatchObject({ state: 'POLICY_APPROVED', decision_code: 'ALLOWED' });
    const big = await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': 's2' }, intentBody('0.2'));
    expect(big.json.state).not.toBe('EXPIRED');
  });
});

describe('activity', () => {
  it('pages every change in order with the chain of commitments, and the chain verifies', async () => {
    const { binding, agent } = await newBinding();
    const b = binding.binding_uuid;
    await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': 'act-1' }, intentBody('0.3'));
    await call('PUT', `/api/v1/ai-wallets/bindings/${b}/execution-mode`, owner, { mode: 'SUPERVISED', state_reason: 'Small top-ups may go alone' });
    const first = await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity?limit=3`, owner);
    expect(first.json.items.map((e: { event_type: string }) => e.event_type)).toEqual(['AiWalletBindingCreated', 'AiWalletPolicyPublished', 'AiWalletBindingStateChanged']);
    const second = await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity?limit=3&cursor=${encodeURIComponent(first.json.next_cursor)}`, owner);
    const all = [...first.json.items, ...second.json.items];
    expect(all.map((e: { event_type: string }) => e.event_type).slice(3)).toEqual(['AiWalletIntentReserved', 'AiWalletApprovalRequested', 'AiWalletExecutionModeChanged']);
    expect(all[0].previous_event_commitment).toBeNull();
    for (let i = 1; i < all.length; i++) expect(all[i].previous_event_commitment).toBe(all[i - 1].event_commitment);
    expect(all[3]).toMatchObject({ actor_type: 'workload', actor_reference: binding.workload_client_id, intent_uuid: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(all[5]).toMatchObject({ actor_type: 'profile' });
    const verified = await call('GET', `/api/v1/ai-wallets/bindings/${b}/activity/verify`, owner);
    expect(verified.json).toMatchObject({ verified: true, events: 6, head_commitment: all[5].event_commitment, first_break: null });
  });
});
