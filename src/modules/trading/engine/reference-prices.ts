/**
 * A feed-bound market's reference prices inside its engine (the engine's part, pure): the binding, the index from the
 * feed's ticks, the basis samples and their time-weighted average, and the mark as last emitted. The formula lives in
 * domain/mark-price.ts; this keeps its state, applies the engine events that change it (decide and evolve both go
 * through `attach` and `applyTick`, so a rebuilt engine holds the same), and images it in snapshots.
 */
import type { IndexPriceUpdatedData, PriceFeedAttachedData } from '../domain/engine-events';
import { basisSample, markPrice, pruneSamples, timeWeightedBasis, type BasisSample, type TriggerSource } from '../domain/mark-price';
import { formatDecimal, parseDecimal } from '../../../platform/decimal/fixed18';
import type { OrderBook } from './order-book';

/** The bound feed as the engine holds it. */
export interface EngineFeed {
  feed_id: string;
  stop_trigger_source: TriggerSource;
  mark_basis_window_ms: number;
}

/** JSON image (decimal strings) in the engine snapshot; absent for markets never bound to a feed. */
export interface ReferencePricesSnapshot {
  feed: EngineFeed;
  index: { price: string | null; at: number | null; basis_average: string; samples: Array<{ at: number; basis: string | null }>; mark: string | null };
}

const signed = (s: string): bigint => parseDecimal(s, { allowSign: true });

export class ReferencePrices {
  /** The bound price feed (null: stops trigger on the last price only). */
  feed: EngineFeed | null = null;
  /** The index price; null before the feed's first value and while it is stale. */
  index: bigint | null = null;
  /** Time of the latest index tick (ms): the mark's `now`. */
  private indexAt: number | null = null;
  private samples: BasisSample[] = [];
  /** The basis average as of the latest tick (it changes only at ticks). */
  private basisAverage = 0n;
  /** The mark as last emitted (MarkPriceUpdated). */
  emittedMark: bigint | null = null;

  /** The mark price with this book and last price (null: no feed, or the index is stale). */
  mark(book: OrderBook, last: bigint | null): bigint | null {
    if (this.index === null) return null;
    return markPrice({ index: this.index, basis: this.basisAverage, bestBid: book.bestBid(), bestAsk: book.bestAsk(), last });
  }

  attach(d: PriceFeedAttachedData): void {
    // Another feed's values are another index: the basis history of the old one does not carry over.
    if (this.feed?.feed_id !== d.feed_id) {
      this.index = null;
      this.indexAt = null;
      this.samples = [];
      this.basisAverage = 0n;
    }
    this.feed = { feed_id: d.feed_id, stop_trigger_source: d.stop_trigger_source, mark_basis_window_ms: d.mark_basis_window_ms };
  }

  /** What a tick of the bound feed records: its index (a value the engine cannot read is a stale tick) and the basis sample. */
  tick(value: string | null, live: boolean, book: OrderBook): { index_price: string | null; basis: string | null } {
    let index: bigint | null = null;
    try {
      index = live && value !== null ? parseDecimal(value) : null;
    } catch {
      index = null;
    }
    const basis = index === null ? null : basisSample(index, book.bestBid(), book.bestAsk());
    return { index_price: index === null ? null : formatDecimal(index), basis: basis === null ? null : formatDecimal(basis) };
  }

  applyTick(d: IndexPriceUpdatedData): void {
    const at = Date.parse(d.at);
    const window = this.feed?.mark_basis_window_ms ?? 0;
    this.index = d.index_price === null ? null : parseDecimal(d.index_price);
    this.indexAt = at;
    this.samples.push({ at, basis: d.basis === null ? null : signed(d.basis) });
    this.samples = pruneSamples(this.samples, at, window);
    this.basisAverage = timeWeightedBasis(this.samples, at, window);
  }

  snapshot(): ReferencePricesSnapshot | null {
    if (!this.feed) return null;
    return {
      feed: { ...this.feed },
      index: {
        price: this.index === null ? null : formatDecimal(this.index),
        at: this.indexAt,
        basis_average: formatDecimal(this.basisAverage),
        samples: this.samples.map((x) => ({ at: x.at, basis: x.basis === null ? null : formatDecimal(x.basis) })),
        mark: this.emittedMark === null ? null : formatDecimal(this.emittedMark),
      },
    };
  }

  static restore(s: Partial<ReferencePricesSnapshot>): ReferencePrices {
    const r = new ReferencePrices();
    if (!s.feed || !s.index) return r;
    r.feed = { ...s.feed };
    r.index = s.index.price === null ? null : parseDecimal(s.index.price);
    r.indexAt = s.index.at;
    r.basisAverage = signed(s.index.basis_average);
    r.samples = s.index.samples.map((x) => ({ at: x.at, basis: x.basis === null ? null : signed(x.basis) }));
    r.emittedMark = s.index.mark === null ? null : parseDecimal(s.index.mark);
    return r;
  }
}
