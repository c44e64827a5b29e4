/**
 * Pure market-data aggregation for the read endpoints: order-book depth from resting orders and one-minute OHLCV
 * candles from trades. Exact (fixed18 BigInt), no clock (`now` is an input).
 */
import { formatDecimal, parseDecimal } from '../../platform/decimal/fixed18';

export interface RestingOrder {
  direction: string;
  book_price: string;
  remaining: string;
}

export interface DepthLevel {
  price: string;
  size: string;
  orders: number;
}

/** Resting orders summed per price, best first (bids high→low, asks low→high), at most `depth` levels a side. */
export function aggregateDepth(orders: RestingOrder[], depth: number): { bids: DepthLevel[]; asks: DepthLevel[] } {
  const sides = { BUY: new Map<bigint, { size: bigint; orders: number }>(), SELL: new Map<bigint, { size: bigint; orders: number }>() };
  for (const o of orders) {
    const side = o.direction === 'BUY' ? sides.BUY : o.direction === 'SELL' ? sides.SELL : null;
    const remaining = parseDecimal(o.remaining);
    if (!side || remaining <= 0n) continue;
    const price = parseDecimal(o.book_price);
    const level = side.get(price) ?? { size: 0n, orders: 0 };
    level.size += remaining;
    level.orders += 1;
    side.set(price, level);
  }
  const levels = (m: Map<bigint, { size: bigint; orders: number }>, best: 'high' | 'low'): DepthLevel[] =>
    [...m.entries()]
      .sort(([a], [b]) => (a === b ? 0 : (a < b) === (best === 'low') ? -1 : 1))
      .slice(0, depth)
      .map(([price, l]) => ({ price: formatDecimal(price), size: formatDecimal(l.size), orders: l.orders }));
  return { bids: levels(sides.BUY, 'high'), asks: levels(sides.SELL, 'low') };
}

export interface TradePrint {
  price: string;
  size: string;
  /** RFC 3339. */
  executed_at: string;
}

export interface Candle {
  /** Start of the minute, RFC 3339 UTC (seconds precision). */
  start: string;
  open: string;
  high: string;
  low: string;
  close: string;
  /** Sum of trade sizes. */
  volume: string;
  trades: number;
}

const MINUTE = 60_000;

/** First instant of the window of the last `minutes` minutes ending with the minute `now` falls in. */
export function historyWindowStart(now: Date, minutes: number): number {
  return Math.floor(now.getTime() / MINUTE) * MINUTE - (minutes - 1) * MINUTE;
}

/**
 * One-minute candles over the last `minutes` minutes, the current (partial) minute included, oldest first; minutes
 * without trades are left out. `trades` must be in execution order (open = first, close = last of a minute).
 */
export function minuteCandles(trades: TradePrint[], now: Date, minutes: number): Candle[] {
  const from = historyWindowStart(now, minutes);
  const until = Math.floor(now.getTime() / MINUTE) * MINUTE + MINUTE;
  const buckets = new Map<number, { open: bigint; high: bigint; low: bigint; close: bigint; volume: bigint; trades: number }>();
  for (const t of trades) {
    const at = Date.parse(t.executed_at);
    if (!(at >= from && at < until)) continue;
    const minute = Math.floor(at / MINUTE) * MINUTE;
    const price = parseDecimal(t.price);
    const size = parseDecimal(t.size);
    const c = buckets.get(minute);
    if (!c) {
      buckets.set(minute, { open: price, high: price, low: price, close: price, volume: size, trades: 1 });
      continue;
    }
    if (price > c.high) c.high = price;
    if (price < c.low) c.low = price;
    c.close = price;
    c.volume += size;
    c.trades += 1;
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([minute, c]) => ({
      start: new Date(minute).toISOString().replace('.000Z', 'Z'),
      open: formatDecimal(c.open),
      high: formatDecimal(c.high),
      low: formatDecimal(c.low),
      close: formatDecimal(c.close),
      volume: formatDecimal(c.volume),
      trades: c.trades,
    }));
}
