/**
 * A binding event as activity (AiWalletActivityEvent): who did what and why, the commitments that prove what was
 * decided (evidence), and the event's place in the binding stream's hash chain. Pure: a recorded event in, a record out.
 */
import type { RecordedEvent } from '../../../platform/event-store/event-store.port';
import type { BindingEvent } from './binding';

export const BINDING_EVENT_TYPES = [
  'AiWalletBindingCreated', 'AiWalletPolicyPublished', 'AiWalletBindingStateChanged', 'AiWalletIntentDenied', 'AiWalletIntentReserved',
  'AiWalletApprovalRequested', 'AiWalletApprovalApproved', 'AiWalletApprovalRejected', 'AiWalletIntentExpired', 'AiWalletIntentSettled',
  'AiWalletExecutionModeChanged',
] as const satisfies ReadonlyArray<BindingEvent['type']>;

export interface AiWalletActivityEvent {
  event_uuid: string;
  event_type: string;
  actor_type: string;
  actor_reference: string;
  reason: string;
  evidence: Record<string, unknown>;
  event_commitment: string;
  created: string;
  intent_uuid: string | null;
  previous_event_commitment: string | null;
}

function describe(e: BindingEvent): { reason: string; evidence: Record<string, unknown>; intent_uuid: string | null } {
  switch (e.type) {
    case 'AiWalletBindingCreated':
      return { reason: `Binding created for agent "${e.data.binding.agent_label}" on ${e.data.binding.network_id}.`, evidence: { binding_commitment: e.data.binding_commitment, workload_client_id: e.data.binding.workload_client_id }, intent_uuid: null };
    case 'AiWalletPolicyPublished':
      return { reason: `Policy version ${e.data.policy.version} published.`, evidence: { policy_uuid: e.data.policy.policy_uuid, version: e.data.policy.version, policy_commitment: e.data.policy.policy_commitment }, intent_uuid: null };
    case 'AiWalletBindingStateChanged':
      return { reason: e.data.reason, evidence: { from: e.data.from, to: e.data.to }, intent_uuid: null };
    case 'AiWalletIntentDenied':
    case 'AiWalletIntentReserved': {
      const i = e.data.intent;
      return {
        reason: e.type === 'AiWalletIntentDenied' ? `Intent denied: ${i.decision_code}.` : `Intent accepted (${i.decision_code}); ${i.amount} ${i.asset_code} reserved.`,
        evidence: { decision_code: i.decision_code, state: i.state, intent_commitment: i.intent_commitment, rationale_commitment: i.rationale_commitment, reservation_commitment: i.reservation_commitment, policy_version: i.policy_version },
        intent_uuid: i.intent_uuid,
      };
    }
    case 'AiWalletApprovalRequested':
      return { reason: 'Approval requested from the workspace.', evidence: { approval_uuid: e.data.approval.approval_uuid, approval_commitment: e.data.approval.approval_commitment, expires_at: e.data.approval.expires_at }, intent_uuid: e.data.approval.intent_uuid };
    case 'AiWalletApprovalApproved':
    case 'AiWalletApprovalRejected':
      return {
        reason: `${e.type === 'AiWalletApprovalApproved' ? 'Approved' : 'Rejected'}${e.data.reason ? `: ${e.data.reason}` : '.'}`,
        evidence: { approval_uuid: e.data.approval_uuid, reviewed_by_profile_uuid: e.data.reviewed_by_profile_uuid },
        intent_uuid: e.data.intent_uuid,
      };
    case 'AiWalletIntentExpired':
      return { reason: 'Intent expired; its reservation is released.', evidence: { approval_uuid: e.data.approval_uuid }, intent_uuid: e.data.intent_uuid };
    case 'AiWalletIntentSettled':
      return {
        reason: 'Intent settled outside the platform; its reservation counts for good.',
        evidence: { approval_uuid: e.data.approval_uuid, transaction_hash: e.data.transaction_hash, settled_by_profile_uuid: e.data.settled_by_profile_uuid },
        intent_uuid: e.data.intent_uuid,
      };
    case 'AiWalletExecutionModeChanged':
      return { reason: e.data.execution_mode.state_reason, evidence: { mode: e.data.execution_mode.mode, mode_version: e.data.execution_mode.mode_version }, intent_uuid: null };
  }
}

export function activityOf(event: RecordedEvent): AiWalletActivityEvent {
  const { reason, evidence, intent_uuid } = describe({ type: event.type, data: event.data } as BindingEvent);
  return {
    event_uuid: event.event_id,
    event_type: event.type,
    actor_type: event.metadata.actor.type,
    actor_reference: event.metadata.actor.reference,
    reason,
    evidence,
    event_commitment: event.event_commitment,
    created: event.occurred_at,
    intent_uuid,
    previous_event_commitment: event.previous_event_commitment,
  };
}
