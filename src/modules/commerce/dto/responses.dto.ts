/**
 * Answers of the commerce routes: each record is a CommerceDocument (the seeds: "free-form object; each operation
 * defines its lifecycle and safety flags"), typed here per record so a generated client knows every field: its id,
 * workspace_uuid, version, status or state, created, updated, and `actions` (what can be done now and what it needs).
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { pageOf } from '../../../platform/http/openapi';
import { HEX32_ID, SHA256_HEX } from '../../../platform/http/api-properties';
import { INVOICE_CANCEL_REASONS, INVOICE_EXCEPTIONS, INVOICE_STATUSES, PAYMENT_STATES } from '../domain/invoice-records';
import { MERCHANT_STATUSES, MERCHANT_TRANSITIONS } from '../domain/merchant';
import { PRODUCT_STATUSES } from '../domain/product';
import { SETTLEMENT_STATES } from '../domain/settlement';
import { WALLET_STATUSES, WALLET_TYPES } from '../domain/wallet';

const NULLABLE_HEX32 = { type: String, nullable: true, ...HEX32_ID } as const;
const TIME = { format: 'date-time' } as const;
const VERSION = { type: 'integer', format: 'int64', minimum: 0 } as const;

/** The 202 of a commerce command whose record the read model has not shown yet: the record's id. */
@ApiSchema({ name: 'CommerceCommandReceipt' })
export class CommerceCommandReceipt {
  @ApiProperty({ ...HEX32_ID, description: 'The id of the record the command created or changed.' }) id!: string;
}

@ApiSchema({ name: 'CommerceAction' })
export class CommerceActionResponse {
  @ApiProperty({ example: 'activate' }) action!: string;
  @ApiProperty({ enum: ['POST'] }) method!: 'POST';
  @ApiProperty({ example: '/api/v1/commerce/merchants/0123456789abcdef0123456789abcdef/activate' }) href!: string;
  @ApiProperty({ type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, description: 'The values the request must carry, as read now.', example: { expected_version: 0 } })
  expected!: Record<string, string | number>;
  @ApiProperty({ type: String, nullable: true, example: 'MERCHANT_PROFILE_ACTIVATION' }) step_up_purpose!: string | null;
  @ApiProperty({ enum: ['reviewer', 'compliance', 'workspace-admin', 'workspace-member', 'platform-admin'], isArray: true }) allowed_for!: string[];
}

@ApiSchema({ name: 'CommerceMerchantReview' })
export class MerchantReviewResponse {
  @ApiProperty({ enum: MERCHANT_TRANSITIONS }) transition!: string;
  @ApiProperty(HEX32_ID) by_profile_uuid!: string;
  @ApiProperty({ type: String, nullable: true }) review_reference!: string | null;
  @ApiProperty({ type: String, nullable: true }) reason_code!: string | null;
  @ApiProperty(TIME) at!: string;
}

@ApiSchema({ name: 'CommerceMerchant' })
export class CommerceMerchantResponse {
  @ApiProperty(HEX32_ID) merchant_uuid!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty() display_name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() category_code!: string;
  @ApiProperty({ type: String, nullable: true }) website!: string | null;
  @ApiProperty({ enum: MERCHANT_STATUSES }) status!: string;
  @ApiProperty(VERSION) version!: number;
  @ApiProperty(HEX32_ID) created_by_profile_uuid!: string;
  @ApiProperty(TIME) created!: string;
  @ApiProperty(TIME) updated!: string;
  @ApiProperty({ type: MerchantReviewResponse, nullable: true }) last_review!: MerchantReviewResponse | null;
  @ApiProperty({ type: [CommerceActionResponse] }) actions!: CommerceActionResponse[];
}

