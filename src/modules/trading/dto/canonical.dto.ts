/** The canonical trading requests of the shared catalogue (CanonicalOrder, ClosePositionRequest). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { TRIGGER_SOURCES } from '../domain/mark-price';
import { IsArray, IsBoolean, IsIn, IsInt, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { IsDecimalString, NoExtraFields, Optional, OptionalNullable } from '../../../platform/http/validation';

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

  /**
   * aggregation_meta (seeds 001: optional, no `?`, type not shown) has no rule of its own, so a null passes:
   * canonicalOrderSpec already treats null as absent for it (the UNSUPPORTED check), and that is kept.
   */
  @ApiPropertyOptional() @Optional()
  aggregation_meta?: unknown;

  // The rest are `?` in the seeds (001, CanonicalOrder: "may be null"): null is absent to canonicalOrderSpec.
  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString() @Length(1, 128)
  client_reference?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString()
  expiry_timestamp?: string | null;

  @ApiPropertyOptional({ type: String, example: '64000.5', nullable: true }) @OptionalNullable() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  limit_price?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  notional_amount?: string | null;

  @ApiPropertyOptional({ type: String, example: '0.010', nullable: true }) @OptionalNullable() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  quantity?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString() @Length(1, 128)
  reporting_identifier?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  tip_quantity?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  trailing_amount?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  trailing_percent?: string | null;

  @ApiPropertyOptional({ type: String, example: '65000', nullable: true }) @OptionalNullable() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  trigger_price?: string | null;

  /** Ours, beside the seeds' fields: what a stop order's trigger_price is compared with (docs/trading.md, "Mark price"). */
  @ApiPropertyOptional({
    type: String, enum: [...TRIGGER_SOURCES, null], nullable: true,
    description: "STOP and STOP_LIMIT only: LAST_PRICE, MARK_PRICE or INDEX_PRICE (the last two on markets bound to a price feed); null or absent: the market's stop_trigger_source.",
  })
  @OptionalNullable() @IsIn(TRIGGER_SOURCES)
  trigger_source?: string | null;
}

@NoExtraFields()
export class ClosePositionRequest {
  @ApiProperty() @IsString() @Matches(/^[A-Za-z0-9+/=_.:-]{1,64}$/, { message: 'external_reference must be 1-64 characters of [A-Za-z0-9+/=_.:-]' })
  external_reference!: string;

  /** quantity?, reporting_identifier? (seeds 001, ClosePositionRequest): may be null, which is absent. */
  @ApiPropertyOptional({ type: String, nullable: true, description: 'part of the position to close; the whole position when omitted or null' }) @OptionalNullable() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  quantity?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString() @Length(1, 128)
  reporting_identifier?: string | null;

  /** venue: optional, not nullable. */
  @ApiPropertyOptional({ example: 'MTF' }) @Optional() @Matches(CODE, code('venue'))
  venue?: string;
}

export class ClosePositionQuery {
  @ApiPropertyOptional({ description: 'market symbol; needed when the caller holds positions in several markets' }) @Optional() @IsString() @Length(1, 64)
  market?: string;
}
