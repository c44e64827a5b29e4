/**
 * The order aggregate (stream mtf-order-<order_uuid>): what the client placed and the cancel request it may send.
 * Both are the matching engine's inputs; the engine's decisions (opened, traded, filled, cancelled) live on the
 * market's engine stream. Validation against the market is pure: the handler passes the market state in.
 */
import type { Decider } from '../../../platform/command/decider';
import { NotFound, RuleViolation, StateConflict } from '../../../platform/errors';
import { isMultipleOf, parseDecimal } from '../../../platform/decimal/fixed18';
import type { EngineOrderType, EngineTimeInForce } from './engine-events';
import type { MarketState } from './market';
import type { TriggerSource } from './mark-price';

export const orderStream = (orderUuid: string): string => `mtf-order-${orderUuid}`;

export type Direction = 'BUY' | 'SELL';
export type OrderType = EngineOrderType;
export type TimeInForce = EngineTimeInForce;

/** Data of OrderAccepted. Decimal strings are exact with 18 fractional digits. */
export interface OrderPlacement {
  order_uuid: string;
  profile_uuid: string;
  tenant_uuid: string;
  market_uuid: string;
  market_id: number;
  market_symbol: string;
  base_currency: string;
  direction: Direction;
  order_type: OrderType;
  time_in_force: TimeInForce;
  post_only: boolean;
  /** Only ever reduces the caller's position in this market (the engine checks it against the position it holds). */
  reduce_only: boolean;
  order_size: string;
  /** LIMIT and STOP_LIMIT; null otherwise. */
  limit_price: string | null;
  /** STOP and STOP_LIMIT: the last trade price that releases the order; null otherwise. */
  trigger_price: string | null;
  /**
   * STOP and STOP_LIMIT: the price the trigger is compared with, overriding the market's stop_trigger_source; null
   * (or absent, in orders accepted before it existed): the market's.
   */
  trigger_source?: TriggerSource | null;
  external_ref: string;
  order_group: string;
  vault_uuid: string;
  liquidity_pool: string;
  /** Which API placed it: the MTF shape or the canonical CanonicalOrder. */
  channel: 'MTF' | 'CANONICAL';
  leverage: number | null;
  client_reference: string | null;
  reporting_identifier: string | null;
}

export type CancelRequestReason = 'USER_REQUEST' | 'CANCEL_ALL';

export interface OrderCancelRequest {
  order_uuid: string;
  profile_uuid: string;
  market_uuid: string;
  reason: CancelRequestReason;
  /** Free text of CancelOrderRequest.reason (canonical API), kept for the audit trail. */
  note: string | null;
}

export type OrderEvent = { type: 'OrderAccepted'; data: OrderPlacement } | { type: 'OrderCancelRequested'; data: OrderCancelRequest };

export interface OrderState {
  placement: OrderPlacement | null;
  cancel_requested: boolean;
}

export type OrderCommand =
  | { kind: 'PlaceOrder'; placement: OrderPlacement; market: MarketState }
  | { kind: 'RequestCancel'; profile_uuid: string; reason: CancelRequestReason; note: string | null };

