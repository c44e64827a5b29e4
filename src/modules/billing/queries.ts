/**
 * Billing reads, from the billing read models: the account (as the seeds' BillingAccount), the catalogue, a period's
 * usage with its reconciliation, subscriptions, top-ups and adjustments. The account is the caller's by default: their
 * session tenant's, in the global tenant their own (billing-access.ts). An account that has not been used yet has no
 * stream: it is shown as it will open (the free allowance of the current period).
 */
import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CLOCK, type Clock } from '../../platform/clock';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { formatPlain, parseDecimal } from '../../platform/decimal/fixed18';
import { PlatformError } from '../../platform/errors';
import { readRecord } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { ACCOUNTS, ADJUSTMENTS, TOPUPS, type AdjustmentRecord, type TopupRecord } from '../../../projections/billing-accounts/billing-accounts.read-model';
import { BILLING_PRODUCTS, type ProductRecord } from '../../../projections/billing-products/billing-products.read-model';
import { billingAccountDecider, periodOf, TopupNotFound, type BillingAccountState, type BillingPeriod } from './domain/account';
import { accountView, loadState, type BillingAccountView } from './domain/account-view';
import type { BillingProduct } from './domain/catalog';
import { BillingAccess, type BillingAccountRef, type BillingScope } from './billing-access';
import type { BillingListQuery, BillingUsageQuery } from './dto/billing.dto';

/** The account's state as the read model has it, or as it would open now. */
async function accountState(db: ReadModelDatabase, config: PlatformConfig, clock: Clock, { key, tenant_uuid, profile_uuid }: BillingAccountRef): Promise<BillingAccountState> {
  const row = await readRecord(db.reader.manager, ACCOUNTS, key);
  if (row) return loadState(row.state);
  let state = billingAccountDecider.initialState();
  for (const e of billingAccountDecider.decide({ kind: 'OpenAccount', tenant_uuid, profile_uuid, currency: config.billingCurrency, free_allowance: config.billingFreeAllowanceCredits }, state, { now: clock(), newId: () => '' })) {
    state = billingAccountDecider.evolve(state, e);
  }
  return { ...state, version: -1 };
}

/** A period's reconciliation numbers: billable events the rater examined, usage on the account. */
async function usageOf(db: ReadModelDatabase, account_key: string, period: BillingPeriod): Promise<{ credits: string; posted: number; checked: number }> {
  const [usage]: Array<{ credits: string; events: string | number }> = await db.reader.query(db.sql('SELECT credits, events FROM billing_usage_periods WHERE account_key = ? AND period_started_at = ?'), [account_key, period.started_at]);
  const [checks]: Array<{ checked: string | number }> = await db.reader.query(db.sql('SELECT checked FROM billing_rating_checks WHERE account_key = ? AND period_started_at = ?'), [account_key, period.started_at]);
  return { credits: usage ? formatPlain(parseDecimal(usage.credits)) : '0', posted: Number(usage?.events ?? 0), checked: Number(checks?.checked ?? 0) };
}

/** A period's usage per source type (the rated usage's source_type), sorted by source_type. */
async function usageBySourceOf(db: ReadModelDatabase, account_key: string, period: BillingPeriod): Promise<Array<{ source_type: string; credits: string; usage_events: number }>> {
  const rows: Array<{ source_type: string; credits: string; events: string | number }> = await db.reader.query(
    db.sql('SELECT source_type, credits, events FROM billing_usage_by_source WHERE account_key = ? AND period_started_at = ?'),
    [account_key, period.started_at],
  );
  return rows
    .map((r) => ({ source_type: r.source_type, credits: formatPlain(parseDecimal(r.credits)), usage_events: Number(r.events) }))
    .sort((a, b) => (a.source_type < b.source_type ? -1 : a.source_type > b.source_type ? 1 : 0));
}

export class GetBillingAccount {
  constructor(readonly principal: Principal, readonly scope: BillingScope) {}
}

@QueryHandler(GetBillingAccount)
export class GetBillingAccountHandler implements IQueryHandler<GetBillingAccount, BillingAccountView> {
  constructor(private readonly db: ReadModelDatabase, private readonly access: BillingAccess, @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, scope }: GetBillingAccount): Promise<BillingAccountView> {
    const account = await this.access.account(principal, scope, 'read');
    const state = await accountState(this.db, this.config, this.clock, account);
    const { checked } = await usageOf(this.db, account.key, state.period);
    return accountView(state, this.clock().toISOString(), checked);
  }
}

export class GetBillingUsage {
  constructor(readonly principal: Principal, readonly query: BillingUsageQuery) {}
}

@QueryHandler(GetBillingUsage)
export class GetBillingUsageHandler implements IQueryHandler<GetBillingUsage> {
  constructor(private readonly db: ReadModelDatabase, private readonly access: BillingAccess, @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, query }: GetBillingUsage): Promise<object> {
    const account = await this.access.account(principal, query, 'read');
    const period = query.period ? periodOf(`${query.period}-01T00:00:00.000Z`) : (await accountState(this.db, this.config, this.clock, account)).period;
    const { credits, posted, checked } = await usageOf(this.db, account.key, period);
    const pending = Math.max(0, checked - posted);
    const by_source = await usageBySourceOf(this.db, account.key, period);
    return { period, rated_usage_credits: credits, usage_events: posted, pending_usage_events: pending, reconciliation: { mode: 'INGEST_TIME', checked, posted, pending }, by_source };
  }
}

