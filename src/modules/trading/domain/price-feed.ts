/**
 * Composite price feeds (pure): an index price computed from several providers' quotes, as the seeds'
 * CompositePriceFeedSource / CompositePriceFeedReceipt describe, and the decider of a feed's stream
 * (`mtf-price-feed-<feed_id>`). Every quote applied to a feed is one PriceFeedValueComputed event naming the quote, the
 * sources used and those excluded (with why), and the value or STALE: any index price can be audited later.
 *
 * The computation, exact (fixed-point atoms, src/platform/decimal/fixed18.ts):
 * 1. Fresh sources: each source's latest quote, if its provider published it within `max_staleness_ms` of now
 *    (the provider's publish time, never our receive time). Older: excluded as STALE.
 * 2. Reference: the weighted median of the fresh quotes.
 * 3. Outliers: a quote deviating from the reference by more than `max_deviation` (a fraction: 0.05 = 5 %) is excluded
 *    as OUTLIER. One manipulated source can therefore move the index at most to the edge of that band.
 * 4. Fewer than `min_sources` left: the feed is STALE and has no value (it says so; nothing falls back).
 * 5. The value: WEIGHTED_MEDIAN (default; Hyperliquid's oracle is a weighted median of venues) of what is left, or
 *    CLAMPED_WEIGHTED_MEAN: each left quote clamped to ±max_deviation/2 around the reference, then the weighted mean.
 *
 * Weighted median: quotes sorted by price; the first whose cumulative weight exceeds half the total; when the
 * cumulative weight reaches exactly half at a quote, the midpoint of it and the next (as the median of an even count).
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { divideRounded, formatPlain, parseDecimal, SCALE } from '../../../platform/decimal/fixed18';
import { PlatformError } from '../../../platform/errors';

export const feedStream = (feed_id: string): string => `mtf-price-feed-${feed_id}`;
export const providerStream = (provider_uuid: string): string => `mtf-price-provider-${provider_uuid}`;
export const FEED_MODES = ['WEIGHTED_MEDIAN', 'CLAMPED_WEIGHTED_MEAN'] as const;
export type FeedMode = (typeof FEED_MODES)[number];
/** A quote published more than this far in the future (provider clock ahead of ours) is refused. */
export const MAX_FUTURE_SKEW_MS = 5_000;

export interface FeedSource {
  provider_uuid: string;
  provider_symbol: string;
  /** A decimal string (exact in the audit chain), 0.001 to 1000. */
  weight: string;
}

export interface FeedDefinition {
  feed_id: string;
  name: string;
  instrument: string;
  mode: FeedMode;
  sources: FeedSource[];
  min_sources: number;
  max_staleness_ms: number;
  /** A fraction as a decimal string: 0.05 = 5 %. */
  max_deviation: string;
  created_at: string;
}

export interface Quote {
  provider_uuid: string;
  provider_symbol: string;
  price: string;
  published_at: string;
}

export const sourceKey = (s: { provider_uuid: string; provider_symbol: string }): string => `${s.provider_uuid}:${s.provider_symbol}`;

export interface Exclusion {
  provider_uuid: string;
  provider_symbol: string;
  reason: 'NO_QUOTE' | 'STALE' | 'OUTLIER';
}

export interface Composite {
  status: 'LIVE' | 'STALE';
  /** Null when STALE. */
  value: string | null;
  used: Array<{ provider_uuid: string; provider_symbol: string; price: string; weight: string }>;
  excluded: Exclusion[];
}

interface Weighted {
  price: bigint;
  weight: bigint;
}

/** The weighted median (see the module comment); the list is not empty and every weight is positive. */
export function weightedMedian(items: readonly Weighted[]): bigint {
  const sorted = [...items].sort((a, b) => (a.price < b.price ? -1 : a.price > b.price ? 1 : 0));
  const total = sorted.reduce((s, x) => s + x.weight, 0n);
  let cumulative = 0n;
  for (let i = 0; i < sorted.length; i++) {
    cumulative += sorted[i].weight;
    if (cumulative * 2n > total) return sorted[i].price;
    if (cumulative * 2n === total) return divideRounded(sorted[i].price + sorted[i + 1].price, 2n, 'HALF_EVEN');
  }
  return sorted[sorted.length - 1].price;
}

/** The weighted mean, rounded HALF_EVEN to 18 digits. */
export function weightedMean(items: readonly Weighted[]): bigint {
  const total = items.reduce((s, x) => s + x.weight, 0n);
  return divideRounded(items.reduce((s, x) => s + x.price * x.weight, 0n), total, 'HALF_EVEN');
}

