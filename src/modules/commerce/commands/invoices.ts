/** Invoice and payment commands: open (exact total, unique order reference, a fresh address), cancel (step-up), payments and the rail's reports. */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { STEP_UP_VERIFIER, type Principal, type StepUpVerifier } from '../../../platform/auth/principal';
import { CLOCK, type Clock } from '../../../platform/clock';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { nextId } from '../../../platform/context/request-context';
import { RuleViolation, ValidationFailed } from '../../../platform/errors';
import { ReadModelDatabase } from '../../../platform/read-model/read-model.datasource';
import { amountText } from '../../../platform/decimal/asset-amount';
import { MERCHANTS } from '../../../../projections/commerce-merchants/commerce-merchants.read-model';
import { PRODUCTS } from '../../../../projections/commerce-products/commerce-products.read-model';
import { INVOICES, PAYMENTS } from '../../../../projections/commerce-invoices/commerce-invoices.read-model';
import {
  INVOICE_DEFAULT_TTL_MS, INVOICE_MAX_TTL_MS, INVOICE_MIN_TTL_MS, invoiceDecider, invoiceIdFor, InvoiceNotFound, invoiceStream, PaymentNotFound,
  type InvoiceCancelReason, type InvoiceCore, type InvoiceLine, type RailTransition,
} from '../domain/invoice';
import { merchantDecider, MerchantNotFound, merchantStream } from '../domain/merchant';
import { COMMERCE_NETWORKS, lineTotal, money, parseMoney, parseQuantity } from '../domain/money';
import { walletDecider, walletStream } from '../domain/wallet';
import { CommerceAccess } from '../commerce-access';
import type { CancelCommerceInvoiceRequest, CancelPaymentRequest, CreateInvoiceRequest, CreatePaymentRequest } from '../dto/commerce.dto';
import { PAYMENT_RAIL, type PaymentRail } from '../rail';
import type { Created } from './merchants';

// ---------------------------------------------------------------------------------------------------------------
// Invoices

export class CreateInvoice {
  constructor(readonly principal: Principal, readonly body: CreateInvoiceRequest) {}
}

