/**
 * Requests of the commerce routes: the seeds' shapes (ActivateMerchantRequest, CancelCommerceInvoiceRequest,
 * CancelPaymentRequest, CancelSettlementIntentRequest, CommerceQuery: no extra fields) and ours. Amounts and prices
 * are decimal strings: a JSON number is a 400 that says so; the asset decides the precision (checked after validation).
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsString, Length, Matches, MaxLength, Min, ValidateNested } from 'class-validator';
import { hex32Param } from '../../../platform/http/api-properties';
import { IsDecimalString, NoExtraFields, Optional, OptionalNullable } from '../../../platform/http/validation';
import { INVOICE_CANCEL_REASONS, INVOICE_STATUSES, MAX_LINE_ITEMS, PAYMENT_STATES, RAIL_TRANSITIONS } from '../domain/invoice-records';
import { MERCHANT_REASON_CODES, MERCHANT_STATUSES } from '../domain/merchant';
import { ASSET_CODES, NETWORK_IDS } from '../domain/money';
import { PRODUCT_STATUSES } from '../domain/product';
import { SETTLEMENT_STATES, TREASURY_TRANSITIONS } from '../domain/settlement';
import { MAX_ADDRESSES_PER_REQUEST, WALLET_STATUSES, WALLET_TYPES } from '../domain/wallet';

const HEX32 = /^[0-9a-f]{32}$/;
const hex32 = (field: string) => ({ message: `${field} must be 32 lowercase hex characters` });
const decimal = () => IsDecimalString({ signed: true, maxIntegerDigits: 30 });
const CODE = /^[A-Z][A-Z0-9_]{1,39}$/;
const EXPECTED_VERSION = 'The version you read; the transition fails (409 VERSION_CONFLICT, with current_version) if it changed since.';

export class MerchantParam {
  @ApiProperty(hex32Param('The merchant')) @Matches(HEX32, hex32('merchant_uuid'))
  merchant_uuid!: string;
}
export class MerchantProductParam extends MerchantParam {
  @ApiProperty(hex32Param('The product')) @Matches(HEX32, hex32('product_uuid'))
  product_uuid!: string;
}
export class InvoiceParam {
  @ApiProperty(hex32Param('The invoice')) @Matches(HEX32, hex32('invoice_uuid'))
  invoice_uuid!: string;
}
export class PaymentParam {
  @ApiProperty(hex32Param('The payment')) @Matches(HEX32, hex32('payment_uuid'))
  payment_uuid!: string;
}
export class WalletParam {
  @ApiProperty(hex32Param('The wallet')) @Matches(HEX32, hex32('wallet_uuid'))
  wallet_uuid!: string;
}
export class SettlementIntentParam {
  @ApiProperty(hex32Param('The settlement intent')) @Matches(HEX32, hex32('settlement_intent_uuid'))
  settlement_intent_uuid!: string;
}

/** The seeds' CommerceQuery: every list's filters, each list using the ones that apply to it (others are a 400). */
@NoExtraFields({ query: true })
export class CommerceQuery {
  @ApiPropertyOptional({ description: 'Opaque; valid only for the workspace and filters it was issued for.' }) @Optional() @IsString() @MaxLength(512)
  cursor?: string;

  @ApiPropertyOptional({ description: 'Exact merchant order reference (invoices).' }) @Optional() @IsString() @Length(1, 128)
  external_order_reference?: string;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: 200, default: 50, example: 50 })
  @Optional() @Matches(/^\d{1,4}$/, { message: 'limit must be a positive integer' })
  limit?: string;

  @ApiPropertyOptional({ ...hex32Param('The merchant'), description: 'Required for products, invoices and rotational wallets.' }) @Optional() @Matches(HEX32, hex32('merchant_uuid'))
  merchant_uuid?: string;

  @ApiPropertyOptional({ enum: NETWORK_IDS, description: 'Required for operational and rotational wallets.' }) @Optional() @IsIn(NETWORK_IDS, { message: `network_id must be one of ${NETWORK_IDS.join(', ')}` })
  network_id?: string;

  @ApiPropertyOptional({ description: 'Merchant and catalogue text search (case-insensitive); not for invoices, payments, wallets or settlement intents.', maxLength: 200 })
  @Optional() @IsString() @Length(1, 200)
  q?: string;

  @ApiPropertyOptional({ description: 'Exact status (or state) filter, one of the listed records\' values.' })
  @Optional() @IsIn([...new Set<string>([...MERCHANT_STATUSES, ...PRODUCT_STATUSES, ...INVOICE_STATUSES, ...PAYMENT_STATES, ...WALLET_STATUSES, ...SETTLEMENT_STATES])], { message: 'status is not a status of any commerce record' })
  status?: string;

  @ApiPropertyOptional({ enum: WALLET_TYPES }) @Optional() @IsIn(WALLET_TYPES, { message: `wallet_type must be one of ${WALLET_TYPES.join(', ')}` })
  wallet_type?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Merchants

