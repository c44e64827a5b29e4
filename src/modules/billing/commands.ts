/**
 * Billing commands: the catalogue (platform admins), subscriptions, top-ups and their rail reports, adjustments.
 * Each decides on its stream (the catalogue's, or the account's: a tenant's, or in the global tenant one person's,
 * opened with the free allowance on first use).
 */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CLOCK, type Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/command/command-executor';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { nextId } from '../../platform/context/request-context';
import { PlatformError, StateConflict, ValidationFailed } from '../../platform/errors';
import { readRecord } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { BILLING_PRODUCTS, type ProductRecord } from '../../../projections/billing-products/billing-products.read-model';
import { TOPUPS } from '../../../projections/billing-accounts/billing-accounts.read-model';
import { accountStream, billingAccountDecider, TopupNotFound, type BillingCommand, type RailOutcome } from './domain/account';
import { CATALOG_STREAM, catalogDecider, type BillingProduct, type ProductType } from './domain/catalog';
import { BillingAccess, recordAccount, type BillingAccountRef, type BillingScope } from './billing-access';
import type { BillingAdjustmentRequest, DefineBillingProductRequest, RequestBillingTopupRequest, StartBillingSubscriptionRequest, BillingTopupRailReport } from './dto/billing.dto';
import { BILLING_PAYMENT_RAIL, type BillingPaymentRail } from './rail';

export interface Created {
  id: string;
}

/** Runs a command on the account, opening it first (with the free allowance) when it is not yet. */
async function onAccount(commands: CommandExecutor, config: PlatformConfig, { key, tenant_uuid, profile_uuid }: BillingAccountRef, command: BillingCommand): Promise<void> {
  const stream = accountStream(key);
  await commands.execute(stream, billingAccountDecider, { kind: 'OpenAccount', tenant_uuid, profile_uuid, currency: config.billingCurrency, free_allowance: config.billingFreeAllowanceCredits });
  await commands.execute(stream, billingAccountDecider, command);
}

class ProductNotOnSale extends PlatformError {
  constructor(code: string) {
    super('NOT_FOUND', `No product ${code} on sale.`);
  }
}

/** The product on sale with this code and type (404 when there is none, 409 when it is of the other type). */
async function productOnSale(db: ReadModelDatabase, code: string, type: ProductType): Promise<ProductRecord> {
  const product = await readRecord(db.reader.manager, BILLING_PRODUCTS, code);
  if (!product || product.retired) throw new ProductNotOnSale(code);
  if (product.product_type !== type) throw new StateConflict(`${code} is a ${product.product_type}, not a ${type}.`, { details: [{ field: 'product_code', issue: `a ${product.product_type}` }] });
  return product;
}

export class DefineBillingProduct {
  constructor(readonly principal: Principal, readonly body: DefineBillingProductRequest) {}
}

@CommandHandler(DefineBillingProduct)
export class DefineBillingProductHandler implements ICommandHandler<DefineBillingProduct, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: BillingAccess, @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  async execute({ principal, body }: DefineBillingProduct): Promise<Created> {
    this.access.requirePlatformAdmin(principal);
    if ((body.product_type === 'PLAN') !== (body.interval !== undefined)) {
      throw new ValidationFailed('A PLAN has an interval; a TOPUP has none.', [{ field: 'interval', issue: body.product_type === 'PLAN' ? 'required for a PLAN' : 'absent for a TOPUP' }]);
    }
    if (body.currency !== this.config.billingCurrency) throw new ValidationFailed(`The catalogue is priced in ${this.config.billingCurrency}.`, [{ field: 'currency', issue: `must be ${this.config.billingCurrency}` }]);
    const product: BillingProduct = {
      product_id: nextId(), code: body.code, name: body.name, description: body.description, product_type: body.product_type as ProductType, amount_minor: body.amount_minor, currency: body.currency,
      credit_units: body.credit_units, ...(body.interval !== undefined ? { interval: body.interval } : {}),
    };
    await this.commands.execute(CATALOG_STREAM, catalogDecider, { kind: 'DefineProduct', product, by_profile_uuid: principal.profile_uuid });
    return { id: body.code };
  }
}

export class RetireBillingProduct {
  constructor(readonly principal: Principal, readonly code: string) {}
}

@CommandHandler(RetireBillingProduct)
export class RetireBillingProductHandler implements ICommandHandler<RetireBillingProduct, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: BillingAccess) {}

  async execute({ principal, code }: RetireBillingProduct): Promise<Created> {
    this.access.requirePlatformAdmin(principal);
    await this.commands.execute(CATALOG_STREAM, catalogDecider, { kind: 'RetireProduct', code, by_profile_uuid: principal.profile_uuid });
    return { id: code };
  }
}

