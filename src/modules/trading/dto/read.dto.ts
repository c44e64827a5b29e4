/** Query strings of the trading read endpoints (order/trade detail, depth, candles, positions). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length, Matches, registerDecorator } from 'class-validator';
import { Optional } from '../../../platform/http/validation';

/** A query-string integer from `min` to `max` (digits only: no sign, exponent or fraction). */
export function IsIntegerString(min: number, max: number): PropertyDecorator {
  return (object, propertyName) => {
    registerDecorator({
      name: 'isIntegerString',
      target: object.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && /^\d{1,9}$/.test(value) && Number(value) >= min && Number(value) <= max,
        defaultMessage: (args) => `${args?.property} must be an integer from ${min} to ${max}`,
      },
    });
  };
}

const HEX32 = /^[0-9a-f]{32}$/;

export class OrderMetaQuery {
  @ApiProperty({ description: '32-hex order identifier' }) @IsString() @Matches(HEX32, { message: 'order_uuid must be 32 lowercase hex characters' })
  order_uuid!: string;
}

export class TradeMetaQuery {
  @ApiProperty({ description: '32-hex trade identifier' }) @IsString() @Matches(HEX32, { message: 'trade_uuid must be 32 lowercase hex characters' })
  trade_uuid!: string;
}

export class OrderBookQuery {
  @ApiProperty({ example: 'BTC-PERP' }) @IsString() @Length(1, 64)
  market!: string;

  @ApiPropertyOptional({ example: '50', description: 'price levels per side, 1-500 (default 50)' }) @Optional() @IsIntegerString(1, 500)
  depth?: string;
}

export class MarketHistoryQuery {
  @ApiProperty({ example: 'BTC-PERP' }) @IsString() @Length(1, 64)
  market!: string;

  @ApiPropertyOptional({ example: '60', description: 'minutes back from now, 1-1440 (default 60)' }) @Optional() @IsIntegerString(1, 1440)
  minutes?: string;
}

export class PositionsQuery {
  @ApiPropertyOptional({ example: 'BTC-PERP' }) @Optional() @IsString() @Length(1, 64)
  market?: string;
}
