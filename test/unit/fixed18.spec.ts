/** fixed18: exact 18-decimal fixed point on BigInt — parsing, wire formatting, rounding helpers. */
import {
  ONE,
  SCALE,
  Fixed18Error,
  abs,
  compare,
  div,
  divideRounded,
  formatDecimal,
  formatZeroAsExponent,
  fromInteger,
  isDecimal,
  isMultipleOf,
  max,
  min,
  mul,
  parseDecimal,
} from '../../src/platform/decimal/fixed18';

const code = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(Fixed18Error);
    return (e as Fixed18Error).code;
  }
  throw new Error('did not throw');
};

describe('fixed18 parseDecimal', () => {
  it.each([
    ['1', 10n ** 18n],
    ['0', 0n],
    ['1.5', 15n * 10n ** 17n],
    ['0.000000000000000001', 1n],
    ['100.000000000000000000', 100n * SCALE],
    ['007.50', 75n * 10n ** 17n],
    ['123456789012345678901234567890.123456789012345678', 123456789012345678901234567890123456789012345678n],
    ['0.1', 10n ** 17n],
  ])('parses %s', (s, v) => {
    expect(parseDecimal(s)).toBe(v);
  });

  it.each([
    ['', 'EMPTY'],
    ['1e3', 'EXPONENT'],
    ['1E-18', 'EXPONENT'],
    ['0E-18', 'EXPONENT'],
    ['0.0000000000000000001', 'TOO_MANY_DECIMALS'],
    ['1.1234567890123456789', 'TOO_MANY_DECIMALS'],
    ['-1', 'SIGN_NOT_ALLOWED'],
    ['+1', 'SIGN_NOT_ALLOWED'],
    ['.5', 'MALFORMED'],
    ['5.', 'MALFORMED'],
    [' 1', 'MALFORMED'],
    ['1 ', 'MALFORMED'],
    ['1,5', 'MALFORMED'],
    ['abc', 'MALFORMED'],
    ['1.2.3', 'MALFORMED'],
    ['0x10', 'MALFORMED'],
    ['NaN', 'MALFORMED'],
    ['Infinity', 'MALFORMED'],
    ['--1', 'MALFORMED'],
    ['１', 'MALFORMED'], // full-width digit
    ['1'.repeat(101), 'TOO_LONG'],
  ])('rejects %j (%s)', (s, c) => {
    expect(code(() => parseDecimal(s))).toBe(c);
    expect(isDecimal(s)).toBe(false);
  });

  it('rejects a non-string', () => {
    expect(code(() => parseDecimal(1 as unknown as string))).toBe('NOT_A_STRING');
  });

  it('accepts a sign only when allowed', () => {
    expect(parseDecimal('-1.5', { allowSign: true })).toBe(-15n * 10n ** 17n);
    expect(parseDecimal('+2', { allowSign: true })).toBe(2n * SCALE);
    expect(parseDecimal('-0', { allowSign: true })).toBe(0n);
  });

  it("accepts '0E-18' only when asked, and no other exponent", () => {
    expect(parseDecimal('0E-18', { allowZeroExponent: true })).toBe(0n);
    expect(code(() => parseDecimal('1E-18', { allowZeroExponent: true }))).toBe('EXPONENT');
    expect(code(() => parseDecimal('0e-18', { allowZeroExponent: true }))).toBe('EXPONENT');
  });
});

describe('fixed18 parseDecimal from memory', () => {
  it('answers a text parsed before with the same atoms, under any option', () => {
    expect(parseDecimal('12.5')).toBe(12_500000000000000000n);
    expect(parseDecimal('12.5')).toBe(12_500000000000000000n);
    expect(parseDecimal('12.5', { allowSign: true })).toBe(12_500000000000000000n);
    expect(parseDecimal('12.5', { allowZeroExponent: true })).toBe(12_500000000000000000n);
  });

  it('never lets a signed text through where a sign is not allowed because it was parsed before', () => {
    expect(parseDecimal('-3.25', { allowSign: true })).toBe(-3_250000000000000000n);
    expect(code(() => parseDecimal('-3.25'))).toBe('SIGN_NOT_ALLOWED');
    expect(parseDecimal('+4', { allowSign: true })).toBe(4n * ONE);
    expect(code(() => parseDecimal('+4'))).toBe('SIGN_NOT_ALLOWED');
    expect(parseDecimal('0E-18', { allowZeroExponent: true })).toBe(0n);
    expect(code(() => parseDecimal('0E-18'))).toBe('EXPONENT');
  });

  it('refuses a bad text every time, and keeps answering after many distinct texts', () => {
    expect(code(() => parseDecimal('1.'))).toBe('MALFORMED');
    expect(code(() => parseDecimal('1.'))).toBe('MALFORMED');
    for (let i = 0; i < 25_000; i++) expect(parseDecimal(`${i}.5`)).toBe(BigInt(i) * ONE + ONE / 2n);
    expect(parseDecimal('12.5')).toBe(12_500000000000000000n);
  });
});

