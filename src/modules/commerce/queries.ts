/**
 * The commerce reads, from the commerce read models: each record as a CommerceDocument (the record plus `actions`),
 * and the lists of the seeds' CommerceQuery, keyset-paged with the platform's one helper. Lists are scoped to the
 * caller's active workspace (CommerceQuery has no workspace field) and a cursor is valid only for the workspace and
 * the filters it was issued for. Each list takes the filters that apply to it; any other is a 400 that says so.
 */
import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CLOCK, type Clock } from '../../platform/clock';
import { ValidationFailed } from '../../platform/errors';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { containsPattern, recordPage } from '../../platform/read-model/json-records';
import { MERCHANTS, type MerchantRecord } from '../../../projections/commerce-merchants/commerce-merchants.read-model';
import { PRODUCTS, type ProductRecord } from '../../../projections/commerce-products/commerce-products.read-model';
import { INVOICES, invoiceRecord, PAYMENTS, paymentRecord, type InvoiceRecord, type PaymentRecord } from '../../../projections/commerce-invoices/commerce-invoices.read-model';
import { WALLETS, type WalletRecord } from '../../../projections/commerce-wallets/commerce-wallets.read-model';
import { SETTLEMENT_INTENTS, settlementRecord, type SettlementIntentRecord } from '../../../projections/commerce-settlements/commerce-settlements.read-model';
import { invoiceActions, merchantActions, paymentActions, productActions, settlementActions, walletActions, type CommerceAction } from './domain/actions';
import { INVOICE_STATUSES, InvoiceNotFound, PAYMENT_STATES, PaymentNotFound } from './domain/invoice-records';
import { MERCHANT_STATUSES, MerchantNotFound } from './domain/merchant';
import { PRODUCT_STATUSES, ProductNotFound } from './domain/product';
import { SETTLEMENT_STATES, SettlementIntentNotFound } from './domain/settlement';
import { WALLET_STATUSES, WalletNotFound } from './domain/wallet';
import { CommerceAccess } from './commerce-access';
import { COMMERCE_PAGE, type CommerceQuery } from './dto/commerce.dto';

export type Document<R> = R & { actions: CommerceAction[] };
export interface DocumentPage<R> {
  items: Array<Document<R>>;
  limit: number;
  next_cursor?: string;
}

export const merchantView = (r: MerchantRecord): Document<MerchantRecord> => ({ ...r, actions: merchantActions(r) });
export const productView = (r: ProductRecord): Document<ProductRecord> => ({ ...r, actions: productActions(r) });
// Invoices, payments and settlement intents: the record as their read model publishes it to Kafka (less what a topic
// may not carry), so the API and the topics show the same members.
export const invoiceView = (r: InvoiceRecord, now: Date): Document<InvoiceRecord> => ({ ...invoiceRecord(r), actions: invoiceActions({ ...r, expired: now.getTime() >= Date.parse(r.expires_at) }) });
export const paymentView = (r: PaymentRecord): Document<PaymentRecord> => ({ ...paymentRecord(r), actions: paymentActions(r) });
export const walletView = (r: WalletRecord): Document<WalletRecord> => ({ ...r, actions: walletActions(r) });
export const settlementView = (r: SettlementIntentRecord): Document<SettlementIntentRecord> => ({ ...settlementRecord(r), actions: settlementActions(r) });

type Filter = keyof CommerceQuery;
const PAGING: Filter[] = ['cursor', 'limit'];

/** The filters a list takes; any other present is a 400 naming it. */
function onlyFilters(query: CommerceQuery, list: string, allowed: Filter[]): void {
  for (const [field, value] of Object.entries(query)) {
    if (value !== undefined && !PAGING.includes(field as Filter) && !allowed.includes(field as Filter)) {
      throw new ValidationFailed(`${field} is not a filter of ${list}.`, [{ field, issue: `not a filter of ${list} (takes ${allowed.join(', ') || 'none'})` }]);
    }
  }
}

function statusOf(query: CommerceQuery, list: string, statuses: readonly string[]): string | undefined {
  if (query.status !== undefined && !statuses.includes(query.status)) {
    throw new ValidationFailed(`Invalid status for ${list}.`, [{ field: 'status', issue: `must be one of ${statuses.join(', ')}` }]);
  }
  return query.status;
}

