/**
 * Requests and answers of the price-feed routes: the seeds' CompositePriceFeedSource (no extra fields) and
 * CompositePriceFeedReceipt, and ours (the feed's bounds, providers, pushed quotes, the feed as listed).
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsISO8601, IsNumber, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { HEX32_ID, hex32Param } from '../../../platform/http/api-properties';
import { IsDecimalString, NoExtraFields, Optional } from '../../../platform/http/validation';
import { FEED_MODES } from '../domain/price-feed';

const HEX32 = /^[0-9a-f]{32}$/;
const SYMBOL = /^[A-Za-z0-9][A-Za-z0-9:._/-]{0,63}$/;
export const MIN_WEIGHT = 0.001;
export const MAX_WEIGHT = 1000;

/** The seeds' CompositePriceFeedSource. */
@NoExtraFields()
export class CompositePriceFeedSource {
  @ApiProperty(hex32Param('A registered price provider')) @Matches(HEX32, { message: 'provider_uuid must be 32 lowercase hex characters' })
  provider_uuid!: string;

  @ApiProperty({ pattern: SYMBOL.source, example: 'BTCUSD', description: 'The instrument as the provider names it.' }) @Matches(SYMBOL, { message: 'provider_symbol must be 1-64 of letters, digits and :._/-' })
  provider_symbol!: string;

  @ApiPropertyOptional({ type: 'number', minimum: MIN_WEIGHT, maximum: MAX_WEIGHT, default: 1, description: 'Finite; stored in events as a decimal string.' })
  @Optional() @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 6 }) @Min(MIN_WEIGHT) @Max(MAX_WEIGHT)
  weight?: number;
}

@NoExtraFields()
export class CreatePriceFeedRequest {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'BTC index' }) @IsString() @Length(1, 120)
  name!: string;

  @ApiProperty({ pattern: SYMBOL.source, example: 'BTC-USD', description: 'What the feed prices.' }) @Matches(SYMBOL, { message: 'instrument must be 1-64 of letters, digits and :._/-' })
  instrument!: string;

  @ApiPropertyOptional({ enum: FEED_MODES, default: 'WEIGHTED_MEDIAN' }) @Optional() @IsIn(FEED_MODES)
  mode?: string;

  @ApiProperty({ type: [CompositePriceFeedSource], minItems: 1, maxItems: 16, description: 'Unique by provider and symbol.' })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(16) @ValidateNested({ each: true }) @Type(() => CompositePriceFeedSource)
  sources!: CompositePriceFeedSource[];

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 16, default: 1, description: 'Live sources needed for a value; fewer: STALE.' }) @Optional() @IsInt() @Min(1) @Max(16)
  min_sources?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1000, maximum: 3_600_000, default: 10_000, description: 'How old (by the provider\'s publish time) a quote may be.' })
  @Optional() @IsInt() @Min(1000) @Max(3_600_000)
  max_staleness_ms?: number;

  @ApiPropertyOptional({ description: 'Fraction (0.0001 to 0.5) a quote may deviate from the sources\' weighted median before it is excluded.', default: '0.05', example: '0.05' })
  @Optional() @IsDecimalString({ positive: true, maxIntegerDigits: 1, maxFractionDigits: 4 })
  max_deviation?: string;
}

/** The seeds' CompositePriceFeedReceipt. */
export class CompositePriceFeedReceipt {
  @ApiProperty(HEX32_ID) feed_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() instrument!: string;
  @ApiProperty({ enum: FEED_MODES }) mode!: string;
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0 }) source_count!: number;
}

export class FeedParam {
  @ApiProperty(hex32Param('The feed')) @Matches(HEX32, { message: 'feed_id must be 32 lowercase hex characters' })
  feed_id!: string;
}

export class ProviderParam {
  @ApiProperty(hex32Param('The provider')) @Matches(HEX32, { message: 'provider_uuid must be 32 lowercase hex characters' })
  provider_uuid!: string;
}

@NoExtraFields()
export class RegisterPriceProviderRequest {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Venue A' }) @IsString() @Length(1, 120)
  name!: string;
}

export class PriceProviderCreated {
  @ApiProperty(HEX32_ID) provider_uuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The key the provider sends as X-Provider-Key when it pushes quotes. Shown once; the platform keeps its SHA-256 only.' }) push_key!: string;
}

@NoExtraFields()
export class PushedQuote {
  @ApiProperty({ pattern: SYMBOL.source, example: 'BTCUSD' }) @Matches(SYMBOL, { message: 'provider_symbol must be 1-64 of letters, digits and :._/-' })
  provider_symbol!: string;

  @ApiProperty({ description: 'A positive decimal string.', example: '50123.5' }) @IsDecimalString({ positive: true, maxIntegerDigits: 15, maxFractionDigits: 18 })
  price!: string;

  @ApiProperty({ format: 'date-time', description: 'When the provider published it (staleness is measured from here).' })
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'published_at must be an RFC 3339 date-time' })
  published_at!: string;
}

@NoExtraFields()
export class PushQuotesRequest {
  @ApiProperty({ type: [PushedQuote], minItems: 1, maxItems: 100 }) @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @ValidateNested({ each: true }) @Type(() => PushedQuote)
  quotes!: PushedQuote[];
}

export class RefusedQuote {
  @ApiProperty({ type: 'integer', minimum: 0 }) index!: number;
  @ApiProperty({ enum: ['FUTURE'] }) reason!: string;
}

export class PushQuotesReceipt {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Quotes taken in.' }) accepted!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Feed values computed from them (a quote feeds every feed that lists its source).' }) values_computed!: number;
  @ApiProperty({ type: [RefusedQuote], description: 'Published more than 5 s in the future (by our clock).' }) refused!: RefusedQuote[];
}

export class FeedSourceView {
  @ApiProperty(HEX32_ID) provider_uuid!: string;
  @ApiProperty() provider_symbol!: string;
  @ApiProperty({ description: 'A decimal string.' }) weight!: string;
}

export class FeedExclusionView {
  @ApiProperty(HEX32_ID) provider_uuid!: string;
  @ApiProperty() provider_symbol!: string;
  @ApiProperty({ enum: ['NO_QUOTE', 'STALE', 'OUTLIER'] }) reason!: string;
}

export class FeedUsedView extends FeedSourceView {
  @ApiProperty() price!: string;
}

export class PriceFeedView {
  @ApiProperty(HEX32_ID) feed_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() instrument!: string;
  @ApiProperty({ enum: FEED_MODES }) mode!: string;
  @ApiProperty({ type: [FeedSourceView] }) sources!: FeedSourceView[];
  @ApiProperty({ type: 'integer' }) min_sources!: number;
  @ApiProperty({ type: 'integer' }) max_staleness_ms!: number;
  @ApiProperty() max_deviation!: string;
  @ApiProperty({ enum: ['LIVE', 'STALE'], description: 'As of now: the latest quotes judged at this instant.' }) status!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The index as of now (null while STALE).' }) value!: string | null;
  @ApiProperty({ type: [FeedUsedView] }) used!: FeedUsedView[];
  @ApiProperty({ type: [FeedExclusionView] }) excluded!: FeedExclusionView[];
  @ApiProperty({ type: String, nullable: true, format: 'date-time', description: 'When the last quote was applied.' }) last_computed_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class PriceFeedPage {
  @ApiProperty({ type: [PriceFeedView] }) items!: PriceFeedView[];
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 200 }) limit!: number;
  @ApiPropertyOptional() next_cursor?: string;
}
