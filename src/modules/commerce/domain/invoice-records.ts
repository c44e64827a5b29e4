/**
 * An invoice and the payments against it: the records, the events and the stream. Payments live in their invoice's
 * stream (`commerce-invoice-<invoice_uuid>`), so every rule that spans both (no cancel while a payment is in flight,
 * the invoice paid by a settlement, a cancel racing a settlement) is decided on one revision: exactly one outcome.
 *
 * The invoice id derives from the merchant and its `external_order_reference` (invoiceIdFor): the stream's existence
 * is the uniqueness of the reference per merchant, with no second stream to keep in step.
 */
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import { PlatformError } from '../../../platform/errors';

export const INVOICE_STATUSES = ['OPEN', 'PROCESSING', 'PAID', 'EXPIRED', 'CANCELLED'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** How a PAID invoice differs from "paid in full, on time": never silently lost, flagged. */
export const INVOICE_EXCEPTIONS = ['PAID_LATE', 'PAID_PARTIAL', 'PAID_OVER'] as const;
export type InvoiceException = (typeof INVOICE_EXCEPTIONS)[number];

export const INVOICE_CANCEL_REASONS = ['CUSTOMER_REQUEST', 'DUPLICATE', 'PRICING_ERROR', 'OUT_OF_STOCK', 'FRAUD_SUSPECTED', 'OTHER'] as const;
export type InvoiceCancelReason = (typeof INVOICE_CANCEL_REASONS)[number];

export const PAYMENT_STATES = ['AUTHORIZATION_REQUIRED', 'AUTHORIZED', 'SUBMITTED', 'SETTLED', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;
export type PaymentStateName = (typeof PAYMENT_STATES)[number];

/** The moves of a payment: the rail's (authorize, submit, settle, fail), the owner's cancel, the sweep's expiry. */
export const PAYMENT_TRANSITIONS = ['authorize', 'submit', 'settle', 'fail', 'cancel', 'expire'] as const;
export type PaymentTransition = (typeof PAYMENT_TRANSITIONS)[number];
export const RAIL_TRANSITIONS = ['authorize', 'submit', 'settle', 'fail'] as const;
export type RailTransition = (typeof RAIL_TRANSITIONS)[number];

export const PAYMENT_RULES: Record<PaymentTransition, { from: readonly PaymentStateName[]; to: PaymentStateName; event: PaymentChangeType }> = {
  authorize: { from: ['AUTHORIZATION_REQUIRED'], to: 'AUTHORIZED', event: 'CommercePaymentAuthorized' },
  submit: { from: ['AUTHORIZED'], to: 'SUBMITTED', event: 'CommercePaymentSubmitted' },
  settle: { from: ['SUBMITTED'], to: 'SETTLED', event: 'CommercePaymentSettled' },
  fail: { from: ['AUTHORIZATION_REQUIRED', 'AUTHORIZED', 'SUBMITTED'], to: 'FAILED', event: 'CommercePaymentFailed' },
  cancel: { from: ['AUTHORIZATION_REQUIRED'], to: 'CANCELLED', event: 'CommercePaymentCancelled' },
  expire: { from: ['AUTHORIZATION_REQUIRED'], to: 'EXPIRED', event: 'CommercePaymentExpired' },
};

/** Payments past authorization and not finished: while one exists, the invoice cannot be cancelled. */
export const IN_FLIGHT: ReadonlySet<PaymentStateName> = new Set(['AUTHORIZED', 'SUBMITTED']);

/** How long a payment waits for the rail's authorization before it expires. */
export const PAYMENT_AUTHORIZATION_WINDOW_MS = 30 * 60 * 1000;
/** An invoice's life when the request names none, and the bounds of one it names. */
export const INVOICE_DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
export const INVOICE_MIN_TTL_MS = 5 * 60 * 1000;
export const INVOICE_MAX_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const MAX_LINE_ITEMS = 100;

export const invoiceStream = (invoice_uuid: string): string => `commerce-invoice-${invoice_uuid}`;

/** The invoice id of a merchant's order reference: the same reference names the same invoice, always. */
export function invoiceIdFor(merchant_uuid: string, external_order_reference: string): string {
  return sha256Hex(canonicalJson(['commerce-invoice', merchant_uuid, external_order_reference])).slice(0, 32);
}

export interface InvoiceLine {
  description: string;
  /** Decimal string, up to 6 decimals. */
  quantity: string;
  /** Decimal string at the asset's scale. */
  unit_price: string;
  /** quantity × unit_price, rounded half-to-even to the asset's scale. */
  line_total: string;
  product_uuid: string | null;
}

export interface InvoiceCore {
  invoice_uuid: string;
  merchant_uuid: string;
  workspace_uuid: string;
  tenant_uuid: string;
  external_order_reference: string;
  asset: string;
  network_id: string | null;
  /** A fresh address of the merchant's rotational wallet on network_id (watch-only), when it has one. */
  payment_address: string | null;
  wallet_uuid: string | null;
  line_items: InvoiceLine[];
  /** The exact sum of the line totals, at the asset's scale. */
  total: string;
  expires_at: string;
  created_by_profile_uuid: string;
  created: string;
}

export interface PaymentCore {
  payment_uuid: string;
  invoice_uuid: string;
  merchant_uuid: string;
  workspace_uuid: string;
  asset: string;
  amount: string;
  network_id: string | null;
  created_by_profile_uuid: string;
  created: string;
  authorization_expires_at: string;
}

/** Where a payment stands: the same in the decider's state and in the read model's record. */
export interface PaymentProgress {
  state: PaymentStateName;
  /** 0 when created; +1 with every move of the payment. */
  version: number;
  updated: string;
  rail_reference: string | null;
  failure_code: string | null;
  reason_code: string | null;
  settled_at: string | null;
}

export const paymentProgressOf = (p: PaymentCore): PaymentProgress => ({
  state: 'AUTHORIZATION_REQUIRED', version: 0, updated: p.created, rail_reference: null, failure_code: null, reason_code: null, settled_at: null,
});

/** A payment's progress after one of its moves (the decider's evolve and the read model apply the same). */
export function paymentProgressAfter(before: PaymentProgress, d: PaymentChange): PaymentProgress {
  return {
    state: d.to,
    version: before.version + 1,
    updated: d.at,
    rail_reference: d.rail_reference ?? before.rail_reference,
    failure_code: d.failure_code,
    reason_code: d.reason_code,
    settled_at: d.to === 'SETTLED' ? d.at : before.settled_at,
  };
}

export type PaymentChangeType =
  | 'CommercePaymentAuthorized'
  | 'CommercePaymentSubmitted'
  | 'CommercePaymentSettled'
  | 'CommercePaymentFailed'
  | 'CommercePaymentCancelled'
  | 'CommercePaymentExpired';

export interface PaymentChange {
  invoice_uuid: string;
  payment_uuid: string;
  from: PaymentStateName;
  to: PaymentStateName;
  /** The rail's reference (authorize, submit, settle), its failure code (fail), the owner's reason (cancel). */
  rail_reference: string | null;
  failure_code: string | null;
  reason_code: string | null;
  /** The person who cancelled; null for the rail's and the sweep's moves. */
  by_profile_uuid: string | null;
  at: string;
}

export interface InvoiceStatusChange {
  invoice_uuid: string;
  from: InvoiceStatus;
  to: InvoiceStatus;
  exceptions: InvoiceException[];
  /** Sum of the settled payments, at the asset's scale. */
  amount_settled: string;
  /** The payment whose move changed the invoice. */
  payment_uuid: string;
  at: string;
}

export type InvoiceEvent =
  | { type: 'CommerceInvoiceOpened'; data: { invoice: InvoiceCore } }
  | { type: 'CommerceInvoiceCancelled'; data: { invoice_uuid: string; from: InvoiceStatus; reason_code: InvoiceCancelReason; reason_detail: string | null; by_profile_uuid: string; at: string } }
  | { type: 'CommerceInvoiceExpired'; data: { invoice_uuid: string; at: string } }
  | { type: 'CommerceInvoiceStatusChanged'; data: InvoiceStatusChange }
  | { type: 'CommercePaymentCreated'; data: { payment: PaymentCore } }
  | { type: PaymentChangeType; data: PaymentChange };

export class InvoiceNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such invoice.');
  }
}

export class PaymentNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such payment.');
  }
}
