/**
 * The binding's records and events (the seeds' shapes, as stored in events and shown by the API), its stream and the
 * platform's fixed settings for it. Types and constants only.
 */
import { NO_POLICY_UUID, POLICY_COMMITMENT_RULE, type AiWalletPolicy } from './policy';

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
