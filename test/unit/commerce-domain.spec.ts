/** The commerce deciders, given/when/then on decide/evolve: no I/O, an injected clock and ids. */
import type { Decider, DomainEvent } from '../../src/platform/command/decider';
import { PlatformError } from '../../src/platform/errors';
import { merchantDecider, type MerchantCommand, type MerchantCore } from '../../src/modules/commerce/domain/merchant';
import { productDecider, type ProductCore } from '../../src/modules/commerce/domain/product';
import { invoiceDecider, invoiceIdFor, type InvoiceCommand, type InvoiceCore, type InvoiceState } from '../../src/modules/commerce/domain/invoice';
import { walletDecider, type WalletCore } from '../../src/modules/commerce/domain/wallet';
import { requestCommitment, type SettlementCommand, type SettlementIntentCore } from '../../src/modules/commerce/domain/settlement';
import { ledgerDecider as settlementDecider } from '../../src/modules/commerce/domain/ledger';
import { lineTotal, money, parseMoney, parseQuantity } from '../../src/modules/commerce/domain/money';
import { canonicalJson, sha256Hex } from '../../src/platform/commitments/commitment';

const NOW = new Date('2026-11-25T10:00:00.000Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);
const ctx = (now = NOW) => ({ now, newId: () => '0'.repeat(32) });
const CREATOR = 'c'.repeat(32);
const REVIEWER = 'e'.repeat(32);

/** given commands (each decided and folded), when a command, then its events or its error. */
function given<C, S, E extends DomainEvent>(decider: Decider<C, S, E>, commands: Array<[C, Date?]>): S {
  let state = decider.initialState();
  for (const [c, now] of commands) for (const e of decider.decide(c, state, ctx(now))) state = decider.evolve(state, e);
  return state;
}
function refusal(run: () => unknown): { code: string; details: unknown; current_version?: unknown } {
  try {
    run();
  } catch (error) {
    if (error instanceof PlatformError) return { code: error.code, details: error.details, current_version: error.currentVersion };
    throw error;
  }
  throw new Error('expected a refusal');
}

const merchant: MerchantCore = {
  merchant_uuid: 'a'.repeat(32), workspace_uuid: 'b'.repeat(32), tenant_uuid: '0'.repeat(32), display_name: 'Shop', description: 'A shop', category_code: 'RETAIL',
  website: null, created_by_profile_uuid: CREATOR, created: NOW.toISOString(),
};
const review = (transition: 'activate' | 'reject' | 'suspend' | 'reinstate' | 'close', expected_version: number, over: Partial<Extract<MerchantCommand, { kind: 'ReviewMerchant' }>> = {}): [MerchantCommand] => [
  { kind: 'ReviewMerchant', transition, expected_version, by_profile_uuid: REVIEWER, standing: 'reviewer', review_reference: transition === 'activate' ? 'REV-1' : null, reason_code: null, ...over },
];

describe('merchant', () => {
  it('is created PENDING_REVIEW at version 0, and activated by a reviewer at the version read', () => {
    const s = given(merchantDecider, [[{ kind: 'CreateMerchant', merchant }]]);
    expect([s.status, s.version]).toEqual(['PENDING_REVIEW', 0]);
    const events = merchantDecider.decide(review('activate', 0)[0], s, ctx());
    expect(events).toEqual([{ type: 'CommerceMerchantReviewed', data: expect.objectContaining({ transition: 'activate', from: 'PENDING_REVIEW', to: 'ACTIVE', review_reference: 'REV-1', by_profile_uuid: REVIEWER }) }]);
    expect(merchantDecider.evolve(s, events[0])).toMatchObject({ status: 'ACTIVE', version: 1 });
  });

  it('a stale expected_version is VERSION_CONFLICT with the current version (another reviewer changed it first)', () => {
    const s = given(merchantDecider, [[{ kind: 'CreateMerchant', merchant }], review('reject', 0)]);
    expect(refusal(() => merchantDecider.decide(review('activate', 0)[0], s, ctx()))).toMatchObject({ code: 'VERSION_CONFLICT', current_version: 1 });
    expect(refusal(() => merchantDecider.decide(review('activate', 1)[0], s, ctx()))).toMatchObject({ code: 'STATE_CONFLICT' });
  });

  it("the creator may not activate its own merchant; an owner (not a reviewer) may only close", () => {
    const s = given(merchantDecider, [[{ kind: 'CreateMerchant', merchant }]]);
    expect(refusal(() => merchantDecider.decide(review('activate', 0, { by_profile_uuid: CREATOR, standing: 'reviewer-and-owner' })[0], s, ctx())).code).toBe('FORBIDDEN');
    expect(refusal(() => merchantDecider.decide(review('suspend', 0, { standing: 'owner' })[0], s, ctx())).code).toBe('FORBIDDEN');
    expect(merchantDecider.decide(review('close', 0, { standing: 'owner', by_profile_uuid: CREATOR, reason_code: 'OWNER_REQUEST' })[0], s, ctx())[0].data).toMatchObject({ to: 'CLOSED', reason_code: 'OWNER_REQUEST' });
  });

  it('suspend and reinstate go back and forth; a closed merchant stays closed', () => {
    const s = given(merchantDecider, [[{ kind: 'CreateMerchant', merchant }], review('activate', 0), review('suspend', 1), review('reinstate', 2), review('close', 3)]);
    expect([s.status, s.version]).toEqual(['CLOSED', 4]);
    expect(refusal(() => merchantDecider.decide(review('reinstate', 4)[0], s, ctx())).code).toBe('STATE_CONFLICT');
  });
});

describe('product', () => {
  const product: ProductCore = {
    product_uuid: 'd'.repeat(32), merchant_uuid: merchant.merchant_uuid, workspace_uuid: merchant.workspace_uuid, name: 'Tea', description: '', sku: null,
    price: '4.50', asset: 'USD', created_by_profile_uuid: CREATOR, created: NOW.toISOString(),
  };
  it("is DRAFT, becomes ACTIVE only under an ACTIVE merchant (422 otherwise), then ARCHIVED", () => {
    const s = given(productDecider, [[{ kind: 'CreateProduct', product, merchant_status: 'PENDING_REVIEW' }]]);
    expect(refusal(() => productDecider.decide({ kind: 'ChangeProduct', transition: 'activate', expected_version: 0, by_profile_uuid: CREATOR, merchant_status: 'SUSPENDED' }, s, ctx())).code).toBe('RULE_VIOLATION');
    const active = given(productDecider, [
      [{ kind: 'CreateProduct', product, merchant_status: 'ACTIVE' }],
      [{ kind: 'ChangeProduct', transition: 'activate', expected_version: 0, by_profile_uuid: CREATOR, merchant_status: 'ACTIVE' }],
      [{ kind: 'ChangeProduct', transition: 'archive', expected_version: 1, by_profile_uuid: CREATOR, merchant_status: 'ACTIVE' }],
    ]);
    expect([active.status, active.version]).toEqual(['ARCHIVED', 2]);
    expect(refusal(() => productDecider.decide({ kind: 'ChangeProduct', transition: 'activate', expected_version: 2, by_profile_uuid: CREATOR, merchant_status: 'ACTIVE' }, active, ctx())).code).toBe('STATE_CONFLICT');
    expect(refusal(() => productDecider.decide({ kind: 'CreateProduct', product: { ...product, product_uuid: 'f'.repeat(32) }, merchant_status: 'CLOSED' }, productDecider.initialState(), ctx())).code).toBe('RULE_VIOLATION');
  });
});

describe('money', () => {
  it('line totals round half-to-even once, at the asset scale; the total is the exact sum', () => {
    expect(money(lineTotal(parseQuantity('0.5', 'q'), parseMoney('USD', '2.01', 'p'), 'USD'), 'USD')).toBe('1.00'); // 1.005 → 1.00 (half to even)
    expect(money(lineTotal(parseQuantity('0.5', 'q'), parseMoney('USD', '0.03', 'p'), 'USD'), 'USD')).toBe('0.02'); // 0.015 → 0.02
    expect(money(lineTotal(parseQuantity('1.5', 'q'), parseMoney('USD', '0.03', 'p'), 'USD'), 'USD')).toBe('0.04'); // 0.045 → 0.04
    expect(money(lineTotal(parseQuantity('1.5', 'q'), parseMoney('USD', '0.05', 'p'), 'USD'), 'USD')).toBe('0.08'); // 0.075 → 0.08
    expect(money(lineTotal(parseQuantity('0.000001', 'q'), parseMoney('BTC', '1', 'p'), 'BTC'), 'BTC')).toBe('0.00000100');
    expect(money(parseMoney('JPY', '1200', 'p'), 'JPY')).toBe('1200');
  });
  it('refuses floats, exponents, over-precision and unknown assets with a 400 naming the field', () => {
    for (const [asset, value] of [['USD', 1.5], ['USD', '1e3'], ['USD', '0.001'], ['XYZ', '1'], ['USD', '-1'], ['USD', '0']] as const) {
      expect(refusal(() => parseMoney(asset, value, 'unit_price'))).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: 'unit_price' })] });
    }
  });
});

