/**
 * The invoice decider: an invoice and its payments, on one stream (invoice-records.ts). Pure: the handler passes in
 * what it read elsewhere (the merchant's status, a fresh address), `now` comes from the context.
 *
 * Invoice, ours (the seeds leave the states open):
 *
 * | From | Trigger | To | Also |
 * |---|---|---|---|
 * | (new) | create | OPEN | total computed from the lines; the merchant must be ACTIVE |
 * | OPEN | a payment authorized | PROCESSING | |
 * | PROCESSING | its last in-flight payment failed, cancelled or expired | OPEN (EXPIRED once past expires_at) | |
 * | OPEN, PROCESSING, EXPIRED, PAID | a payment settled | PAID | exceptions: PAID_LATE (it had expired), PAID_PARTIAL / PAID_OVER (settled sum vs total) |
 * | OPEN | sweep at expires_at | EXPIRED | payments waiting for authorization stay: a late one is PAID_LATE, not lost |
 * | OPEN | cancel (step-up COMMERCE_INVOICE_CANCELLATION) | CANCELLED | payments waiting for authorization are cancelled with it |
 *
 * Payment: see PAYMENT_RULES. A payment is created only on an OPEN invoice before its expiry, in the invoice's asset.
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { RuleViolation, StateConflict } from '../../../platform/errors';
import {
  IN_FLIGHT, InvoiceNotFound, PAYMENT_AUTHORIZATION_WINDOW_MS, PAYMENT_RULES, PaymentNotFound, paymentProgressAfter, paymentProgressOf,
  type InvoiceCancelReason, type InvoiceCore, type InvoiceEvent, type InvoiceException, type InvoiceStatus, type PaymentChange, type PaymentCore, type PaymentProgress,
  type PaymentTransition, type RailTransition,
} from './invoice-records';
import type { MerchantStatus } from './merchant';
import { staleVersion } from './merchant';
import { money, parseMoney } from './money';

export * from './invoice-records';

export interface PaymentState extends PaymentProgress {
  payment: PaymentCore;
}

export interface InvoiceState {
  invoice: InvoiceCore | null;
  status: InvoiceStatus;
  /** 0 when opened; +1 on every change of the invoice itself (a payment's own moves do not count). */
  version: number;
  updated: string | null;
  exceptions: InvoiceException[];
  amount_settled: string;
  cancellation: { reason_code: InvoiceCancelReason; reason_detail: string | null; by_profile_uuid: string; at: string } | null;
  payments: Record<string, PaymentState>;
}

export type InvoiceCommand =
  | { kind: 'OpenInvoice'; invoice: InvoiceCore; merchant_status: MerchantStatus }
  | { kind: 'CancelInvoice'; expected_invoice_version: number; expected_status: string; reason_code: InvoiceCancelReason; reason_detail: string | null; by_profile_uuid: string }
  | { kind: 'ExpireInvoice' }
  | { kind: 'CreatePayment'; payment_uuid: string; amount: string | null; by_profile_uuid: string }
  | { kind: 'CancelPayment'; payment_uuid: string; expected_payment_version: number; by_profile_uuid: string }
  | { kind: 'ExpirePayment'; payment_uuid: string }
  | { kind: 'RailUpdate'; payment_uuid: string; transition: RailTransition; rail_reference: string | null; failure_code: string | null };

function initialState(): InvoiceState {
  return { invoice: null, status: 'OPEN', version: -1, updated: null, exceptions: [], amount_settled: '0', cancellation: null, payments: {} };
}

function evolve(state: InvoiceState, event: InvoiceEvent): InvoiceState {
  switch (event.type) {
    case 'CommerceInvoiceOpened': {
      const invoice = event.data.invoice;
      return { ...initialState(), invoice, version: 0, updated: invoice.created, amount_settled: money(0n, invoice.asset) };
    }
    case 'CommerceInvoiceCancelled': {
      const d = event.data;
      return { ...state, status: 'CANCELLED', version: state.version + 1, updated: d.at, cancellation: { reason_code: d.reason_code, reason_detail: d.reason_detail, by_profile_uuid: d.by_profile_uuid, at: d.at } };
    }
    case 'CommerceInvoiceExpired':
      return { ...state, status: 'EXPIRED', version: state.version + 1, updated: event.data.at };
    case 'CommerceInvoiceStatusChanged': {
      const d = event.data;
      return { ...state, status: d.to, version: state.version + 1, updated: d.at, exceptions: d.exceptions, amount_settled: d.amount_settled };
    }
    case 'CommercePaymentCreated': {
      const p = event.data.payment;
      const payment: PaymentState = { payment: p, ...paymentProgressOf(p) };
      return { ...state, payments: { ...state.payments, [p.payment_uuid]: payment } };
    }
    default: {
      const d = event.data as PaymentChange;
      const before = state.payments[d.payment_uuid];
      if (!before) return state;
      const after: PaymentState = { payment: before.payment, ...paymentProgressAfter(before, d) };
      return { ...state, payments: { ...state.payments, [d.payment_uuid]: after } };
    }
  }
}

