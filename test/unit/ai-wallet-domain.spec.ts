/** The AI-agent wallet binding domain, given/when/then on decide/evolve: no I/O, injected clock and ids. */
import { bindingDecider, committed, decideIntent, reservationsOf, sumReservations, type BindingAggregate, type BindingCommand, type BindingEvent } from '../../src/modules/ai-wallets/domain/binding';
import { prng } from '../support/prng';
import { parseAmount } from '../../src/modules/ai-wallets/domain/assets';
import { checkPolicyTerms, policyCommitment, policyCommitmentHolds, policyRecord, type PolicyTerms } from '../../src/modules/ai-wallets/domain/policy';
import { canonicalJson, sha256Hex } from '../../src/platform/commitments/commitment';

const NOW = new Date('2026-11-22T10:00:00.000Z');
const DEST = '0xabc0000000000000000000000000000000000001';
let ids = 0;
const ctx = (now = NOW) => ({ now, newId: () => (++ids).toString(16).padStart(32, '0') });

const terms = (over: Partial<PolicyTerms> = {}): PolicyTerms => ({
  capabilities: ['TRANSFER'], assets: ['ETH'], asset_budgets: [], destinations: [DEST], max_single_amount: '1', daily_limit: '2', monthly_limit: '10',
  velocity_window_seconds: 3600, velocity_max_count: 100, autonomous_threshold: '0.1', currency: 'ETH', expires_at: null, ...over,
});
const create: BindingCommand = {
  kind: 'CreateBinding',
  spec: {
    binding_uuid: 'b'.repeat(32), workload_client_id: 'c'.repeat(32), client_secret_hash: 'f'.repeat(64), workspace_uuid: 'a'.repeat(32), tenant_uuid: '0'.repeat(32),
    owner_profile_uuid: 'd'.repeat(32), created_by_profile_uuid: 'd'.repeat(32), agent_label: 'agent', environment: 'SANDBOX', network_id: 'ethereum-mainnet',
    native_address: DEST, operational_wallet_uuid: null,
  },
  policy: null,
};
const atoms = (v: string) => (parseAmount('ETH', v) as { atoms: bigint }).atoms;
const intent = (key: string, amount: string): BindingCommand => ({
  kind: 'CreateIntent', request: request(amount), idempotency_key: key, purpose: 'p',
  rationale: { schema: 's', summary: 's', explanation: 'e', expected_outcome: 'o', reference: 'r' }, requested_by_profile_uuid: null, intent_ttl_seconds: 86400, approval_ttl_seconds: 900,
});

const request = (amount: string) => ({ type: 'TRANSFER', asset: 'ETH', amount: atoms(amount), destination: { type: 'ADDRESS' as const, id: DEST } });

/** given events, when a command, then events (or an error). */
function given(commands: BindingCommand[]): BindingAggregate {
  let state = bindingDecider.initialState();
  for (const c of commands) for (const e of bindingDecider.decide(c, state, ctx())) state = bindingDecider.evolve(state, e);
  return state;
}
const when = (state: BindingAggregate, c: BindingCommand, now = NOW): BindingEvent[] => bindingDecider.decide(c, state, ctx(now));

describe('binding lifecycle', () => {
  it('a binding created with a policy is active at once, in one decision', () => {
    const events = when(bindingDecider.initialState(), { ...create, policy: terms() } as BindingCommand);
    expect(events.map((e) => e.type)).toEqual(['AiWalletBindingCreated', 'AiWalletPolicyPublished', 'AiWalletBindingStateChanged']);
  });

  it('an invalid first policy refuses the whole creation', () => {
    expect(() => when(bindingDecider.initialState(), { ...create, policy: terms({ currency: 'USD' }) } as BindingCommand)).toThrow(/policy is not valid/);
  });

  it('a revoked binding stays revoked', () => {
    const s = given([create, { kind: 'PublishPolicy', terms: terms(), by_profile_uuid: 'd'.repeat(32) }, { kind: 'ChangeBindingState', to: 'REVOKED', reason: 'compromised' }]);
    expect(() => when(s, { kind: 'ChangeBindingState', to: 'ACTIVE', reason: 'back again' })).toThrow(/stays revoked/);
  });
});

