/**
 * Commerce's notification rules (registered with the notification inbox, src/modules/notifications/domain/rule-port.ts):
 * what a merchant's people want to hear — the merchant activated, rejected, suspended or reinstated; an invoice paid
 * (with its exceptions); a payment failed; a payout confirmed or failed; a transfer confirmed, failed or cancelled by
 * compliance (its reason code, never the evidence). Recipients: the owners of the merchant's
 * workspace at the time (the shared WORKSPACE_FACT identity keeps). The rules remember each merchant's name and each
 * open invoice's and settlement's few facts, to say which one it was.
 */
import {
  fact, getFact, id32, notifier, plainDecimal, recipients, streamId, untrusted, words, workspaceNamedBy, workspaceRecipients,
  type FactKey, type Facts, type InboxChange, type InWorkspace, type NotificationRules, type SourceEvent,
} from '../../notifications/domain/rule-port';
import type { InvoiceEvent, InvoiceStatusChange, PaymentChange } from './invoice-records';
import type { MerchantEvent } from './merchant';
import type { SettlementChange, SettlementEvent } from './settlement';
import type { TransferEvent } from './transfer';

interface MerchantFact extends InWorkspace {
  name: string;
}
interface InvoiceFact extends InWorkspace {
  merchant: string;
  reference: string;
  total: string;
  asset: string;
}
/** What a payout (a settlement intent or a transfer) is remembered by until it ends. */
interface PayoutFact extends InWorkspace {
  merchant: string;
  amount: string;
  asset: string;
}

const HREF = {
  merchant: (id: string) => `/api/v1/commerce/merchants/${id}`,
  invoice: (id: string) => `/api/v1/commerce/invoices/${id}`,
  payment: (id: string) => `/api/v1/commerce/payments/${id}`,
  settlement: (id: string) => `/api/v1/commerce/settlement-intents/${id}`,
  transfer: (id: string) => `/api/v1/transfers/${id}`,
};
const STREAM = { merchant: 'commerce-merchant-', invoice: 'commerce-invoice-', settlement: 'commerce-settlement-' };
const TYPES = [
  'COMMERCE_MERCHANT_ACTIVATED', 'COMMERCE_MERCHANT_REJECTED', 'COMMERCE_MERCHANT_SUSPENDED', 'COMMERCE_INVOICE_PAID', 'COMMERCE_PAYMENT_FAILED',
  'COMMERCE_SETTLEMENT_CONFIRMED', 'COMMERCE_SETTLEMENT_FAILED', 'COMMERCE_TRANSFER_CANCELLED_BY_COMPLIANCE', 'COMMERCE_TRANSFER_CONFIRMED', 'COMMERCE_TRANSFER_FAILED',
] as const;
const notify = notifier('commerce', TYPES);

const EXCEPTION_WORDS: Record<string, string> = {
  PAID_LATE: 'after the invoice had expired',
  PAID_PARTIAL: 'for less than its total',
  PAID_OVER: 'for more than its total',
};

function factsNeeded(e: SourceEvent, known: Facts): FactKey[] {
  const d = e.data as Record<string, unknown>;
  const withWorkspace = (scope: string, key: unknown): FactKey[] => [{ scope, key: String(key) }, ...workspaceNamedBy(known, scope, key)];
  switch (e.type) {
    case 'CommerceMerchantReviewed':
      return withWorkspace('merchant', d.merchant_uuid);
    case 'CommerceInvoiceOpened':
      return [{ scope: 'merchant', key: String((d.invoice as { merchant_uuid?: unknown } | undefined)?.merchant_uuid) }];
    case 'CommerceInvoiceStatusChanged':
    case 'CommercePaymentFailed':
      return withWorkspace('commerce-invoice', d.invoice_uuid);
    case 'CommerceSettlementRequested':
      return [{ scope: 'merchant', key: String((d.intent as { merchant_uuid?: unknown } | undefined)?.merchant_uuid) }];
    case 'CommerceSettlementConfirmed':
    case 'CommerceSettlementFailed':
      return withWorkspace('commerce-settlement', d.settlement_intent_uuid);
    case 'CommerceTransferRequested':
      return [{ scope: 'merchant', key: String((d.transfer as { merchant_uuid?: unknown } | undefined)?.merchant_uuid) }];
    case 'CommerceTransferCancelled':
    case 'CommerceTransferConfirmed':
    case 'CommerceTransferFailed':
    case 'CommerceTransferGovernanceDecided':
      return withWorkspace('commerce-transfer', d.transfer_uuid);
    default:
      return [];
  }
}

function plan(e: SourceEvent, facts: Facts): InboxChange[] {
  if (streamId(e, STREAM.merchant)) return merchant(e, facts);
  if (streamId(e, STREAM.invoice)) return invoice(e, facts);
  if (streamId(e, STREAM.settlement)) return e.type.startsWith('CommerceTransfer') ? transfer(e, facts) : settlement(e, facts);
  return [];
}

