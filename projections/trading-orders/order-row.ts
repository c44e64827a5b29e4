/** A row of `mtf_orders`, the order list read model (trading-orders.read-model.ts writes it, order-wire.ts shows it). */
export interface OrderRow {
  order_uuid: string;
  profile_uuid: string;
  tenant_uuid: string;
  market_uuid: string;
  market_symbol: string;
  market_id: number;
  base_currency: string;
  direction: string;
  order_type: string;
  time_in_force: string;
  post_only: number;
  order_size: string;
  limit_price: string | null;
  external_ref: string;
  order_group: string;
  vault_uuid: string;
  liquidity_pool: string;
  status: string;
  engine_id: string | null;
  order_sequence: string | null;
  cancel_reason: string | null;
  trades: string;
  created_at: string;
  updated_at: string;
  position: string;
  /** STOP / STOP_LIMIT trigger; null otherwise. */
  trigger_price: string | null;
  reduce_only: number;
  /** 'MTF' or 'CANONICAL': the API that placed the order. */
  channel: string;
  /** Sum of the order's trade sizes (18 fractional digits). */
  filled: string;
  /** Unfilled size: order_size until the first trade, then the engine's `*_remaining` (cancelled remainders stay). */
  remaining: string;
  /** 1 while (a remainder of) the order rests in the book. */
  in_book: number;
  /** The price the order rests at; null until it rests. */
  book_price: string | null;
  cancel_requested: number;
  /** When a stop order's trigger was met; null otherwise. */
  triggered_at: string | null;
  /** Counts the row's changes: a rendered Order record is current while its version matches (OrderWireCache). */
  wire_version: number;
}
