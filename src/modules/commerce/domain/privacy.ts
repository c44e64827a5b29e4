/**
 * The privacy class of every field of the commerce events (src/platform/privacy/field-classes.ts, docs/privacy.md).
 * Merchants, products, invoices, payments, wallets and settlements are a business's records: ids, amounts, states,
 * addresses it publishes to be paid at, codes. The one thing a person writes in their own words is an invoice's
 * cancellation detail: personal, sealed under the key of the person who wrote it; and a transfer's compliance
 * evidence (below).
 */
import { declareEventClasses, type FieldClasses } from '../../../platform/privacy/field-classes';
import type { InvoiceEvent, InvoiceStatusChange, PaymentChange } from './invoice';
import type { MerchantEvent } from './merchant';
import type { ProductEvent } from './product';
import type { SettlementChange, SettlementEvent } from './settlement';
import type { WalletEvent } from './wallet';
import type { GovernanceClaimEvent } from './governance-claim';
import type { RecipientKeyEvent } from './recipient-key';
import type { TransferEvent } from './transfer';

export const MERCHANT_EVENT_CLASSES = declareEventClasses<MerchantEvent>('commerce', {
  CommerceMerchantCreated: { merchant: 'internal' },
  CommerceMerchantReviewed: { merchant_uuid: 'internal', transition: 'internal', from: 'internal', to: 'internal', by_profile_uuid: 'internal', review_reference: 'internal', reason_code: 'internal', at: 'internal' },
});

export const PRODUCT_EVENT_CLASSES = declareEventClasses<ProductEvent>('commerce', {
  CommerceProductCreated: { product: 'internal' },
  CommerceProductChanged: { product_uuid: 'internal', transition: 'internal', from: 'internal', to: 'internal', by_profile_uuid: 'internal', at: 'internal' },
});

const PAYMENT_CHANGE: FieldClasses<PaymentChange> = {
  invoice_uuid: 'internal', payment_uuid: 'internal', from: 'internal', to: 'internal', rail_reference: 'internal', failure_code: 'internal', reason_code: 'internal',
  by_profile_uuid: 'internal', at: 'internal',
};
const STATUS_CHANGE: FieldClasses<InvoiceStatusChange> = {
  invoice_uuid: 'internal', from: 'internal', to: 'internal', exceptions: 'internal', amount_settled: 'internal', payment_uuid: 'internal', at: 'internal',
};

export const INVOICE_EVENT_CLASSES = declareEventClasses<InvoiceEvent>('commerce', {
  CommerceInvoiceOpened: { invoice: 'internal' },
  CommerceInvoiceCancelled: { invoice_uuid: 'internal', from: 'internal', reason_code: 'internal', reason_detail: 'personal', by_profile_uuid: 'internal', at: 'internal' },
  CommerceInvoiceExpired: { invoice_uuid: 'internal', at: 'internal' },
  CommerceInvoiceStatusChanged: STATUS_CHANGE,
  CommercePaymentCreated: { payment: 'internal' },
  CommercePaymentAuthorized: PAYMENT_CHANGE,
  CommercePaymentSubmitted: PAYMENT_CHANGE,
  CommercePaymentSettled: PAYMENT_CHANGE,
  CommercePaymentFailed: PAYMENT_CHANGE,
  CommercePaymentCancelled: PAYMENT_CHANGE,
  CommercePaymentExpired: PAYMENT_CHANGE,
});

export const WALLET_EVENT_CLASSES = declareEventClasses<WalletEvent>('commerce', {
  CommerceWalletRegistered: { wallet: 'internal', addresses: 'internal' },
  CommerceWalletAddressesAdded: { wallet_uuid: 'internal', addresses: 'internal', by_profile_uuid: 'internal', at: 'internal' },
  CommerceWalletAddressAllocated: { wallet_uuid: 'internal', address: 'internal', invoice_uuid: 'internal', at: 'internal' },
  CommerceWalletRetired: { wallet_uuid: 'internal', by_profile_uuid: 'internal', at: 'internal' },
});

const SETTLEMENT_CHANGE: FieldClasses<SettlementChange> = {
  settlement_intent_uuid: 'internal', from: 'internal', to: 'internal', revision: 'internal', request_commitment: 'internal', by_profile_uuid: 'internal',
  transaction_reference: 'internal', failure_code: 'internal', reason_code: 'internal', at: 'internal',
};

export const SETTLEMENT_EVENT_CLASSES = declareEventClasses<SettlementEvent>('commerce', {
  CommerceSettlementRequested: { intent: 'internal', revision: 'internal', request_commitment: 'internal' },
  CommerceSettlementApproved: SETTLEMENT_CHANGE,
  CommerceSettlementSubmitted: SETTLEMENT_CHANGE,
  CommerceSettlementConfirmed: SETTLEMENT_CHANGE,
  CommerceSettlementFailed: SETTLEMENT_CHANGE,
  CommerceSettlementCancelled: SETTLEMENT_CHANGE,
});

const MOVE = { transfer_uuid: 'internal', from: 'internal', to: 'internal', version: 'internal', at: 'internal' } as const;

/**
 * Transfers: the platform's facts, but for a compliance cancellation's evidence: whatever the officer attached about
 * the transfer (personal, sealed under the key of the person whose transfer it was, never published in clear).
 */
export const TRANSFER_EVENT_CLASSES = declareEventClasses<TransferEvent>(
  'commerce',
  {
    CommerceTransferRequested: { transfer: 'internal' },
    CommerceTransferScreeningStarted: MOVE,
    CommerceTransferScreened: { ...MOVE, result: 'internal', screening_reference: 'internal', by_profile_uuid: 'internal' },
    CommerceTransferEnvelopeAuthorized: { ...MOVE, envelope: 'internal', by_profile_uuid: 'internal' },
    CommerceTransferGovernanceBound: { ...MOVE, proposal_id: 'internal', mpc_request_id: 'internal', by_profile_uuid: 'internal' },
    CommerceTransferGovernanceDecided: { ...MOVE, kind: 'internal', reference: 'internal', outcome: 'internal' },
    CommerceTransferSubmitted: { ...MOVE, transaction_reference: 'internal', failure_code: 'internal' },
    CommerceTransferConfirmed: { ...MOVE, transaction_reference: 'internal', failure_code: 'internal' },
    CommerceTransferFailed: { ...MOVE, transaction_reference: 'internal', failure_code: 'internal' },
    CommerceTransferCancelled: { ...MOVE, reason_code: 'internal', evidence: 'personal', evidence_commitment: 'internal', by_profile_uuid: 'internal', requested_by_profile_uuid: 'internal' },
  },
  { subject: (e) => (e.type === 'CommerceTransferCancelled' ? String(e.data.requested_by_profile_uuid) : e.metadata.actor.reference) },
);

export const RECIPIENT_KEY_EVENT_CLASSES = declareEventClasses<RecipientKeyEvent>('commerce', {
  CommerceRecipientKeyRegistered: { key: 'internal' },
  CommerceRecipientKeyRetired: { recipient_key_id: 'internal', successor_key_id: 'internal', by_profile_uuid: 'internal', at: 'internal' },
});

export const GOVERNANCE_CLAIM_EVENT_CLASSES = declareEventClasses<GovernanceClaimEvent>('commerce', {
  CommerceGovernanceIdClaimed: { kind: 'internal', reference: 'internal', transfer_uuid: 'internal', at: 'internal' },
});