/** A transfer's end, told to its merchant's people: a compliance cancel says its reason code, never the evidence. */
function transfer(e: SourceEvent, facts: Facts): InboxChange[] {
  const ev = { type: e.type, data: e.data } as unknown as TransferEvent;
  if (ev.type === 'CommerceTransferRequested') {
    const t = ev.data.transfer;
    if (!id32(t?.transfer_uuid)) return [];
    const m = getFact(facts, 'merchant', t.merchant_uuid) as MerchantFact | undefined;
    return [fact('commerce-transfer', t.transfer_uuid, { workspace: t.workspace_uuid, merchant: m?.name ?? 'your merchant', amount: t.amount, asset: untrusted(t.asset, 16) } satisfies PayoutFact)];
  }
  const d = ev.data as { transfer_uuid: string; to: string };
  const known = getFact(facts, 'commerce-transfer', d.transfer_uuid) as PayoutFact | undefined;
  if (!known || !id32(d.transfer_uuid) || !['CANCELLED', 'CONFIRMED', 'FAILED'].includes(d.to)) return [];
  const what = `The transfer of ${plainDecimal(known.amount)} ${known.asset} from "${known.merchant}"`;
  const content =
    ev.type === 'CommerceTransferCancelled'
      ? { type: 'COMMERCE_TRANSFER_CANCELLED_BY_COMPLIANCE' as const, title: 'Transfer cancelled by compliance', message: `${what} was cancelled by compliance (${words(ev.data.reason_code ?? 'OTHER')}); the amount is available again.` }
      : d.to === 'CONFIRMED'
        ? { type: 'COMMERCE_TRANSFER_CONFIRMED' as const, title: 'Transfer confirmed', message: `${what} was confirmed.` }
        : { type: 'COMMERCE_TRANSFER_FAILED' as const, title: 'Transfer failed', message: `${what} failed; the amount is available again.` };
  return [
    fact('commerce-transfer', d.transfer_uuid, null),
    ...recipients(...workspaceRecipients(facts, known)).map((p) => notify(e, p, { ...content, href: HREF.transfer(d.transfer_uuid), reference: d.transfer_uuid })),
  ];
}

function merchant(e: SourceEvent, facts: Facts): InboxChange[] {
  const ev = { type: e.type, data: e.data } as unknown as MerchantEvent;
  if (ev.type === 'CommerceMerchantCreated') {
    const m = ev.data.merchant;
    return id32(m?.merchant_uuid) ? [fact('merchant', m.merchant_uuid, { workspace: m.workspace_uuid, name: untrusted(m.display_name, 80, 'a merchant') } satisfies MerchantFact)] : [];
  }
  const d = ev.data;
  const known = getFact(facts, 'merchant', d.merchant_uuid) as MerchantFact | undefined;
  if (!known || !id32(d.merchant_uuid)) return [];
  const content =
    d.to === 'ACTIVE'
      ? { type: 'COMMERCE_MERCHANT_ACTIVATED' as const, title: 'Merchant active', message: `Merchant "${known.name}" was ${d.transition === 'reinstate' ? 'reinstated' : 'activated'} and can invoice and take payments.` }
      : d.to === 'REJECTED'
        ? { type: 'COMMERCE_MERCHANT_REJECTED' as const, title: 'Merchant rejected', message: `The review rejected merchant "${known.name}" (${words(d.reason_code)}).` }
        : d.to === 'SUSPENDED'
          ? { type: 'COMMERCE_MERCHANT_SUSPENDED' as const, title: 'Merchant suspended', message: `Merchant "${known.name}" was suspended (${words(d.reason_code)}): it cannot invoice until it is reinstated.` }
          : null;
  if (!content) return [];
  return recipients(...workspaceRecipients(facts, known)).map((p) => notify(e, p, { ...content, href: HREF.merchant(d.merchant_uuid), reference: d.merchant_uuid }));
}