@CommandHandler(CreateInvoice)
export class CreateInvoiceHandler implements ICommandHandler<CreateInvoice, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, body }: CreateInvoice): Promise<Created> {
    await this.access.record(principal, MERCHANTS, body.merchant_uuid, 'manage', () => new MerchantNotFound());
    const { state: merchant } = await this.commands.load(merchantStream(body.merchant_uuid), merchantDecider);
    if (!merchant.merchant) throw new MerchantNotFound();
    const now = this.clock();
    const asset = body.asset;
    const lines: InvoiceLine[] = body.line_items.map((l, i) => {
      const quantity = parseQuantity(l.quantity, `line_items[${i}].quantity`);
      // A zero unit_price is refused like every zero amount (docs/commerce.md, "Amounts"): a 400 naming the line.
      const unit = parseMoney(asset, l.unit_price, `line_items[${i}].unit_price`);
      return { description: l.description, quantity: amountText(quantity), unit_price: money(unit, asset), line_total: money(lineTotal(quantity, unit, asset), asset), product_uuid: l.product_uuid ?? null };
    });
    await this.checkProducts(body.merchant_uuid, asset, lines);
    const total = lines.reduce((sum, l) => sum + parseMoney(asset, l.line_total, 'line_total', { allowZero: true }), 0n);
    // Positive lines can still round to zero at the asset's scale (0.1 × 0.01 USD): such an invoice is refused too.
    if (total <= 0n) throw new ValidationFailed('An invoice totals more than zero.', [{ field: 'line_items', issue: 'total is zero' }]);
    const expires_at = this.expiry(body.expires_at ?? null, now);
    const invoice_uuid = invoiceIdFor(body.merchant_uuid, body.external_order_reference);
    const stream = invoiceStream(invoice_uuid);
    // A reference already invoiced is refused before an address is taken for it.
    const existing = await this.commands.load(stream, invoiceDecider);
    if (existing.state.invoice) invoiceDecider.decide({ kind: 'OpenInvoice', invoice: existing.state.invoice, merchant_status: merchant.status }, existing.state, { now, newId: nextId });
    const network_id = body.network_id ?? null;
    const address = network_id ? await this.address(body.merchant_uuid, network_id, asset, invoice_uuid) : null;
    const invoice: InvoiceCore = {
      invoice_uuid, merchant_uuid: body.merchant_uuid, workspace_uuid: merchant.merchant.workspace_uuid, tenant_uuid: merchant.merchant.tenant_uuid,
      external_order_reference: body.external_order_reference, asset, network_id, payment_address: address?.address ?? null, wallet_uuid: address?.wallet_uuid ?? null,
      line_items: lines, total: money(total, asset), expires_at, created_by_profile_uuid: principal.profile_uuid, created: now.toISOString(),
    };
    await this.commands.execute(stream, invoiceDecider, { kind: 'OpenInvoice', invoice, merchant_status: merchant.status });
    return { id: invoice_uuid };
  }

  private expiry(requested: string | null, now: Date): string {
    if (requested === null) return new Date(now.getTime() + INVOICE_DEFAULT_TTL_MS).toISOString();
    const ttl = Date.parse(requested) - now.getTime();
    if (!Number.isFinite(ttl) || ttl < INVOICE_MIN_TTL_MS || ttl > INVOICE_MAX_TTL_MS) {
      throw new ValidationFailed('Invalid expires_at.', [{ field: 'expires_at', issue: 'must be from 5 minutes to 30 days ahead' }]);
    }
    return new Date(Date.parse(requested)).toISOString();
  }

  /** A line naming a product names an ACTIVE product of this merchant, priced in the invoice's asset. */
  private async checkProducts(merchant_uuid: string, asset: string, lines: InvoiceLine[]): Promise<void> {
    for (const [i, line] of lines.entries()) {
      if (!line.product_uuid) continue;
      const product = await this.access.find(PRODUCTS, line.product_uuid);
      if (!product || product.merchant_uuid !== merchant_uuid) throw new RuleViolation('No such product of this merchant.', [{ field: `line_items[${i}].product_uuid`, issue: 'not a product of this merchant' }]);
      if (product.status !== 'ACTIVE') throw new RuleViolation('Only an ACTIVE product can be invoiced.', [{ field: `line_items[${i}].product_uuid`, issue: `product is ${product.status}` }]);
      if (product.asset !== asset) throw new RuleViolation('The product is priced in another asset.', [{ field: `line_items[${i}].product_uuid`, issue: `priced in ${product.asset}` }]);
    }
  }

  /** A fresh address of the merchant's rotational wallet on the network (the oldest active one), or none without a wallet. */
  private async address(merchant_uuid: string, network_id: string, asset: string, invoice_uuid: string): Promise<{ wallet_uuid: string; address: string } | null> {
    if (!COMMERCE_NETWORKS[network_id].assets.includes(asset)) {
      throw new RuleViolation(`${network_id} does not carry ${asset}.`, [{ field: 'network_id', issue: `carries ${COMMERCE_NETWORKS[network_id].assets.join(', ')}` }]);
    }
    const rows: Array<{ wallet_uuid: string }> = await this.db.reader.query(
      this.db.sql("SELECT wallet_uuid FROM commerce_wallets WHERE merchant_uuid = ? AND network_id = ? AND wallet_type = 'ROTATIONAL' AND status = 'ACTIVE' ORDER BY position LIMIT 1"),
      [merchant_uuid, network_id],
    );
    if (rows.length === 0) return null;
    const wallet_uuid = rows[0].wallet_uuid;
    const outcome = await this.commands.execute(walletStream(wallet_uuid), walletDecider, { kind: 'AllocateAddress', invoice_uuid });
    return { wallet_uuid, address: outcome.state.allocated.get(invoice_uuid)! };
  }
}

