/** The canonical trading requests of the shared catalogue (CanonicalOrder, ClosePositionRequest). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { IsDecimalString, NoExtraFields } from '../../../platform/http/validation';

const CODE = /^[A-Z][A-Z_]{0,31}$/;
const code = (field: string) => ({ message: `${field} must be an upper-case code` });

export class CanonicalOrder {
  @ApiProperty({ example: 'MTF' }) @Matches(CODE, code('venue'))
  venue!: string;

  @ApiProperty({ example: 'BTC-PERP' }) @IsString() @Length(1, 64)
  market!: string;

  @ApiProperty({ enum: ['BUY', 'SELL'] }) @IsIn(['BUY', 'SELL'])
  side!: 'BUY' | 'SELL';

  @ApiProperty({ example: 'LIMIT', description: 'LIMIT, MARKET, STOP or STOP_LIMIT; other types are refused with 422' }) @Matches(CODE, code('order_type'))
  order_type!: string;

  @ApiProperty({ example: 'GTC', description: 'GTC, IOC, FOK or BOOK_OR_CANCEL; others are refused with 422' }) @Matches(CODE, code('time_in_force'))
  time_in_force!: string;

  @ApiProperty({ description: 'client-side order reference' }) @IsString() @Matches(/^[A-Za-z0-9+/=_.:-]{1,64}$/, { message: 'external_reference must be 1-64 characters of [A-Za-z0-9+/=_.:-]' })
  external_reference!: string;

  @ApiProperty({ example: 1, description: 'int32 ≥ 0; this venue trades unlevered (0 or 1)' }) @IsInt() @Min(0) @Max(2147483647)
  leverage!: number;

  @ApiProperty() @IsBoolean()
  reduce_only!: boolean;

  @ApiProperty({ type: () => [CanonicalOrder], description: 'must be empty: this venue has no combination orders' })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => CanonicalOrder)
  combos!: CanonicalOrder[];

  @ApiPropertyOptional() @IsOptional()
  aggregation_meta?: unknown;

  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 128)
  client_reference?: string;

  @ApiPropertyOptional() @IsOptional() @IsString()
  expiry_timestamp?: string;

  @ApiPropertyOptional({ example: '64000.5' }) @IsOptional() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  limit_price?: string;

  @ApiPropertyOptional() @IsOptional() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  notional_amount?: string;

  @ApiPropertyOptional({ example: '0.010' }) @IsOptional() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  quantity?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 128)
  reporting_identifier?: string;

  @ApiPropertyOptional() @IsOptional() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  tip_quantity?: string;

  @ApiPropertyOptional() @IsOptional() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  trailing_amount?: string;

  @ApiPropertyOptional() @IsOptional() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  trailing_percent?: string;

  @ApiPropertyOptional({ example: '65000' }) @IsOptional() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  trigger_price?: string;
}

@NoExtraFields()
export class ClosePositionRequest {
  @ApiProperty() @IsString() @Matches(/^[A-Za-z0-9+/=_.:-]{1,64}$/, { message: 'external_reference must be 1-64 characters of [A-Za-z0-9+/=_.:-]' })
  external_reference!: string;

  @ApiPropertyOptional({ description: 'part of the position to close; the whole position when omitted' }) @IsOptional() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  quantity?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 128)
  reporting_identifier?: string;

  @ApiPropertyOptional({ example: 'MTF' }) @IsOptional() @Matches(CODE, code('venue'))
  venue?: string;
}

export class ClosePositionQuery {
  @ApiPropertyOptional({ description: 'market symbol; needed when the caller holds positions in several markets' }) @IsOptional() @IsString() @Length(1, 64)
  market?: string;
}
