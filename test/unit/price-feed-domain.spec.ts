/** Composite price feeds, given/when/then: the weighted median by hand, ties, staleness, outliers, the clamped mean, the feed's stream. */
import { computeComposite, priceFeedDecider, weightedMedian, type FeedDefinition, type PriceFeedEvent, type Quote } from '../../src/modules/trading/domain/price-feed';
import { parseDecimal } from '../../src/platform/decimal/fixed18';

const NOW = new Date('2026-11-25T10:00:10.000Z');
const w = (price: string, weight: string) => ({ price: parseDecimal(price), weight: parseDecimal(weight) });
const P = (n: number) => n.toString(16).padStart(32, '0');
const def = (over: Partial<FeedDefinition> = {}): FeedDefinition => ({
  feed_id: 'f'.repeat(32), name: 'BTC index', instrument: 'BTC-USD', mode: 'WEIGHTED_MEDIAN', min_sources: 2, max_staleness_ms: 5_000, max_deviation: '0.05', created_at: NOW.toISOString(),
  sources: [1, 2, 3, 4].map((n) => ({ provider_uuid: P(n), provider_symbol: 'BTCUSD', weight: n === 4 ? '2' : '1' })),
  ...over,
});
const quote = (n: number, price: string, ageMs = 1_000): Quote => ({ provider_uuid: P(n), provider_symbol: 'BTCUSD', price, published_at: new Date(NOW.getTime() - ageMs).toISOString() });
const latest = (...qs: Quote[]) => Object.fromEntries(qs.map((q) => [`${q.provider_uuid}:${q.provider_symbol}`, q]));

describe('weighted median (hand-computed)', () => {
  it('the first price whose cumulative weight passes half the total', () => {
    // 100 (1), 101 (1), 102 (3): total 5, half 2.5: cumulative 1, 2, 5 → 102.
    expect(weightedMedian([w('101', '1'), w('102', '3'), w('100', '1')])).toBe(parseDecimal('102'));
    // Equal weights, odd count: the middle.
    expect(weightedMedian([w('3', '1'), w('1', '1'), w('2', '1')])).toBe(parseDecimal('2'));
  });
  it('a tie at exactly half: the midpoint of the two prices around it', () => {
    expect(weightedMedian([w('100', '1'), w('101', '1')])).toBe(parseDecimal('100.5'));
    expect(weightedMedian([w('100', '2'), w('103', '1'), w('104', '1')])).toBe(parseDecimal('101.5'));
    // Same price twice is no tie to split.
    expect(weightedMedian([w('100', '1'), w('100', '1')])).toBe(parseDecimal('100'));
  });
});

describe('composite', () => {
  it('given four fresh sources, then the weighted median of them, all used', () => {
    const c = computeComposite(def(), latest(quote(1, '100'), quote(2, '101'), quote(3, '102'), quote(4, '101.5')), NOW);
    // 100 (1), 101 (1), 101.5 (2), 102 (1): total 5, half 2.5 → 101.5.
    expect([c.status, c.value, c.used.length, c.excluded]).toEqual(['LIVE', '101.5', 4, []]);
  });

  it('a manipulated source beyond the deviation bound is excluded and reported; the index does not move', () => {
    const honest = [quote(1, '100'), quote(2, '101'), quote(4, '101.5')];
    const c = computeComposite(def(), latest(...honest, quote(3, '150')), NOW);
    // The honest three alone: 100 (1), 101 (1), 101.5 (2): half of 4 reached exactly at 101 → (101 + 101.5) / 2.
    expect([c.value, c.excluded]).toEqual(['101.25', [{ provider_uuid: P(3), provider_symbol: 'BTCUSD', reason: 'OUTLIER' }]]);
    expect(computeComposite(def(), latest(...honest), NOW).value).toBe('101.25');
    // Just inside the 5 % band it is used, and still cannot drag the weighted median past the honest ones.
    expect(computeComposite(def(), latest(...honest, quote(3, '106.575')), NOW)).toMatchObject({ value: '101.5', excluded: [] });
  });

  it('stale (by the provider\'s publish time) and missing sources are excluded; fewer than min_sources live: STALE, no value', () => {
    const c = computeComposite(def(), latest(quote(1, '100', 6_000), quote(2, '101')), NOW);
    expect(c).toEqual({
      status: 'STALE', value: null, used: [],
      excluded: [
        { provider_uuid: P(1), provider_symbol: 'BTCUSD', reason: 'STALE' },
        { provider_uuid: P(3), provider_symbol: 'BTCUSD', reason: 'NO_QUOTE' },
        { provider_uuid: P(4), provider_symbol: 'BTCUSD', reason: 'NO_QUOTE' },
      ],
    });
  });

  it('CLAMPED_WEIGHTED_MEAN clamps to half the deviation band around the median before a weighted mean', () => {
    // Reference 100 (median of 98 (1), 100 (2), 103 (1)); band ±2.5 → 98, 100, 102.5; mean (98 + 200 + 102.5) / 4 = 100.125.
    const d = def({ mode: 'CLAMPED_WEIGHTED_MEAN', sources: [1, 2, 3].map((n) => ({ provider_uuid: P(n), provider_symbol: 'BTCUSD', weight: n === 2 ? '2' : '1' })) });
    expect(computeComposite(d, latest(quote(1, '98'), quote(2, '100'), quote(3, '103')), NOW).value).toBe('100.125');
  });
});

