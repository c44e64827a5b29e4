/** Order placement (MTF shape) and the order list's filters. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { IsDecimalString, Optional } from '../../../platform/http/validation';

export class PlaceMtfOrderRequest {
  @ApiProperty({ enum: ['BUY', 'SELL'] }) @IsIn(['BUY', 'SELL'])
  direction!: 'BUY' | 'SELL';

  @ApiProperty({ example: 'BTC-PERP', description: 'market symbol' }) @IsString() @Length(1, 64)
  market!: string;

  @ApiProperty({ example: '0.010' }) @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  order_size!: string;

  @ApiProperty({ type: String, example: '64000.5', nullable: true, description: 'null for a market order' })
  @ValidateIf((o: PlaceMtfOrderRequest) => o.limit_price !== null)
  @IsDecimalString({ positive: true, maxFractionDigits: 18 })
  limit_price!: string | null;

  // The flags are integers (seeds 000, Order), never null.
  @ApiPropertyOptional({ enum: [0, 1] }) @Optional() @IsIn([0, 1], { message: 'book_or_cancel must be the integer 0 or 1' })
  book_or_cancel?: 0 | 1;

  @ApiPropertyOptional({ enum: [0, 1] }) @Optional() @IsIn([0, 1], { message: 'fill_or_kill must be the integer 0 or 1' })
  fill_or_kill?: 0 | 1;

  @ApiPropertyOptional({ enum: [0, 1] }) @Optional() @IsIn([0, 1], { message: 'immediate_or_cancel must be the integer 0 or 1' })
  immediate_or_cancel?: 0 | 1;

  @ApiProperty({ description: 'client-side order reference' }) @IsString() @Matches(/^[A-Za-z0-9+/=_.:-]{1,64}$/, { message: 'external_ref must be 1-64 characters of [A-Za-z0-9+/=_.:-]' })
  external_ref!: string;
}

export class ListOrdersQuery {
  @ApiPropertyOptional() @Optional() @IsString() @Length(1, 64)
  market?: string;

  @ApiPropertyOptional({ enum: ['NEW', 'OPEN', 'FILLED', 'CANCELLED'] }) @Optional() @IsIn(['NEW', 'OPEN', 'FILLED', 'CANCELLED'])
  status?: string;

  @ApiPropertyOptional({ example: '100' }) @Optional() @Matches(/^\d{1,4}$/, { message: 'limit must be a positive integer' })
  limit?: string;

  @ApiPropertyOptional() @Optional() @IsString() @Length(1, 512)
  cursor?: string;
}
