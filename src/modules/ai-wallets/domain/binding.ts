/**
 * The AI-agent wallet binding: one stream per binding (`ai-wallet-binding-<binding_uuid>`) holds everything that
 * happens to it — creation, policy versions, state changes, intents and their reservations, approvals, execution
 * mode. One stream is one consistency boundary: an intent's budget check and its reservation are decided against
 * the stream's current revision and appended with it as the expected revision, so concurrent intents can never
 * together overspend a budget (a conflict decides again on the new state). The stream is also the binding's
 * activity log: each event's `event_commitment`/`previous_event_commitment` are the chain an auditor verifies.
 *
 * Pure: no I/O, no clock (`now` comes in the decide context), no randomness (ids too).
 */
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import type { DecideContext, Decider } from '../../../platform/command/decider';
import { PlatformError, ValidationFailed } from '../../../platform/errors';
import { amountText, NETWORKS, parseAmount } from './assets';
import { committedAt, emptyBudgetIndex, release, reserve, reservedSince, retime, settle, type BudgetIndex } from './budget-index';
import { checkPolicyTerms, limitsFor, MAX_VELOCITY_WINDOW_SECONDS, NO_POLICY_UUID, POLICY_COMMITMENT_RULE, policyExpired, policyRecord, type AiWalletPolicy, type LimitSet, type PolicyTerms } from './policy';

export const bindingStream = (binding_uuid: string): string => `ai-wallet-binding-${binding_uuid}`;
export const BINDING_STREAM_PREFIX = 'ai-wallet-binding-';

export type BindingState = 'PENDING' | 'ACTIVE' | 'SUSPENDED' | 'REVOKED';
export type ExecutionModeName = 'MANUAL_APPROVAL' | 'SUPERVISED' | 'AUTONOMOUS';
export const EXECUTION_MODES: readonly ExecutionModeName[] = ['MANUAL_APPROVAL', 'SUPERVISED', 'AUTONOMOUS'];

/**
 * What must exist before an agent may act without a person: none of it exists on this platform yet (no signer, no
 * chain adapter, no transaction builder), so every gate is open and autonomous mode is unavailable.
 */
export const AUTONOMOUS_READINESS_GATES = ['SIGNING_PROVIDER_NOT_CONFIGURED', 'CHAIN_ADAPTER_NOT_CONFIGURED', 'TRANSACTION_BUILDER_NOT_CONFIGURED'] as const;
/** Why an approved intent still cannot execute (AiWalletApproval.readiness_gate). */
export const EXECUTION_READINESS_GATE = 'TRANSACTION_BUILDER_NOT_CONFIGURED';

export const ACCOUNTING_MODEL = 'UTC_CALENDAR_RESERVATIONS';

// ---------------------------------------------------------------------------------------------------------------
// Records (the seeds' shapes, as stored in events and shown by the API)

export interface AiWalletBindingCore {
  binding_uuid: string;
  workspace_uuid: string;
  owner_profile_uuid: string;
  workload_client_id: string;
  agent_label: string;
  environment: string;
  enrollment_uuid: string;
  activation_uuid: string;
  network_id: string;
  native_address: string;
  created_by_profile_uuid: string;
  created: string;
  legacy_primary_binding: boolean;
  operational_wallet_uuid: string | null;
}

export interface AiWalletExecutionMode {
  mode: ExecutionModeName;
  mode_version: number;
  state_reason: string;
  autonomous_available: boolean;
  autonomous_readiness_gates: string[];
  mandate_expires_at: string | null;
  mandate_uuid: string | null;
  remaining_limits: null;
  updated: string;
}

export interface AiWalletRationale {
  schema: string;
  summary: string;
  explanation: string;
  expected_outcome: string;
  reference: string;
}

export interface AiWalletDestination {
  type: 'ADDRESS' | 'PROFILE' | 'MERCHANT' | 'CONTRACT';
  id: string;
}

export type IntentState = 'DENIED' | 'PENDING_APPROVAL' | 'POLICY_APPROVED' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'SETTLED';
/** States whose reservation still counts against the budget (until expires_at, SETTLED for good). */
const HOLDING: ReadonlySet<IntentState> = new Set(['PENDING_APPROVAL', 'POLICY_APPROVED', 'APPROVED', 'SETTLED']);

export interface AiWalletIntent {
  intent_uuid: string;
  binding_uuid: string;
  workspace_uuid: string;
  /** NO_POLICY_UUID when no policy was there to apply (POLICY_MISSING). */
  policy_uuid: string;
  policy_version: number;
  workload_client_id: string;
  idempotency_key: string;
  intent_type: string;
  capability: string;
  asset_code: string;
  amount: string;
  destination_type: string;
  destination_reference: string;
  purpose: string;
  state: IntentState;
  decision_code: DecisionCode;
  intent_commitment: string;
  created: string;
  updated: string;
  expires_at: string | null;
  rationale: AiWalletRationale;
  rationale_commitment: string;
  requested_by_profile_uuid: string | null;
  reservation_commitment: string | null;
  settled_at: string | null;
}

