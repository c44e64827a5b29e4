/**
 * The order aggregate (stream mtf-order-<order_uuid>): what the client placed and its lifecycle as far as it is
 * decided before the engine takes it. Validation against the market is pure: the handler passes the market state in.
 */
import type { Decider } from '../../../platform/command/decider';
import { RuleViolation, StateConflict } from '../../../platform/errors';
import { isMultipleOf, parseDecimal } from '../engine/fixed18';
import type { MarketState } from './market';

export const orderStream = (orderUuid: string): string => `mtf-order-${orderUuid}`;

export type Direction = 'BUY' | 'SELL';
export type OrderType = 'LIMIT' | 'MARKET';
export type TimeInForce = 'GTC' | 'IOC' | 'FOK';

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
  /** Decimal strings (exact). */
  order_size: string;
  limit_price: string | null;
  external_ref: string;
  order_group: string;
  vault_uuid: string;
  liquidity_pool: string;
}

export type OrderEvent = { type: 'OrderAccepted'; data: OrderPlacement } | { type: 'OrderCancelRequested'; data: { reason: string } };

export interface OrderState {
  placement: OrderPlacement | null;
  cancel_requested: boolean;
}

export type OrderCommand = { kind: 'PlaceOrder'; placement: OrderPlacement; market: MarketState };

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
  if (!isMultipleOf(size, parseDecimal(d.contract_size))) issues.push({ field: 'order_size', issue: `not a multiple of the contract size ${d.contract_size}` });
  if (p.limit_price !== null && !isMultipleOf(parseDecimal(p.limit_price), parseDecimal(d.tick_size))) {
    issues.push({ field: 'limit_price', issue: `not a multiple of the tick size ${d.tick_size}` });
  }
  if (p.order_type === 'MARKET' && p.post_only) issues.push({ field: 'book_or_cancel', issue: 'a market order cannot be book-or-cancel' });
  if (p.post_only && p.time_in_force !== 'GTC') issues.push({ field: 'book_or_cancel', issue: 'book-or-cancel cannot be combined with fill-or-kill or immediate-or-cancel' });
  return issues;
}

export const orderDecider: Decider<OrderCommand, OrderState, OrderEvent> = {
  initialState: () => ({ placement: null, cancel_requested: false }),
  evolve: (s, e) => (e.type === 'OrderAccepted' ? { ...s, placement: e.data } : { ...s, cancel_requested: true }),
  decide: (c, s) => {
    if (s.placement) throw new StateConflict('The order exists.');
    const issues = marketRuleViolations(c.placement, c.market);
    if (issues.length > 0) throw new RuleViolation('The order does not meet the market\'s rules.', issues);
    return [{ type: 'OrderAccepted', data: c.placement }];
  },
};