function invoice(e: SourceEvent, facts: Facts): InboxChange[] {
  const ev = { type: e.type, data: e.data } as unknown as InvoiceEvent;
  switch (ev.type) {
    case 'CommerceInvoiceOpened': {
      const i = ev.data.invoice;
      if (!id32(i?.invoice_uuid)) return [];
      const m = getFact(facts, 'merchant', i.merchant_uuid) as MerchantFact | undefined;
      return [fact('commerce-invoice', i.invoice_uuid, { workspace: i.workspace_uuid, merchant: m?.name ?? 'your merchant', reference: untrusted(i.external_order_reference, 64), total: i.total, asset: untrusted(i.asset, 16) } satisfies InvoiceFact)];
    }
    case 'CommerceInvoiceCancelled':
      return id32(ev.data.invoice_uuid) ? [fact('commerce-invoice', ev.data.invoice_uuid, null)] : [];
    case 'CommerceInvoiceStatusChanged': {
      const d = ev.data as InvoiceStatusChange;
      const known = getFact(facts, 'commerce-invoice', d.invoice_uuid) as InvoiceFact | undefined;
      if (!known || d.to !== 'PAID' || !id32(d.invoice_uuid)) return [];
      const exceptions = d.exceptions.map((x) => EXCEPTION_WORDS[x]).filter(Boolean);
      const message = `Invoice ${known.reference} of "${known.merchant}" was paid: ${plainDecimal(d.amount_settled)} ${known.asset} of ${plainDecimal(known.total)} settled${exceptions.length ? `, ${exceptions.join(' and ')}` : ''}.`;
      // One notification per invoice and payment: a second settlement of the same invoice tells again.
      return recipients(...workspaceRecipients(facts, known)).map((p) =>
        notify(e, p, { type: 'COMMERCE_INVOICE_PAID', title: exceptions.length ? 'Invoice paid, with an exception' : 'Invoice paid', message, href: HREF.invoice(d.invoice_uuid), reference: d.invoice_uuid }),
      );
    }
    case 'CommercePaymentFailed': {
      const d = ev.data as PaymentChange;
      const known = getFact(facts, 'commerce-invoice', d.invoice_uuid) as InvoiceFact | undefined;
      if (!known || !id32(d.payment_uuid)) return [];
      return recipients(...workspaceRecipients(facts, known)).map((p) =>
        notify(e, p, {
          type: 'COMMERCE_PAYMENT_FAILED',
          title: 'Payment failed',
          message: `A payment of invoice ${known.reference} of "${known.merchant}" failed on the rail (${untrusted(d.failure_code, 40)}); the invoice is open again until it expires.`,
          href: HREF.payment(d.payment_uuid),
          reference: d.payment_uuid,
        }),
      );
    }
    default:
      return [];
  }
}

function settlement(e: SourceEvent, facts: Facts): InboxChange[] {
  const ev = { type: e.type, data: e.data } as unknown as SettlementEvent;
  if (ev.type === 'CommerceSettlementRequested') {
    const i = ev.data.intent;
    if (!id32(i?.settlement_intent_uuid)) return [];
    const m = getFact(facts, 'merchant', i.merchant_uuid) as MerchantFact | undefined;
    return [fact('commerce-settlement', i.settlement_intent_uuid, { workspace: i.workspace_uuid, merchant: m?.name ?? 'your merchant', amount: i.amount, asset: untrusted(i.asset, 16) } satisfies PayoutFact)];
  }
  if (ev.type !== 'CommerceSettlementConfirmed' && ev.type !== 'CommerceSettlementFailed') {
    return ev.type === 'CommerceSettlementCancelled' && id32(ev.data.settlement_intent_uuid) ? [fact('commerce-settlement', ev.data.settlement_intent_uuid, null)] : [];
  }
  const d = ev.data as SettlementChange;
  const known = getFact(facts, 'commerce-settlement', d.settlement_intent_uuid) as PayoutFact | undefined;
  if (!known || !id32(d.settlement_intent_uuid)) return [];
  const confirmed = ev.type === 'CommerceSettlementConfirmed';
  const content = confirmed
    ? { type: 'COMMERCE_SETTLEMENT_CONFIRMED' as const, title: 'Payout confirmed', message: `The payout of ${plainDecimal(known.amount)} ${known.asset} from "${known.merchant}" was confirmed.` }
    : { type: 'COMMERCE_SETTLEMENT_FAILED' as const, title: 'Payout failed', message: `The payout of ${plainDecimal(known.amount)} ${known.asset} from "${known.merchant}" failed (${untrusted(d.failure_code, 40)}); the amount is available again.` };
  return [
    fact('commerce-settlement', d.settlement_intent_uuid, null),
    ...recipients(...workspaceRecipients(facts, known)).map((p) => notify(e, p, { ...content, href: HREF.settlement(d.settlement_intent_uuid), reference: d.settlement_intent_uuid })),
  ];
}

export const commerceNotificationRules: NotificationRules = {
  source: 'commerce',
  types: TYPES,
  handles: [
    'CommerceMerchantCreated', 'CommerceMerchantReviewed', 'CommerceInvoiceOpened', 'CommerceInvoiceCancelled', 'CommerceInvoiceStatusChanged', 'CommercePaymentFailed',
    'CommerceSettlementRequested', 'CommerceSettlementConfirmed', 'CommerceSettlementFailed', 'CommerceSettlementCancelled', 'CommerceTransferRequested', 'CommerceTransferCancelled',
    'CommerceTransferConfirmed', 'CommerceTransferFailed', 'CommerceTransferGovernanceDecided',
  ],
  factScopes: ['merchant', 'commerce-invoice', 'commerce-settlement', 'commerce-transfer'],
  factsNeeded,
  plan,
};