@ApiSchema({ name: 'CommerceProduct' })
export class CommerceProductResponse {
  @ApiProperty(HEX32_ID) product_uuid!: string;
  @ApiProperty(HEX32_ID) merchant_uuid!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: String, nullable: true }) sku!: string | null;
  @ApiProperty({ example: '12.50', description: 'Decimal string at the asset\'s scale.' }) price!: string;
  @ApiProperty({ example: 'USD' }) asset!: string;
  @ApiProperty({ enum: PRODUCT_STATUSES }) status!: string;
  @ApiProperty(VERSION) version!: number;
  @ApiProperty(HEX32_ID) created_by_profile_uuid!: string;
  @ApiProperty(TIME) created!: string;
  @ApiProperty(TIME) updated!: string;
  @ApiProperty({ type: [CommerceActionResponse] }) actions!: CommerceActionResponse[];
}

@ApiSchema({ name: 'CommerceInvoiceLine' })
export class InvoiceLineResponse {
  @ApiProperty() description!: string;
  @ApiProperty({ example: '2' }) quantity!: string;
  @ApiProperty({ example: '12.50' }) unit_price!: string;
  @ApiProperty({ example: '25.00', description: 'quantity × unit_price, rounded half-to-even to the asset\'s scale.' }) line_total!: string;
  @ApiProperty(NULLABLE_HEX32) product_uuid!: string | null;
}

@ApiSchema({ name: 'CommerceInvoiceCancellation' })
export class InvoiceCancellationResponse {
  @ApiProperty({ enum: INVOICE_CANCEL_REASONS }) reason_code!: string;
  @ApiProperty({ type: String, nullable: true }) reason_detail!: string | null;
  @ApiProperty(HEX32_ID) by_profile_uuid!: string;
  @ApiProperty(TIME) at!: string;
}

@ApiSchema({ name: 'CommerceInvoice' })
export class CommerceInvoiceResponse {
  @ApiProperty(HEX32_ID) invoice_uuid!: string;
  @ApiProperty(HEX32_ID) merchant_uuid!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty() external_order_reference!: string;
  @ApiProperty({ example: 'USD' }) asset!: string;
  @ApiProperty({ type: String, nullable: true }) network_id!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'A fresh address of the merchant\'s rotational wallet (watch-only).' }) payment_address!: string | null;
  @ApiProperty(NULLABLE_HEX32) wallet_uuid!: string | null;
  @ApiProperty({ type: [InvoiceLineResponse] }) line_items!: InvoiceLineResponse[];
  @ApiProperty({ example: '25.00', description: 'The exact sum of the line totals.' }) total!: string;
  @ApiProperty({ example: '0.00' }) amount_settled!: string;
  @ApiProperty({ enum: INVOICE_STATUSES }) status!: string;
  @ApiProperty({ enum: INVOICE_EXCEPTIONS, isArray: true, description: 'How a PAID invoice differs from paid in full, on time.' }) exceptions!: string[];
  @ApiProperty(VERSION) version!: number;
  @ApiProperty(TIME) expires_at!: string;
  @ApiProperty(HEX32_ID) created_by_profile_uuid!: string;
  @ApiProperty(TIME) created!: string;
  @ApiProperty(TIME) updated!: string;
  @ApiProperty({ type: InvoiceCancellationResponse, nullable: true }) cancellation!: InvoiceCancellationResponse | null;
  @ApiProperty({ type: [CommerceActionResponse] }) actions!: CommerceActionResponse[];
}

@ApiSchema({ name: 'CommercePayment' })
export class CommercePaymentResponse {
  @ApiProperty(HEX32_ID) payment_uuid!: string;
  @ApiProperty(HEX32_ID) invoice_uuid!: string;
  @ApiProperty(HEX32_ID) merchant_uuid!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty({ example: 'USD' }) asset!: string;
  @ApiProperty({ example: '25.00' }) amount!: string;
  @ApiProperty({ type: String, nullable: true }) network_id!: string | null;
  @ApiProperty({ enum: PAYMENT_STATES }) state!: string;
  @ApiProperty(VERSION) version!: number;
  @ApiProperty({ type: String, nullable: true }) rail_reference!: string | null;
  @ApiProperty({ type: String, nullable: true }) failure_code!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'OWNER_CANCELLED' }) reason_code!: string | null;
  @ApiProperty(TIME) authorization_expires_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) settled_at!: string | null;
  @ApiProperty({ enum: [false], description: 'No real payment rail is connected: no funds move.' }) funds_movement_available!: false;
  @ApiProperty(HEX32_ID) created_by_profile_uuid!: string;
  @ApiProperty(TIME) created!: string;
  @ApiProperty(TIME) updated!: string;
  @ApiProperty({ type: [CommerceActionResponse] }) actions!: CommerceActionResponse[];
}

