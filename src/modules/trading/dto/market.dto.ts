/** Admin requests on markets (ours: the seeds give the Market record, not its creation request). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, Matches, Max, Min } from 'class-validator';
import { MARK_BASIS_WINDOW_RANGE_MS, TRIGGER_SOURCES } from '../domain/mark-price';
import { IsDecimalString, NoExtraFields, Optional } from '../../../platform/http/validation';
import { hex32Param } from '../../../platform/http/api-properties';

export class CreateMarketRequest {
  @ApiProperty({ example: 'BTC-PERP' }) @Matches(/^[A-Z0-9][A-Z0-9-]{1,31}$/, { message: 'market_symbol must be 2-32 upper-case letters, digits and dashes' })
  market_symbol!: string;

  @ApiProperty({ example: 'XF0000BTC001' }) @Matches(/^[A-Z]{2}[A-Z0-9]{9}[0-9]$/, { message: 'instrument_isin must be an ISIN (12 characters)' })
  instrument_isin!: string;

  @ApiProperty({ example: '0.001' }) @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  contract_size!: string;

  @ApiProperty({ example: '0.001' }) @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  mininum_quantity!: string;

  @ApiProperty({ example: '0.001' }) @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  minimum_execution_quantity!: string;

  @ApiProperty({ example: '0.5' }) @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  tick_size!: string;

  @ApiPropertyOptional({ example: '100', description: 'Largest quantity of one order; absent: no maximum.' }) @Optional() @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  maximum_quantity?: string;

  @ApiProperty({ example: 'XMTF' }) @Matches(/^[A-Z0-9]{4}$/, { message: 'operating_mic must be a 4-character MIC' })
  operating_mic!: string;

  @ApiProperty({ example: 'XMTS' }) @Matches(/^[A-Z0-9]{4}$/, { message: 'segment_mic must be a 4-character MIC' })
  segment_mic!: string;

  @ApiProperty({ example: 'USD' }) @Matches(/^[A-Z]{3,5}$/, { message: 'price_currency must be 3-5 upper-case letters' })
  price_currency!: string;

  @ApiProperty({ example: 'USD' }) @Matches(/^[A-Z]{3,5}$/, { message: 'quote_currency must be 3-5 upper-case letters' })
  quote_currency!: string;

  @ApiProperty({ example: 'BTC' }) @Matches(/^[A-Z0-9]{2,10}$/, { message: 'base_currency must be 2-10 upper-case letters or digits' })
  base_currency!: string;
}

/** Each flag is a boolean (the seeds' Market: is_suspended, is_cancel_only, is_maker_only), never null. */
@NoExtraFields()
export class ChangeMarketFlagsRequest {
  @ApiPropertyOptional() @Optional() @IsBoolean()
  is_suspended?: boolean;

  @ApiPropertyOptional() @Optional() @IsBoolean()
  is_cancel_only?: boolean;

  @ApiPropertyOptional() @Optional() @IsBoolean()
  is_maker_only?: boolean;
}

/** Binds a market to a composite price feed: its index, its mark price, and what its stops trigger on. */
@NoExtraFields()
export class BindMarketPriceFeedRequest {
  @ApiProperty({ description: 'The composite price feed (POST /api/v1/trading/price-feeds) whose values are the index price.', pattern: '^[0-9a-f]{32}$' })
  @Matches(/^[0-9a-f]{32}$/, { message: 'feed_id must be 32 lowercase hex characters' })
  feed_id!: string;

  @ApiPropertyOptional({ enum: TRIGGER_SOURCES, default: 'LAST_PRICE', description: "What the market's stop orders trigger on unless an order names its own trigger_source." })
  @Optional() @IsIn(TRIGGER_SOURCES)
  stop_trigger_source?: string;

  @ApiPropertyOptional({ type: 'integer', default: 150000, minimum: MARK_BASIS_WINDOW_RANGE_MS.min, maximum: MARK_BASIS_WINDOW_RANGE_MS.max, description: "Window of the mark price's time-weighted basis average (ms)." })
  @Optional() @IsInt() @Min(MARK_BASIS_WINDOW_RANGE_MS.min) @Max(MARK_BASIS_WINDOW_RANGE_MS.max)
  mark_basis_window_ms?: number;
}

export class MarketParam {
  @ApiProperty(hex32Param('The market'))
  @Matches(/^[0-9a-f]{32}$/, { message: 'market_uuid must be 32 lowercase hex characters' })
  market_uuid!: string;
}
