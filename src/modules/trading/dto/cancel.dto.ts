/** Cancel requests: the seeds' MTF shapes and the canonical CancelOrderRequest / CancelAllOrdersRequest. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, Equals, IsArray, IsBoolean, IsString, Length, Matches } from 'class-validator';
import { NoExtraFields, Optional, OptionalNullable } from '../../../platform/http/validation';
import { hex32Param } from '../../../platform/http/api-properties';

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
  /** reason? (seeds 001, CancelOrderRequest): may be null; the controller's `?? null` records no reason. */
  @ApiPropertyOptional({ type: String, maxLength: 320, nullable: true }) @OptionalNullable() @IsString() @Length(1, 320)
  reason?: string | null;

  /** venue (OrderVenue): optional, not nullable. */
  @ApiPropertyOptional({ enum: VENUES }) @Optional() @IsString() @Length(1, 32)
  venue?: string;
}

@NoExtraFields()
export class CancelAllOrdersRequest {
  /** market? (seeds 001, CancelAllOrdersRequest): may be null; null, like absent, is every market (`?? null`). */
  @ApiPropertyOptional({ type: String, example: 'BTC-PERP', nullable: true }) @OptionalNullable() @IsString() @Length(1, 64)
  market?: string | null;

  /** venue (OrderVenue): optional, not nullable. */
  @ApiPropertyOptional({ enum: VENUES }) @Optional() @IsString() @Length(1, 32)
  venue?: string;
}

export class OrderIdParam {
  @ApiProperty(hex32Param('The order'))
  @Matches(/^[0-9a-f]{32}$/, { message: 'order_uuid must be 32 lowercase hex characters' })
  order_uuid!: string;
}