describe('intent decisions', () => {
  const active = () => given([create, { kind: 'PublishPolicy', terms: terms(), by_profile_uuid: 'd'.repeat(32) }]);

  it('reserves within budget and asks a person (MANUAL_APPROVAL mode)', () => {
    const events = when(active(), intent('k1', '0.5'));
    expect(events.map((e) => e.type)).toEqual(['AiWalletIntentReserved', 'AiWalletApprovalRequested']);
  });

  it('denies the intent that would pass the daily limit, and counts only what holds', () => {
    const s = given([create, { kind: 'PublishPolicy', terms: terms(), by_profile_uuid: 'd'.repeat(32) }, intent('k1', '1'), intent('k2', '1')]);
    expect(committed(s, 'ETH', NOW).day).toBe(atoms('2'));
    const [denied] = when(s, intent('k3', '0.000000000000000001'));
    expect(denied).toMatchObject({ type: 'AiWalletIntentDenied', data: { intent: { decision_code: 'DAILY_LIMIT_EXCEEDED', reservation_commitment: null } } });
    // Past the approval window the reservations no longer count, even before an expiry is recorded.
    expect(committed(s, 'ETH', new Date(NOW.getTime() + 901_000)).day).toBe(0n);
  });

  it('the same Idempotency-Key decides nothing twice', () => {
    const s = given([create, { kind: 'PublishPolicy', terms: terms(), by_profile_uuid: 'd'.repeat(32) }, intent('k1', '0.5')]);
    expect(when(s, intent('k1', '0.5'))).toEqual([]);
  });

  it('fails closed: no policy, empty allowlist, expired policy', () => {
    const noPolicy = given([create]);
    expect(decideIntent(noPolicy, request('0.1'), NOW).decision_code).toBe('BINDING_INACTIVE');
    const empty = given([create, { kind: 'PublishPolicy', terms: terms({ destinations: [] }), by_profile_uuid: 'd'.repeat(32) }]);
    expect(decideIntent(empty, request('0.1'), NOW).decision_code).toBe('DESTINATION_NOT_ALLOWLISTED');
    const expiring = given([create, { kind: 'PublishPolicy', terms: terms({ expires_at: '2026-11-22T11:00:00Z' }), by_profile_uuid: 'd'.repeat(32) }]);
    expect(decideIntent(expiring, request('0.1'), new Date('2026-11-22T11:00:00Z')).decision_code).toBe('POLICY_EXPIRED');
  });
});

describe('policy terms', () => {
  it('canonicalizes amounts and refuses limits out of order', () => {
    const ok = checkPolicyTerms(terms({ max_single_amount: '1.500', daily_limit: '2.0' }), NOW);
    expect(ok).toMatchObject({ terms: { max_single_amount: '1.5', daily_limit: '2' } });
    const bad = checkPolicyTerms(terms({ max_single_amount: '3', daily_limit: '2' }), NOW);
    expect(bad).toMatchObject({ problems: [{ field: 'max_single_amount', issue: 'must not exceed daily_limit' }] });
  });
});

