/** Merchant and product commands (docs/commerce.md): create, review (with step-up where the lifecycle asks), products. */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { STEP_UP_VERIFIER, type Principal, type StepUpVerifier } from '../../../platform/auth/principal';
import { CLOCK, type Clock } from '../../../platform/clock';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { nextId } from '../../../platform/context/request-context';
import { MERCHANTS } from '../../../../projections/commerce-merchants/commerce-merchants.read-model';
import { PRODUCTS } from '../../../../projections/commerce-products/commerce-products.read-model';
import { merchantDecider, MerchantNotFound, merchantStream, MERCHANT_RULES, type MerchantCore, type MerchantTransition } from '../domain/merchant';
import { money, parseMoney } from '../domain/money';
import { productDecider, ProductNotFound, productStream, type ProductTransition } from '../domain/product';
import { CommerceAccess } from '../commerce-access';
import type { ActivateMerchantRequest, CreateMerchantRequest, CreateProductRequest, MerchantReviewRequest } from '../dto/commerce.dto';

/** What a command's answer names (the controller reads the document back). */
export interface Created {
  id: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Merchants

export class CreateMerchant {
  constructor(readonly principal: Principal, readonly body: CreateMerchantRequest) {}
}

@CommandHandler(CreateMerchant)
export class CreateMerchantHandler implements ICommandHandler<CreateMerchant, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, body }: CreateMerchant): Promise<Created> {
    const workspace = await this.access.workspace(principal, body.workspace_uuid, 'manage');
    const merchant: MerchantCore = {
      merchant_uuid: nextId(),
      workspace_uuid: workspace.workspace_id,
      tenant_uuid: workspace.tenant_uuid,
      display_name: body.display_name,
      description: body.description ?? '',
      category_code: body.category_code,
      website: body.website ?? null,
      created_by_profile_uuid: principal.profile_uuid,
      created: this.clock().toISOString(),
    };
    await this.commands.execute(merchantStream(merchant.merchant_uuid), merchantDecider, { kind: 'CreateMerchant', merchant }, { newStream: true });
    return { id: merchant.merchant_uuid };
  }
}

export class ReviewMerchant {
  constructor(
    readonly principal: Principal,
    readonly merchant_uuid: string,
    readonly transition: MerchantTransition,
    readonly body: ActivateMerchantRequest | MerchantReviewRequest,
  ) {}
}

@CommandHandler(ReviewMerchant)
export class ReviewMerchantHandler implements ICommandHandler<ReviewMerchant, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, @Inject(STEP_UP_VERIFIER) private readonly stepUp: StepUpVerifier) {}

  async execute({ principal, merchant_uuid, transition, body }: ReviewMerchant): Promise<Created> {
    const { state } = await this.commands.load(merchantStream(merchant_uuid), merchantDecider);
    const merchant = state.merchant;
    if (!merchant) throw new MerchantNotFound();
    const reviewer = await this.access.isReviewer(principal, merchant.tenant_uuid);
    const owner = await this.access.manages(principal, merchant.workspace_uuid);
    if (!reviewer && !owner) {
      // A member who may read it is told why; anyone else does not see the merchant at all.
      await this.access.record(principal, MERCHANTS, merchant_uuid, 'manage', () => new MerchantNotFound());
      throw new MerchantNotFound();
    }
    const rule = MERCHANT_RULES[transition];
    const stepUpToken = 'step_up_token' in body ? body.step_up_token : undefined;
    const spend = rule.stepUp ? await this.stepUp.authorize(stepUpToken, rule.stepUp, principal) : undefined;
    await this.commands.execute(
      merchantStream(merchant_uuid),
      merchantDecider,
      {
        kind: 'ReviewMerchant',
        transition,
        expected_version: body.expected_version,
        by_profile_uuid: principal.profile_uuid,
        standing: reviewer && owner ? 'reviewer-and-owner' : reviewer ? 'reviewer' : 'owner',
        review_reference: 'review_reference' in body ? body.review_reference : null,
        reason_code: 'reason_code' in body ? body.reason_code : null,
      },
      { spend },
    );
    return { id: merchant_uuid };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Products

export class CreateProduct {
  constructor(readonly principal: Principal, readonly merchant_uuid: string, readonly body: CreateProductRequest) {}
}

@CommandHandler(CreateProduct)
export class CreateProductHandler implements ICommandHandler<CreateProduct, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, merchant_uuid, body }: CreateProduct): Promise<Created> {
    await this.access.record(principal, MERCHANTS, merchant_uuid, 'manage', () => new MerchantNotFound());
    const { state: merchant } = await this.commands.load(merchantStream(merchant_uuid), merchantDecider);
    if (!merchant.merchant) throw new MerchantNotFound();
    const price = parseMoney(body.asset, body.price, 'price');
    const product_uuid = nextId();
    await this.commands.execute(
      productStream(product_uuid),
      productDecider,
      {
        kind: 'CreateProduct',
        merchant_status: merchant.status,
        product: {
          product_uuid, merchant_uuid, workspace_uuid: merchant.merchant.workspace_uuid, name: body.name, description: body.description ?? '', sku: body.sku ?? null,
          price: money(price, body.asset), asset: body.asset, created_by_profile_uuid: principal.profile_uuid, created: this.clock().toISOString(),
        },
      },
      { newStream: true },
    );
    return { id: product_uuid };
  }
}

export class ChangeProduct {
  constructor(readonly principal: Principal, readonly merchant_uuid: string, readonly product_uuid: string, readonly transition: ProductTransition, readonly expected_version: number) {}
}

@CommandHandler(ChangeProduct)
export class ChangeProductHandler implements ICommandHandler<ChangeProduct, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess) {}

  async execute({ principal, merchant_uuid, product_uuid, transition, expected_version }: ChangeProduct): Promise<Created> {
    const { record } = await this.access.record(principal, PRODUCTS, product_uuid, 'manage', () => new ProductNotFound());
    if (record.merchant_uuid !== merchant_uuid) throw new ProductNotFound();
    const { state: merchant } = await this.commands.load(merchantStream(merchant_uuid), merchantDecider);
    await this.commands.execute(productStream(product_uuid), productDecider, { kind: 'ChangeProduct', transition, expected_version, by_profile_uuid: principal.profile_uuid, merchant_status: merchant.status });
    return { id: product_uuid };
  }
}
