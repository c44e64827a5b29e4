/**
 * The canonical trading API: CanonicalOrder → the engine's OrderSpec (what the engine cannot do is a 422 naming the
 * field, never ignored), the answers it gets, and closing a position with a reduce-only market order.
 */
import { CommandBus, CommandHandler, QueryBus, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { CommandExecutor } from '../../platform/command/command-executor';
import type { Principal } from '../../platform/auth/principal';
import { RuleViolation, StateConflict, ValidationFailed, type ErrorDetail } from '../../platform/errors';
import type { CanonicalOrder, ClosePositionRequest } from './dto/canonical.dto';
import { VENUES } from './dto/cancel.dto';
import { formatDecimal, parseDecimal } from '../../platform/decimal/fixed18';
import { PlaceOrder, type OrderSpec, type PlacedOrder } from './orders';
import { OrderNotFound, orderDecider, orderStream, type OrderType, type TimeInForce } from './domain/order';
import type { CancelOutcome } from './cancels';
import { ListPositions, loadOrderMeta, type PositionRecord } from './reads';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import type { TriggerSource } from './domain/mark-price';

const ORDER_TYPES: readonly OrderType[] = ['LIMIT', 'MARKET', 'STOP', 'STOP_LIMIT'];
const TIME_IN_FORCE = ['GTC', 'IOC', 'FOK', 'BOOK_OR_CANCEL'] as const;
const UNSUPPORTED: ReadonlyArray<[keyof CanonicalOrder, string]> = [
  ['notional_amount', 'orders are sized by quantity; notional sizing is not supported'],
  ['tip_quantity', 'iceberg orders are not supported'],
  ['trailing_amount', 'trailing stops are not supported'],
  ['trailing_percent', 'trailing stops are not supported'],
  ['expiry_timestamp', 'good-till-date orders are not supported'],
  ['aggregation_meta', 'order aggregation is not supported'],
];

export function requireVenue(venue: string | undefined): void {
  if (venue !== undefined && !(VENUES as readonly string[]).includes(venue)) throw new RuleViolation(`Venue ${venue} is not supported.`, [{ field: 'venue', issue: `supported: ${VENUES.join(', ')}` }]);
}

/** Pure: the engine's terms for a canonical order, or every reason it cannot take it. */
export function canonicalOrderSpec(o: CanonicalOrder): OrderSpec {
  const unsupported: ErrorDetail[] = [];
  if (!(VENUES as readonly string[]).includes(o.venue)) unsupported.push({ field: 'venue', issue: `venue ${o.venue} is not supported (supported: ${VENUES.join(', ')})` });
  if (!ORDER_TYPES.includes(o.order_type as OrderType)) unsupported.push({ field: 'order_type', issue: `order type ${o.order_type} is not supported (supported: ${ORDER_TYPES.join(', ')})` });
  if (!(TIME_IN_FORCE as readonly string[]).includes(o.time_in_force)) unsupported.push({ field: 'time_in_force', issue: `time in force ${o.time_in_force} is not supported (supported: ${TIME_IN_FORCE.join(', ')})` });
  if (o.combos.length > 0) unsupported.push({ field: 'combos', issue: 'combination orders are not supported; send an empty list' });
  if (o.leverage > 1) unsupported.push({ field: 'leverage', issue: 'this venue trades unlevered: leverage must be 0 or 1' });
  for (const [field, issue] of UNSUPPORTED) if (o[field] !== undefined && o[field] !== null) unsupported.push({ field, issue });
  if (unsupported.length > 0) throw new RuleViolation('The order uses what this venue does not support.', unsupported);
  // quantity may be null (seeds 001, CanonicalOrder `quantity?`): null is no quantity, as absent is (it was a 500).
  if (o.quantity === undefined || o.quantity === null) throw new ValidationFailed('The order needs a quantity.', [{ field: 'quantity', issue: 'required' }]);
  const bookOrCancel = o.time_in_force === 'BOOK_OR_CANCEL';
  return {
    market_symbol: o.market,
    direction: o.side,
    order_type: o.order_type as OrderType,
    time_in_force: bookOrCancel ? 'GTC' : (o.time_in_force as TimeInForce),
    post_only: bookOrCancel,
    reduce_only: o.reduce_only,
    order_size: o.quantity,
    limit_price: o.limit_price ?? null,
    trigger_price: o.trigger_price ?? null,
    trigger_source: (o.trigger_source as TriggerSource | null | undefined) ?? null,
    external_ref: o.external_reference,
    channel: 'CANONICAL',
    leverage: o.leverage,
    client_reference: o.client_reference ?? null,
    reporting_identifier: o.reporting_identifier ?? null,
  };
}

/** What the canonical placement answers: the order as placed, with its id and status. */
export function canonicalOrderRecord(r: PlacedOrder): Record<string, unknown> {
  return {
    order_uuid: r.order_uuid,
    status: r.status,
    venue: 'MTF',
    market: r.market_symbol,
    side: r.direction,
    order_type: r.order_type,
    time_in_force: r.post_only ? 'BOOK_OR_CANCEL' : r.time_in_force,
    external_reference: r.external_ref,
    leverage: r.leverage ?? 0,
    reduce_only: Boolean(r.reduce_only),
    combos: [],
    limit_price: r.limit_price,
    quantity: r.order_size,
    trigger_price: r.trigger_price,
    trigger_source: r.trigger_source ?? null,
    client_reference: r.client_reference ?? null,
    reporting_identifier: r.reporting_identifier ?? null,
    engine_id: r.engine_id,
    created_at: r.created_at,
  };
}

/** The canonical answer to a single cancel. */
export function canonicalCancelRecord(o: CancelOutcome): Record<string, unknown> {
  return {
    order_uuid: o.order_uuid,
    venue: 'MTF',
    status: o.status,
    cancellation_attempted: o.kind === 'CANCELLED' || o.kind === 'REQUESTED',
    cancelled: o.kind === 'CANCELLED',
    requested_at: o.requested_at,
    message: o.message,
  };
}

/** CancelAllOrdersReceipt: requested = orders targeted; cancelled = those the engine cancelled before the answer. */
export function cancelAllReceipt(outcomes: CancelOutcome[]): Record<string, unknown> {
  const cancelled = outcomes.filter((o) => o.kind === 'CANCELLED');
  const pending = outcomes.some((o) => o.kind === 'REQUESTED');
  return {
    status: pending ? 'PENDING' : 'COMPLETED',
    requested_count: outcomes.length,
    cancelled_count: cancelled.length,
    order_ids: cancelled.map((o) => o.order_uuid),
  };
}

export class ClosePosition {
  constructor(
    readonly principal: Principal,
    readonly request: ClosePositionRequest,
    readonly marketSymbol: string | null,
  ) {}
}

/** A reduce-only market order against the caller's position (as the positions read model shows it). */
@CommandHandler(ClosePosition)
export class ClosePositionHandler implements ICommandHandler<ClosePosition, PlacedOrder> {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly commandBus: CommandBus,
  ) {}

  async execute({ principal, request, marketSymbol }: ClosePosition): Promise<PlacedOrder> {
    requireVenue(request.venue);
    const positions: PositionRecord[] = await this.queryBus.execute(new ListPositions(principal, marketSymbol ?? undefined));
    const open = positions.filter((p) => p.side !== 'FLAT');
    if (open.length === 0) throw new StateConflict(marketSymbol ? `No open position in ${marketSymbol}.` : 'No open position.');
    if (open.length > 1) throw new ValidationFailed('Positions are open in several markets: name one.', [{ field: 'market', issue: `one of ${open.map((p) => p.market).join(', ')}` }]);
    const held = parseDecimal(open[0].quantity);
    // quantity may be null (seeds 001, ClosePositionRequest `quantity?`): null, like absent, is the whole position.
    const quantity = request.quantity === undefined || request.quantity === null ? held : parseDecimal(request.quantity);
    if (quantity > held) throw new RuleViolation('The quantity exceeds the position.', [{ field: 'quantity', issue: `at most ${formatDecimal(held)}` }]);
    return this.commandBus.execute(
      new PlaceOrder(principal, {
        market_symbol: open[0].market,
        direction: open[0].side === 'LONG' ? 'SELL' : 'BUY',
        order_type: 'MARKET',
        time_in_force: 'IOC',
        post_only: false,
        reduce_only: true,
        order_size: formatDecimal(quantity),
        limit_price: null,
        trigger_price: null,
        external_ref: request.external_reference,
        channel: 'CANONICAL',
        leverage: null,
        client_reference: null,
        reporting_identifier: request.reporting_identifier ?? null,
      }),
    );
  }
}