describe('fixed18 formatting', () => {
  it.each([
    [100n * SCALE, '100.000000000000000000'],
    [0n, '0.000000000000000000'],
    [1n, '0.000000000000000001'],
    [SCALE - 1n, '0.999999999999999999'],
    [SCALE, '1.000000000000000000'],
    [15n * 10n ** 17n, '1.500000000000000000'],
    [-15n * 10n ** 17n, '-1.500000000000000000'],
    [-1n, '-0.000000000000000001'],
  ])('formats %s as %s', (v, s) => {
    expect(formatDecimal(v)).toBe(s);
  });

  it('round-trips', () => {
    for (const s of ['0.000000000000000000', '1.000000000000000000', '98765.432100000000000001', '-3.140000000000000000']) {
      expect(formatDecimal(parseDecimal(s, { allowSign: true }))).toBe(s);
    }
  });

  it("prints zero as '0E-18' in the exponent variant only", () => {
    expect(formatZeroAsExponent(0n)).toBe('0E-18');
    expect(formatZeroAsExponent(1n)).toBe('0.000000000000000001');
    expect(formatZeroAsExponent(7n * SCALE)).toBe('7.000000000000000000');
  });

  it('converts integers', () => {
    expect(fromInteger(5)).toBe(5n * SCALE);
    expect(fromInteger(-2n)).toBe(-2n * SCALE);
    expect(code(() => fromInteger(1.5))).toBe('MALFORMED');
  });
});

describe('fixed18 arithmetic', () => {
  const d = (s: string) => parseDecimal(s, { allowSign: true });

  it('multiplies exactly, truncating toward zero by default', () => {
    expect(mul(d('1.5'), d('2'))).toBe(d('3'));
    expect(mul(d('0.1'), d('0.2'))).toBe(d('0.02'));
    expect(mul(d('12345.678'), d('0.001'))).toBe(d('12.345678'));
    expect(mul(1n, d('0.5'))).toBe(0n); // 0.5e-18 truncated
    expect(mul(-1n, d('0.5'))).toBe(0n); // toward zero, not floor
    expect(mul(3n, d('0.5'))).toBe(1n);
  });

  it('applies explicit rounding modes', () => {
    expect(mul(1n, d('0.5'), 'CEIL')).toBe(1n);
    expect(mul(-1n, d('0.5'), 'FLOOR')).toBe(-1n);
    expect(mul(1n, d('0.5'), 'HALF_EVEN')).toBe(0n);
    expect(mul(3n, d('0.5'), 'HALF_EVEN')).toBe(2n);
    expect(mul(-3n, d('0.5'), 'HALF_EVEN')).toBe(-2n);
    expect(mul(1n, d('0.6'), 'HALF_EVEN')).toBe(1n);
    expect(divideRounded(7n, 2n)).toBe(3n);
    expect(divideRounded(-7n, 2n)).toBe(-3n);
    expect(divideRounded(-7n, 2n, 'FLOOR')).toBe(-4n);
    expect(divideRounded(-7n, 2n, 'CEIL')).toBe(-3n);
    expect(divideRounded(7n, -2n, 'FLOOR')).toBe(-4n);
    expect(divideRounded(6n, 3n, 'CEIL')).toBe(2n);
  });

  it('divides, truncating by default, and refuses zero', () => {
    expect(div(d('1'), d('3'))).toBe(333333333333333333n);
    expect(div(d('2'), d('3'), 'HALF_EVEN')).toBe(666666666666666667n);
    expect(div(d('2'), d('3'), 'CEIL')).toBe(666666666666666667n);
    expect(div(d('10'), d('4'))).toBe(d('2.5'));
    expect(code(() => div(ONE, 0n))).toBe('DIVISION_BY_ZERO');
  });

  it('tests step multiples', () => {
    expect(isMultipleOf(d('1.5'), d('0.5'))).toBe(true);
    expect(isMultipleOf(d('1.55'), d('0.1'))).toBe(false);
    expect(isMultipleOf(d('0.000000000000000003'), 1n)).toBe(true);
    expect(isMultipleOf(0n, d('0.1'))).toBe(true);
    expect(code(() => isMultipleOf(d('1'), 0n))).toBe('INVALID_STEP');
  });

  it('compares', () => {
    expect(compare(1n, 2n)).toBe(-1);
    expect(compare(2n, 2n)).toBe(0);
    expect(compare(3n, 2n)).toBe(1);
    expect(min(1n, 2n)).toBe(1n);
    expect(max(1n, 2n)).toBe(2n);
    expect(abs(-5n)).toBe(5n);
  });
});
