/**
 * What a commerce document tells a client it can do now (CommerceDocument: "each operation defines its lifecycle
 * and safety flags"): each available transition with its route, the expected values the request must carry, the
 * step-up purpose it needs and who may take it. Derived from the state alone, so a client never has to guess.
 */
import { PAYMENT_RULES, type InvoiceStatus, type PaymentStateName } from './invoice-records';
import { MERCHANT_RULES, MERCHANT_TRANSITIONS, type MerchantStatus } from './merchant';
import { PRODUCT_RULES, PRODUCT_TRANSITIONS, type ProductStatus } from './product';
import { SETTLEMENT_RULES, type SettlementState } from './settlement';
import type { WalletStatus, WalletType } from './wallet';
import type { TransferStateName } from './transfer';

export type ActionTaker = 'reviewer' | 'compliance' | 'workspace-admin' | 'workspace-member' | 'platform-admin';

export interface CommerceAction {
  action: string;
  method: 'POST';
  href: string;
  /** The values the request must carry, as read now. */
  expected: Record<string, string | number>;
  step_up_purpose: string | null;
  allowed_for: ActionTaker[];
}

const BASE = '/api/v1/commerce';

export function merchantActions(m: { merchant_uuid: string; status: MerchantStatus; version: number }): CommerceAction[] {
  return MERCHANT_TRANSITIONS.filter((t) => MERCHANT_RULES[t].from.includes(m.status)).map((t) => ({
    action: t,
    method: 'POST',
    href: `${BASE}/merchants/${m.merchant_uuid}/${t}`,
    expected: { expected_version: m.version },
    step_up_purpose: MERCHANT_RULES[t].stepUp,
    allowed_for: MERCHANT_RULES[t].by === 'reviewer' ? ['reviewer'] : ['workspace-admin', 'reviewer'],
  }));
}

export function productActions(p: { merchant_uuid: string; product_uuid: string; status: ProductStatus; version: number }): CommerceAction[] {
  return PRODUCT_TRANSITIONS.filter((t) => PRODUCT_RULES[t].from.includes(p.status)).map((t) => ({
    action: t,
    method: 'POST',
    href: `${BASE}/merchants/${p.merchant_uuid}/products/${p.product_uuid}/${t}`,
    expected: { expected_version: p.version },
    step_up_purpose: null,
    allowed_for: ['workspace-admin'],
  }));
}

/** Only an OPEN invoice has actions: a payment in flight makes it PROCESSING, a settled one PAID. */
export function invoiceActions(i: { invoice_uuid: string; status: InvoiceStatus; version: number; expired: boolean }): CommerceAction[] {
  if (i.status !== 'OPEN') return [];
  const actions: CommerceAction[] = [
    {
      action: 'cancel', method: 'POST', href: `${BASE}/invoices/${i.invoice_uuid}/cancel`, expected: { expected_invoice_version: i.version, expected_status: i.status },
      step_up_purpose: 'COMMERCE_INVOICE_CANCELLATION', allowed_for: ['workspace-admin'],
    },
  ];
  if (!i.expired) actions.push({ action: 'pay', method: 'POST', href: `${BASE}/payments`, expected: { invoice_uuid: i.invoice_uuid }, step_up_purpose: null, allowed_for: ['workspace-member'] });
  return actions;
}

export function paymentActions(p: { payment_uuid: string; state: PaymentStateName; version: number }): CommerceAction[] {
  const actions: CommerceAction[] = [];
  if (PAYMENT_RULES.cancel.from.includes(p.state)) {
    actions.push({
      action: 'cancel', method: 'POST', href: `${BASE}/payments/${p.payment_uuid}/cancel`,
      expected: { expected_payment_version: p.version, expected_state: p.state, reason_code: 'OWNER_CANCELLED' }, step_up_purpose: null, allowed_for: ['workspace-admin'],
    });
  }
  for (const t of ['authorize', 'submit', 'settle', 'fail'] as const) {
    if (PAYMENT_RULES[t].from.includes(p.state)) {
      actions.push({ action: t, method: 'POST', href: `${BASE}/admin/payments/${p.payment_uuid}/rail`, expected: { transition: t }, step_up_purpose: null, allowed_for: ['platform-admin'] });
    }
  }
  return actions;
}