/** The feed's value at `now` from the latest quote of each source. */
export function computeComposite(def: FeedDefinition, latest: Readonly<Record<string, Quote>>, now: Date): Composite {
  const excluded: Exclusion[] = [];
  const fresh: Array<{ source: FeedSource; quote: Quote; price: bigint; weight: bigint }> = [];
  for (const source of def.sources) {
    const quote = latest[sourceKey(source)];
    const id = { provider_uuid: source.provider_uuid, provider_symbol: source.provider_symbol };
    if (!quote) excluded.push({ ...id, reason: 'NO_QUOTE' });
    else if (now.getTime() - Date.parse(quote.published_at) > def.max_staleness_ms) excluded.push({ ...id, reason: 'STALE' });
    else fresh.push({ source, quote, price: parseDecimal(quote.price), weight: parseDecimal(source.weight) });
  }
  const stale = (): Composite => ({ status: 'STALE', value: null, used: [], excluded });
  if (fresh.length === 0 || fresh.length < def.min_sources) return stale();
  const reference = weightedMedian(fresh);
  const deviation = parseDecimal(def.max_deviation);
  // |p − ref| > dev × ref, in atoms: |p − ref| × SCALE > dev × ref.
  const within = fresh.filter((f) => {
    const d = f.price > reference ? f.price - reference : reference - f.price;
    const keep = d * SCALE <= deviation * reference;
    if (!keep) excluded.push({ provider_uuid: f.source.provider_uuid, provider_symbol: f.source.provider_symbol, reason: 'OUTLIER' });
    return keep;
  });
  if (within.length < def.min_sources) return stale();
  let value: bigint;
  if (def.mode === 'WEIGHTED_MEDIAN') value = weightedMedian(within);
  else {
    const band = divideRounded(reference * deviation, 2n * SCALE, 'HALF_EVEN');
    value = weightedMean(within.map((w) => ({ weight: w.weight, price: w.price < reference - band ? reference - band : w.price > reference + band ? reference + band : w.price })));
  }
  return {
    status: 'LIVE',
    value: formatPlain(value),
    used: within.map((w) => ({ provider_uuid: w.source.provider_uuid, provider_symbol: w.source.provider_symbol, price: formatPlain(w.price), weight: w.source.weight })),
    excluded,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The feed's stream

/**
 * A value is computed when a quote arrives (`quote` names it) and when time alone changes it (`quote` null: the
 * staleness sweep found a source gone stale since the last value, so the feed lost a source or went STALE). Markets
 * bound to the feed take each value as an index tick; without the sweep a feed whose providers fell silent would keep
 * its last value for ever in the engines.
 */
export type PriceFeedEvent =
  | { type: 'PriceFeedCreated'; data: { feed: FeedDefinition; by_profile_uuid: string } }
  | { type: 'PriceFeedValueComputed'; data: { feed_id: string; quote: Quote | null; received_at: string } & Composite };

export interface PriceFeedState {
  feed: FeedDefinition | null;
  latest: Record<string, Quote>;
  last: (Composite & { at: string }) | null;
  version: number;
}

export type PriceFeedCommand = { kind: 'CreateFeed'; feed: FeedDefinition; by_profile_uuid: string } | { kind: 'ApplyQuote'; quote: Quote } | { kind: 'Reassess' };

/** Whether the feed's value at `now` differs from the last one computed (status, value or the sources used). */
export function valueChangedSince(state: PriceFeedState, now: Date): Composite | null {
  if (!state.feed || !state.last) return null;
  const current = computeComposite(state.feed, state.latest, now);
  const same = current.status === state.last.status && current.value === state.last.value && current.used.length === state.last.used.length;
  return same ? null : current;
}

export class PriceFeedNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such price feed.');
  }
}

export const priceFeedDecider: Decider<PriceFeedCommand, PriceFeedState, PriceFeedEvent> = {
  initialState: () => ({ feed: null, latest: {}, last: null, version: -1 }),
  evolve(state, event) {
    const version = state.version + 1;
    if (event.type === 'PriceFeedCreated') return { ...state, feed: event.data.feed, version };
    const { quote, received_at, feed_id: _f, ...composite } = event.data;
    const latest = quote ? { ...state.latest, [sourceKey(quote)]: quote } : state.latest;
    return { ...state, latest, last: { ...composite, at: received_at }, version };
  },
  decide(command, state, ctx: DecideContext) {
    if (command.kind === 'CreateFeed') return state.feed ? [] : [{ type: 'PriceFeedCreated', data: { feed: command.feed, by_profile_uuid: command.by_profile_uuid } }];
    const feed = state.feed;
    if (!feed) throw new PriceFeedNotFound();
    if (command.kind === 'Reassess') {
      const changed = valueChangedSince(state, ctx.now);
      return changed ? [{ type: 'PriceFeedValueComputed', data: { feed_id: feed.feed_id, quote: null, received_at: ctx.now.toISOString(), ...changed } }] : [];
    }
    const key = sourceKey(command.quote);
    if (!feed.sources.some((s) => sourceKey(s) === key)) return [];
    // A quote no newer than the one the source already gave changes nothing (late or repeated delivery).
    const previous = state.latest[key];
    if (previous && Date.parse(previous.published_at) >= Date.parse(command.quote.published_at)) return [];
    const latest = { ...state.latest, [key]: command.quote };
    return [{ type: 'PriceFeedValueComputed', data: { feed_id: feed.feed_id, quote: command.quote, received_at: ctx.now.toISOString(), ...computeComposite(feed, latest, ctx.now) } }];
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Providers: who may push quotes (a key shown once, kept as its SHA-256)

export type PriceProviderEvent = { type: 'PriceProviderRegistered'; data: { provider_uuid: string; name: string; key_hash: string; by_profile_uuid: string; at: string } };

export const priceProviderDecider: Decider<{ kind: 'RegisterProvider'; provider_uuid: string; name: string; key_hash: string; by_profile_uuid: string }, { provider: PriceProviderEvent['data'] | null }, PriceProviderEvent> = {
  initialState: () => ({ provider: null }),
  evolve: (_s, e) => ({ provider: e.data }),
  decide: (c, s, ctx) => (s.provider ? [] : [{ type: 'PriceProviderRegistered', data: { provider_uuid: c.provider_uuid, name: c.name, key_hash: c.key_hash, by_profile_uuid: c.by_profile_uuid, at: ctx.now.toISOString() } }]),
};
