/** Order-book trading (MTF) over HTTP, with the seeds' doubled prefix `/api/v1/api/v1/mtf/…` kept exactly. */
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../../platform/auth/principal';
import { ValidationFailed } from '../../platform/errors';
import { ChangeMarketFlagsRequest, CreateMarketRequest, MarketParam } from './dto/market.dto';
import { ChangeMarketFlags, CreateMarket, ListMarkets, marketWire } from './markets';
import type { MarketRow } from '../../../projections/trading-markets/trading-markets.read-model';

@ApiTags('trading (MTF)')
@ApiBearerAuth()
@Controller('api/v1/api/v1/mtf')
export class MtfController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('markets')
  async markets(): Promise<object> {
    return { response: await this.queryBus.execute(new ListMarkets()), success: true };
  }

  @Post('markets')
  async createMarket(@Body() body: CreateMarketRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    const market: MarketRow = await this.commandBus.execute(new CreateMarket(principal, body));
    return { response: { [market.market_symbol]: marketWire(market) }, success: true };
  }

  @Post('markets/:market_uuid/flags')
  @HttpCode(200)
  async changeFlags(@Param() params: MarketParam, @Body() body: ChangeMarketFlagsRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    if (body.is_suspended === undefined && body.is_cancel_only === undefined && body.is_maker_only === undefined) {
      throw new ValidationFailed('Change at least one flag.', [{ field: 'body', issue: 'needs is_suspended, is_cancel_only or is_maker_only' }]);
    }
    const market: MarketRow = await this.commandBus.execute(new ChangeMarketFlags(principal, params.market_uuid, body));
    return { response: { [market.market_symbol]: marketWire(market) }, success: true };
  }
}