@ApiSchema({ name: 'CommerceWallet' })
export class CommerceWalletResponse {
  @ApiProperty(HEX32_ID) wallet_uuid!: string;
  @ApiProperty({ enum: WALLET_TYPES }) wallet_type!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty(NULLABLE_HEX32) merchant_uuid!: string | null;
  @ApiProperty({ example: 'ethereum-mainnet' }) network_id!: string;
  @ApiProperty() label!: string;
  @ApiProperty({ type: String, nullable: true, description: 'OPERATIONAL: the watched address.' }) address!: string | null;
  @ApiProperty({ description: 'Transfers from it need a governance decision and an MPC signing request.' }) governance_required!: boolean;
  @ApiProperty({ enum: WALLET_STATUSES }) status!: string;
  @ApiProperty(VERSION) version!: number;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) addresses_available!: number;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) addresses_allocated!: number;
  @ApiProperty({ enum: [true], description: 'The platform holds no key of a commerce wallet.' }) watch_only!: true;
  @ApiProperty(HEX32_ID) created_by_profile_uuid!: string;
  @ApiProperty(TIME) created!: string;
  @ApiProperty(TIME) updated!: string;
  @ApiProperty({ type: [CommerceActionResponse] }) actions!: CommerceActionResponse[];
}

@ApiSchema({ name: 'CommerceSettlementIntent' })
export class CommerceSettlementIntentResponse {
  @ApiProperty(HEX32_ID) settlement_intent_uuid!: string;
  @ApiProperty(HEX32_ID) merchant_uuid!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty({ example: 'ethereum-mainnet' }) network_id!: string;
  @ApiProperty({ example: 'USDC' }) asset!: string;
  @ApiProperty({ example: '250.000000' }) amount!: string;
  @ApiProperty() destination!: string;
  @ApiProperty({ enum: SETTLEMENT_STATES }) state!: string;
  @ApiProperty({ ...VERSION, description: 'Grows with every change; part of request_commitment.' }) revision!: number;
  @ApiProperty({ ...VERSION, description: 'The same as revision.' }) version!: number;
  @ApiProperty({ ...SHA256_HEX, description: 'SHA-256 of the JCS form of {merchant_uuid, network_id, asset, amount, destination, revision}.' }) request_commitment!: string;
  @ApiProperty({ type: String, nullable: true }) transaction_reference!: string | null;
  @ApiProperty({ type: String, nullable: true }) failure_code!: string | null;
  @ApiProperty({ type: String, nullable: true }) reason_code!: string | null;
  @ApiProperty({ enum: [false], description: 'No real payment rail is connected: no funds move.' }) funds_movement_available!: false;
  @ApiProperty(HEX32_ID) requested_by_profile_uuid!: string;
  @ApiProperty(TIME) created!: string;
  @ApiProperty(TIME) updated!: string;
  @ApiProperty({ type: [CommerceActionResponse] }) actions!: CommerceActionResponse[];
}


export const CommerceMerchantPageResponse = pageOf(CommerceMerchantResponse, 'CommerceMerchantPage');
export const CommerceProductPageResponse = pageOf(CommerceProductResponse, 'CommerceProductPage');
export const CommerceInvoicePageResponse = pageOf(CommerceInvoiceResponse, 'CommerceInvoicePage');
export const CommercePaymentPageResponse = pageOf(CommercePaymentResponse, 'CommercePaymentPage');
export const CommerceWalletPageResponse = pageOf(CommerceWalletResponse, 'CommerceWalletPage');
export const CommerceSettlementIntentPageResponse = pageOf(CommerceSettlementIntentResponse, 'CommerceSettlementIntentPage');