const INVOICE = invoiceIdFor(merchant.merchant_uuid, 'ORDER-1');
const invoice: InvoiceCore = {
  invoice_uuid: INVOICE, merchant_uuid: merchant.merchant_uuid, workspace_uuid: merchant.workspace_uuid, tenant_uuid: merchant.tenant_uuid, external_order_reference: 'ORDER-1',
  asset: 'USD', network_id: null, payment_address: null, wallet_uuid: null,
  line_items: [{ description: 'Tea', quantity: '2', unit_price: '5.00', line_total: '10.00', product_uuid: null }], total: '10.00',
  expires_at: later(3600_000).toISOString(), created_by_profile_uuid: CREATOR, created: NOW.toISOString(),
};
const P1 = '1'.repeat(32);
const P2 = '2'.repeat(32);
const open: [InvoiceCommand] = [{ kind: 'OpenInvoice', invoice, merchant_status: 'ACTIVE' }];
const pay = (payment_uuid: string, amount: string | null = null): [InvoiceCommand] => [{ kind: 'CreatePayment', payment_uuid, amount, by_profile_uuid: CREATOR }];
const rail = (payment_uuid: string, transition: 'authorize' | 'submit' | 'settle' | 'fail', now?: Date): [InvoiceCommand, Date?] => [
  { kind: 'RailUpdate', payment_uuid, transition, rail_reference: `rail-${transition}`, failure_code: transition === 'fail' ? 'INSUFFICIENT_FUNDS' : null }, now,
];
const types = (state: InvoiceState, c: InvoiceCommand, now = NOW) => invoiceDecider.decide(c, state, ctx(now)).map((e) => e.type);