export class StartSubscription {
  constructor(readonly principal: Principal, readonly body: StartBillingSubscriptionRequest) {}
}

@CommandHandler(StartSubscription)
export class StartSubscriptionHandler implements ICommandHandler<StartSubscription, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: BillingAccess, private readonly db: ReadModelDatabase, @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  async execute({ principal, body }: StartSubscription): Promise<Created> {
    const account = await this.access.account(principal, body, 'manage');
    const plan = await productOnSale(this.db, body.product_code, 'PLAN');
    await onAccount(this.commands, this.config, account, { kind: 'StartSubscription', product_code: plan.code, credit_units: plan.credit_units, trial: body.trial ?? false });
    return { id: plan.code };
  }
}

export class CancelSubscription {
  constructor(readonly principal: Principal, readonly product_code: string, readonly scope: BillingScope) {}
}

@CommandHandler(CancelSubscription)
export class CancelSubscriptionHandler implements ICommandHandler<CancelSubscription, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: BillingAccess, @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig) {}

  async execute({ principal, product_code, scope }: CancelSubscription): Promise<Created> {
    const account = await this.access.account(principal, scope, 'manage');
    await onAccount(this.commands, this.config, account, { kind: 'CancelSubscription', product_code });
    return { id: product_code };
  }
}

export class RequestTopup {
  constructor(readonly principal: Principal, readonly body: RequestBillingTopupRequest) {}
}

@CommandHandler(RequestTopup)
export class RequestTopupHandler implements ICommandHandler<RequestTopup, Created> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly access: BillingAccess,
    private readonly db: ReadModelDatabase,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(BILLING_PAYMENT_RAIL) private readonly rail: BillingPaymentRail,
  ) {}

  async execute({ principal, body }: RequestTopup): Promise<Created> {
    const account = await this.access.account(principal, body, 'manage');
    const product = await productOnSale(this.db, body.product_code, 'TOPUP');
    const topup = { topup_id: nextId(), product_code: product.code, credit_units: product.credit_units, amount_minor: product.amount_minor, currency: product.currency, by_profile_uuid: principal.profile_uuid };
    await onAccount(this.commands, this.config, account, { kind: 'RequestTopup', topup });
    await this.rail.topupRequested({ ...topup, tenant_uuid: account.tenant_uuid });
    return { id: topup.topup_id };
  }
}

export class ReportTopupPayment {
  constructor(readonly principal: Principal, readonly topup_id: string, readonly body: BillingTopupRailReport) {}
}

@CommandHandler(ReportTopupPayment)
export class ReportTopupPaymentHandler implements ICommandHandler<ReportTopupPayment, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: BillingAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, topup_id, body }: ReportTopupPayment): Promise<Created> {
    this.access.requirePlatformAdmin(principal);
    const topup = await readRecord(this.db.reader.manager, TOPUPS, topup_id);
    if (!topup) throw new TopupNotFound();
    await this.commands.execute(accountStream(recordAccount(topup).key), billingAccountDecider, { kind: 'ReportTopupPayment', topup_id, outcome: body.outcome as RailOutcome, rail_reference: body.rail_reference });
    return { id: topup_id };
  }
}

export class AdjustCredits {
  constructor(readonly principal: Principal, readonly body: BillingAdjustmentRequest) {}
}

@CommandHandler(AdjustCredits)
export class AdjustCreditsHandler implements ICommandHandler<AdjustCredits, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: BillingAccess, @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, body }: AdjustCredits): Promise<Created> {
    const account = await this.access.account(principal, body, 'adjust');
    const adjustment_id = nextId();
    if (body.direction === 'DEBIT') {
      if (body.expires_at !== undefined) throw new ValidationFailed('A debit does not expire.', [{ field: 'expires_at', issue: 'CREDIT only' }]);
      await onAccount(this.commands, this.config, account, { kind: 'DebitCredits', adjustment_id, credits: body.credits, reason: body.reason, by_profile_uuid: principal.profile_uuid });
      return { id: adjustment_id };
    }
    const expires_at = body.expires_at === undefined ? null : new Date(body.expires_at).toISOString();
    if (expires_at !== null && Date.parse(expires_at) <= this.clock().getTime()) throw new ValidationFailed('The credits would lapse before they are granted.', [{ field: 'expires_at', issue: 'must be in the future' }]);
    await onAccount(this.commands, this.config, account, {
      kind: 'GrantCredits', lot_id: adjustment_id, pool: 'adjustments', source: `ADJUSTMENT:${adjustment_id}`, credits: body.credits, expires_at, reason: body.reason, by_profile_uuid: principal.profile_uuid,
    });
    return { id: adjustment_id };
  }
}