function required<K extends Filter>(query: CommerceQuery, field: K, list: string): NonNullable<CommerceQuery[K]> {
  const value = query[field];
  if (value === undefined) throw new ValidationFailed(`${field} is required for ${list}.`, [{ field, issue: `required for ${list}` }]);
  return value as NonNullable<CommerceQuery[K]>;
}


/**
 * One keyset page of a commerce table: rows of `where` (parameterized), newest first by the creating event's position.
 * The cursor's scope is the workspace, the list and its filters.
 */
export async function page<R>(db: ReadModelDatabase, table: string, where: Array<[string, unknown]>, query: { limit?: string; cursor?: string }, scope: string, view: (r: R) => Document<R>): Promise<DocumentPage<R>> {
  const { records, ...rest } = await recordPage<R>(db, table, where, query, COMMERCE_PAGE, scope);
  return { items: records.map(view), ...rest };
}

const scopeOf = (workspace: string, list: string, query: CommerceQuery): string =>
  JSON.stringify([workspace, list, ...(['external_order_reference', 'merchant_uuid', 'network_id', 'q', 'status', 'wallet_type'] as const).map((k) => query[k] ?? null)]);

// ---------------------------------------------------------------------------------------------------------------
// Merchants

export class GetMerchant {
  constructor(readonly principal: Principal, readonly merchant_uuid: string) {}
}

@QueryHandler(GetMerchant)
export class GetMerchantHandler implements IQueryHandler<GetMerchant> {
  constructor(private readonly access: CommerceAccess) {}

  /** Members of the merchant's workspace read it; so do reviewers of its tenant (they decide on it). */
  async execute({ principal, merchant_uuid }: GetMerchant): Promise<Document<MerchantRecord>> {
    const record = await this.access.find(MERCHANTS, merchant_uuid);
    if (!record) throw new MerchantNotFound();
    if (!(await this.access.isReviewer(principal, record.tenant_uuid))) await this.access.record(principal, MERCHANTS, merchant_uuid, 'read', () => new MerchantNotFound());
    return merchantView(record);
  }
}

export class ListMerchants {
  constructor(readonly principal: Principal, readonly query: CommerceQuery) {}
}

