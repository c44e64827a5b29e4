/**
 * The privacy class of every field of the AI-wallet events (src/platform/privacy/field-classes.ts, docs/privacy.md).
 * Bindings, policies, intents and budgets are the platform's own facts (an agent's rationale is an agent's, not a
 * person's); the words a person writes (state and review reasons) are personal; the workload client secret's hash and
 * the agents' token hashes are secret.
 */
import { ACTOR_IS_SUBJECT, declareEventClasses, type FieldClasses, type SubjectRule } from '../../../platform/privacy/field-classes';
import type { AiWalletApproval, AiWalletExecutionMode, BindingEvent } from './binding';
import type { WorkloadEvent } from './workload';

/** state_reason: a person's words when a person changed the mode (the platform's own text otherwise). */
const EXECUTION_MODE: FieldClasses<AiWalletExecutionMode> = {
  mode: 'internal', mode_version: 'internal', state_reason: 'personal', autonomous_available: 'internal', autonomous_readiness_gates: 'internal',
  mandate_expires_at: 'internal', mandate_uuid: 'internal', remaining_limits: 'internal', updated: 'internal',
};

const APPROVAL: FieldClasses<AiWalletApproval> = {
  approval_uuid: 'internal', binding_uuid: 'internal', intent_uuid: 'internal', workspace_uuid: 'internal', network_id: 'internal', workload_client_id: 'internal',
  policy_uuid: 'internal', policy_version: 'internal', policy_commitment: 'internal', intent_commitment: 'internal', state: 'internal', chain_family: 'internal',
  asset_code: 'internal', amount: 'internal', destination_reference: 'internal', fees: 'internal', risk_warnings: 'internal', simulation: 'internal',
  approval_commitment: 'internal', mpc_progress: 'internal', confirmations: 'internal', created: 'internal', updated: 'internal', execution_available: 'internal',
  policy_approved_is_execution: 'internal', expires_at: 'internal', readiness_gate: 'internal', reviewed_at: 'internal', reviewed_by_profile_uuid: 'internal',
  review_reason: 'personal', transaction_hash: 'internal',
};

const REVIEW = {
  binding_uuid: 'internal', approval_uuid: 'internal', intent_uuid: 'internal', intent_expires_at: 'internal', reviewed_by_profile_uuid: 'internal', reviewed_at: 'internal',
  reason: 'personal',
} as const;

/**
 * A binding's credentials are the binding's, not a person's: sealed under the binding's key, so erasing the person who
 * created it leaves the workspace's agent able to authenticate. The words a person writes are that person's (the actor).
 */
const BINDING_OR_ACTOR: SubjectRule = (e) =>
  e.type === 'AiWalletBindingCreated' ? `binding:${String((e.data.binding as { binding_uuid: string }).binding_uuid)}` : ACTOR_IS_SUBJECT(e);

export const BINDING_EVENT_CLASSES = declareEventClasses<BindingEvent>('ai-wallets', {
  AiWalletBindingCreated: { binding: 'internal', binding_commitment: 'internal', tenant_uuid: 'internal', client_secret_hash: 'secret', execution_mode: EXECUTION_MODE },
  AiWalletPolicyPublished: { policy: 'internal', commitment_rule: 'internal' },
  AiWalletBindingStateChanged: { binding_uuid: 'internal', from: 'internal', to: 'internal', reason: 'personal', changed_at: 'internal' },
  AiWalletIntentDenied: { intent: 'internal' },
  AiWalletIntentReserved: { intent: 'internal', reservation: 'internal' },
  AiWalletApprovalRequested: { approval: APPROVAL },
  AiWalletApprovalApproved: REVIEW,
  AiWalletApprovalRejected: REVIEW,
  AiWalletIntentExpired: { binding_uuid: 'internal', intent_uuid: 'internal', approval_uuid: 'internal', expired_at: 'internal' },
  AiWalletIntentSettled: { binding_uuid: 'internal', intent_uuid: 'internal', approval_uuid: 'internal', transaction_hash: 'internal', settled_by_profile_uuid: 'internal', settled_at: 'internal' },
  AiWalletExecutionModeChanged: { binding_uuid: 'internal', execution_mode: EXECUTION_MODE },
}, { subject: BINDING_OR_ACTOR });

export const WORKLOAD_EVENT_CLASSES = declareEventClasses<WorkloadEvent>('ai-wallets', {
  WorkloadTokenIssued: { workload_client_id: 'internal', binding_uuid: 'internal', token_hash: 'secret', expires_at: 'internal' },
}, { subject: (e) => `binding:${String(e.data.binding_uuid)}` });