export class CreateMerchantRequest {
  @ApiPropertyOptional({ ...hex32Param('The workspace'), description: 'The workspace the merchant belongs to; omitted: your active workspace.' }) @Optional() @Matches(HEX32, hex32('workspace_uuid'))
  workspace_uuid?: string;

  @ApiProperty({ example: 'Blue Bottle Tea', maxLength: 120 }) @IsString() @Length(1, 120)
  display_name!: string;

  @ApiPropertyOptional({ maxLength: 2000 }) @Optional() @IsString() @MaxLength(2000)
  description?: string;

  @ApiProperty({ example: 'RETAIL', pattern: CODE.source }) @Matches(CODE, { message: 'category_code must be an upper-case code (A-Z, 0-9, _)' })
  category_code!: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'https://shop.example' }) @OptionalNullable() @Matches(/^https:\/\/[^\s]{3,500}$/, { message: 'website must be an https URL' })
  website?: string | null;
}

/** The seeds' ActivateMerchantRequest (no extra fields); reinstating a suspended merchant takes the same. */
@NoExtraFields()
@ApiSchema({ name: 'ActivateMerchantRequest' })
export class ActivateMerchantRequest {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;

  @ApiProperty({ description: 'Your review\'s reference (a ticket, a case id).', maxLength: 128 }) @IsString() @Length(1, 128)
  review_reference!: string;

  @ApiProperty({ description: 'A step-up token of purpose MERCHANT_PROFILE_ACTIVATION (POST /api/v1/auth/step-up), issued to your session.' }) @IsString() @MaxLength(128)
  step_up_token!: string;
}

/** Reject, suspend or close: the version read and a bounded reason. */
@NoExtraFields()
export class MerchantReviewRequest {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;

  @ApiProperty({ enum: MERCHANT_REASON_CODES }) @IsIn(MERCHANT_REASON_CODES, { message: `reason_code must be one of ${MERCHANT_REASON_CODES.join(', ')}` })
  reason_code!: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Products

export class CreateProductRequest {
  @ApiProperty({ example: 'Sencha, 100 g', maxLength: 200 }) @IsString() @Length(1, 200)
  name!: string;

  @ApiPropertyOptional({ maxLength: 2000 }) @Optional() @IsString() @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 64 }) @OptionalNullable() @IsString() @Length(1, 64)
  sku?: string | null;

  @ApiProperty({ example: '12.50', description: 'Decimal string, at most the asset\'s decimals.' }) @decimal()
  price!: string;

  @ApiProperty({ enum: ASSET_CODES }) @IsIn(ASSET_CODES, { message: `asset must be one of ${ASSET_CODES.join(', ')}` })
  asset!: string;
}

@NoExtraFields()
export class ExpectedVersionRequest {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Invoices and payments

@ApiSchema({ name: 'CommerceInvoiceLineRequest' })
export class InvoiceLineRequest {
  @ApiProperty({ maxLength: 200 }) @IsString() @Length(1, 200)
  description!: string;

  @ApiProperty({ example: '2', description: 'Positive decimal string, up to 6 decimals (zero is a 400 naming the line).' }) @decimal()
  quantity!: string;

  @ApiProperty({ example: '12.50', description: 'Positive decimal string at the invoice asset\'s scale (zero is a 400 naming the line).' }) @decimal()
  unit_price!: string;

  @ApiPropertyOptional({ type: String, nullable: true, ...hex32Param('A product of the merchant') }) @OptionalNullable() @Matches(HEX32, hex32('product_uuid'))
  product_uuid?: string | null;
}

export class CreateInvoiceRequest {
  @ApiProperty(hex32Param('The merchant')) @Matches(HEX32, hex32('merchant_uuid'))
  merchant_uuid!: string;