@QueryHandler(ListMerchants)
export class ListMerchantsHandler implements IQueryHandler<ListMerchants> {
  constructor(private readonly access: CommerceAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, query }: ListMerchants): Promise<DocumentPage<MerchantRecord>> {
    onlyFilters(query, 'merchants', ['q', 'status']);
    const status = statusOf(query, 'merchants', MERCHANT_STATUSES);
    const workspace = await this.access.workspace(principal, undefined, 'read');
    const where: Array<[string, unknown]> = [['workspace_uuid = ?', workspace.workspace_id]];
    if (status) where.push(['status = ?', status]);
    if (query.q) where.push([`search_text LIKE ? ESCAPE '\\'`, containsPattern(query.q)]);
    return page<MerchantRecord>(this.db, 'commerce_merchants', where, query, scopeOf(workspace.workspace_id, 'merchants', query), merchantView);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Products

export class GetProduct {
  constructor(readonly principal: Principal, readonly merchant_uuid: string, readonly product_uuid: string) {}
}

@QueryHandler(GetProduct)
export class GetProductHandler implements IQueryHandler<GetProduct> {
  constructor(private readonly access: CommerceAccess) {}

  async execute({ principal, merchant_uuid, product_uuid }: GetProduct): Promise<Document<ProductRecord>> {
    const { record } = await this.access.record(principal, PRODUCTS, product_uuid, 'read', () => new ProductNotFound());
    if (record.merchant_uuid !== merchant_uuid) throw new ProductNotFound();
    return productView(record);
  }
}

export class ListProducts {
  constructor(readonly principal: Principal, readonly merchant_uuid: string, readonly query: CommerceQuery) {}
}

@QueryHandler(ListProducts)
export class ListProductsHandler implements IQueryHandler<ListProducts> {
  constructor(private readonly access: CommerceAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, merchant_uuid, query }: ListProducts): Promise<DocumentPage<ProductRecord>> {
    onlyFilters(query, 'products', ['q', 'status', 'merchant_uuid']);
    if (query.merchant_uuid !== undefined && query.merchant_uuid !== merchant_uuid) {
      throw new ValidationFailed('merchant_uuid differs from the merchant of the path.', [{ field: 'merchant_uuid', issue: 'must equal the path\'s merchant' }]);
    }
    const status = statusOf(query, 'products', PRODUCT_STATUSES);
    const { record: merchant } = await this.access.record(principal, MERCHANTS, merchant_uuid, 'read', () => new MerchantNotFound());
    const where: Array<[string, unknown]> = [['merchant_uuid = ?', merchant_uuid]];
    if (status) where.push(['status = ?', status]);
    if (query.q) where.push([`search_text LIKE ? ESCAPE '\\'`, containsPattern(query.q)]);
    return page<ProductRecord>(this.db, 'commerce_products', where, query, scopeOf(merchant.workspace_uuid, 'products', { ...query, merchant_uuid }), productView);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Invoices and payments

export class GetInvoice {
  constructor(readonly principal: Principal, readonly invoice_uuid: string) {}
}

@QueryHandler(GetInvoice)
export class GetInvoiceHandler implements IQueryHandler<GetInvoice> {
  constructor(private readonly access: CommerceAccess, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, invoice_uuid }: GetInvoice): Promise<Document<InvoiceRecord>> {
    const { record } = await this.access.record(principal, INVOICES, invoice_uuid, 'read', () => new InvoiceNotFound());
    return invoiceView(record, this.clock());
  }
}

export class ListInvoices {
  constructor(readonly principal: Principal, readonly query: CommerceQuery) {}
}

@QueryHandler(ListInvoices)
export class ListInvoicesHandler implements IQueryHandler<ListInvoices> {
  constructor(private readonly access: CommerceAccess, private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, query }: ListInvoices): Promise<DocumentPage<InvoiceRecord>> {
    onlyFilters(query, 'invoices', ['merchant_uuid', 'external_order_reference', 'status']);
    const merchant_uuid = required(query, 'merchant_uuid', 'invoices');
    const status = statusOf(query, 'invoices', INVOICE_STATUSES);
    const { record: merchant } = await this.access.record(principal, MERCHANTS, merchant_uuid, 'read', () => new MerchantNotFound());
    const where: Array<[string, unknown]> = [['merchant_uuid = ?', merchant_uuid]];
    if (status) where.push(['status = ?', status]);
    if (query.external_order_reference !== undefined) where.push(['external_order_reference = ?', query.external_order_reference]);
    const now = this.clock();
    return page<InvoiceRecord>(this.db, 'commerce_invoices', where, query, scopeOf(merchant.workspace_uuid, 'invoices', query), (r) => invoiceView(r, now));
  }
}

export class GetPayment {
  constructor(readonly principal: Principal, readonly payment_uuid: string) {}
}

@QueryHandler(GetPayment)
export class GetPaymentHandler implements IQueryHandler<GetPayment> {
  constructor(private readonly access: CommerceAccess) {}

  async execute({ principal, payment_uuid }: GetPayment): Promise<Document<PaymentRecord>> {
    const { record } = await this.access.record(principal, PAYMENTS, payment_uuid, 'read', () => new PaymentNotFound());
    return paymentView(record);
  }
}

export class ListPayments {
  constructor(readonly principal: Principal, readonly query: CommerceQuery) {}
}

