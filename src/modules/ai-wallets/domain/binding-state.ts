/** The binding aggregate and its evolve: what a binding stream folds to (see binding.ts). */
import { parseAmount } from './assets';
import { emptyBudgetIndex, release, reserve, retime, settle, type BudgetIndex } from './budget-index';
import { MAX_VELOCITY_WINDOW_SECONDS, type AiWalletPolicy } from './policy';
import type { AiWalletApproval, AiWalletBindingCore, AiWalletExecutionMode, AiWalletIntent, BindingEvent, BindingState, ReservationData } from './binding-records';

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

