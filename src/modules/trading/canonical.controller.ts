/** The canonical trading routes (`/api/v1/trading/…`): records themselves, no trading envelope. */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiTags, ApiOperation, ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../../platform/auth/principal';
import { CancelOrders, throwUnlessCancelled, type CancelOutcome } from './cancels';
import { cancelAllReceipt, canonicalCancelRecord, canonicalOrderRecord, canonicalOrderSpec, ClosePosition, GetCanonicalOrder, requireVenue } from './canonical';
import { CancelAllOrdersRequest, CancelOrderRequest, OrderIdParam } from './dto/cancel.dto';
import { CanonicalOrder, ClosePositionQuery, ClosePositionRequest } from './dto/canonical.dto';
import { PlaceOrder, type PlacedOrder } from './orders';
import { ApiErrors } from '../../platform/http/openapi';
import { CancelAllOrdersReceiptResponse, CanonicalOrderStateResponse, OrderCancellationReceiptResponse, PlacedCanonicalOrderResponse } from './dto/responses.dto';

@ApiTags('trading')
@Controller('api/v1/trading')
export class CanonicalTradingController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Capability('orders')
  @Post('orders')
  @ApiOperation({ summary: 'Place an order (canonical order model).' })
  @ApiErrors(402, 404)
  @ApiCreatedResponse({ type: PlacedCanonicalOrderResponse })
  async placeCanonicalOrder(@Body() body: CanonicalOrder, @CurrentPrincipal() principal: Principal): Promise<object> {
    const row: PlacedOrder = await this.commandBus.execute(new PlaceOrder(principal, canonicalOrderSpec(body)));
    return canonicalOrderRecord(row);
  }

  /** One of the caller's orders: the record as placed, its status, fills and version (404 for anyone else's). */
  @Capability('orders')
  @Get('orders/:order_uuid')
  @ApiOperation({ summary: 'One of your orders as placed, with status, fills and version.' })
  @ApiOkResponse({ type: CanonicalOrderStateResponse })
  getCanonicalOrder(@Param() params: OrderIdParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetCanonicalOrder(principal, params.order_uuid));
  }

  @Capability('cancellation')
  @Post('orders/cancel-all')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel all your open orders (canonical order model).' })
  @ApiOkResponse({ type: CancelAllOrdersReceiptResponse })
  async cancelAllCanonicalOrders(@Body() body: CancelAllOrdersRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    requireVenue(body.venue);
    const outcomes: CancelOutcome[] = await this.commandBus.execute(new CancelOrders(principal, null, 'CANCEL_ALL', null, body.market ?? null));
    return cancelAllReceipt(outcomes);
  }

  @Capability('cancellation')
  @Post('orders/:order_uuid/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel one of your orders (canonical order model).' })
  @ApiOkResponse({ type: OrderCancellationReceiptResponse })
  async cancelCanonicalOrder(@Param() params: OrderIdParam, @Body() body: CancelOrderRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    requireVenue(body.venue);
    const [outcome]: CancelOutcome[] = await this.commandBus.execute(new CancelOrders(principal, [params.order_uuid], 'USER_REQUEST', body.reason ?? null));
    throwUnlessCancelled(outcome);
    return canonicalCancelRecord(outcome);
  }

  /** A reduce-only market order for the position (or `quantity` of it). */
  @Capability('positions')
  @Post('positions/close')
  @ApiOperation({ summary: 'Close a position with a market order on the opposite side.' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: PlacedCanonicalOrderResponse })
  async closePosition(@Body() body: ClosePositionRequest, @Query() query: ClosePositionQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    const row: PlacedOrder = await this.commandBus.execute(new ClosePosition(principal, body, query.market ?? null));
    return canonicalOrderRecord(row);
  }
}