const PAST: Record<RailTransition, string> = { authorize: 'authorized', submit: 'submitted', settle: 'settled', fail: 'failed' };

const inFlight = (state: InvoiceState, except?: string): PaymentState[] => Object.values(state.payments).filter((p) => IN_FLIGHT.has(p.state) && p.payment.payment_uuid !== except);

function decide(command: InvoiceCommand, state: InvoiceState, ctx: DecideContext): InvoiceEvent[] {
  const at = ctx.now.toISOString();
  if (command.kind === 'OpenInvoice') {
    if (state.invoice) {
      throw new StateConflict(`This merchant already has an invoice for external_order_reference "${state.invoice.external_order_reference}": ${state.invoice.invoice_uuid}.`, {
        details: [{ field: 'external_order_reference', issue: `already used by invoice ${state.invoice.invoice_uuid}` }],
      });
    }
    if (command.merchant_status !== 'ACTIVE') {
      throw new RuleViolation('Only an ACTIVE merchant can invoice.', [{ field: 'merchant_uuid', issue: `merchant is ${command.merchant_status}` }]);
    }
    return [{ type: 'CommerceInvoiceOpened', data: { invoice: command.invoice } }];
  }
  const invoice = state.invoice;
  if (!invoice) throw new InvoiceNotFound();
  switch (command.kind) {
    case 'CancelInvoice': {
      if (command.expected_invoice_version !== state.version) throw staleVersion('invoice', command.expected_invoice_version, state.version);
      if (command.expected_status !== state.status) {
        throw new StateConflict(`The invoice is ${state.status}, not ${command.expected_status}.`, { details: [{ field: 'expected_status', issue: `invoice is ${state.status}` }] });
      }
      const flying = Object.values(state.payments).filter((p) => IN_FLIGHT.has(p.state) || p.state === 'SETTLED');
      if (flying.length > 0) {
        throw new StateConflict('A payment of this invoice is past AUTHORIZATION_REQUIRED: the invoice cannot be cancelled.', {
          details: [{ field: 'payments', issue: `payment ${flying[0].payment.payment_uuid} is ${flying[0].state}` }],
        });
      }
      if (state.status !== 'OPEN') throw new StateConflict(`A ${state.status} invoice cannot be cancelled.`, { details: [{ field: 'status', issue: `is ${state.status}; cancel needs OPEN` }] });
      const waiting = Object.values(state.payments).filter((p) => p.state === 'AUTHORIZATION_REQUIRED');
      return [
        ...waiting.map((p) => paymentChange(invoice, p, 'cancel', { reason_code: 'INVOICE_CANCELLED', by_profile_uuid: command.by_profile_uuid }, at)),
        { type: 'CommerceInvoiceCancelled', data: { invoice_uuid: invoice.invoice_uuid, from: state.status, reason_code: command.reason_code, reason_detail: command.reason_detail, by_profile_uuid: command.by_profile_uuid, at } },
      ];
    }
    case 'ExpireInvoice':
      if (state.status !== 'OPEN' || ctx.now.getTime() < Date.parse(invoice.expires_at)) return [];
      return [{ type: 'CommerceInvoiceExpired', data: { invoice_uuid: invoice.invoice_uuid, at } }];
    case 'CreatePayment': {
      if (state.payments[command.payment_uuid]) return [];
      if (state.status !== 'OPEN') throw new StateConflict(`A ${state.status} invoice takes no payment.`, { details: [{ field: 'invoice_uuid', issue: `invoice is ${state.status}` }] });
      if (ctx.now.getTime() >= Date.parse(invoice.expires_at)) throw new StateConflict('The invoice has expired.', { details: [{ field: 'invoice_uuid', issue: `expired at ${invoice.expires_at}` }] });
      const amount = command.amount === null ? parseMoney(invoice.asset, invoice.total, 'amount') : parseMoney(invoice.asset, command.amount, 'amount');
      const payment: PaymentCore = {
        payment_uuid: command.payment_uuid,
        invoice_uuid: invoice.invoice_uuid,
        merchant_uuid: invoice.merchant_uuid,
        workspace_uuid: invoice.workspace_uuid,
        asset: invoice.asset,
        amount: money(amount, invoice.asset),
        network_id: invoice.network_id,
        created_by_profile_uuid: command.by_profile_uuid,
        created: at,
        authorization_expires_at: new Date(ctx.now.getTime() + PAYMENT_AUTHORIZATION_WINDOW_MS).toISOString(),
      };
      return [{ type: 'CommercePaymentCreated', data: { payment } }];
    }
    case 'CancelPayment': {
      const p = state.payments[command.payment_uuid];
      if (!p) throw new PaymentNotFound();
      if (command.expected_payment_version !== p.version) throw staleVersion('payment', command.expected_payment_version, p.version);
      if (p.state !== 'AUTHORIZATION_REQUIRED') {
        throw new StateConflict(`The payment is ${p.state}: later rail states cannot be cancelled through this operation.`, { details: [{ field: 'expected_state', issue: `payment is ${p.state}` }] });
      }
      return [paymentChange(invoice, p, 'cancel', { reason_code: 'OWNER_CANCELLED', by_profile_uuid: command.by_profile_uuid }, at), ...invoiceAfter(state, invoice, p, 'cancel', ctx)];
    }
    case 'ExpirePayment': {
      const p = state.payments[command.payment_uuid];
      if (!p || p.state !== 'AUTHORIZATION_REQUIRED' || ctx.now.getTime() < Date.parse(p.payment.authorization_expires_at)) return [];
      return [paymentChange(invoice, p, 'expire', {}, at), ...invoiceAfter(state, invoice, p, 'expire', ctx)];
    }
    case 'RailUpdate': {
      const p = state.payments[command.payment_uuid];
      if (!p) throw new PaymentNotFound();
      const rule = PAYMENT_RULES[command.transition];
      if (!rule.from.includes(p.state)) {
        throw new StateConflict(`A ${p.state} payment cannot be ${PAST[command.transition]}.`, { details: [{ field: 'transition', issue: `payment is ${p.state}; ${command.transition} needs ${rule.from.join(' or ')}` }] });
      }
      const change = paymentChange(invoice, p, command.transition, { rail_reference: command.rail_reference, failure_code: command.transition === 'fail' ? (command.failure_code ?? 'RAIL_FAILED') : null }, at);
      return [change, ...invoiceAfter(state, invoice, p, command.transition, ctx)];
    }
  }
}