  @ApiProperty({ description: 'Your order reference: unique per merchant (a second invoice for it is 409 naming the first).', maxLength: 128 })
  @IsString() @Matches(/^[\x21-\x7e][\x20-\x7e]{0,127}$/, { message: 'external_order_reference must be 1 to 128 printable ASCII characters' })
  external_order_reference!: string;

  @ApiProperty({ enum: ASSET_CODES }) @IsIn(ASSET_CODES, { message: `asset must be one of ${ASSET_CODES.join(', ')}` })
  asset!: string;

  @ApiPropertyOptional({ enum: NETWORK_IDS, nullable: true, description: 'The network the invoice is paid on: a fresh address of the merchant\'s rotational wallet there is assigned.' })
  @OptionalNullable() @IsIn(NETWORK_IDS, { message: `network_id must be one of ${NETWORK_IDS.join(', ')}` })
  network_id?: string | null;

  @ApiProperty({ type: [InvoiceLineRequest], minItems: 1, maxItems: MAX_LINE_ITEMS })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_LINE_ITEMS) @ValidateNested({ each: true }) @Type(() => InvoiceLineRequest)
  line_items!: InvoiceLineRequest[];

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'From 5 minutes to 30 days ahead; omitted: 24 hours.' })
  @OptionalNullable() @Matches(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/, { message: 'expires_at must be an RFC 3339 UTC timestamp' })
  expires_at?: string | null;
}

/** The seeds' CancelCommerceInvoiceRequest (no extra fields). */
@NoExtraFields()
@ApiSchema({ name: 'CancelCommerceInvoiceRequest' })
export class CancelCommerceInvoiceRequest {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: 'The invoice version you read (409 VERSION_CONFLICT otherwise).' }) @IsInt() @Min(0)
  expected_invoice_version!: number;

  @ApiProperty({ enum: INVOICE_STATUSES, description: 'The status you read (409 STATE_CONFLICT otherwise).' }) @IsIn(INVOICE_STATUSES, { message: `expected_status must be one of ${INVOICE_STATUSES.join(', ')}` })
  expected_status!: string;

  @ApiProperty({ enum: INVOICE_CANCEL_REASONS }) @IsIn(INVOICE_CANCEL_REASONS, { message: `reason_code must be one of ${INVOICE_CANCEL_REASONS.join(', ')}` })
  reason_code!: string;

  @ApiProperty({ description: 'A step-up token of purpose COMMERCE_INVOICE_CANCELLATION, issued to your session.' }) @IsString() @MaxLength(128)
  step_up_token!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 }) @OptionalNullable() @IsString() @Length(1, 500)
  reason_detail?: string | null;
}

export class CreatePaymentRequest {
  @ApiProperty(hex32Param('The invoice')) @Matches(HEX32, hex32('invoice_uuid'))
  invoice_uuid!: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Decimal string in the invoice\'s asset; omitted: the invoice total.' }) @OptionalNullable() @decimal()
  amount?: string | null;
}

/** The seeds' CancelPaymentRequest (no extra fields). */
@NoExtraFields()
@ApiSchema({ name: 'CancelPaymentRequest' })
export class CancelPaymentRequest {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: 'Must equal the payment\'s latest version (409 VERSION_CONFLICT otherwise).' }) @IsInt() @Min(0)
  expected_payment_version!: number;

  @ApiProperty({ enum: ['AUTHORIZATION_REQUIRED'] }) @IsIn(['AUTHORIZATION_REQUIRED'], { message: 'expected_state must be AUTHORIZATION_REQUIRED' })
  expected_state!: string;

  @ApiProperty({ enum: ['OWNER_CANCELLED'] }) @IsIn(['OWNER_CANCELLED'], { message: 'reason_code must be OWNER_CANCELLED' })
  reason_code!: string;
}

/** The simulated rail's move of a payment (platform admins; there is no real rail). */
@NoExtraFields()
export class PaymentRailRequest {
  @ApiProperty({ enum: RAIL_TRANSITIONS }) @IsIn(RAIL_TRANSITIONS, { message: `transition must be one of ${RAIL_TRANSITIONS.join(', ')}` })
  transition!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 128 }) @OptionalNullable() @IsString() @Length(1, 128)
  rail_reference?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: CODE.source }) @OptionalNullable() @Matches(CODE, { message: 'failure_code must be an upper-case code' })
  failure_code?: string | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Wallets

