/**
 * The mark price's pure parts against hand-computed cases: medians (odd, even, rounding), the time-weighted basis
 * average (window edges, gaps without a mid, no history), pruning, and the mark formula (a last-price spike bounded by
 * the index and its basis; one-sided and empty books).
 */
import { basisSample, markPrice, median, pruneSamples, timeWeightedBasis, type BasisSample } from '../../src/modules/trading/domain/mark-price';
import { formatPlain, parseDecimal } from '../../src/platform/decimal/fixed18';

const d = (s: string): bigint => parseDecimal(s, { allowSign: true });
const plain = (v: bigint): string => formatPlain(v);

describe('median', () => {
  it('given an odd count, then the middle value; given an even count, then the midpoint rounded half-even to 18 digits', () => {
    expect(plain(median([d('3'), d('1'), d('2')]))).toBe('2');
    expect(plain(median([d('1'), d('4')]))).toBe('2.5');
    expect(plain(median([d('0.000000000000000001'), d('0.000000000000000002')]))).toBe('0.000000000000000002'); // 1.5 atoms → 2 (even)
    expect(plain(median([d('0.000000000000000002'), d('0.000000000000000003')]))).toBe('0.000000000000000002'); // 2.5 atoms → 2 (even)
    expect(plain(median([d('7')]))).toBe('7');
  });
});

describe('timeWeightedBasis', () => {
  const s = (at: number, basis: string | null): BasisSample => ({ at, basis: basis === null ? null : d(basis) });

  it('given no history (one sample, no time held), when averaged, then 0', () => {
    expect(timeWeightedBasis([s(1000, '50')], 1000, 60_000)).toBe(0n);
    expect(timeWeightedBasis([], 1000, 60_000)).toBe(0n);
  });

  it('weighs each sample by how long it held up to now; the newest sample has held for no time yet', () => {
    // 10 held 0..100, 20 held 100..200, 50 arrives at 200: (10×100 + 20×100) / 200 = 15.
    expect(plain(timeWeightedBasis([s(0, '10'), s(100, '20'), s(200, '50')], 200, 1000))).toBe('15');
  });

  it('counts only the part of a sample inside the window', () => {
    // window 150 at now 200: 10 held 50..100 (50 ms), 20 held 100..200 (100 ms): 2500 / 150 = 16.666…67 (half-even).
    expect(plain(timeWeightedBasis([s(0, '10'), s(100, '20'), s(200, '50')], 200, 150))).toBe('16.666666666666666667');
  });

  it('leaves out time without a mid (a one-sided book) and negative bases average as they are', () => {
    // -4 held 0..100, no mid 100..300, 8 held 300..400: (-400 + 800) / 200 = 2.
    expect(plain(timeWeightedBasis([s(0, '-4'), s(100, null), s(300, '8'), s(400, '0')], 400, 10_000))).toBe('2');
    expect(plain(timeWeightedBasis([s(0, '-3'), s(100, '-1'), s(200, '0')], 200, 10_000))).toBe('-2');
  });

  it('prunes the samples that no longer hold into the window, keeping the one that does', () => {
    const samples = [s(0, '1'), s(100, '2'), s(200, '3'), s(300, '4')];
    expect(pruneSamples(samples, 300, 150).map((x) => x.at)).toEqual([100, 200, 300]);
    expect(pruneSamples(samples, 300, 1000)).toBe(samples);
    expect(timeWeightedBasis(pruneSamples(samples, 300, 150), 300, 150)).toBe(timeWeightedBasis(samples, 300, 150));
  });
});

describe('markPrice', () => {
  it('given an empty book, then the index alone (whatever the last trade was)', () => {
    expect(plain(markPrice({ index: d('100'), basis: d('5'), bestBid: null, bestAsk: null, last: d('150') }))).toBe('100');
  });

  it('given a last-price spike on a thin book, then the mark stays between the index and index + basis', () => {
    // book median(101, 103, 150) = 103; median(100, 102, 103) = 102.
    expect(plain(markPrice({ index: d('100'), basis: d('2'), bestBid: d('101'), bestAsk: d('103'), last: d('150') }))).toBe('102');
    // spike down: median(101, 103, 10) = 101; median(100, 102, 101) = 101.
    expect(plain(markPrice({ index: d('100'), basis: d('2'), bestBid: d('101'), bestAsk: d('103'), last: d('10') }))).toBe('101');
  });

  it('given the book agreeing with the index, then the book decides within the band', () => {
    expect(plain(markPrice({ index: d('100'), basis: d('0'), bestBid: d('99'), bestAsk: d('101'), last: d('100.5') }))).toBe('100');
    expect(plain(markPrice({ index: d('100'), basis: d('3'), bestBid: d('101'), bestAsk: d('102'), last: null }))).toBe('101.5');
  });

  it('given a one-sided book, then the median of what exists', () => {
    // bid 99 and last 90: book median 94.5; median(100, 100, 94.5) = 100.
    expect(plain(markPrice({ index: d('100'), basis: d('0'), bestBid: d('99'), bestAsk: null, last: d('90') }))).toBe('100');
    expect(plain(markPrice({ index: d('100'), basis: d('-8'), bestBid: null, bestAsk: d('95'), last: null }))).toBe('95');
  });

  it('takes the basis sample as mid − index, none without both sides', () => {
    expect(plain(basisSample(d('100'), d('101'), d('104'))!)).toBe('2.5');
    expect(basisSample(d('100'), null, d('104'))).toBeNull();
  });
});
