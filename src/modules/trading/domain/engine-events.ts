/**
 * What a market's matching engine appends to its own stream, `mtf-engine-<market_uuid>`, and the cancel reasons it
 * writes on orders. Every event carries `market_uuid` and `input_position`: the global position of the order-stream
 * event (OrderAccepted / OrderCancelRequested) the engine was deciding, so the stream is also the engine's checkpoint.
 * Quantities and prices are decimal strings with 18 fractional digits (exact); sequences are plain integers.
 *
 * One input → one atomic append of the events below, in the order they happened:
 *   OrderOpened, [StopOrderTriggered], TradeExecuted*, OrderFilled* / OrderCancelled* (makers and the taker), [OrderRested]
 * A stop order's OrderOpened is followed by StopOrderTriggered immediately or by a later input's trades (or index ticks).
 *
 * Markets bound to a price feed have two more inputs: the binding (MarketPriceFeedBound → PriceFeedAttached) and each
 * value the bound feed computes (PriceFeedValueComputed → IndexPriceUpdated, then the stops it releases). After any
 * input of such a market whose decision changes the mark price, MarkPriceUpdated ends the append.
 */
import type { TriggerSource } from './mark-price';

export const engineStream = (marketUuid: string): string => `mtf-engine-${marketUuid}`;
/** Snapshots of an engine's state (a cache: the engine stream alone rebuilds the same state). */
export const engineSnapshotStream = (marketUuid: string): string => `mtf-engine-snapshot-${marketUuid}`;

export type EngineOrderType = 'LIMIT' | 'MARKET' | 'STOP' | 'STOP_LIMIT';
export type EngineTimeInForce = 'GTC' | 'IOC' | 'FOK';

interface EngineEventBase {
  market_uuid: string;
  /** Decimal string of the input event's global position (not zero-padded). */
  input_position: string;
}

/** The engine took the order: it now has an engine id and an order sequence (status OPEN). */
export interface OrderOpenedData extends EngineEventBase {
  order_uuid: string;
  profile_uuid: string;
  /** Engine sequence the order got (book time priority for non-stop orders). */
  sequence: number;
  /** `GW-<market_id>-0-<sequence>`. */
  engine_id: string;
  /** `<input_position>_<sequence>`. */
  order_sequence: string;
  side: 'BUY' | 'SELL';
  order_type: EngineOrderType;
  time_in_force: EngineTimeInForce;
  post_only: boolean;
  reduce_only: boolean;
  /** Limit price (LIMIT, STOP_LIMIT) or null. */
  price: string | null;
  trigger_price: string | null;
  /** The order's size (a reduce-only order may trade less: the cut is an OrderCancelled of the excess). */
  size: string;
  /** Stop orders: what the trigger is compared with (the order's choice, else the market's). Absent: LAST_PRICE. */
  trigger_source?: TriggerSource;
}

/** A stop order's trigger was met (by the price its trigger source names); it now matches with a fresh sequence. */
export interface StopOrderTriggeredData extends EngineEventBase {
  order_uuid: string;
  /** The last trade price then (null: no trade yet, a mark- or index-triggered stop). */
  last_price: string | null;
  /** Absent in events before trigger sources: LAST_PRICE. */
  trigger_source?: TriggerSource;
  /** The price that met the trigger (the last, mark or index price). */
  reference_price?: string;
  /** Sequence consumed by its matching (time priority if it rests). */
  sequence: number;
}

export interface TradeExecutedData extends EngineEventBase {
  /** 32-hex, derived from (market, input position, n): the same on every replay. */
  trade_uuid: string;
  maker_order_uuid: string;
  taker_order_uuid: string;
  maker_profile_uuid: string;
  taker_profile_uuid: string;
  /** The taker's (aggressor's) side. */
  taker_side: 'BUY' | 'SELL';
  /** The maker's price. */
  price: string;
  size: string;
  /** Unfilled sizes after this trade. */
  maker_remaining: string;
  taker_remaining: string;
}

export interface OrderFilledData extends EngineEventBase {
  order_uuid: string;
  profile_uuid: string;
}

