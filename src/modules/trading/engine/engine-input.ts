/** What a market engine decides: its inputs, in global log order (src/modules/trading/engine-host.ts builds them). */
import type { EngineOrderType, EngineTimeInForce } from '../domain/engine-events';
import type { TriggerSource } from '../domain/mark-price';
import type { Side } from './order-book';

export interface EngineMarket {
  market_uuid: string;
  market_id: number;
}

/** What the engine needs of an accepted order (OrderAccepted data carries more). */
export interface EngineOrder {
  order_uuid: string;
  profile_uuid: string;
  direction: Side;
  order_type: EngineOrderType;
  time_in_force: EngineTimeInForce;
  post_only: boolean;
  reduce_only: boolean;
  order_size: string;
  limit_price: string | null;
  trigger_price: string | null;
  /** Stops: the order's own trigger source; null or absent: the market's. */
  trigger_source?: TriggerSource | null;
}

export type EngineInput =
  | { kind: 'PLACE'; input_position: bigint; order: EngineOrder }
  | { kind: 'CANCEL'; input_position: bigint; order_uuid: string; profile_uuid: string; reason: 'USER_REQUEST' | 'CANCEL_ALL' }
  | { kind: 'BIND_FEED'; input_position: bigint; feed_id: string; stop_trigger_source: TriggerSource; mark_basis_window_ms: number }
  /** A value of a feed (the host passes only the bound feed's): its status, value (null when STALE) and time. */
  | { kind: 'INDEX_TICK'; input_position: bigint; feed_id: string; status: 'LIVE' | 'STALE'; value: string | null; at: string };