export type ApprovalState = 'PENDING' | 'APPROVED' | 'REJECTED' | 'EXPIRED';

export interface AiWalletApproval {
  approval_uuid: string;
  binding_uuid: string;
  intent_uuid: string;
  workspace_uuid: string;
  network_id: string;
  workload_client_id: string;
  policy_uuid: string;
  policy_version: number;
  policy_commitment: string;
  intent_commitment: string;
  state: ApprovalState;
  chain_family: string;
  asset_code: string;
  amount: string;
  destination_reference: string;
  fees: { state: 'UNAVAILABLE'; reason: string };
  risk_warnings: string[];
  simulation: { state: 'UNAVAILABLE'; reason: string };
  approval_commitment: string;
  mpc_progress: { state: 'NOT_STARTED' };
  confirmations: number;
  created: string;
  updated: string;
  execution_available: false;
  policy_approved_is_execution: false;
  expires_at: string;
  readiness_gate: string;
  reviewed_at: string | null;
  reviewed_by_profile_uuid: string | null;
  review_reason: string | null;
  /** Set when a person reports the approved intent settled (AiWalletIntentSettled). */
  transaction_hash?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Events

export interface ReservationData {
  asset_code: string;
  amount: string;
  /** UTC day (YYYY-MM-DD) and month (YYYY-MM) of the intent's creation: the budget periods it counts against. */
  day: string;
  month: string;
}

export type BindingEvent =
  | { type: 'AiWalletBindingCreated'; data: { binding: AiWalletBindingCore; binding_commitment: string; tenant_uuid: string; client_secret_hash: string; execution_mode: AiWalletExecutionMode } }
  /** commitment_rule: how policy_commitment was computed (POLICY_COMMITMENT_RULE); absent before rule 2, meaning 1. */
  | { type: 'AiWalletPolicyPublished'; data: { policy: AiWalletPolicy; commitment_rule?: number } }
  | { type: 'AiWalletBindingStateChanged'; data: { binding_uuid: string; from: BindingState; to: BindingState; reason: string; changed_at: string } }
  | { type: 'AiWalletIntentDenied'; data: { intent: AiWalletIntent } }
  | { type: 'AiWalletIntentReserved'; data: { intent: AiWalletIntent; reservation: ReservationData } }
  | { type: 'AiWalletApprovalRequested'; data: { approval: AiWalletApproval } }
  | { type: 'AiWalletApprovalApproved' | 'AiWalletApprovalRejected'; data: ApprovalReviewData }
  | { type: 'AiWalletIntentExpired'; data: { binding_uuid: string; intent_uuid: string; approval_uuid: string | null; expired_at: string } }
  | { type: 'AiWalletIntentSettled'; data: IntentSettlementData }
  | { type: 'AiWalletExecutionModeChanged'; data: { binding_uuid: string; execution_mode: AiWalletExecutionMode } };

export interface ApprovalReviewData {
  binding_uuid: string;
  approval_uuid: string;
  intent_uuid: string;
  /** The intent's expiry from now on: an approved intent holds its reservation for its lifetime, not the approval window. */
  intent_expires_at: string;
  reviewed_by_profile_uuid: string;
  reviewed_at: string;
  reason: string | null;
}

/**
 * An approved intent carried out outside the platform (no transaction builder or signer runs here yet), reported by a
 * person of the workspace with the chain's transaction hash: its reservation then counts for good, it never expires.
 */
export interface IntentSettlementData {
  binding_uuid: string;
  intent_uuid: string;
  approval_uuid: string | null;
  transaction_hash: string;
  settled_by_profile_uuid: string;
  settled_at: string;
}

// ---------------------------------------------------------------------------------------------------------------
// State

interface Hold {
  intent: AiWalletIntent;
  reservation: ReservationData | null;
  approval_uuid: string | null;
  /** The transaction a settlement reported (AiWalletIntentSettled). */
  transaction_hash?: string;
}

export interface BindingAggregate {
  binding: (AiWalletBindingCore & { binding_commitment: string; tenant_uuid: string; client_secret_hash: string }) | null;
  state: BindingState;
  state_reason: string | null;
  updated: string | null;
  /** Every version, oldest first; the last is current. */
  policies: AiWalletPolicy[];
  mode: AiWalletExecutionMode | null;
  intents: Map<string, Hold>;
  by_key: Map<string, string>;
  approvals: Map<string, AiWalletApproval>;
  /** What the reservations commit, kept per event so a decision does not walk every intent (budget-index.ts). */
  budget: BudgetIndex;
}

export const initialBinding = (): BindingAggregate => ({
  binding: null, state: 'PENDING', state_reason: null, updated: null, policies: [], mode: null, intents: new Map(), by_key: new Map(), approvals: new Map(), budget: emptyBudgetIndex(),
});

const VELOCITY_HORIZON_MS = MAX_VELOCITY_WINDOW_SECONDS * 1000;

/**
 * Folds are linear (load, evolve, decide, evolve the decided events): evolve takes ownership of the state it is given
 * and updates its maps in place, so a binding with many intents folds in linear time, not quadratic.
 */
export function evolveBinding(s: BindingAggregate, e: BindingEvent): BindingAggregate {
  const next = { ...s };
  switch (e.type) {
    case 'AiWalletBindingCreated':
      next.binding = { ...e.data.binding, binding_commitment: e.data.binding_commitment, tenant_uuid: e.data.tenant_uuid, client_secret_hash: e.data.client_secret_hash };
      next.mode = e.data.execution_mode;
      next.updated = e.data.binding.created;
      return next;
    case 'AiWalletPolicyPublished':
      next.policies = [...s.policies.map((p) => ({ ...p, lifecycle: 'SUPERSEDED' as const })), e.data.policy];
      next.updated = e.data.policy.created;
      return next;
    case 'AiWalletBindingStateChanged':
      next.state = e.data.to;
      next.state_reason = e.data.reason;
      next.updated = e.data.changed_at;
      return next;
    case 'AiWalletIntentDenied':
    case 'AiWalletIntentReserved': {
      const intent = e.data.intent;
      next.intents.set(intent.intent_uuid, { intent, reservation: e.type === 'AiWalletIntentReserved' ? e.data.reservation : null, approval_uuid: null });
      next.by_key.set(intent.idempotency_key, intent.intent_uuid);
      if (e.type === 'AiWalletIntentReserved') {
        const r = e.data.reservation;
        const amount = parseAmount(r.asset_code, r.amount);
        reserve(next.budget, intent.intent_uuid, {
          asset: r.asset_code, atoms: 'atoms' in amount ? amount.atoms : 0n, day: r.day, month: r.month,
          created_ms: Date.parse(intent.created), expires_ms: intent.expires_at === null ? null : Date.parse(intent.expires_at),
        }, VELOCITY_HORIZON_MS);
      }
      return next;
    }
    case 'AiWalletApprovalRequested': {
      const a = e.data.approval;
      next.approvals.set(a.approval_uuid, a);
      const hold = next.intents.get(a.intent_uuid);
      if (hold) next.intents.set(a.intent_uuid, { ...hold, approval_uuid: a.approval_uuid });
      return next;
    }
    case 'AiWalletApprovalApproved':
    case 'AiWalletApprovalRejected': {
      const d = e.data;
      const approved = e.type === 'AiWalletApprovalApproved';
      const a = next.approvals.get(d.approval_uuid);
      if (a) next.approvals.set(d.approval_uuid, { ...a, state: approved ? 'APPROVED' : 'REJECTED', updated: d.reviewed_at, reviewed_at: d.reviewed_at, reviewed_by_profile_uuid: d.reviewed_by_profile_uuid, review_reason: d.reason });
      const hold = next.intents.get(d.intent_uuid);
      if (hold) next.intents.set(d.intent_uuid, { ...hold, intent: { ...hold.intent, state: approved ? 'APPROVED' : 'REJECTED', updated: d.reviewed_at, expires_at: d.intent_expires_at ?? hold.intent.expires_at } });
      if (!approved) release(next.budget, d.intent_uuid);
      else if (d.intent_expires_at) retime(next.budget, d.intent_uuid, Date.parse(d.intent_expires_at));
      return next;
    }
    case 'AiWalletIntentExpired': {
      const d = e.data;
      const hold = next.intents.get(d.intent_uuid);
      if (hold) next.intents.set(d.intent_uuid, { ...hold, intent: { ...hold.intent, state: 'EXPIRED', updated: d.expired_at } });
      release(next.budget, d.intent_uuid);
      if (d.approval_uuid) {
        const a = next.approvals.get(d.approval_uuid);
        if (a) next.approvals.set(d.approval_uuid, { ...a, state: 'EXPIRED', updated: d.expired_at });
      }
      return next;
    }
    case 'AiWalletIntentSettled': {
      const d = e.data;
      const hold = next.intents.get(d.intent_uuid);
      if (hold) next.intents.set(d.intent_uuid, { ...hold, transaction_hash: d.transaction_hash, intent: { ...hold.intent, state: 'SETTLED', updated: d.settled_at, settled_at: d.settled_at } });
      settle(next.budget, d.intent_uuid);
      if (d.approval_uuid) {
        const a = next.approvals.get(d.approval_uuid);
        if (a) next.approvals.set(d.approval_uuid, { ...a, updated: d.settled_at, transaction_hash: d.transaction_hash });
      }
      return next;
    }
    case 'AiWalletExecutionModeChanged':
      next.mode = e.data.execution_mode;
      next.updated = e.data.execution_mode.updated;
      return next;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Budgets and evaluation

export interface AiWalletBudgetLedger {
  accounting_model: string;
  max_single_amount: string;
  daily_limit: string;
  daily_committed: string;
  daily_remaining: string;
  monthly_limit: string;
  monthly_committed: string;
  monthly_remaining: string;
  active_intent_count: number;
  asset_code: string | null;
  currency: string | null;
}

export const utcDay = (at: Date | string): string => (typeof at === 'string' ? at : at.toISOString()).slice(0, 10);
export const utcMonth = (at: Date | string): string => (typeof at === 'string' ? at : at.toISOString()).slice(0, 7);

/** Whether an intent's reservation still counts at `now`: settled ones always, open ones until they expire. */
export function holds(intent: Pick<AiWalletIntent, 'state' | 'expires_at'>, now: Date): boolean {
  if (!HOLDING.has(intent.state)) return false;
  if (intent.state === 'SETTLED') return true;
  return intent.expires_at === null || Date.parse(intent.expires_at) > now.getTime();
}

/** A reservation as the budget counts it (from the binding's state, or from the budget read model's rows). */
export interface ReservationView extends ReservationData {
  state: IntentState | string;
  expires_at: string | null;
}

/**
 * Reserved amounts of one asset in the UTC day and month of `now`, and the number of open intents holding them.
 * The one budget arithmetic: the decision and the budget read model's query both count with it.
 */
export function sumReservations(items: Iterable<ReservationView>, asset: string, now: Date): { day: bigint; month: bigint; active: number } {
  const day = utcDay(now);
  const month = utcMonth(now);
  let d = 0n;
  let m = 0n;
  let active = 0;
  for (const r of items) {
    if (r.asset_code !== asset || !holds({ state: r.state as IntentState, expires_at: r.expires_at }, now)) continue;
    const amount = parseAmount(asset, r.amount);
    if (!('atoms' in amount)) continue;
    if (r.month === month) m += amount.atoms;
    if (r.day === day) d += amount.atoms;
    if (r.state !== 'SETTLED') active += 1;
  }
  return { day: d, month: m, active };
}

/** Every reservation the binding ever made, as the budget read model holds them (for checks: `committed` is the fast path). */
export function* reservationsOf(s: BindingAggregate): Iterable<ReservationView> {
  for (const { intent, reservation } of s.intents.values()) if (reservation) yield { ...reservation, state: intent.state, expires_at: intent.expires_at };
}

/** What `sumReservations` gives over `reservationsOf(s)`, from the budget index: no walk over the intents. */
export const committed = (s: BindingAggregate, asset: string, now: Date): { day: bigint; month: bigint; active: number } =>
  committedAt(s.budget, asset, utcDay(now), utcMonth(now), now.getTime());

const nonNegative = (v: bigint): bigint => (v < 0n ? 0n : v);

/** The seeds' ledger for one asset under one limit set, from committed amounts. */
export function ledger(limits: LimitSet | null, asset: string, currency: string | null, used: { day: bigint; month: bigint; active: number }): AiWalletBudgetLedger {
  const atoms = (v: string | undefined): bigint => {
    const p = v === undefined ? null : parseAmount(asset, v, { allowZero: true });
    return p && 'atoms' in p ? p.atoms : 0n;
  };
  const daily = atoms(limits?.daily_limit);
  const monthly = atoms(limits?.monthly_limit);
  return {
    accounting_model: ACCOUNTING_MODEL,
    max_single_amount: amountText(atoms(limits?.max_single_amount)),
    daily_limit: amountText(daily),
    daily_committed: amountText(used.day),
    daily_remaining: amountText(nonNegative(daily - used.day)),
    monthly_limit: amountText(monthly),
    monthly_committed: amountText(used.month),
    monthly_remaining: amountText(nonNegative(monthly - used.month)),
    active_intent_count: used.active,
    asset_code: asset,
    currency,
  };
}

export interface AiWalletBudget extends AiWalletBudgetLedger {
  /** One ledger per asset budget of the policy; never added up (unlike assets are not converted). */
  per_asset: AiWalletBudgetLedger[];
}

/** The budget at `now`: the policy currency under the main limits, and each asset budget on its own. */
export function budgetOf(policy: PolicyTerms | null, reservations: ReservationView[], now: Date): AiWalletBudget {
  if (!policy) {
    return { ...ledger(null, '', null, { day: 0n, month: 0n, active: 0 }), asset_code: null, per_asset: [] };
  }
  const main: LimitSet = { asset_code: policy.currency, max_single_amount: policy.max_single_amount, daily_limit: policy.daily_limit, monthly_limit: policy.monthly_limit };
  return {
    ...ledger(main, policy.currency, policy.currency, sumReservations(reservations, policy.currency, now)),
    per_asset: policy.asset_budgets.map((b) => ledger(b, b.asset_code, policy.currency, sumReservations(reservations, b.asset_code, now))),
  };
}

export const DECISION_CODES = [
  'ALLOWED',
  'APPROVAL_REQUIRED',
  'BINDING_INACTIVE',
  'POLICY_MISSING',
  'POLICY_EXPIRED',
  'CAPABILITY_NOT_ALLOWED',
  'ASSET_NOT_ALLOWED',
  'ASSET_BUDGET_MISSING',
  'DESTINATION_NOT_ALLOWLISTED',
  'SINGLE_LIMIT_EXCEEDED',
  'DAILY_LIMIT_EXCEEDED',
  'MONTHLY_LIMIT_EXCEEDED',
  'VELOCITY_LIMIT_EXCEEDED',
] as const;
export type DecisionCode = (typeof DECISION_CODES)[number];
export type Outcome = 'ALLOWED' | 'APPROVAL_REQUIRED' | 'DENIED';

export interface IntentRequest {
  type: string;
  asset: string;
  /** Exact atoms; the caller has refused malformed, non-positive and over-precise amounts already. */
  amount: bigint;
  destination: AiWalletDestination;
}

export interface Decision {
  outcome: Outcome;
  decision_code: DecisionCode;
  policy: AiWalletPolicy | null;
  budget_before: AiWalletBudgetLedger;
  /** Committed amounts if this intent were reserved (unchanged when it would be denied). */
  projected: { daily_committed: string; monthly_committed: string; asset_code: string };
}

/**
 * The policy decision for an intent at `now`, failing closed: the first rule that does not hold decides, in this
 * order — binding active, a policy, not expired, capability, asset, a budget for the asset, destination exactly on
 * the allowlist (an empty list allows nothing), single amount, daily, monthly, velocity; then whether a person must
 * approve (always, unless the execution mode is SUPERVISED and the amount is the policy currency at or below
 * `autonomous_threshold`).
 */
export function decideIntent(s: BindingAggregate, req: IntentRequest, now: Date): Decision {
  const policy = s.policies.length > 0 ? s.policies[s.policies.length - 1] : null;
  const limits = policy ? limitsFor(policy, req.asset) : [];
  const used = committed(s, req.asset, now);
  const before = ledger(limits[0] ?? null, req.asset, policy?.currency ?? null, used);
  const deny = (decision_code: DecisionCode): Decision => ({
    outcome: 'DENIED', decision_code, policy, budget_before: before,
    projected: { daily_committed: before.daily_committed, monthly_committed: before.monthly_committed, asset_code: req.asset },
  });
  if (s.state !== 'ACTIVE') return deny('BINDING_INACTIVE');
  if (!policy) return deny('POLICY_MISSING');
  if (policyExpired(policy, now)) return deny('POLICY_EXPIRED');
  if (!policy.capabilities.includes(req.type)) return deny('CAPABILITY_NOT_ALLOWED');
  if (!policy.assets.includes(req.asset)) return deny('ASSET_NOT_ALLOWED');
  if (limits.length === 0) return deny('ASSET_BUDGET_MISSING');
  if (!policy.destinations.includes(req.destination.id)) return deny('DESTINATION_NOT_ALLOWLISTED');
  const atoms = (v: string): bigint => {
    const p = parseAmount(req.asset, v, { allowZero: true });
    return 'atoms' in p ? p.atoms : 0n;
  };
  for (const l of limits) if (req.amount > atoms(l.max_single_amount)) return deny('SINGLE_LIMIT_EXCEEDED');
  for (const l of limits) if (used.day + req.amount > atoms(l.daily_limit)) return deny('DAILY_LIMIT_EXCEEDED');
  for (const l of limits) if (used.month + req.amount > atoms(l.monthly_limit)) return deny('MONTHLY_LIMIT_EXCEEDED');
  if (reservedSince(s.budget, now.getTime() - policy.velocity_window_seconds * 1000) >= policy.velocity_max_count) return deny('VELOCITY_LIMIT_EXCEEDED');

  const threshold = parseAmount(policy.currency, policy.autonomous_threshold, { allowZero: true });
  const withinThreshold = req.asset === policy.currency && 'atoms' in threshold && req.amount <= threshold.atoms;
  const outcome: Outcome = s.mode?.mode === 'SUPERVISED' && withinThreshold ? 'ALLOWED' : 'APPROVAL_REQUIRED';
  return {
    outcome,
    decision_code: outcome,
    policy,
    budget_before: before,
    projected: { daily_committed: amountText(used.day + req.amount), monthly_committed: amountText(used.month + req.amount), asset_code: req.asset },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Commands

export interface BindingSpec {
  workspace_uuid: string;
  tenant_uuid: string;
  owner_profile_uuid: string;
  agent_label: string;
  environment: string;
  network_id: string;
  native_address: string;
  operational_wallet_uuid: string | null;
  created_by_profile_uuid: string;
  /** Chosen by the handler (ids and the secret's hash are I/O of a kind: randomness). */
  binding_uuid: string;
  workload_client_id: string;
  client_secret_hash: string;
}

export type BindingCommand =
  | { kind: 'CreateBinding'; spec: BindingSpec; policy: PolicyTerms | null }
  | { kind: 'PublishPolicy'; terms: PolicyTerms; by_profile_uuid: string }
  | { kind: 'ChangeBindingState'; to: 'ACTIVE' | 'SUSPENDED' | 'REVOKED'; reason: string }
  | {
      kind: 'CreateIntent';
      request: IntentRequest;
      idempotency_key: string;
      purpose: string;
      rationale: AiWalletRationale;
      requested_by_profile_uuid: string | null;
      intent_ttl_seconds: number;
      approval_ttl_seconds: number;
    }
  | { kind: 'ReviewApproval'; approval_uuid: string; approve: boolean; by_profile_uuid: string; reason: string | null; intent_ttl_seconds: number }
  | { kind: 'ExpireIntent'; intent_uuid: string }
  | { kind: 'SettleIntent'; intent_uuid: string; transaction_hash: string; by_profile_uuid: string }
  | { kind: 'ChangeExecutionMode'; mode: ExecutionModeName; reason: string };

export class BindingNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such AI-agent wallet binding.');
  }
}

const commit = (value: unknown): string => sha256Hex(canonicalJson(value as Record<string, unknown>));
const plusSeconds = (now: Date, seconds: number): string => new Date(now.getTime() + seconds * 1000).toISOString();

export function bindingCommitment(core: AiWalletBindingCore): string {
  return commit(core);
}

export function defaultExecutionMode(now: Date): AiWalletExecutionMode {
  return {
    mode: 'MANUAL_APPROVAL',
    mode_version: 1,
    state_reason: 'Every live intent waits for a person of the workspace to approve it.',
    autonomous_available: false,
    autonomous_readiness_gates: [...AUTONOMOUS_READINESS_GATES],
    mandate_expires_at: null,
    mandate_uuid: null,
    remaining_limits: null,
    updated: now.toISOString(),
  };
}

export function decideBinding(c: BindingCommand, s: BindingAggregate, ctx: DecideContext): BindingEvent[] {
  const now = ctx.now;
  const at = now.toISOString();
  if (c.kind === 'CreateBinding') {
    if (s.binding) throw new PlatformError('STATE_CONFLICT', 'This binding already exists.');
    const network = NETWORKS[c.spec.network_id];
    if (!network) throw new ValidationFailed('Unknown network.', [{ field: 'network_id', issue: `one of ${Object.keys(NETWORKS).join(', ')}` }]);
    const core: AiWalletBindingCore = {
      binding_uuid: c.spec.binding_uuid,
      workspace_uuid: c.spec.workspace_uuid,
      owner_profile_uuid: c.spec.owner_profile_uuid,
      workload_client_id: c.spec.workload_client_id,
      agent_label: c.spec.agent_label,
      environment: c.spec.environment,
      enrollment_uuid: ctx.newId(),
      activation_uuid: ctx.newId(),
      network_id: c.spec.network_id,
      native_address: c.spec.native_address,
      created_by_profile_uuid: c.spec.created_by_profile_uuid,
      created: at,
      legacy_primary_binding: false,
      operational_wallet_uuid: c.spec.operational_wallet_uuid,
    };
    const created: BindingEvent = {
      type: 'AiWalletBindingCreated',
      data: { binding: core, binding_commitment: bindingCommitment(core), tenant_uuid: c.spec.tenant_uuid, client_secret_hash: c.spec.client_secret_hash, execution_mode: defaultExecutionMode(now) },
    };
    if (!c.policy) return [created];
    // Created with its first policy: one append, so an invalid policy leaves no binding behind.
    const withBinding = evolveBinding(initialBinding(), created);
    return [created, ...decideBinding({ kind: 'PublishPolicy', terms: c.policy, by_profile_uuid: c.spec.created_by_profile_uuid }, withBinding, ctx)];
  }
  const b = s.binding;
  if (!b) throw new BindingNotFound();

  switch (c.kind) {
    case 'PublishPolicy': {
      if (s.state === 'REVOKED') throw new PlatformError('STATE_CONFLICT', 'The binding is revoked; its policy can no longer change.');
      const checked = checkPolicyTerms(c.terms, now);
      if ('problems' in checked) throw new PlatformError('RULE_VIOLATION', 'The policy is not valid.', { details: checked.problems });
      const current = s.policies[s.policies.length - 1];
      const policy = policyRecord({
        policy_uuid: current?.policy_uuid ?? ctx.newId(),
        binding_uuid: b.binding_uuid,
        version: (current?.version ?? 0) + 1,
        ...checked.terms,
        created_by_profile_uuid: c.by_profile_uuid,
        created: at,
      });
      const events: BindingEvent[] = [{ type: 'AiWalletPolicyPublished', data: { policy, commitment_rule: POLICY_COMMITMENT_RULE } }];
      if (s.state === 'PENDING') {
        events.push({ type: 'AiWalletBindingStateChanged', data: { binding_uuid: b.binding_uuid, from: 'PENDING', to: 'ACTIVE', reason: 'First policy published.', changed_at: at } });
      }
      return events;
    }
    case 'ChangeBindingState': {
      if (s.state === c.to) return [];
      if (s.state === 'REVOKED') throw new PlatformError('STATE_CONFLICT', 'A revoked binding stays revoked.');
      if (c.to === 'ACTIVE' && s.policies.length === 0) throw new PlatformError('STATE_CONFLICT', 'A binding becomes active with its first policy.');
      if (c.to === 'SUSPENDED' && s.state === 'PENDING') throw new PlatformError('STATE_CONFLICT', 'Only an active binding can be suspended.');
      return [{ type: 'AiWalletBindingStateChanged', data: { binding_uuid: b.binding_uuid, from: s.state, to: c.to, reason: c.reason, changed_at: at } }];
    }
    case 'CreateIntent':
      return decideCreateIntent(c, s, b, ctx);
    case 'ReviewApproval': {
      const a = s.approvals.get(c.approval_uuid);
      if (!a) throw new PlatformError('NOT_FOUND', 'No such approval.');
      if (a.state !== 'PENDING') throw new PlatformError('STATE_CONFLICT', `The approval is already ${a.state}.`);
      if (Date.parse(a.expires_at) <= now.getTime()) throw new PlatformError('STATE_CONFLICT', 'The approval has expired.');
      if (c.approve && s.state !== 'ACTIVE') throw new PlatformError('STATE_CONFLICT', `The binding is ${s.state}; nothing of it can be approved.`);
      const intent = s.intents.get(a.intent_uuid)?.intent;
      const lifetimeEnd = plusSeconds(new Date(intent?.created ?? at), c.intent_ttl_seconds);
      const data: ApprovalReviewData = {
        binding_uuid: b.binding_uuid, approval_uuid: a.approval_uuid, intent_uuid: a.intent_uuid, intent_expires_at: c.approve ? lifetimeEnd : at,
        reviewed_by_profile_uuid: c.by_profile_uuid, reviewed_at: at, reason: c.reason,
      };
      return [{ type: c.approve ? 'AiWalletApprovalApproved' : 'AiWalletApprovalRejected', data }];
    }
    case 'ExpireIntent': {
      const hold = s.intents.get(c.intent_uuid);
      if (!hold) throw new PlatformError('NOT_FOUND', 'No such intent.');
      const i = hold.intent;
      if (!['PENDING_APPROVAL', 'POLICY_APPROVED', 'APPROVED'].includes(i.state)) return [];
      if (i.expires_at === null || Date.parse(i.expires_at) > now.getTime()) return [];
      const approval = hold.approval_uuid ? s.approvals.get(hold.approval_uuid) : undefined;
      return [{ type: 'AiWalletIntentExpired', data: { binding_uuid: b.binding_uuid, intent_uuid: i.intent_uuid, approval_uuid: approval?.state === 'PENDING' ? approval.approval_uuid : null, expired_at: at } }];
    }
    case 'SettleIntent': {
      const hold = s.intents.get(c.intent_uuid);
      if (!hold) throw new PlatformError('NOT_FOUND', 'No such intent.');
      const i = hold.intent;
      if (i.state === 'SETTLED') {
        // The same report again is the same fact; another hash for a settled intent is a conflict to look into.
        if (hold.transaction_hash === c.transaction_hash) return [];
        throw new PlatformError('STATE_CONFLICT', 'The intent is already settled with another transaction.');
      }
      if (i.state !== 'APPROVED' && i.state !== 'POLICY_APPROVED') {
        throw new PlatformError('STATE_CONFLICT', `Only an approved intent can be settled; this one is ${i.state}.`);
      }
      if (i.expires_at !== null && Date.parse(i.expires_at) <= now.getTime()) throw new PlatformError('STATE_CONFLICT', 'The intent has expired; its reservation was released.');
      return [{
        type: 'AiWalletIntentSettled',
        data: { binding_uuid: b.binding_uuid, intent_uuid: i.intent_uuid, approval_uuid: hold.approval_uuid, transaction_hash: c.transaction_hash, settled_by_profile_uuid: c.by_profile_uuid, settled_at: at },
      }];
    }
    case 'ChangeExecutionMode': {
      const mode = s.mode ?? defaultExecutionMode(now);
      if (c.mode === 'AUTONOMOUS' && mode.autonomous_readiness_gates.length > 0) {
        throw new PlatformError('RULE_VIOLATION', 'Autonomous mode is not available while readiness gates are open.', {
          details: mode.autonomous_readiness_gates.map((gate) => ({ field: 'mode', issue: `readiness gate open: ${gate}` })),
        });
      }
      if (s.state === 'REVOKED') throw new PlatformError('STATE_CONFLICT', 'The binding is revoked.');
      if (c.mode === mode.mode) return [];
      return [{ type: 'AiWalletExecutionModeChanged', data: { binding_uuid: b.binding_uuid, execution_mode: { ...mode, mode: c.mode, mode_version: mode.mode_version + 1, state_reason: c.reason, updated: at } } }];
    }
  }
}

function decideCreateIntent(
  c: Extract<BindingCommand, { kind: 'CreateIntent' }>,
  s: BindingAggregate,
  b: NonNullable<BindingAggregate['binding']>,
  ctx: DecideContext,
): BindingEvent[] {
  // The same Idempotency-Key on this binding is the same intent, whenever it comes back.
  if (s.by_key.has(c.idempotency_key)) return [];
  const now = ctx.now;
  const at = now.toISOString();
  const decision = decideIntent(s, c.request, now);
  const amount = amountText(c.request.amount);
  const rationale_commitment = commit(c.rationale);
  const intent_uuid = ctx.newId();
  const core = {
    intent_uuid,
    binding_uuid: b.binding_uuid,
    workspace_uuid: b.workspace_uuid,
    policy_uuid: decision.policy?.policy_uuid ?? NO_POLICY_UUID,
    policy_version: decision.policy?.version ?? 0,
    workload_client_id: b.workload_client_id,
    idempotency_key: c.idempotency_key,
    intent_type: c.request.type,
    capability: c.request.type,
    asset_code: c.request.asset,
    amount,
    destination_type: c.request.destination.type,
    destination_reference: c.request.destination.id,
    purpose: c.purpose,
    rationale_commitment,
    requested_by_profile_uuid: c.requested_by_profile_uuid,
    created: at,
  };
  const intent_commitment = commit(core);
  const base = { ...core, intent_commitment, decision_code: decision.decision_code, updated: at, rationale: c.rationale, settled_at: null };
  if (decision.outcome === 'DENIED') {
    return [{ type: 'AiWalletIntentDenied', data: { intent: { ...base, state: 'DENIED', expires_at: null, reservation_commitment: null } } }];
  }
  const policy = decision.policy!;
  const needsApproval = decision.outcome === 'APPROVAL_REQUIRED';
  const expires_at = plusSeconds(now, needsApproval ? Math.min(c.approval_ttl_seconds, c.intent_ttl_seconds) : c.intent_ttl_seconds);
  const reservation: ReservationData = { asset_code: c.request.asset, amount, day: utcDay(now), month: utcMonth(now) };
  const reservation_commitment = commit({ intent_uuid, intent_commitment, policy_commitment: policy.policy_commitment, ...reservation });
  const intent: AiWalletIntent = { ...base, state: needsApproval ? 'PENDING_APPROVAL' : 'POLICY_APPROVED', expires_at, reservation_commitment };
  const events: BindingEvent[] = [{ type: 'AiWalletIntentReserved', data: { intent, reservation } }];
  if (needsApproval) {
    const approvalCore = {
      approval_uuid: ctx.newId(),
      binding_uuid: b.binding_uuid,
      intent_uuid,
      workspace_uuid: b.workspace_uuid,
      network_id: b.network_id,
      workload_client_id: b.workload_client_id,
      policy_uuid: policy.policy_uuid,
      policy_version: policy.version,
      policy_commitment: policy.policy_commitment,
      intent_commitment,
      chain_family: NETWORKS[b.network_id]?.chain_family ?? 'UNKNOWN',
      asset_code: c.request.asset,
      amount,
      destination_reference: c.request.destination.id,
      created: at,
      expires_at,
    };
    events.push({
      type: 'AiWalletApprovalRequested',
      data: {
        approval: {
          ...approvalCore,
          state: 'PENDING',
          fees: { state: 'UNAVAILABLE', reason: EXECUTION_READINESS_GATE },
          risk_warnings: riskWarnings(c.request, policy),
          simulation: { state: 'UNAVAILABLE', reason: EXECUTION_READINESS_GATE },
          approval_commitment: commit(approvalCore),
          mpc_progress: { state: 'NOT_STARTED' },
          confirmations: 0,
          updated: at,
          execution_available: false,
          policy_approved_is_execution: false,
          readiness_gate: EXECUTION_READINESS_GATE,
          reviewed_at: null,
          reviewed_by_profile_uuid: null,
          review_reason: null,
        },
      },
    });
  }
  return events;
}

/** What a reviewer should know beyond the numbers. */
function riskWarnings(req: IntentRequest, policy: AiWalletPolicy): string[] {
  const warnings: string[] = [];
  const threshold = parseAmount(policy.currency, policy.autonomous_threshold, { allowZero: true });
  if (req.asset === policy.currency && 'atoms' in threshold && req.amount > threshold.atoms) warnings.push('AMOUNT_ABOVE_AUTONOMOUS_THRESHOLD');
  if (req.asset !== policy.currency) warnings.push('ASSET_OTHER_THAN_POLICY_CURRENCY');
  if (req.type === 'CONTRACT_CALL') warnings.push('CONTRACT_CALL_EFFECTS_NOT_SIMULATED');
  return warnings;
}

export const bindingDecider: Decider<BindingCommand, BindingAggregate, BindingEvent> = {
  initialState: initialBinding,
  evolve: evolveBinding,
  decide: decideBinding,
};

/** The intent a repeated Idempotency-Key refers to. */
export const intentByKey = (s: BindingAggregate, key: string): AiWalletIntent | null => {
  const id = s.by_key.get(key);
  return id ? (s.intents.get(id)?.intent ?? null) : null;
};

