/**
 * The engine's snapshot: the JSON image appended to the snapshot stream (EngineSnapshot), the detached state it is
 * made from (EngineCapture, `MarketEngine.capture()`), and the function between them, which runs on any thread.
 */
import type { EngineTimeInForce } from '../domain/engine-events';
import type { TriggerSource } from '../domain/mark-price';
import { formatDecimal } from '../../../platform/decimal/fixed18';
import type { EngineMarket } from './engine-input';
import type { BookOrder, Side } from './order-book';
import type { ReferencePricesSnapshot } from './reference-prices';

export interface ArmedStop {
  order_uuid: string;
  profile_uuid: string;
  side: Side;
  order_type: 'STOP' | 'STOP_LIMIT';
  time_in_force: EngineTimeInForce;
  reduce_only: boolean;
  price: bigint | null;
  trigger_price: bigint;
  size: bigint;
  sequence: number;
  source: TriggerSource;
}

/** JSON image of an engine (decimal strings, no bigint), appended to the snapshot stream. */
export type EngineSnapshot = {
  market_uuid: string;
  market_id: number;
  last_input_position: string;
  last_price: string | null;
  next_sequence: number;
  /** Resting orders, best first per side, oldest first within a price. */
  bids: SnapshotOrder[];
  asks: SnapshotOrder[];
  stops: Array<Omit<ArmedStop, 'price' | 'trigger_price' | 'size' | 'source'> & { price: string | null; trigger_price: string; size: string; source?: TriggerSource }>;
  /** [profile_uuid, signed net position] sorted by profile. */
  positions: Array<[string, string]>;
} & Partial<ReferencePricesSnapshot>; // absent for markets never bound to a feed (and in snapshots from before feeds)

export interface SnapshotOrder {
  order_id: string;
  owner: string;
  price: string;
  remaining: string;
  sequence: number;
}

/**
 * The engine's state at one instant, detached (copies, amounts still bigint): what `snapshot()` images. Taking one is
 * a copy of the book (about a millisecond for 6,000 orders); imaging it (decimal strings, sorted positions) and its
 * canonical JSON cost ten to fifty times that, so the host does those on a worker thread (engine-snapshots.ts), from a
 * capture sent over in slices: plain data a worker message carries as it is.
 */
export interface EngineCapture {
  market: EngineMarket;
  last_input_position: bigint;
  last_price: bigint | null;
  next_sequence: number;
  bids: BookOrder[];
  asks: BookOrder[];
  stops: ArmedStop[];
  /** [profile_uuid, signed net position], in no order, zeros included. */
  positions: Array<[string, bigint]>;
  /** Small (the feed and the samples of one basis window); null for markets never bound to a feed. */
  prices: ReferencePricesSnapshot | null;
}

/** The snapshot of a captured state: `engine.snapshot()` is `snapshotImage(engine.capture())`, on any thread. */
export function snapshotImage(c: EngineCapture): EngineSnapshot {
  const order = (o: BookOrder): SnapshotOrder => ({
    order_id: o.order_id,
    owner: o.owner,
    price: formatDecimal(o.price),
    remaining: formatDecimal(o.remaining),
    sequence: o.sequence,
  });
  return {
    market_uuid: c.market.market_uuid,
    market_id: c.market.market_id,
    last_input_position: c.last_input_position.toString(),
    last_price: c.last_price === null ? null : formatDecimal(c.last_price),
    next_sequence: c.next_sequence,
    bids: c.bids.map(order),
    asks: c.asks.map(order),
    stops: c.stops.map((s) => ({ ...s, price: s.price === null ? null : formatDecimal(s.price), trigger_price: formatDecimal(s.trigger_price), size: formatDecimal(s.size) })),
    positions: c.positions.filter(([, v]) => v !== 0n).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, formatDecimal(v)]),
    ...c.prices,
  };
}
