/**
 * Requests of the billing routes. Credits are decimal strings (a JSON number is a 400 that says so); prices are
 * integers in the currency's smallest unit (`amount_minor`). Every request refuses fields it does not know.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsISO8601, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { hex32Param } from '../../../platform/http/api-properties';
import { IsDecimalString, NoExtraFields, Optional } from '../../../platform/http/validation';
import { RAIL_OUTCOMES } from '../domain/account';
import { PLAN_INTERVALS, PRODUCT_TYPES } from '../domain/catalog';

const HEX32 = /^[0-9a-f]{32}$/;
const hex32 = (field: string) => ({ message: `${field} must be 32 lowercase hex characters` });
export const PRODUCT_CODE = /^[A-Z][A-Z0-9_]{1,39}$/;
const credits = () => IsDecimalString({ positive: true, maxIntegerDigits: 15, maxFractionDigits: 18 });
const TENANT = { ...hex32Param('The tenant whose account this is; default: your session\'s'), required: false } as const;
const PROFILE = {
  ...hex32Param('Global tenant only: the person whose own account this is; default: you (another person\'s: platform admins)'),
  required: false,
} as const;
export const BILLING_PAGE = { default: 50, max: 200 };

/** Which account (default: the caller's session tenant's; in the global tenant the caller's own, docs/billing.md). */
@NoExtraFields({ query: true })
export class BillingScopeQuery {
  @ApiPropertyOptional(TENANT) @Optional() @Matches(HEX32, hex32('tenant_uuid'))
  tenant_uuid?: string;

  @ApiPropertyOptional(PROFILE) @Optional() @Matches(HEX32, hex32('profile_uuid'))
  profile_uuid?: string;
}

@NoExtraFields({ query: true })
export class BillingUsageQuery extends BillingScopeQuery {
  @ApiPropertyOptional({ description: 'The UTC month (YYYY-MM); default: the account\'s current period.', example: '2026-11' })
  @Optional()
  @Matches(/^\d{4}-(0[1-9]|1[0-2])$/, { message: 'period must be a UTC month, YYYY-MM' })
  period?: string;
}

@NoExtraFields({ query: true })
export class BillingListQuery extends BillingScopeQuery {
  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: 200, default: 50, example: 50 })
  @Optional() @Matches(/^\d{1,4}$/, { message: 'limit must be a positive integer' })
  limit?: string;

  @ApiPropertyOptional({ description: 'Opaque; valid only for the list it was issued for.' }) @Optional() @IsString() @MaxLength(512)
  cursor?: string;
}

export class ProductCodeParam {
  @ApiProperty({ description: 'The product code.', pattern: PRODUCT_CODE.source, example: 'PRO_MONTHLY' }) @Matches(PRODUCT_CODE, { message: 'code must be 2-40 of A-Z, 0-9 and _, starting with a letter' })
  code!: string;
}

export class TopupParam {
  @ApiProperty(hex32Param('The top-up')) @Matches(HEX32, hex32('topup_id'))
  topup_id!: string;
}

@NoExtraFields()
export class DefineBillingProductRequest {
  @ApiProperty({ pattern: PRODUCT_CODE.source, example: 'PRO_MONTHLY' }) @Matches(PRODUCT_CODE, { message: 'code must be 2-40 of A-Z, 0-9 and _, starting with a letter' })
  code!: string;

  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Pro' }) @IsString() @Length(1, 120)
  name!: string;

  @ApiProperty({ maxLength: 1000, example: '5,000 credits every month.' }) @IsString() @MaxLength(1000)
  description!: string;