describe('invoice and its payments', () => {
  it('opens OPEN at version 0; the same order reference again is 409 naming the invoice; only an ACTIVE merchant invoices', () => {
    const s = given(invoiceDecider, [open]);
    expect([s.status, s.version, s.amount_settled]).toEqual(['OPEN', 0, '0.00']);
    const dup = refusal(() => invoiceDecider.decide(open[0], s, ctx()));
    expect(dup.code).toBe('STATE_CONFLICT');
    expect(JSON.stringify(dup.details)).toContain(INVOICE);
    expect(refusal(() => invoiceDecider.decide({ ...open[0], merchant_status: 'SUSPENDED' } as InvoiceCommand, invoiceDecider.initialState(), ctx())).code).toBe('RULE_VIOLATION');
    expect(invoiceIdFor(merchant.merchant_uuid, 'ORDER-1')).toBe(INVOICE);
    expect(invoiceIdFor(merchant.merchant_uuid, 'ORDER-2')).not.toBe(INVOICE);
  });

  it('a payment walks AUTHORIZATION_REQUIRED → AUTHORIZED → SUBMITTED → SETTLED; the invoice goes PROCESSING, then PAID', () => {
    const s = given(invoiceDecider, [open, pay(P1), rail(P1, 'authorize')]);
    expect([s.status, s.version, s.payments[P1].state, s.payments[P1].version]).toEqual(['PROCESSING', 1, 'AUTHORIZED', 1]);
    const paid = given(invoiceDecider, [open, pay(P1), rail(P1, 'authorize'), rail(P1, 'submit'), rail(P1, 'settle')]);
    expect([paid.status, paid.exceptions, paid.amount_settled, paid.payments[P1].state, paid.payments[P1].settled_at]).toEqual(['PAID', [], '10.00', 'SETTLED', NOW.toISOString()]);
    expect(refusal(() => invoiceDecider.decide(rail(P1, 'settle')[0], paid, ctx())).code).toBe('STATE_CONFLICT');
  });

  it('a short or a long settlement is PAID with PAID_PARTIAL or PAID_OVER, never lost', () => {
    const partial = given(invoiceDecider, [open, pay(P1, '4.00'), rail(P1, 'authorize'), rail(P1, 'submit'), rail(P1, 'settle')]);
    expect([partial.status, partial.exceptions, partial.amount_settled]).toEqual(['PAID', ['PAID_PARTIAL'], '4.00']);
    const over = given(invoiceDecider, [open, pay(P1, '7.00'), pay(P2, '7.00'), rail(P1, 'authorize'), rail(P2, 'authorize'), rail(P1, 'submit'), rail(P2, 'submit'), rail(P1, 'settle'), rail(P2, 'settle')]);
    expect([over.status, over.exceptions, over.amount_settled]).toEqual(['PAID', ['PAID_OVER'], '14.00']);
  });

  it('expires OPEN at expires_at (not before); a payment created before settles late as PAID with PAID_LATE', () => {
    const s = given(invoiceDecider, [open, pay(P1)]);
    expect(types(s, { kind: 'ExpireInvoice' }, later(3599_000))).toEqual([]);
    const expired = given(invoiceDecider, [open, pay(P1), [{ kind: 'ExpireInvoice' }, later(3600_000)]]);
    expect(expired.status).toBe('EXPIRED');
    expect(refusal(() => invoiceDecider.decide(pay(P2)[0], expired, ctx(later(3600_000)))).code).toBe('STATE_CONFLICT');
    const late = given(invoiceDecider, [open, pay(P1), [{ kind: 'ExpireInvoice' }, later(3600_000)], rail(P1, 'authorize'), rail(P1, 'submit'), rail(P1, 'settle')]);
    expect([late.status, late.exceptions]).toEqual(['PAID', ['PAID_LATE']]);
  });

  it('a failed in-flight payment reopens the invoice (or expires it once past expires_at)', () => {
    const reopened = given(invoiceDecider, [open, pay(P1), rail(P1, 'authorize'), rail(P1, 'fail')]);
    expect([reopened.status, reopened.payments[P1].state, reopened.payments[P1].failure_code]).toEqual(['OPEN', 'FAILED', 'INSUFFICIENT_FUNDS']);
    const expired = given(invoiceDecider, [open, pay(P1), rail(P1, 'authorize'), rail(P1, 'fail', later(7200_000))]);
    expect(expired.status).toBe('EXPIRED');
  });

  it('cancel: version, then status, then no payment past AUTHORIZATION_REQUIRED; waiting payments are cancelled with it', () => {
    const cancel = (v: number, status = 'OPEN'): InvoiceCommand => ({ kind: 'CancelInvoice', expected_invoice_version: v, expected_status: status, reason_code: 'CUSTOMER_REQUEST', reason_detail: null, by_profile_uuid: CREATOR });
    const waiting = given(invoiceDecider, [open, pay(P1)]);
    expect(refusal(() => invoiceDecider.decide(cancel(1), waiting, ctx()))).toMatchObject({ code: 'VERSION_CONFLICT', current_version: 0 });
    expect(refusal(() => invoiceDecider.decide(cancel(0, 'PAID'), waiting, ctx())).code).toBe('STATE_CONFLICT');
    expect(types(waiting, cancel(0))).toEqual(['CommercePaymentCancelled', 'CommerceInvoiceCancelled']);
    const flying = given(invoiceDecider, [open, pay(P1), rail(P1, 'authorize')]);
    const refused = refusal(() => invoiceDecider.decide(cancel(1, 'PROCESSING'), flying, ctx()));
    expect(refused.code).toBe('STATE_CONFLICT');
    expect(JSON.stringify(refused.details)).toContain('AUTHORIZED');
  });

  it('cancel payment: only the latest version, only while AUTHORIZATION_REQUIRED; later rail states are 409', () => {
    const s = given(invoiceDecider, [open, pay(P1)]);
    expect(refusal(() => invoiceDecider.decide({ kind: 'CancelPayment', payment_uuid: P1, expected_payment_version: 1, by_profile_uuid: CREATOR }, s, ctx()))).toMatchObject({ code: 'VERSION_CONFLICT', current_version: 0 });
    expect(types(s, { kind: 'CancelPayment', payment_uuid: P1, expected_payment_version: 0, by_profile_uuid: CREATOR })).toEqual(['CommercePaymentCancelled']);
    const authorized = given(invoiceDecider, [open, pay(P1), rail(P1, 'authorize')]);
    expect(refusal(() => invoiceDecider.decide({ kind: 'CancelPayment', payment_uuid: P1, expected_payment_version: 1, by_profile_uuid: CREATOR }, authorized, ctx())).code).toBe('STATE_CONFLICT');
    expect(refusal(() => invoiceDecider.decide({ kind: 'CancelPayment', payment_uuid: P2, expected_payment_version: 0, by_profile_uuid: CREATOR }, s, ctx())).code).toBe('NOT_FOUND');
  });

  it('cancel racing settlement: whichever is decided first wins, the other is refused on the same stream', () => {
    const submitted = given(invoiceDecider, [open, pay(P1), rail(P1, 'authorize'), rail(P1, 'submit')]);
    const settledFirst = given(invoiceDecider, [open, pay(P1), rail(P1, 'authorize'), rail(P1, 'submit'), rail(P1, 'settle')]);
    expect(submitted.status).toBe('PROCESSING');
    expect(refusal(() => invoiceDecider.decide({ kind: 'CancelInvoice', expected_invoice_version: 2, expected_status: 'PAID', reason_code: 'OTHER', reason_detail: null, by_profile_uuid: CREATOR }, settledFirst, ctx())).code).toBe('STATE_CONFLICT');
    const paymentCancelled = given(invoiceDecider, [open, pay(P1), [{ kind: 'CancelPayment', payment_uuid: P1, expected_payment_version: 0, by_profile_uuid: CREATOR }]]);
    expect(refusal(() => invoiceDecider.decide(rail(P1, 'authorize')[0], paymentCancelled, ctx())).code).toBe('STATE_CONFLICT');
  });

  it('a payment waiting for authorization expires after its window, not before', () => {
    const s = given(invoiceDecider, [open, pay(P1)]);
    expect(types(s, { kind: 'ExpirePayment', payment_uuid: P1 }, later(29 * 60_000))).toEqual([]);
    expect(types(s, { kind: 'ExpirePayment', payment_uuid: P1 }, later(30 * 60_000))).toEqual(['CommercePaymentExpired']);
  });
});

