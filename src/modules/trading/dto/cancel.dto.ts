/** Cancel requests: the seeds' MTF shapes and the canonical CancelOrderRequest / CancelAllOrdersRequest. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, Equals, IsArray, IsBoolean, IsOptional, IsString, Length, Matches } from 'class-validator';
import { NoExtraFields } from '../../../platform/http/validation';

export const MAX_CANCEL_IDS = 500;

export class MtfCancelRequest {
  @ApiProperty({ type: [String], description: `order ids (32-hex), 1 to ${MAX_CANCEL_IDS}` })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CANCEL_IDS)
  @Matches(/^[0-9a-f]{32}$/, { each: true, message: 'each order id must be 32 lowercase hex characters' })
  order_ids!: string[];
}

export class MtfCancelAllRequest {
  @ApiProperty({ enum: [true] })
  @IsBoolean()
  @Equals(true, { message: 'cancel_all must be true' })
  cancel_all!: boolean;
}

/** OrderVenue: the seeds leave its values open; this platform is one venue, `MTF`. */
export const VENUES = ['MTF'] as const;

@NoExtraFields()
export class CancelOrderRequest {
  @ApiPropertyOptional({ maxLength: 320 }) @IsOptional() @IsString() @Length(1, 320)
  reason?: string;

  @ApiPropertyOptional({ enum: VENUES }) @IsOptional() @IsString() @Length(1, 32)
  venue?: string;
}

@NoExtraFields()
export class CancelAllOrdersRequest {
  @ApiPropertyOptional({ example: 'BTC-PERP' }) @IsOptional() @IsString() @Length(1, 64)
  market?: string;

  @ApiPropertyOptional({ enum: VENUES }) @IsOptional() @IsString() @Length(1, 32)
  venue?: string;
}

export class OrderIdParam {
  @Matches(/^[0-9a-f]{32}$/, { message: 'id must be 32 lowercase hex characters' })
  id!: string;
}
