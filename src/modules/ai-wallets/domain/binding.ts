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
import { checkPolicyTerms, NO_POLICY_UUID, POLICY_COMMITMENT_RULE, policyRecord, type AiWalletPolicy, type PolicyTerms } from './policy';
import { AUTONOMOUS_READINESS_GATES, AiWalletBindingCore, AiWalletExecutionMode, AiWalletIntent, AiWalletRationale, ApprovalReviewData, BindingEvent, EXECUTION_READINESS_GATE, ExecutionModeName, ReservationData } from './binding-records';
import { BindingAggregate, evolveBinding, initialBinding } from './binding-state';
import { holds, utcDay, utcMonth } from './binding-budget';
import { IntentRequest, decideIntent } from './intent-decision';
export * from './binding-records';
export * from './binding-state';
export * from './binding-budget';
export * from './intent-decision';
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