export function walletActions(w: { wallet_uuid: string; wallet_type: WalletType; status: WalletStatus; version: number }): CommerceAction[] {
  if (w.status !== 'ACTIVE') return [];
  const actions: CommerceAction[] = [
    { action: 'retire', method: 'POST', href: `${BASE}/wallets/${w.wallet_uuid}/retire`, expected: { expected_version: w.version }, step_up_purpose: null, allowed_for: ['workspace-admin'] },
  ];
  if (w.wallet_type === 'ROTATIONAL') {
    actions.push({ action: 'add-addresses', method: 'POST', href: `${BASE}/wallets/${w.wallet_uuid}/addresses`, expected: { expected_version: w.version }, step_up_purpose: null, allowed_for: ['workspace-admin'] });
  }
  return actions;
}

export function settlementActions(s: { settlement_intent_uuid: string; network_id: string; state: SettlementState; request_commitment: string }): CommerceAction[] {
  const actions: CommerceAction[] = [];
  if (SETTLEMENT_RULES.cancel.from.includes(s.state)) {
    actions.push({
      action: 'cancel', method: 'POST', href: `${BASE}/settlement-intents/${s.settlement_intent_uuid}/cancel`,
      expected: { network_id: s.network_id, expected_request_commitment: s.request_commitment, reason_code: 'OWNER_CANCELLED' }, step_up_purpose: null, allowed_for: ['workspace-admin'],
    });
  }
  for (const t of ['approve', 'submit', 'confirm', 'fail'] as const) {
    if (SETTLEMENT_RULES[t].from.includes(s.state)) {
      actions.push({ action: t, method: 'POST', href: `${BASE}/admin/settlement-intents/${s.settlement_intent_uuid}/treasury`, expected: { transition: t }, step_up_purpose: null, allowed_for: ['platform-admin'] });
    }
  }
  return actions;
}

const BEFORE_SUBMISSION = ['REQUESTED', 'SCREENING', 'HELD', 'AWAITING_ENVELOPE', 'AWAITING_GOVERNANCE', 'READY'];

/** A transfer's moves now: the seeds' shapes take the version in If-Match (`expected: {"If-Match": version}`). */
export function transferActions(t: { transfer_uuid: string; state: TransferStateName; version: number; governance: unknown }): CommerceAction[] {
  const base = `/api/v1/transfers/${t.transfer_uuid}`;
  const pinned = { 'If-Match': t.version };
  const actions: CommerceAction[] = [];
  if (t.state === 'AWAITING_ENVELOPE') actions.push({ action: 'authorize-envelope', method: 'POST', href: `${base}/envelope`, expected: pinned, step_up_purpose: null, allowed_for: ['workspace-admin'] });
  if (t.state === 'AWAITING_GOVERNANCE' && !t.governance) actions.push({ action: 'bind-governance', method: 'POST', href: `${base}/governance`, expected: pinned, step_up_purpose: null, allowed_for: ['workspace-admin'] });
  if (BEFORE_SUBMISSION.includes(t.state)) {
    actions.push({ action: 'compliance-cancel', method: 'POST', href: `${base}/compliance-cancel`, expected: pinned, step_up_purpose: 'TRANSFER_COMPLIANCE_CANCELLATION', allowed_for: ['compliance'] });
  }
  const admin = (action: string, route: string): CommerceAction => ({ action, method: 'POST', href: `/api/v1/transfers/admin/${t.transfer_uuid}/${route}`, expected: { expected_version: t.version }, step_up_purpose: null, allowed_for: ['platform-admin'] });
  if (t.state === 'REQUESTED' || t.state === 'SCREENING' || t.state === 'HELD') actions.push(admin('report-screening', 'screening'));
  if (t.state === 'AWAITING_GOVERNANCE' && t.governance) actions.push(admin('report-governance', 'governance'));
  if (t.state === 'READY' || t.state === 'SUBMITTED') actions.push(admin('report-rail', 'rail'));
  return actions;
}