describe('rotational wallet', () => {
  const wallet: WalletCore = {
    wallet_uuid: '9'.repeat(32), wallet_type: 'ROTATIONAL', workspace_uuid: merchant.workspace_uuid, tenant_uuid: merchant.tenant_uuid, merchant_uuid: merchant.merchant_uuid,
    network_id: 'ethereum-mainnet', label: 'pool', address: null, governance_required: false, created_by_profile_uuid: CREATOR, created: NOW.toISOString(),
  };
  const A1 = `0x${'1'.repeat(40)}`;
  const A2 = `0x${'2'.repeat(40)}`;
  it('hands each invoice a fresh address, the same one again for the same invoice, and refuses when the pool is empty', () => {
    const s = given(walletDecider, [[{ kind: 'RegisterWallet', wallet, addresses: [A1, A2] }], [{ kind: 'AllocateAddress', invoice_uuid: 'i1'.padEnd(32, '0') }]]);
    expect(s.allocated.get('i1'.padEnd(32, '0'))).toBe(A1);
    expect(walletDecider.decide({ kind: 'AllocateAddress', invoice_uuid: 'i1'.padEnd(32, '0') }, s, ctx())).toEqual([]);
    const two = given(walletDecider, [[{ kind: 'RegisterWallet', wallet, addresses: [A1, A2] }], [{ kind: 'AllocateAddress', invoice_uuid: 'i1'.padEnd(32, '0') }], [{ kind: 'AllocateAddress', invoice_uuid: 'i2'.padEnd(32, '0') }]]);
    expect(two.allocated.get('i2'.padEnd(32, '0'))).toBe(A2);
    expect(refusal(() => walletDecider.decide({ kind: 'AllocateAddress', invoice_uuid: 'i3'.padEnd(32, '0') }, two, ctx())).code).toBe('RULE_VIOLATION');
    expect(refusal(() => walletDecider.decide({ kind: 'AddAddresses', expected_version: 2, addresses: [A1], by_profile_uuid: CREATOR }, two, ctx())).code).toBe('RULE_VIOLATION');
  });
  it('a retired wallet hands out nothing', () => {
    const s = given(walletDecider, [[{ kind: 'RegisterWallet', wallet, addresses: [A1] }], [{ kind: 'RetireWallet', expected_version: 0, by_profile_uuid: CREATOR }]]);
    expect(s.status).toBe('RETIRED');
    expect(refusal(() => walletDecider.decide({ kind: 'AllocateAddress', invoice_uuid: 'i1'.padEnd(32, '0') }, s, ctx())).code).toBe('RULE_VIOLATION');
    expect(refusal(() => walletDecider.decide({ kind: 'RetireWallet', expected_version: 1, by_profile_uuid: CREATOR }, s, ctx())).code).toBe('STATE_CONFLICT');
  });
});

