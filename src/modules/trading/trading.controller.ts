/** Order-book trading (MTF) over HTTP, with the seeds' doubled prefix `/api/v1/api/v1/mtf/…` kept exactly. */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { CancelOrders, type CancelOutcome } from './cancels';
import { cancelEnvelope } from './cancel-wire';
import { MtfCancelAllRequest, MtfCancelRequest } from './dto/cancel.dto';
import type { FastifyReply } from 'fastify';
import { pageLimit } from '../../platform/http/pagination';
import { ListOrdersQuery, PlaceMtfOrderRequest } from './dto/order.dto';
import { ListOrders, PlaceOrder, mtfOrderSpec, type OrderPage } from './orders';
import { orderWire } from '../../../projections/trading-orders/order-wire';
import type { OrderRow } from '../../../projections/trading-orders/trading-orders.read-model';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PlatformAdminOnly, type Principal } from '../../platform/auth/principal';
import { ValidationFailed } from '../../platform/errors';
import { BindMarketPriceFeedRequest, ChangeMarketFlagsRequest, CreateMarketRequest, MarketParam } from './dto/market.dto';
import { BindMarketPriceFeed, ChangeMarketFlags, CreateMarket, ListMarkets, marketWire } from './markets';
import type { MarketRow } from '../../../projections/trading-markets/trading-markets.read-model';
import { ApiErrors } from '../../platform/http/openapi';
import { CancellationResultEntryResponse, CancellationResultResponse, MarketListResponse, MarketResponse, OrderListResponse, PlacedOrderResponse } from './dto/responses.dto';

const PAGE_OPEN = Buffer.from('{"response":[');
const COMMA = Buffer.from(',');
const PAGE_CLOSE = Buffer.from('],"success":true}');

@ApiTags('trading')
@ApiExtraModels(MarketResponse, CancellationResultEntryResponse)
@Controller('api/v1/api/v1/mtf')
export class MtfController {
  /** Bodies of order-list pages, by the page the query answered (held while the query keeps that page). */
  private readonly pageBodies = new WeakMap<OrderPage, Buffer>();

  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** One entry per requested id (variant A, B or a failure); the envelope's success is false if any failed. */
  @Capability('cancellation')
  @Post('cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel orders by id (seed MTF route).' })
  @ApiOkResponse({ type: CancellationResultResponse })
  async cancelOrders(@Body() body: MtfCancelRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    const outcomes: CancelOutcome[] = await this.commandBus.execute(new CancelOrders(principal, body.order_ids, 'USER_REQUEST'));
    return cancelEnvelope(outcomes, this.config.mtfEnvironmentTag);
  }

  /** Every NEW and OPEN order of the caller, one entry each. */
  @Capability('cancellation')
  @Post('cancel_all')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel all your open orders, optionally in one market (seed MTF route).' })
  @ApiOkResponse({ type: CancellationResultResponse })
  async cancelAllMtfOrders(@Body() _body: MtfCancelAllRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    const outcomes: CancelOutcome[] = await this.commandBus.execute(new CancelOrders(principal, null, 'CANCEL_ALL'));
    return cancelEnvelope(outcomes, this.config.mtfEnvironmentTag);
  }

  @Capability('markets')
  @Get('markets')
  @ApiOperation({ summary: 'The markets, keyed by market id, with their trading rules.' })
  @ApiOkResponse({ type: MarketListResponse })
  async listMarkets(): Promise<object> {
    return { response: await this.queryBus.execute(new ListMarkets()), success: true };
  }

  @Capability('markets', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('markets')
  @ApiOperation({ summary: 'Create a market (platform admin).' })
  @ApiCreatedResponse({ type: MarketListResponse, description: 'The market, under its symbol.' })
  async createMarket(@Body() body: CreateMarketRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    const market: MarketRow = await this.commandBus.execute(new CreateMarket(principal, body));
    return { response: { [market.market_symbol]: marketWire(market) }, success: true };
  }

  @Capability('orders')
  @Post('orders')
  @ApiOperation({ summary: 'Place an order (seed MTF route); the matching engine decides it.' })
  @ApiErrors(402, 404)
  @ApiCreatedResponse({ type: PlacedOrderResponse })
  async placeOrder(@Body() body: PlaceMtfOrderRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    const row: OrderRow = await this.commandBus.execute(new PlaceOrder(principal, mtfOrderSpec(body)));
    return { response: orderWire(row), success: true };
  }

  /** The caller's orders, newest first; the next cursor travels in X-Next-Cursor so the body keeps the seeds' shape. */
  @Capability('orders')
  @Get('orders')
  @ApiOperation({ summary: 'Your orders, newest first (next page cursor in X-Next-Cursor).' })
  @ApiOkResponse({ type: OrderListResponse, headers: { 'X-Next-Cursor': { description: 'The next page, when there is one.', schema: { type: 'string' } } } })
  async listOrders(@Query() query: ListOrdersQuery, @CurrentPrincipal() principal: Principal, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    const limit = pageLimit(query.limit, { default: 100, max: 1000 });
    const page: OrderPage = await this.queryBus.execute(new ListOrders(principal, { market: query.market, status: query.status }, limit, query.cursor));
    if (page.next_cursor) reply.header('X-Next-Cursor', page.next_cursor);
    // The records are JSON bytes already: the body is put together, not serialized (nor encoded) again, and a page
    // answered again unchanged (the same object from the query) reuses the body put together for it.
    void reply.header('content-type', 'application/json; charset=utf-8');
    let body = this.pageBodies.get(page);
    if (body === undefined) {
      const parts: Buffer[] = [PAGE_OPEN];
      page.orders.forEach((order, i) => (i === 0 ? parts.push(order) : parts.push(COMMA, order)));
      parts.push(PAGE_CLOSE);
      body = Buffer.concat(parts);
      this.pageBodies.set(page, body);
    }
    return body;
  }

  @Capability('markets', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('markets/:market_uuid/flags')
  @HttpCode(200)
  @ApiOperation({ summary: 'Halt or resume a market, or change its flags (platform admin).' })
  @ApiOkResponse({ type: MarketListResponse, description: 'The market, under its symbol.' })
  async changeMarketFlags(@Param() params: MarketParam, @Body() body: ChangeMarketFlagsRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    if (body.is_suspended === undefined && body.is_cancel_only === undefined && body.is_maker_only === undefined) {
      throw new ValidationFailed('Change at least one flag.', [{ field: 'body', issue: 'needs is_suspended, is_cancel_only or is_maker_only' }]);
    }
    const market: MarketRow = await this.commandBus.execute(new ChangeMarketFlags(principal, params.market_uuid, body));
    return { response: { [market.market_symbol]: marketWire(market) }, success: true };
  }

  @Capability('markets', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('markets/:market_uuid/price-feed')
  @HttpCode(200)
  @ApiOperation({ summary: "Bind a market to a composite price feed: its index and mark price, and what its stops trigger on (platform admin)." })
  @ApiErrors(404)
  @ApiOkResponse({ type: MarketListResponse, description: 'The market, under its symbol.' })
  async bindMarketPriceFeed(@Param() params: MarketParam, @Body() body: BindMarketPriceFeedRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    const market: MarketRow = await this.commandBus.execute(new BindMarketPriceFeed(principal, params.market_uuid, body));
    return { response: { [market.market_symbol]: marketWire(market) }, success: true };
  }
}
