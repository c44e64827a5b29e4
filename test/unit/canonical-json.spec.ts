/**
 * Differential test: the platform's canonical JSON against the `canonicalize` package (by an RFC 8785 author) on
 * thousands of generated values rich in what JCS is particular about — key order by UTF-16 code units, integer-like
 * keys, escapes, non-BMP text, number formatting (exponents, -0, fractions).
 */
import canonicalize from 'canonicalize';
import { prng } from '../support/prng';
import { canonicalJson } from '../../src/platform/commitments/commitment';
import { assertCanonicalizable, findNonCanonical, isCanonicalizable, NonCanonicalData, type JsonValue } from '../../src/platform/commitments/json';


const PIECES = ['a', 'B', 'z', '0', '1', '10', '9', '-1', 'é', 'ß', '東', '\uff61', '😀', '🚀', '"', '\\', '\n', '\t', '\u0001', '\u001f', '\u007f', '\u2028', '/', ' ', ''];
const NUMBERS = [0, -0, 1, -1, 0.5, 1e21, 1e-7, 123456789012345680000, 9007199254740991, -9007199254740991, 0.1 + 0.2, 3.14159, 1e300, 5e-324, 100, 1.5e-10];

function value(r: () => number, depth: number): JsonValue {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const text = (): string => Array.from({ length: Math.floor(r() * 4) }, () => pick(PIECES)).join('');
  const k = r();
  if (depth <= 0 || k < 0.35) {
    const s = r();
    if (s < 0.4) return text();
    if (s < 0.75) return pick(NUMBERS);
    if (s < 0.85) return r() < 0.5;
    return null;
  }
  if (k < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth - 1));
  const o: Record<string, JsonValue> = {};
  for (let i = 0; i < Math.floor(r() * 6); i++) o[text()] = value(r, depth - 1);
  return o;
}

describe('canonical JSON', () => {
  it('matches the canonicalize package on 5000 generated values', () => {
    const r = prng(20261122);
    for (let i = 0; i < 5000; i++) {
      const v = value(r, 4);
      expect(findNonCanonical(v)).toEqual([]);
      const ours = canonicalJson(v);
      if (ours !== canonicalize(v)) throw new Error(`differs on sample ${i}: ${JSON.stringify(v)}`);
    }
  });

  it('the append-path check (no paths) agrees with the detailed one on 5000 values, half of them with something wrong', () => {
    class Money {
      amount = '1';
    }
    const bad: unknown[] = [undefined, Number.NaN, Number.POSITIVE_INFINITY, 1n, new Date(0), new Money(), () => 1, Symbol('s'), 'a\ud800b', '\u0000', '\udc00'];
    const r = prng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
    /** A valid value with one leaf, one array item or one key made non-canonical somewhere (or none). */
    const spoil = (v: unknown, depth: number): unknown => {
      if (v !== null && typeof v === 'object' && depth < 6 && r() < 0.7) {
        if (Array.isArray(v)) return v.length === 0 ? [pick(bad)] : v.map((x, i) => (i === Math.floor(r() * v.length) ? spoil(x, depth + 1) : x));
        const keys = Object.keys(v);
        if (keys.length === 0 || r() < 0.2) return r() < 0.5 ? { ...(v as object), ['k\ud801']: 1 } : { ...(v as object), extra: pick(bad) };
        const k = pick(keys);
        return { ...(v as object), [k]: spoil((v as Record<string, unknown>)[k], depth + 1) };
      }
      return pick(bad);
    };
    let refused = 0;
    for (let i = 0; i < 5000; i++) {
      let v: unknown = value(r, 4);
      if (i % 2 === 1) v = spoil(v, 0);
      if (i % 7 === 0 && v !== null && typeof v === 'object' && !Array.isArray(v)) v = Object.assign(Object.create(null), v);
      const fast = isCanonicalizable(v);
      const detailed = findNonCanonical(v);
      if (fast !== (detailed.length === 0)) throw new Error(`disagree on sample ${i}: fast ${fast}, detailed ${JSON.stringify(detailed)}`);
      if (!fast) {
        refused += 1;
        expect(() => assertCanonicalizable(v, '$')).toThrow(NonCanonicalData);
      }
    }
    expect(refused).toBeGreaterThan(2000);
  });

  it('refuses what has no canonical form instead of guessing', () => {
    expect(() => canonicalJson({ n: Number.NaN } as never)).toThrow();
    expect(() => canonicalJson({ n: 1n } as never)).toThrow();
  });
});