describe('settlement intents', () => {
  const DEST = `0x${'d'.repeat(40)}`;
  const intent = (id: string, amount: string): SettlementIntentCore => ({
    settlement_intent_uuid: id.padEnd(32, '0'), merchant_uuid: merchant.merchant_uuid, workspace_uuid: merchant.workspace_uuid, tenant_uuid: merchant.tenant_uuid,
    network_id: 'ethereum-mainnet', asset: 'USDC', amount, destination: DEST, requested_by_profile_uuid: CREATOR, created: NOW.toISOString(),
  });
  const request = (id: string, amount: string, credited = '100'): [SettlementCommand] => [{ kind: 'RequestSettlement', intent: intent(id, amount), credited }];

  it('reserves what it requests: two intents never spend the same balance', () => {
    const s = given(settlementDecider, [request('1', '60')]);
    expect(s.reserved).toBe(parseMoney('USDC', '60', 'a'));
    const refused = refusal(() => settlementDecider.decide(request('2', '50')[0], s, ctx()));
    expect(refused.code).toBe('RULE_VIOLATION');
    expect(JSON.stringify(refused.details)).toContain('available 40.000000 USDC');
    expect(settlementDecider.decide(request('2', '40')[0], s, ctx())).toHaveLength(1);
  });

  it('request_commitment is SHA-256 of the JCS core with the revision, and changes on every revision', () => {
    const [requested] = settlementDecider.decide(request('1', '10')[0], settlementDecider.initialState(), ctx());
    const core = { merchant_uuid: merchant.merchant_uuid, network_id: 'ethereum-mainnet', asset: 'USDC', amount: '10.000000', destination: DEST };
    expect(requested.data).toMatchObject({ revision: 0, request_commitment: sha256Hex(canonicalJson({ ...core, revision: 0 })) });
    const s = given(settlementDecider, [request('1', '10'), [{ kind: 'TreasuryUpdate', settlement_intent_uuid: '1'.padEnd(32, '0'), transition: 'approve', by_profile_uuid: REVIEWER, transaction_reference: null, failure_code: null }]]);
    const entry = s.intents['1'.padEnd(32, '0')];
    expect([entry.state, entry.revision, entry.request_commitment]).toEqual(['APPROVED', 1, requestCommitment(core, 1)]);
  });

  it('cancel: the same network, the latest commitment (409 otherwise), only REQUESTED or APPROVED; releases the reservation', () => {
    const id = '1'.padEnd(32, '0');
    const s = given(settlementDecider, [request('1', '60')]);
    const latest = s.intents[id].request_commitment;
    const cancel = (network_id: string, expected: string): SettlementCommand => ({ kind: 'CancelSettlement', settlement_intent_uuid: id, network_id, expected_request_commitment: expected, by_profile_uuid: CREATOR });
    expect(refusal(() => settlementDecider.decide(cancel('polygon-mainnet', latest), s, ctx())).code).toBe('STATE_CONFLICT');
    expect(refusal(() => settlementDecider.decide(cancel('ethereum-mainnet', 'f'.repeat(64)), s, ctx())).code).toBe('STATE_CONFLICT');
    const cancelled = given(settlementDecider, [request('1', '60'), [cancel('ethereum-mainnet', latest)]]);
    expect([cancelled.intents[id].state, cancelled.reserved]).toEqual(['CANCELLED', 0n]);
    expect(settlementDecider.decide(request('2', '100')[0], cancelled, ctx())).toHaveLength(1);
  });

  it('a confirmed intent is paid out (still not available again); a failed one is released', () => {
    const id = '1'.padEnd(32, '0');
    const treasury = (transition: 'approve' | 'submit' | 'confirm' | 'fail'): [SettlementCommand] => [{ kind: 'TreasuryUpdate', settlement_intent_uuid: id, transition, by_profile_uuid: REVIEWER, transaction_reference: transition === 'submit' ? '0xtx' : null, failure_code: null }];
    const confirmed = given(settlementDecider, [request('1', '60'), treasury('approve'), treasury('submit'), treasury('confirm')]);
    expect([confirmed.reserved, confirmed.disbursed, confirmed.intents[id].transaction_reference]).toEqual([0n, parseMoney('USDC', '60', 'a'), '0xtx']);
    expect(refusal(() => settlementDecider.decide(request('2', '41')[0], confirmed, ctx())).code).toBe('RULE_VIOLATION');
    const failed = given(settlementDecider, [request('1', '60'), treasury('approve'), treasury('fail')]);
    expect([failed.intents[id].state, failed.intents[id].failure_code, failed.reserved]).toEqual(['FAILED', 'RAIL_FAILED', 0n]);
    expect(refusal(() => settlementDecider.decide(treasury('confirm')[0], failed, ctx())).code).toBe('STATE_CONFLICT');
  });

  it('the network must carry the asset and the destination must be its address', () => {
    expect(refusal(() => settlementDecider.decide({ kind: 'RequestSettlement', intent: { ...intent('1', '1'), network_id: 'bitcoin-mainnet' }, credited: '10' }, settlementDecider.initialState(), ctx())).code).toBe('RULE_VIOLATION');
    expect(refusal(() => settlementDecider.decide({ kind: 'RequestSettlement', intent: { ...intent('1', '1'), destination: 'not-an-address' }, credited: '10' }, settlementDecider.initialState(), ctx())).code).toBe('RULE_VIOLATION');
  });
});