/** Every rule an order must meet against its market before it is accepted; each names the offending field. */
export function marketRuleViolations(p: OrderPlacement, market: MarketState): Array<{ field: string; issue: string }> {
  const d = market.definition;
  if (!d) return [{ field: 'market', issue: 'no such market' }];
  const issues: Array<{ field: string; issue: string }> = [];
  if (market.flags.is_suspended) issues.push({ field: 'market', issue: 'the market is suspended' });
  if (market.flags.is_cancel_only) issues.push({ field: 'market', issue: 'the market accepts cancellations only' });
  if (market.flags.is_maker_only && !p.post_only) issues.push({ field: 'book_or_cancel', issue: 'the market accepts book-or-cancel (maker) orders only' });
  const size = parseDecimal(p.order_size);
  if (size < parseDecimal(d.mininum_quantity)) issues.push({ field: 'order_size', issue: `below the market's minimum quantity ${d.mininum_quantity}` });
  if (d.maximum_quantity !== null && size > parseDecimal(d.maximum_quantity)) issues.push({ field: 'order_size', issue: `above the market's maximum quantity ${d.maximum_quantity}` });
  if (!isMultipleOf(size, parseDecimal(d.contract_size))) issues.push({ field: 'order_size', issue: `not a multiple of the contract size ${d.contract_size}` });
  const tick = parseDecimal(d.tick_size);
  if (p.limit_price !== null && !isMultipleOf(parseDecimal(p.limit_price), tick)) issues.push({ field: 'limit_price', issue: `not a multiple of the tick size ${d.tick_size}` });
  if (p.trigger_price !== null && !isMultipleOf(parseDecimal(p.trigger_price), tick)) issues.push({ field: 'trigger_price', issue: `not a multiple of the tick size ${d.tick_size}` });
  const limited = p.order_type === 'LIMIT' || p.order_type === 'STOP_LIMIT';
  if (limited && p.limit_price === null) issues.push({ field: 'limit_price', issue: `a ${p.order_type} order needs a limit price` });
  if (!limited && p.limit_price !== null) issues.push({ field: 'limit_price', issue: `a ${p.order_type} order has no limit price` });
  const stop = p.order_type === 'STOP' || p.order_type === 'STOP_LIMIT';
  if (stop && p.trigger_price === null) issues.push({ field: 'trigger_price', issue: `a ${p.order_type} order needs a trigger price` });
  if (!stop && p.trigger_price !== null) issues.push({ field: 'trigger_price', issue: `a ${p.order_type} order has no trigger price` });
  if (p.trigger_source && !stop) issues.push({ field: 'trigger_source', issue: `a ${p.order_type} order has no trigger source` });
  if (stop && p.trigger_source && p.trigger_source !== 'LAST_PRICE' && !market.price_feed) {
    issues.push({ field: 'trigger_source', issue: `${p.trigger_source} needs a price feed bound to the market; this market triggers on LAST_PRICE only` });
  }
  if (p.post_only && (p.order_type !== 'LIMIT' || p.time_in_force !== 'GTC')) {
    issues.push({ field: 'book_or_cancel', issue: 'book-or-cancel needs a LIMIT order that is neither fill-or-kill nor immediate-or-cancel' });
  }
  // A resting reduce-only order could later increase a position that shrank meanwhile: the engine only takes
  // reduce-only orders that never rest.
  if (p.reduce_only && limited && p.time_in_force === 'GTC') issues.push({ field: 'reduce_only', issue: 'a reduce-only limit order must be immediate-or-cancel or fill-or-kill' });
  return issues;
}

export const orderDecider: Decider<OrderCommand, OrderState, OrderEvent> = {
  initialState: () => ({ placement: null, cancel_requested: false }),
  evolve: (s, e) => (e.type === 'OrderAccepted' ? { ...s, placement: e.data } : { ...s, cancel_requested: true }),
  decide: (c, s) => {
    if (c.kind === 'PlaceOrder') {
      if (s.placement) throw new StateConflict('The order exists.');
      const issues = marketRuleViolations(c.placement, c.market);
      if (issues.length > 0) throw new RuleViolation("The order does not meet the market's rules.", issues);
      return [{ type: 'OrderAccepted', data: c.placement }];
    }
    // Another account's order is indistinguishable from a missing one.
    if (!s.placement || s.placement.profile_uuid !== c.profile_uuid) throw new OrderNotFound();
    if (s.cancel_requested) throw new StateConflict('A cancellation of this order was already requested.');
    const p = s.placement;
    return [{ type: 'OrderCancelRequested', data: { order_uuid: p.order_uuid, profile_uuid: p.profile_uuid, market_uuid: p.market_uuid, reason: c.reason, note: c.note } }];
  },
};

export class OrderNotFound extends NotFound {
  constructor() {
    super('No such order.');
  }
}
