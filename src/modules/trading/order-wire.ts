/**
 * The seeds' Order record, exactly as the public API it mirrors writes it: members in the seeds' (alphabetical)
 * order plus `order_uuid`, flags as 0/1 integers, decimals with 18 fractional digits (zero as `0E-18` where the
 * API shows it so), `created`/`updated` as HTTP-dates, `quote_currency` carrying the market id.
 */
import type { OrderRow } from '../../../projections/trading-orders/trading-orders.read-model';
import { formatDecimal, formatZeroAsExponent, mul, parseDecimal } from './engine/fixed18';

/** `Tue, 04 Mar 2025 10:01:13 GMT`. */
export const httpDate = (iso: string): string => new Date(iso).toUTCString();

export function orderWire(r: OrderRow): Record<string, unknown> {
  const size = parseDecimal(r.order_size);
  const price = r.limit_price === null ? null : parseDecimal(r.limit_price);
  return {
    base_currency: r.base_currency,
    book_or_cancel: r.post_only ? 1 : 0,
    cancel_reason: r.cancel_reason,
    canceled: null,
    created: httpDate(r.created_at),
    direction: r.direction,
    engine_id: r.engine_id,
    estim_market_value: formatZeroAsExponent(price === null ? 0n : mul(price, size)),
    external_ref: r.external_ref,
    fill_or_kill: r.time_in_force === 'FOK' ? 1 : 0,
    immediate_or_cancel: r.time_in_force === 'IOC' ? 1 : 0,
    limit_price: price === null ? null : formatDecimal(price),
    liquidity_pool: r.liquidity_pool,
    market: 'PERPETUAL',
    on_stop_loss: null,
    order_group: r.order_group,
    order_sequence: r.order_sequence,
    order_size: formatDecimal(size),
    order_uuid: r.order_uuid,
    quote_currency: String(r.market_id),
    status: r.status,
    trades: JSON.parse(r.trades) as string[],
    updated: httpDate(r.updated_at),
    vault_uuid: r.vault_uuid,
  };
}
