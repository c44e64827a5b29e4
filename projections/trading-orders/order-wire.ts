/**
 * The seeds' Order record, exactly as the public API it mirrors writes it: members in the seeds' (alphabetical)
 * order plus `order_uuid`, flags as 0/1 integers, decimals with 18 fractional digits (zero as `0E-18` where the
 * API shows it so), `created`/`updated` as HTTP-dates, `quote_currency` carrying the market id.
 */
import type { OrderRow } from './order-row';
import { formatDecimal, formatZeroAsExponent, mul, parseDecimal } from '../../src/platform/decimal/fixed18';

const httpDates = new Map<string, string>();

/** `Tue, 04 Mar 2025 10:01:13 GMT`. Memoized: list pages render the same instants again and again. */
export function httpDate(iso: string): string {
  let text = httpDates.get(iso);
  if (text === undefined) {
    text = new Date(iso).toUTCString();
    if (httpDates.size >= 10_000) httpDates.clear();
    httpDates.set(iso, text);
  }
  return text;
}

/** The order-list columns the Order record is rendered from (a list reads only these). */
export const ORDER_WIRE_COLUMNS = [
  'order_uuid', 'base_currency', 'post_only', 'cancel_reason', 'created_at', 'direction', 'engine_id', 'order_size', 'limit_price', 'external_ref',
  'time_in_force', 'liquidity_pool', 'order_group', 'order_sequence', 'market_id', 'status', 'trades', 'updated_at', 'vault_uuid', 'position',
] as const satisfies ReadonlyArray<keyof OrderRow>;

export type OrderWireRow = Pick<OrderRow, (typeof ORDER_WIRE_COLUMNS)[number]>;

export function orderWire(r: OrderWireRow): Record<string, unknown> {
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

/** An order's rendered Order record (UTF-8 JSON) and the row version it was rendered from. */
interface RenderedOrder {
  version: number;
  json: Buffer;
}

const RENDERED_ORDERS = 20_000;

/**
 * Rendered Order records by order, valid while the row's `wire_version` is the one rendered (the projector counts
 * every change). A list page reads three small columns per order and renders only what changed since the orders were
 * last shown: reading twenty columns per row and rendering them was most of a page's cost, and clients poll their
 * order lists. Per node, bounded (least recently rendered go first); the row version keeps it exact across nodes.
 * Kept as bytes: a page is put together without a string joined, measured and encoded again, and the records live
 * outside the JavaScript heap, which the young generation's collections would otherwise copy.
 */
export class OrderWireCache {
  private readonly entries = new Map<string, RenderedOrder>();

  get(order_uuid: string, version: number): Buffer | undefined {
    const hit = this.entries.get(order_uuid);
    return hit && hit.version === version ? hit.json : undefined;
  }

  render(row: OrderWireRow & { wire_version: number }): Buffer {
    const json = Buffer.from(JSON.stringify(orderWire(row)));
    this.entries.delete(row.order_uuid);
    this.entries.set(row.order_uuid, { version: row.wire_version, json });
    if (this.entries.size > RENDERED_ORDERS) this.entries.delete(this.entries.keys().next().value as string);
    return json;
  }
}
