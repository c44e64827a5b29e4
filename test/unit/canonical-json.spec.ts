/**
 * Differential test: the platform's canonical JSON against the `canonicalize` package (by an RFC 8785 author) on
 * thousands of generated values rich in what JCS is particular about — key order by UTF-16 code units, integer-like
 * keys, escapes, non-BMP text, number formatting (exponents, -0, fractions).
 */
import canonicalize from 'canonicalize';
import { prng } from '../support/prng';
import { canonicalJson } from '../../src/platform/commitments/commitment';
import { findNonCanonical, type JsonValue } from '../../src/platform/commitments/json';


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

  it('refuses what has no canonical form instead of guessing', () => {
    expect(() => canonicalJson({ n: Number.NaN } as never)).toThrow();
    expect(() => canonicalJson({ n: 1n } as never)).toThrow();
  });
});
