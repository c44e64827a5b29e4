/**
 * A market's mark price (pure, exact): what mark-triggered stops compare with, built from the market's index price
 * (its bound composite feed, src/modules/trading/domain/price-feed.ts) so that one trader on a thin book cannot move it.
 *
 *   mark = median( index,
 *                  index + B,                           B: time-weighted average of (mid − index) over the window
 *                  median(best bid, best ask, last) )   of those that exist
 *   mark = index                                        on an empty book (no bid and no ask)
 *   no mark                                             while the index is stale (or before its first value)
 *
 * B is sampled at every index tick: the sample (mid − index, mid = (bid + ask) / 2, none without both sides) holds from
 * its tick to the next one, and the average weighs each sample by how long it held within [now − window, now], `now`
 * being the latest tick's time. The latest sample has held for no time yet, so a book pushed away right now moves B
 * only as time passes; with no history B is 0. Medians of an even count take the midpoint (HALF_EVEN, 18 digits).
 * The engine never reads a clock: `now` is the time the feed stamped on its latest value, an input like any order.
 */
import { divideRounded } from '../../../platform/decimal/fixed18';

/** What a stop order's trigger price is compared with. */
export const TRIGGER_SOURCES = ['LAST_PRICE', 'MARK_PRICE', 'INDEX_PRICE'] as const;
export type TriggerSource = (typeof TRIGGER_SOURCES)[number];
/** Hyperliquid's mark takes a 150 s average of the book's basis; the default window here too. */
export const DEFAULT_MARK_BASIS_WINDOW_MS = 150_000;
export const MARK_BASIS_WINDOW_RANGE_MS = { min: 1_000, max: 3_600_000 } as const;

/** One basis sample: at an index tick (ms since the epoch), mid − index, or null (no mid or no index then). */
export interface BasisSample {
  at: number;
  basis: bigint | null;
}

/** The median of a non-empty list (the midpoint of the two middle values for an even count). */
export function median(values: readonly bigint[]): bigint {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : divideRounded(sorted[mid - 1] + sorted[mid], 2n, 'HALF_EVEN');
}

/** B: the time-weighted average of the samples (oldest first) over [now − window, now]; 0 without history. */
export function timeWeightedBasis(samples: readonly BasisSample[], now: number, windowMs: number): bigint {
  const from = now - windowMs;
  let weighted = 0n;
  let total = 0n;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    if (s.basis === null) continue;
    const start = Math.max(s.at, from);
    const end = Math.min(i + 1 < samples.length ? samples[i + 1].at : now, now);
    if (end <= start) continue;
    const held = BigInt(end - start);
    weighted += s.basis * held;
    total += held;
  }
  return total === 0n ? 0n : divideRounded(weighted, total, 'HALF_EVEN');
}

/** The samples still needed at `now`: those holding into the window (the last one before it included). */
export function pruneSamples(samples: BasisSample[], now: number, windowMs: number): BasisSample[] {
  const from = now - windowMs;
  let first = 0;
  while (first + 1 < samples.length && samples[first + 1].at <= from) first++;
  return first === 0 ? samples : samples.slice(first);
}

/** mid − index, or null without both sides of the book. */
export function basisSample(index: bigint, bestBid: bigint | null, bestAsk: bigint | null): bigint | null {
  if (bestBid === null || bestAsk === null) return null;
  return divideRounded(bestBid + bestAsk, 2n, 'HALF_EVEN') - index;
}

/** The median of three, by comparisons (the engine computes a mark after every decision of a bound market). */
const median3 = (a: bigint, b: bigint, c: bigint): bigint => (a > b ? (b > c ? b : a > c ? c : a) : a > c ? a : b > c ? c : b);
const midpoint = (a: bigint, b: bigint): bigint => divideRounded(a + b, 2n, 'HALF_EVEN');

export function markPrice(p: { index: bigint; basis: bigint; bestBid: bigint | null; bestAsk: bigint | null; last: bigint | null }): bigint {
  const { bestBid: bid, bestAsk: ask, last } = p;
  if (bid === null && ask === null) return p.index;
  // median(best bid, best ask, last) of those that exist
  let book: bigint;
  if (bid !== null && ask !== null) book = last === null ? midpoint(bid, ask) : median3(bid, ask, last);
  else {
    const side = bid ?? ask!;
    book = last === null ? side : midpoint(side, last);
  }
  return median3(p.index, p.index + p.basis, book);
}