function paymentChange(
  invoice: InvoiceCore,
  p: PaymentState,
  transition: PaymentTransition,
  extra: { rail_reference?: string | null; failure_code?: string | null; reason_code?: string | null; by_profile_uuid?: string | null },
  at: string,
): InvoiceEvent {
  const rule = PAYMENT_RULES[transition];
  return {
    type: rule.event,
    data: {
      invoice_uuid: invoice.invoice_uuid,
      payment_uuid: p.payment.payment_uuid,
      from: p.state,
      to: rule.to,
      rail_reference: extra.rail_reference ?? null,
      failure_code: extra.failure_code ?? null,
      reason_code: extra.reason_code ?? null,
      by_profile_uuid: extra.by_profile_uuid ?? null,
      at,
    },
  };
}

/** What a payment's move does to its invoice (nothing, when the invoice stays as it is). */
function invoiceAfter(state: InvoiceState, invoice: InvoiceCore, p: PaymentState, transition: PaymentTransition, ctx: DecideContext): InvoiceEvent[] {
  const at = ctx.now.toISOString();
  const change = (to: InvoiceStatus, exceptions: InvoiceException[], amount_settled: string): InvoiceEvent => ({
    type: 'CommerceInvoiceStatusChanged',
    data: { invoice_uuid: invoice.invoice_uuid, from: state.status, to, exceptions, amount_settled, payment_uuid: p.payment.payment_uuid, at },
  });
  if (transition === 'authorize') return state.status === 'OPEN' ? [change('PROCESSING', state.exceptions, state.amount_settled)] : [];
  if (transition === 'settle') {
    const settled = parseMoney(invoice.asset, state.amount_settled, 'amount_settled', { allowZero: true }) + parseMoney(invoice.asset, p.payment.amount, 'amount');
    const total = parseMoney(invoice.asset, invoice.total, 'total');
    const exceptions: InvoiceException[] = [];
    if (state.status === 'EXPIRED' || state.exceptions.includes('PAID_LATE')) exceptions.push('PAID_LATE');
    if (settled < total) exceptions.push('PAID_PARTIAL');
    if (settled > total) exceptions.push('PAID_OVER');
    return [change('PAID', exceptions, money(settled, invoice.asset))];
  }
  if (transition === 'submit') return [];
  // fail, cancel, expire: a PROCESSING invoice whose last in-flight payment ended is open again (or expired).
  if (state.status === 'PROCESSING' && inFlight(state, p.payment.payment_uuid).length === 0) {
    const expired = ctx.now.getTime() >= Date.parse(invoice.expires_at);
    return [change(expired ? 'EXPIRED' : 'OPEN', state.exceptions, state.amount_settled)];
  }
  return [];
}

export const invoiceDecider: Decider<InvoiceCommand, InvoiceState, InvoiceEvent> = { initialState, evolve, decide };

/** A payment as the seeds' reader sees it (the record, its state and version). */
export function paymentOf(state: InvoiceState, payment_uuid: string): PaymentState | null {
  return state.payments[payment_uuid] ?? null;
}