describe('settlement', () => {
  const TX = '0x' + '5c'.repeat(32);
  const withIntent = () => {
    const s = given([create, { kind: 'PublishPolicy', terms: terms(), by_profile_uuid: 'd'.repeat(32) }, intent('k1', '0.5')]);
    const [hold] = [...s.intents.values()];
    return { s, intent_uuid: hold.intent.intent_uuid, approval_uuid: hold.approval_uuid! };
  };
  const settle = (intent_uuid: string, transaction_hash = TX): BindingCommand => ({ kind: 'SettleIntent', intent_uuid, transaction_hash, by_profile_uuid: 'd'.repeat(32) });
  const approve = (approval_uuid: string): BindingCommand => ({ kind: 'ReviewApproval', approval_uuid, approve: true, by_profile_uuid: 'd'.repeat(32), reason: null, intent_ttl_seconds: 86400 });

  it('given an approved intent, when it is settled, then it is SETTLED and counts past its lifetime', () => {
    const setup = withIntent();
    const { intent_uuid, approval_uuid } = setup;
    let s = setup.s;
    for (const e of when(s, approve(approval_uuid))) s = bindingDecider.evolve(s, e);
    const events = when(s, settle(intent_uuid));
    expect(events).toEqual([{ type: 'AiWalletIntentSettled', data: { binding_uuid: 'b'.repeat(32), intent_uuid, approval_uuid, transaction_hash: TX, settled_by_profile_uuid: 'd'.repeat(32), settled_at: NOW.toISOString() } }]);
    for (const e of events) s = bindingDecider.evolve(s, e);
    expect(s.intents.get(intent_uuid)!.intent).toMatchObject({ state: 'SETTLED', settled_at: NOW.toISOString() });
    const later = new Date('2026-11-29T10:00:00.000Z');
    expect(committed(s, 'ETH', later)).toEqual({ day: 0n, month: atoms('0.5'), active: 0 });
    expect(when(s, { kind: 'ExpireIntent', intent_uuid }, later)).toEqual([]);
    // The same report again decides nothing; another transaction is a conflict.
    expect(when(s, settle(intent_uuid))).toEqual([]);
    expect(() => when(s, settle(intent_uuid, '0x' + 'ab'.repeat(32)))).toThrow(/another transaction/);
  });

  it('given an intent still waiting for a person, or expired, when it is settled, then it is refused', () => {
    const { intent_uuid, approval_uuid, ...setup } = withIntent();
    let s = setup.s;
    expect(() => when(s, settle(intent_uuid))).toThrow(/PENDING_APPROVAL/);
    for (const e of when(s, approve(approval_uuid))) s = bindingDecider.evolve(s, e);
    expect(() => when(s, settle(intent_uuid), new Date('2026-11-23T10:00:00.001Z'))).toThrow(/expired/);
    expect(() => when(s, settle('f'.repeat(32)))).toThrow(/No such intent/);
  });
});

describe('budget index', () => {
  it('answers exactly what summing every reservation answers, through approvals, rejections, expiries, settlements, midnights and month ends', () => {
    const random = prng(20261122);
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
    let now = new Date('2026-11-29T20:00:00.000Z');
    const at = () => ({ now, newId: () => (++ids).toString(16).padStart(32, '0') });
    let s = bindingDecider.initialState();
    const fold = (events: BindingEvent[]): void => {
      for (const e of events) s = bindingDecider.evolve(s, e);
    };
    const apply = (c: BindingCommand): void => {
      let events: BindingEvent[];
      try {
        events = bindingDecider.decide(c, s, at());
      } catch {
        return; // refused (e.g. an expired approval): nothing happens, as in the app
      }
      fold(events);
    };
    fold(bindingDecider.decide({ ...create, policy: terms({ daily_limit: '1.5', monthly_limit: '20', velocity_max_count: 40, velocity_window_seconds: 1800, asset_budgets: [{ asset_code: 'BTC', max_single_amount: '0.5', daily_limit: '1', monthly_limit: '5' }], assets: ['ETH', 'BTC'] }) } as BindingCommand, s, at()));
    fold(bindingDecider.decide({ kind: 'ChangeExecutionMode', mode: 'SUPERVISED', reason: 'small ones go through' }, s, at()));
    let checks = 0;
    const seen = new Set<string>();
    for (let step = 0; step < 600; step++) {
      // Time moves 0-20 minutes per step: across midnights (UTC) and the month end, past approval and intent expiries.
      now = new Date(now.getTime() + Math.floor(random() * 20 * 60_000));
      const r = random();
      const open = [...s.intents.values()].filter((h) => ['PENDING_APPROVAL', 'POLICY_APPROVED', 'APPROVED'].includes(h.intent.state));
      if (r < 0.5) {
        const asset = random() < 0.7 ? 'ETH' : 'BTC';
        const amount = (Math.floor(random() * 40) / 100 + 0.01).toFixed(2);
        apply({ ...(intent(`k${step}`, amount) as Extract<BindingCommand, { kind: 'CreateIntent' }>), request: { ...request(amount), asset, amount: (parseAmount(asset, amount) as { atoms: bigint }).atoms }, approval_ttl_seconds: 1800, intent_ttl_seconds: 7200 });
      } else if (r < 0.65 && open.some((h) => h.intent.state === 'PENDING_APPROVAL')) {
        const h = pick(open.filter((x) => x.intent.state === 'PENDING_APPROVAL'));
        if (h.approval_uuid) apply({ kind: 'ReviewApproval', approval_uuid: h.approval_uuid, approve: random() < 0.6, by_profile_uuid: 'd'.repeat(32), reason: null, intent_ttl_seconds: 7200 });
      } else if (r < 0.75 && open.length > 0) {
        apply({ kind: 'SettleIntent', intent_uuid: pick(open).intent.intent_uuid, transaction_hash: '0x' + 'ab'.repeat(32), by_profile_uuid: 'd'.repeat(32) });
      } else if (r < 0.85 && open.length > 0) {
        apply({ kind: 'ExpireIntent', intent_uuid: pick(open).intent.intent_uuid }); // decides nothing unless overdue
      }
      for (const h of s.intents.values()) seen.add(h.intent.state);
      for (const asset of ['ETH', 'BTC']) {
        const probe = new Date(now.getTime() + Math.floor(random() * 3 * 3600_000)); // later too: overdue, not yet recorded
        expect(committed(s, asset, probe)).toEqual(sumReservations(reservationsOf(s), asset, probe));
        checks += 1;
      }
    }
    // The walk did reach every case it is meant to check.
    for (const state of ['DENIED', 'PENDING_APPROVAL', 'POLICY_APPROVED', 'APPROVED', 'REJECTED', 'EXPIRED', 'SETTLED']) expect(seen).toContain(state);
    expect(checks).toBe(1200);
  });
});