export class RegisterWalletRequest {
  @ApiProperty({ enum: WALLET_TYPES }) @IsIn(WALLET_TYPES, { message: `wallet_type must be one of ${WALLET_TYPES.join(', ')}` })
  wallet_type!: string;

  @ApiPropertyOptional({ ...hex32Param('The workspace (OPERATIONAL)'), description: 'OPERATIONAL: the workspace; omitted: your active workspace.' }) @Optional() @Matches(HEX32, hex32('workspace_uuid'))
  workspace_uuid?: string;

  @ApiPropertyOptional({ ...hex32Param('The merchant (ROTATIONAL, required)') }) @Optional() @Matches(HEX32, hex32('merchant_uuid'))
  merchant_uuid?: string;

  @ApiProperty({ enum: NETWORK_IDS }) @IsIn(NETWORK_IDS, { message: `network_id must be one of ${NETWORK_IDS.join(', ')}` })
  network_id!: string;

  @ApiProperty({ maxLength: 120 }) @IsString() @Length(1, 120)
  label!: string;

  @ApiPropertyOptional({ description: 'OPERATIONAL (required): the watched address.' }) @Optional() @IsString() @MaxLength(128)
  address?: string;

  @ApiPropertyOptional({ description: 'OPERATIONAL: transfers from this wallet need a governance decision and an MPC signing request (default false).' })
  @Optional() @IsBoolean()
  governance_required?: boolean;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_ADDRESSES_PER_REQUEST, description: 'ROTATIONAL (required): the address pool, each handed to one invoice.' })
  @Optional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_ADDRESSES_PER_REQUEST) @IsString({ each: true }) @MaxLength(128, { each: true })
  addresses?: string[];
}

@NoExtraFields()
export class AddWalletAddressesRequest {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;

  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_ADDRESSES_PER_REQUEST })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_ADDRESSES_PER_REQUEST) @IsString({ each: true }) @MaxLength(128, { each: true })
  addresses!: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Settlement intents

export class CreateSettlementIntentRequest {
  @ApiProperty(hex32Param('The merchant')) @Matches(HEX32, hex32('merchant_uuid'))
  merchant_uuid!: string;

  @ApiProperty({ enum: NETWORK_IDS }) @IsIn(NETWORK_IDS, { message: `network_id must be one of ${NETWORK_IDS.join(', ')}` })
  network_id!: string;

  @ApiProperty({ enum: ASSET_CODES }) @IsIn(ASSET_CODES, { message: `asset must be one of ${ASSET_CODES.join(', ')}` })
  asset!: string;

  @ApiProperty({ example: '250.00', description: 'Decimal string at the asset\'s scale; at most what is settled and not yet reserved.' }) @decimal()
  amount!: string;

  @ApiProperty({ description: 'An address on network_id.' }) @IsString() @Length(1, 128)
  destination!: string;
}

/** The seeds' CancelSettlementIntentRequest (no extra fields). */
@NoExtraFields()
@ApiSchema({ name: 'CancelSettlementIntentRequest' })
export class CancelSettlementIntentRequest {
  @ApiProperty({ enum: NETWORK_IDS, description: 'Must equal the intent\'s network (409 STATE_CONFLICT otherwise).' }) @IsString() @Length(1, 40)
  network_id!: string;

  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: 'The latest request_commitment, from your read of the intent (409 STATE_CONFLICT otherwise).' })
  @Matches(/^[0-9a-f]{64}$/, { message: 'expected_request_commitment must be 64 lowercase hex characters' })
  expected_request_commitment!: string;

  @ApiProperty({ enum: ['OWNER_CANCELLED'] }) @IsIn(['OWNER_CANCELLED'], { message: 'reason_code must be OWNER_CANCELLED' })
  reason_code!: string;
}

/** The platform treasury's and the simulated rail's move of a settlement intent (platform admins). */
@NoExtraFields()
export class SettlementTreasuryRequest {
  @ApiProperty({ enum: TREASURY_TRANSITIONS }) @IsIn(TREASURY_TRANSITIONS, { message: `transition must be one of ${TREASURY_TRANSITIONS.join(', ')}` })
  transition!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 128 }) @OptionalNullable() @IsString() @Length(1, 128)
  transaction_reference?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, pattern: CODE.source }) @OptionalNullable() @Matches(CODE, { message: 'failure_code must be an upper-case code' })
  failure_code?: string | null;
}

export const COMMERCE_PAGE = { default: 50, max: 200 };