describe('the feed\'s stream', () => {
  it('each newer quote of a source is one PriceFeedValueComputed naming it; an older or foreign one changes nothing', () => {
    let s = priceFeedDecider.initialState();
    const ctx = { now: NOW, newId: () => '' };
    for (const e of priceFeedDecider.decide({ kind: 'CreateFeed', feed: def(), by_profile_uuid: P(9) }, s, ctx)) s = priceFeedDecider.evolve(s, e);
    for (const q of [quote(1, '100'), quote(2, '101')]) for (const e of priceFeedDecider.decide({ kind: 'ApplyQuote', quote: q }, s, ctx)) s = priceFeedDecider.evolve(s, e);
    expect(s.last).toMatchObject({ status: 'LIVE', value: '100.5' });
    expect(priceFeedDecider.decide({ kind: 'ApplyQuote', quote: quote(1, '99', 2_000) }, s, ctx)).toEqual([]);
    expect(priceFeedDecider.decide({ kind: 'ApplyQuote', quote: { ...quote(1, '99'), provider_symbol: 'ETHUSD' } }, s, ctx)).toEqual([]);
    const [e] = priceFeedDecider.decide({ kind: 'ApplyQuote', quote: quote(3, '102', 500) }, s, ctx);
    expect(e.data).toMatchObject({ quote: { price: '102' }, status: 'LIVE', value: '101', used: [{ price: '100' }, { price: '101' }, { price: '102' }] });
  });
});

describe('the staleness sweep\'s reassessment', () => {
  it('given a LIVE feed whose sources age past max_staleness_ms, when reassessed, then one value without a quote (a source lost, then STALE); unchanged: nothing', () => {
    let s = priceFeedDecider.initialState();
    const at = (ms: number) => ({ now: new Date(NOW.getTime() + ms), newId: () => '' });
    const apply = (events: PriceFeedEvent[]) => events.forEach((e) => (s = priceFeedDecider.evolve(s, e)));
    apply(priceFeedDecider.decide({ kind: 'CreateFeed', feed: def({ min_sources: 1, max_staleness_ms: 5_000 }), by_profile_uuid: P(9) }, s, at(0)));
    apply(priceFeedDecider.decide({ kind: 'ApplyQuote', quote: quote(1, '100', 2_000) }, s, at(0)));
    apply(priceFeedDecider.decide({ kind: 'ApplyQuote', quote: quote(2, '102', 0) }, s, at(0)));
    expect(s.last).toMatchObject({ status: 'LIVE', value: '101' });
    expect(priceFeedDecider.decide({ kind: 'Reassess' }, s, at(1_000))).toEqual([]);
    const lost = priceFeedDecider.decide({ kind: 'Reassess' }, s, at(3_500)); // source 1 published 5.5 s ago
    expect(lost).toEqual([{ type: 'PriceFeedValueComputed', data: expect.objectContaining({ quote: null, status: 'LIVE', value: '102', excluded: expect.arrayContaining([expect.objectContaining({ provider_uuid: P(1), reason: 'STALE' })]) }) }]);
    apply(lost);
    expect(s.latest[`${P(1)}:BTCUSD`].price).toBe('100'); // the quotes stay; only the value changed
    const stale = priceFeedDecider.decide({ kind: 'Reassess' }, s, at(6_000));
    expect(stale[0].data).toMatchObject({ quote: null, status: 'STALE', value: null, received_at: at(6_000).now.toISOString() });
    apply(stale);
    expect(priceFeedDecider.decide({ kind: 'Reassess' }, s, at(60_000))).toEqual([]);
  });
});