describe('policy commitments', () => {
  const fields = { ...terms(), policy_uuid: 'a'.repeat(32), binding_uuid: 'b'.repeat(32), version: 1, created_by_profile_uuid: 'c'.repeat(32), created: NOW.toISOString() };

  it('given a published version, when it is superseded, then its published body still recomputes to its commitment', () => {
    const active = policyRecord(fields);
    const superseded = { ...active, lifecycle: 'SUPERSEDED' as const };
    const expired = { ...active, lifecycle: 'EXPIRED' };
    expect(active.policy_commitment).toBe(sha256Hex(canonicalJson({ ...fields } as never)));
    for (const record of [active, superseded, expired]) expect(policyCommitmentHolds(record)).toBe(true);
    expect(policyCommitmentHolds({ ...superseded, daily_limit: '999' })).toBe(false);
  });

  it('given a version committed by rule 1 (lifecycle ACTIVE inside), then it recomputes by rule 1, active or superseded', () => {
    const legacy = { ...fields, lifecycle: 'ACTIVE' as const, policy_commitment: sha256Hex(canonicalJson({ ...fields, lifecycle: 'ACTIVE' } as never)) };
    expect(policyCommitment(legacy, 1)).toBe(legacy.policy_commitment);
    expect(policyCommitment(legacy, 2)).not.toBe(legacy.policy_commitment);
    expect(policyCommitmentHolds({ ...legacy, lifecycle: 'SUPERSEDED' })).toBe(true);
  });

  it('given a binding, when a policy is published, then the event says which rule committed it', () => {
    const created = bindingDecider.decide(create, bindingDecider.initialState(), ctx());
    const state = created.reduce((st, e) => bindingDecider.evolve(st, e), bindingDecider.initialState());
    const events = bindingDecider.decide({ kind: 'PublishPolicy', terms: terms(), by_profile_uuid: 'd'.repeat(32) }, state, ctx());
    const published = events.find((e) => e.type === 'AiWalletPolicyPublished');
    expect(published?.data).toMatchObject({ commitment_rule: 2 });
  });
});