/** One of the caller's orders as the canonical API has it: GET /api/v1/trading/orders/{order_uuid}. */
export class GetCanonicalOrder {
  constructor(readonly principal: Principal, readonly order_uuid: string) {}
}

/**
 * The canonical record of an order as placed, with what happened to it since: `status`, the fills (`filled`,
 * `remaining`, `average_price`, each trade from the order's side), and `version`, the revision of the order's own
 * stream (0 once placed, 1 once a cancellation was requested). The same tenancy as the order list: another
 * account's order, or none, is 404. Fills come from the read models (GetOrderMeta, the one order read), the
 * placement's own fields (leverage, references) from the order's stream.
 */
@QueryHandler(GetCanonicalOrder)
export class GetCanonicalOrderHandler implements IQueryHandler<GetCanonicalOrder, Record<string, unknown>> {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly runner: ProjectionRunner,
    private readonly commands: CommandExecutor,
  ) {}

  async execute({ principal, order_uuid }: GetCanonicalOrder): Promise<Record<string, unknown>> {
    const { row, meta } = await loadOrderMeta(this.db, this.runner, principal, order_uuid);
    const { state, version } = await this.commands.load(orderStream(order_uuid), orderDecider);
    const placement = state.placement;
    if (!placement || placement.profile_uuid !== principal.profile_uuid || version === null) throw new OrderNotFound();
    return {
      ...canonicalOrderRecord({ ...row, leverage: placement.leverage, client_reference: placement.client_reference, reporting_identifier: placement.reporting_identifier, trigger_source: placement.trigger_source ?? null }),
      filled: meta.filled,
      remaining: meta.remaining,
      average_price: meta.average_price,
      in_book: meta.in_book,
      cancel_requested: meta.cancel_requested,
      triggered_at: meta.triggered_at,
      fills: meta.trades,
      updated_at: row.updated_at,
      version: Number(version),
    };
  }
}