export type EngineCancelCode =
  | 'USER_REQUEST'
  | 'CANCEL_ALL'
  | 'IOC_REMAINDER'
  | 'FOK_UNFILLABLE'
  | 'BOOK_OR_CANCEL_WOULD_TRADE'
  | 'SELF_TRADE_PREVENTION'
  | 'MARKET_ORDER_NO_LIQUIDITY'
  | 'REDUCE_ONLY_NO_POSITION'
  | 'REDUCE_ONLY_EXCEEDS_POSITION'
  /** The matcher refused an accepted order (a rule acceptance missed); it is cancelled, never guessed at. */
  | 'ENGINE_REJECTED';

/** The seeds' `<number>_<CamelCase>` form, as the public API writes it (e.g. 41_CancelReason_MarketOrderNoLiquidity). */
export const CANCEL_REASONS: Record<EngineCancelCode, string> = {
  USER_REQUEST: '10_CancelReason_UserRequest',
  CANCEL_ALL: '11_CancelReason_CancelAll',
  IOC_REMAINDER: '20_CancelReason_ImmediateOrCancelRemainder',
  FOK_UNFILLABLE: '21_CancelReason_FillOrKillUnfillable',
  BOOK_OR_CANCEL_WOULD_TRADE: '22_CancelReason_BookOrCancelWouldTrade',
  SELF_TRADE_PREVENTION: '30_CancelReason_SelfTradePrevention',
  MARKET_ORDER_NO_LIQUIDITY: '41_CancelReason_MarketOrderNoLiquidity',
  REDUCE_ONLY_NO_POSITION: '50_CancelReason_ReduceOnlyNoPosition',
  REDUCE_ONLY_EXCEEDS_POSITION: '51_CancelReason_ReduceOnlyExceedsPosition',
  ENGINE_REJECTED: '90_CancelReason_EngineRejected',
};

export interface OrderCancelledData extends EngineEventBase {
  order_uuid: string;
  profile_uuid: string;
  reason: EngineCancelCode;
  /** CANCEL_REASONS[reason]. */
  cancel_reason: string;
  /** The unfilled size cancelled. */
  remaining: string;
}

/** The (remainder of the) order now rests in the book. */
export interface OrderRestedData extends EngineEventBase {
  order_uuid: string;
  profile_uuid: string;
  side: 'BUY' | 'SELL';
  price: string;
  remaining: string;
  sequence: number;
}

/** A cancel request for an order the engine no longer holds (filled, cancelled): nothing changes. */
export interface OrderCancelRejectedData extends EngineEventBase {
  order_uuid: string;
  profile_uuid: string;
  reason: 'ORDER_NOT_OPEN';
}

/** The market's price feed binding as the engine took it, in input order: later ticks of this feed are its index. */
export interface PriceFeedAttachedData extends EngineEventBase {
  feed_id: string;
  stop_trigger_source: TriggerSource;
  mark_basis_window_ms: number;
}

/** A value of the bound feed (an index tick). */
export interface IndexPriceUpdatedData extends EngineEventBase {
  feed_id: string;
  feed_status: 'LIVE' | 'STALE';
  /** Null while STALE: mark- and index-triggered stops then hold. */
  index_price: string | null;
  /** When the feed computed it (RFC 3339): the time the mark's basis average is taken at. */
  at: string;
  /** The basis sample taken at this tick: mid − index, null without both sides of the book or an index. */
  basis: string | null;
}

/** The mark price changed with this input (null: no mark, the index is stale). */
export interface MarkPriceUpdatedData extends EngineEventBase {
  mark_price: string | null;
}

export type EngineEvent =
  | { type: 'OrderOpened'; data: OrderOpenedData }
  | { type: 'StopOrderTriggered'; data: StopOrderTriggeredData }
  | { type: 'TradeExecuted'; data: TradeExecutedData }
  | { type: 'OrderFilled'; data: OrderFilledData }
  | { type: 'OrderCancelled'; data: OrderCancelledData }
  | { type: 'OrderRested'; data: OrderRestedData }
  | { type: 'OrderCancelRejected'; data: OrderCancelRejectedData }
  | { type: 'PriceFeedAttached'; data: PriceFeedAttachedData }
  | { type: 'IndexPriceUpdated'; data: IndexPriceUpdatedData }
  | { type: 'MarkPriceUpdated'; data: MarkPriceUpdatedData };

export const ENGINE_EVENT_TYPES = [
  'OrderOpened', 'StopOrderTriggered', 'TradeExecuted', 'OrderFilled', 'OrderCancelled', 'OrderRested', 'OrderCancelRejected', 'PriceFeedAttached', 'IndexPriceUpdated', 'MarkPriceUpdated',
] as const;