@QueryHandler(ListPayments)
export class ListPaymentsHandler implements IQueryHandler<ListPayments> {
  constructor(private readonly access: CommerceAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, query }: ListPayments): Promise<DocumentPage<PaymentRecord>> {
    onlyFilters(query, 'payments', ['merchant_uuid', 'status']);
    const status = statusOf(query, 'payments', PAYMENT_STATES);
    const workspace = await this.access.workspace(principal, undefined, 'read');
    const where: Array<[string, unknown]> = [['workspace_uuid = ?', workspace.workspace_id]];
    if (query.merchant_uuid) where.push(['merchant_uuid = ?', query.merchant_uuid]);
    if (status) where.push(['state = ?', status]);
    return page<PaymentRecord>(this.db, 'commerce_payments', where, query, scopeOf(workspace.workspace_id, 'payments', query), paymentView);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Wallets

export class GetWallet {
  constructor(readonly principal: Principal, readonly wallet_uuid: string) {}
}

@QueryHandler(GetWallet)
export class GetWalletHandler implements IQueryHandler<GetWallet> {
  constructor(private readonly access: CommerceAccess) {}

  async execute({ principal, wallet_uuid }: GetWallet): Promise<Document<WalletRecord>> {
    const { record } = await this.access.record(principal, WALLETS, wallet_uuid, 'read', () => new WalletNotFound());
    return walletView(record);
  }
}

export class ListWallets {
  constructor(readonly principal: Principal, readonly query: CommerceQuery) {}
}

/** Operational wallets of the active workspace on a network; rotational wallets of a merchant on a network. */
@QueryHandler(ListWallets)
export class ListWalletsHandler implements IQueryHandler<ListWallets> {
  constructor(private readonly access: CommerceAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, query }: ListWallets): Promise<DocumentPage<WalletRecord>> {
    onlyFilters(query, 'wallets', ['wallet_type', 'network_id', 'merchant_uuid', 'status']);
    const network_id = required(query, 'network_id', 'wallets');
    const status = statusOf(query, 'wallets', WALLET_STATUSES);
    const rotational = query.wallet_type === 'ROTATIONAL' || (query.wallet_type === undefined && query.merchant_uuid !== undefined);
    const where: Array<[string, unknown]> = [['network_id = ?', network_id]];
    let workspace: string;
    if (rotational) {
      const merchant_uuid = required(query, 'merchant_uuid', 'rotational wallets');
      workspace = (await this.access.record(principal, MERCHANTS, merchant_uuid, 'read', () => new MerchantNotFound())).record.workspace_uuid;
      where.push(['merchant_uuid = ?', merchant_uuid], ['wallet_type = ?', 'ROTATIONAL']);
    } else {
      if (query.merchant_uuid !== undefined) throw new ValidationFailed('Operational wallets belong to the workspace, not a merchant.', [{ field: 'merchant_uuid', issue: 'not a filter of operational wallets' }]);
      workspace = (await this.access.workspace(principal, undefined, 'read')).workspace_id;
      where.push(['workspace_uuid = ?', workspace], ['wallet_type = ?', 'OPERATIONAL']);
    }
    if (status) where.push(['status = ?', status]);
    return page<WalletRecord>(this.db, 'commerce_wallets', where, query, scopeOf(workspace, 'wallets', { ...query, wallet_type: rotational ? 'ROTATIONAL' : 'OPERATIONAL' }), walletView);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Settlement intents

export class GetSettlementIntent {
  constructor(readonly principal: Principal, readonly settlement_intent_uuid: string) {}
}

@QueryHandler(GetSettlementIntent)
export class GetSettlementIntentHandler implements IQueryHandler<GetSettlementIntent> {
  constructor(private readonly access: CommerceAccess) {}

  async execute({ principal, settlement_intent_uuid }: GetSettlementIntent): Promise<Document<SettlementIntentRecord>> {
    const { record } = await this.access.record(principal, SETTLEMENT_INTENTS, settlement_intent_uuid, 'read', () => new SettlementIntentNotFound());
    return settlementView(record);
  }
}

export class ListSettlementIntents {
  constructor(readonly principal: Principal, readonly query: CommerceQuery) {}
}

@QueryHandler(ListSettlementIntents)
export class ListSettlementIntentsHandler implements IQueryHandler<ListSettlementIntents> {
  constructor(private readonly access: CommerceAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, query }: ListSettlementIntents): Promise<DocumentPage<SettlementIntentRecord>> {
    onlyFilters(query, 'settlement intents', ['merchant_uuid', 'network_id', 'status']);
    const status = statusOf(query, 'settlement intents', SETTLEMENT_STATES);
    const workspace = await this.access.workspace(principal, undefined, 'read');
    const where: Array<[string, unknown]> = [['workspace_uuid = ?', workspace.workspace_id]];
    if (query.merchant_uuid) where.push(['merchant_uuid = ?', query.merchant_uuid]);
    if (query.network_id) where.push(['network_id = ?', query.network_id]);
    if (status) where.push(['state = ?', status]);
    return page<SettlementIntentRecord>(this.db, 'commerce_settlement_intents', where, query, scopeOf(workspace.workspace_id, 'settlement intents', query), settlementView);
  }
}

/** What a merchant has been settled in an asset (the exact sum of its SETTLED payments), "0" when nothing. */
export async function settledTotal(db: ReadModelDatabase, merchant_uuid: string, asset: string): Promise<string> {
  const rows: Array<{ settled: string }> = await db.reader.query(db.sql('SELECT settled FROM commerce_settled_totals WHERE merchant_uuid = ? AND asset = ?'), [merchant_uuid, asset]);
  return rows[0]?.settled ?? '0';
}