  @ApiProperty({ enum: PRODUCT_TYPES }) @IsIn(PRODUCT_TYPES)
  product_type!: string;

  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, maximum: 100_000_000_000, description: 'Price in the currency\'s smallest unit (ISO 4217).', example: 4900 })
  @IsInt() @Min(0) @Max(100_000_000_000)
  amount_minor!: number;

  @ApiProperty({ description: 'ISO 4217; the catalogue\'s currency (BILLING_CURRENCY).', example: 'USD', pattern: '^[A-Z]{3}$' }) @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code' })
  currency!: string;

  @ApiProperty({ description: 'Credits granted (per interval for a PLAN), a positive decimal string.', example: '5000' }) @credits()
  credit_units!: string;

  @ApiPropertyOptional({ enum: PLAN_INTERVALS, description: 'PLAN only; absent for a TOPUP.' }) @Optional() @IsIn(PLAN_INTERVALS)
  interval?: string;
}

@NoExtraFields()
export class StartBillingSubscriptionRequest {
  @ApiProperty({ pattern: PRODUCT_CODE.source, example: 'PRO_MONTHLY' }) @Matches(PRODUCT_CODE, { message: 'product_code must be a product code' })
  product_code!: string;

  @ApiPropertyOptional({ description: 'Start TRIALING instead of ACTIVE (the grant is the same).', default: false }) @Optional() @IsBoolean()
  trial?: boolean;

  @ApiPropertyOptional(TENANT) @Optional() @Matches(HEX32, hex32('tenant_uuid'))
  tenant_uuid?: string;

  @ApiPropertyOptional(PROFILE) @Optional() @Matches(HEX32, hex32('profile_uuid'))
  profile_uuid?: string;
}

@NoExtraFields()
export class BillingTenantRequest {
  @ApiPropertyOptional(TENANT) @Optional() @Matches(HEX32, hex32('tenant_uuid'))
  tenant_uuid?: string;

  @ApiPropertyOptional(PROFILE) @Optional() @Matches(HEX32, hex32('profile_uuid'))
  profile_uuid?: string;
}

@NoExtraFields()
export class RequestBillingTopupRequest {
  @ApiProperty({ pattern: PRODUCT_CODE.source, example: 'CREDITS_1000' }) @Matches(PRODUCT_CODE, { message: 'product_code must be a product code' })
  product_code!: string;

  @ApiPropertyOptional(TENANT) @Optional() @Matches(HEX32, hex32('tenant_uuid'))
  tenant_uuid?: string;

  @ApiPropertyOptional(PROFILE) @Optional() @Matches(HEX32, hex32('profile_uuid'))
  profile_uuid?: string;
}

/** The payment rail's report on a top-up's payment (the simulated rail's stand-in for a real rail's callback). */
@NoExtraFields()
export class BillingTopupRailReport {
  @ApiProperty({ enum: RAIL_OUTCOMES, description: 'SETTLED grants the credits; FAILED ends a pending top-up; REVERSED (a settled payment taken back) flags it for review.' })
  @IsIn(RAIL_OUTCOMES)
  outcome!: string;

  @ApiProperty({ minLength: 1, maxLength: 128, example: 'sim_pay_0001' }) @IsString() @Length(1, 128)
  rail_reference!: string;
}

export const ADJUSTMENT_DIRECTIONS = ['CREDIT', 'DEBIT'] as const;

@NoExtraFields()
export class BillingAdjustmentRequest {
  @ApiPropertyOptional(TENANT) @Optional() @Matches(HEX32, hex32('tenant_uuid'))
  tenant_uuid?: string;

  @ApiPropertyOptional(PROFILE) @Optional() @Matches(HEX32, hex32('profile_uuid'))
  profile_uuid?: string;

  @ApiProperty({ enum: ADJUSTMENT_DIRECTIONS }) @IsIn(ADJUSTMENT_DIRECTIONS)
  direction!: string;

  @ApiProperty({ description: 'A positive decimal string.', example: '250' }) @credits()
  credits!: string;

  @ApiProperty({ minLength: 8, maxLength: 320, description: 'Why (an auditor reads it).', example: 'Goodwill credit for the outage of 2026-11-20.' }) @IsString() @Length(8, 320)
  reason!: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'CREDIT only: when the granted credits lapse (default: never).' })
  @Optional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'expires_at must be an RFC 3339 date-time' })
  expires_at?: string;
}