const productView = ({ retired: _retired, ...p }: ProductRecord): BillingProduct => p;

export class GetBillingCatalog {}

@QueryHandler(GetBillingCatalog)
export class GetBillingCatalogHandler implements IQueryHandler<GetBillingCatalog> {
  constructor(private readonly db: ReadModelDatabase, @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  async execute(): Promise<object> {
    const rows: Array<{ record: string }> = await this.db.reader.query(this.db.sql("SELECT record FROM billing_products WHERE retired = 'false' ORDER BY position"), []);
    const products = rows.map((r) => productView(JSON.parse(r.record) as ProductRecord));
    return {
      plans: products.filter((p) => p.product_type === 'PLAN'),
      topups: products.filter((p) => p.product_type === 'TOPUP'),
      free_allowance_credits: formatPlain(parseDecimal(this.config.billingFreeAllowanceCredits)),
      currency: this.config.billingCurrency,
    };
  }
}

export class GetBillingProduct {
  constructor(readonly code: string) {}
}

@QueryHandler(GetBillingProduct)
export class GetBillingProductHandler implements IQueryHandler<GetBillingProduct> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ code }: GetBillingProduct): Promise<BillingProduct> {
    const record = await readRecord(this.db.reader.manager, BILLING_PRODUCTS, code);
    if (!record) throw new PlatformError('NOT_FOUND', `No product ${code}.`);
    return productView(record);
  }
}

export class ListBillingSubscriptions {
  constructor(readonly principal: Principal, readonly scope: BillingScope) {}
}

@QueryHandler(ListBillingSubscriptions)
export class ListBillingSubscriptionsHandler implements IQueryHandler<ListBillingSubscriptions> {
  constructor(private readonly db: ReadModelDatabase, private readonly access: BillingAccess, @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, scope }: ListBillingSubscriptions): Promise<object> {
    const account = await this.access.account(principal, scope, 'read');
    const view = accountView(await accountState(this.db, this.config, this.clock, account), this.clock().toISOString(), 0);
    return { account_id: view.account_id, items: view.subscriptions };
  }
}

export class GetBillingSubscription {
  constructor(readonly principal: Principal, readonly scope: BillingScope, readonly product_code: string) {}
}

@QueryHandler(GetBillingSubscription)
export class GetBillingSubscriptionHandler implements IQueryHandler<GetBillingSubscription> {
  constructor(private readonly db: ReadModelDatabase, private readonly access: BillingAccess, @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, scope, product_code }: GetBillingSubscription): Promise<object> {
    const account = await this.access.account(principal, scope, 'read');
    const view = accountView(await accountState(this.db, this.config, this.clock, account), this.clock().toISOString(), 0);
    const sub = view.subscriptions.find((s) => s.product_code === product_code);
    if (!sub) throw new PlatformError('NOT_FOUND', `No subscription to ${product_code}.`);
    return sub;
  }
}

export class GetBillingTopup {
  constructor(readonly principal: Principal, readonly topup_id: string) {}
}

@QueryHandler(GetBillingTopup)
export class GetBillingTopupHandler implements IQueryHandler<GetBillingTopup> {
  constructor(private readonly access: BillingAccess) {}

  execute({ principal, topup_id }: GetBillingTopup): Promise<TopupRecord> {
    return this.access.record(principal, TOPUPS, topup_id, () => new TopupNotFound());
  }
}

export class ListBillingTopups {
  constructor(readonly principal: Principal, readonly query: BillingListQuery) {}
}

@QueryHandler(ListBillingTopups)
export class ListBillingTopupsHandler implements IQueryHandler<ListBillingTopups> {
  constructor(private readonly access: BillingAccess) {}

  execute({ principal, query }: ListBillingTopups): Promise<object> {
    return this.access.page(principal, TOPUPS, query);
  }
}

export class GetBillingAdjustment {
  constructor(readonly principal: Principal, readonly adjustment_id: string) {}
}

@QueryHandler(GetBillingAdjustment)
export class GetBillingAdjustmentHandler implements IQueryHandler<GetBillingAdjustment> {
  constructor(private readonly access: BillingAccess) {}

  execute({ principal, adjustment_id }: GetBillingAdjustment): Promise<AdjustmentRecord> {
    return this.access.record(principal, ADJUSTMENTS, adjustment_id, () => new PlatformError('NOT_FOUND', 'No such adjustment.'));
  }
}

export class ListBillingAdjustments {
  constructor(readonly principal: Principal, readonly query: BillingListQuery) {}
}

@QueryHandler(ListBillingAdjustments)
export class ListBillingAdjustmentsHandler implements IQueryHandler<ListBillingAdjustments> {
  constructor(private readonly access: BillingAccess) {}

  execute({ principal, query }: ListBillingAdjustments): Promise<object> {
    return this.access.page(principal, ADJUSTMENTS, query);
  }
}