export class CancelInvoice {
  constructor(readonly principal: Principal, readonly invoice_uuid: string, readonly body: CancelCommerceInvoiceRequest) {}
}

@CommandHandler(CancelInvoice)
export class CancelInvoiceHandler implements ICommandHandler<CancelInvoice, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, @Inject(STEP_UP_VERIFIER) private readonly stepUp: StepUpVerifier) {}

  async execute({ principal, invoice_uuid, body }: CancelInvoice): Promise<Created> {
    await this.access.record(principal, INVOICES, invoice_uuid, 'manage', () => new InvoiceNotFound());
    const spend = await this.stepUp.authorize(body.step_up_token, 'COMMERCE_INVOICE_CANCELLATION', principal);
    await this.commands.execute(
      invoiceStream(invoice_uuid),
      invoiceDecider,
      {
        kind: 'CancelInvoice', expected_invoice_version: body.expected_invoice_version, expected_status: body.expected_status, reason_code: body.reason_code as InvoiceCancelReason,
        reason_detail: body.reason_detail ?? null, by_profile_uuid: principal.profile_uuid,
      },
      { spend },
    );
    return { id: invoice_uuid };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Payments

export class CreatePayment {
  constructor(readonly principal: Principal, readonly body: CreatePaymentRequest) {}
}

@CommandHandler(CreatePayment)
export class CreatePaymentHandler implements ICommandHandler<CreatePayment, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail) {}

  async execute({ principal, body }: CreatePayment): Promise<Created> {
    await this.access.record(principal, INVOICES, body.invoice_uuid, 'read', () => new InvoiceNotFound());
    const payment_uuid = nextId();
    const outcome = await this.commands.execute(invoiceStream(body.invoice_uuid), invoiceDecider, { kind: 'CreatePayment', payment_uuid, amount: body.amount ?? null, by_profile_uuid: principal.profile_uuid });
    const payment = outcome.state.payments[payment_uuid];
    if (payment && outcome.events.length > 0) await this.rail.paymentCreated(payment.payment);
    return { id: payment_uuid };
  }
}

/** Finds a payment's invoice (payments live on their invoice's stream). */
async function paymentInvoice(access: CommerceAccess, principal: Principal | null, payment_uuid: string): Promise<string> {
  return (await access.actedOn(principal, PAYMENTS, payment_uuid, () => new PaymentNotFound())).invoice_uuid;
}

export class CancelPayment {
  constructor(readonly principal: Principal, readonly payment_uuid: string, readonly body: CancelPaymentRequest) {}
}

@CommandHandler(CancelPayment)
export class CancelPaymentHandler implements ICommandHandler<CancelPayment, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess) {}

  async execute({ principal, payment_uuid, body }: CancelPayment): Promise<Created> {
    const invoice_uuid = await paymentInvoice(this.access, principal, payment_uuid);
    await this.commands.execute(invoiceStream(invoice_uuid), invoiceDecider, { kind: 'CancelPayment', payment_uuid, expected_payment_version: body.expected_payment_version, by_profile_uuid: principal.profile_uuid });
    return { id: payment_uuid };
  }
}

/** What the rail reports about a payment (through the admin route while the rail is simulated). */
export class ApplyPaymentRailUpdate {
  constructor(readonly principal: Principal, readonly payment_uuid: string, readonly transition: RailTransition, readonly rail_reference: string | null, readonly failure_code: string | null) {}
}

@CommandHandler(ApplyPaymentRailUpdate)
export class ApplyPaymentRailUpdateHandler implements ICommandHandler<ApplyPaymentRailUpdate, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess) {}

  async execute({ principal, payment_uuid, transition, rail_reference, failure_code }: ApplyPaymentRailUpdate): Promise<Created> {
    this.access.requirePlatformAdmin(principal);
    const invoice_uuid = await paymentInvoice(this.access, null, payment_uuid);
    await this.commands.execute(invoiceStream(invoice_uuid), invoiceDecider, { kind: 'RailUpdate', payment_uuid, transition, rail_reference, failure_code });
    return { id: payment_uuid };
  }
}
