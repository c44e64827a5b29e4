/** Trading reads over HTTP: MTF detail, depth and candles (seeds' doubled prefix, MTF envelope) and positions. */
import { Capability } from '../../platform/capabilities/capability';
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiTags, ApiOperation, ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../../platform/auth/principal';
import { MarketHistoryQuery, OrderBookQuery, OrderMetaQuery, PositionsQuery, TradeMetaQuery } from './dto/read.dto';
import { GetMarketHistory, GetOrderBook, GetOrderMeta, GetTradeMeta, ListPositions, type PositionRecord } from './reads';
import { ApiErrors } from '../../platform/http/openapi';
import { MarketHistoryResultResponse, OrderBookResultResponse, OrderMetaResultResponse, PositionListResponse, TradeMetaResultResponse } from './dto/responses.dto';

@ApiTags('trading')
@Controller('api/v1/api/v1/mtf')
export class MtfReadController {
  constructor(private readonly queryBus: QueryBus) {}

  /** One of the caller's orders: the Order record plus fills, book state and its trades. */
  @Capability('orders')
  @Get('order_meta')
  @ApiOperation({ summary: 'One of your orders with its fills.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: OrderMetaResultResponse })
  async getOrderMeta(@Query() query: OrderMetaQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return { response: await this.queryBus.execute(new GetOrderMeta(principal, query.order_uuid)), success: true };
  }

  /** A trade the caller was a party to, from the caller's side. */
  @Capability('trades')
  @Get('trade_meta')
  @ApiOperation({ summary: 'A trade you were a party to, from your side.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: TradeMetaResultResponse })
  async getTradeMeta(@Query() query: TradeMetaQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return { response: await this.queryBus.execute(new GetTradeMeta(principal, query.trade_uuid)), success: true };
  }

  /** Aggregated depth, best price first on each side. */
  @Capability('market-data')
  @Get('orderbook')
  @ApiOperation({ summary: 'Aggregated depth of a market, best price first on each side.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: OrderBookResultResponse })
  async getOrderbook(@Query() query: OrderBookQuery): Promise<object> {
    return { response: await this.queryBus.execute(new GetOrderBook(query.market, query.depth === undefined ? 50 : Number(query.depth))), success: true };
  }

  /** One-minute OHLCV candles of the last `minutes` minutes, oldest first, minutes with trades only. */
  @Capability('market-data')
  @Get('market_history')
  @ApiOperation({ summary: 'Candles of a market over a time range.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: MarketHistoryResultResponse })
  async getMarketHistory(@Query() query: MarketHistoryQuery): Promise<object> {
    return { response: await this.queryBus.execute(new GetMarketHistory(query.market, query.minutes === undefined ? 60 : Number(query.minutes), new Date())), success: true };
  }
}

@ApiTags('trading')
@Controller('api/v1/trading')
export class TradingPositionsController {
  constructor(private readonly queryBus: QueryBus) {}

  /** The caller's net positions per market (flat ones too: they carry realized PnL). */
  @Capability('positions')
  @Get('positions')
  @ApiOperation({ summary: 'Your positions per market.' })
  @ApiOkResponse({ type: PositionListResponse })
  async listPositions(@Query() query: PositionsQuery, @CurrentPrincipal() principal: Principal): Promise<{ items: PositionRecord[] }> {
    return { items: await this.queryBus.execute(new ListPositions(principal, query.market)) };
  }
}
