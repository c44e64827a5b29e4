/**
 * Exact fixed-point decimals with 18 fractional digits, held as BigInt "atoms" (value × 10^18): every amount, price,
 * quantity and budget of the platform (trading, AI-agent wallets) is computed with these, never with floats.
 *
 * Why BigInt fixed point: the wire format is an 18-decimal string ("100.000000000000000000"), and money must be
 * exact — no binary floating point anywhere (0.1 + 0.2 !== 0.3). A BigInt scaled by 10^18 represents every wire
 * value exactly, adds/subtracts/compares exactly and natively (`a + b`, `a < b`), is unbounded (no overflow of
 * size × price), and is far faster than a decimal library because the common operations are single native BigInt
 * operations. Parsing and formatting are one string splice each way.
 *
 * Rounding: only multiplication and division can produce digits beyond the 18th. Both take an explicit
 * `Rounding` mode; the default is TRUNCATE (toward zero), which is what BigInt division itself does.
 */

/** Number of fractional digits of the wire format. */
export const DECIMALS = 18;
/** 10^18: the fixed-point scale (the representation of 1). */
export const SCALE = 10n ** 18n;
export const ZERO = 0n;
export const ONE = SCALE;

/**
 * Longest accepted input string. The integer part may still have up to ~80 digits, far beyond any price or size,
 * while a hostile megabyte-long numeral cannot reach BigInt parsing.
 */
export const MAX_DECIMAL_LENGTH = 100;

export type Fixed18ErrorCode = 'EMPTY' | 'NOT_A_STRING' | 'TOO_LONG' | 'EXPONENT' | 'SIGN_NOT_ALLOWED' | 'TOO_MANY_DECIMALS' | 'MALFORMED' | 'DIVISION_BY_ZERO' | 'INVALID_STEP';

/** Typed error of this module: `code` tells what was wrong, `input` the offending value (as given). */
export class Fixed18Error extends Error {
  override readonly name = 'Fixed18Error';
  constructor(
    readonly code: Fixed18ErrorCode,
    message: string,
    readonly input?: unknown,
  ) {
    super(message);
  }
}

export interface ParseOptions {
  /** Accept a leading '-' or '+' (default false: only unsigned values such as sizes and prices). */
  allowSign?: boolean;
  /**
   * Accept the literal '0E-18' (how the public API may print zero) as zero. Default false: exponents are rejected;
   * this is the single exception, and only when asked for.
   */
  allowZeroExponent?: boolean;
}

/**
 * Unsigned decimals parsed before, by text: some texts come on every order (a market's tick and contract sizes, the
 * rates), and parsing (a regular expression and a BigInt from text) took about 3% of an order placement. An unsigned
 * text that parsed is valid under every option, so the map answers for any of them.
 */
const PARSED = new Map<string, bigint>();
const PARSED_MAX = 10_000;

// digits, optionally '.' followed by 1..n digits; no leading '.', no trailing '.', no spaces, no exponent.
const DECIMAL_RE = /^([+-]?)(\d+)(?:\.(\d+))?$/;
const FRACTION_PAD = '000000000000000000';

/**
 * Parse a decimal string into fixed18 atoms. Accepts '1', '1.5', '0.000000000000000001', '007.50' (leading zeros),
 * and with `allowSign` '-1.5' / '+2'. Rejects (Fixed18Error): empty, exponents ('1e3', '1E-18'), more than 18
 * fractional digits (no silent rounding), a sign unless allowed, '.5', '5.', whitespace, anything else.
 */
export function parseDecimal(s: string, options?: ParseOptions): bigint {
  if (typeof s !== 'string') throw new Fixed18Error('NOT_A_STRING', 'decimal must be a string', s);
  const known = PARSED.get(s);
  if (known !== undefined) return known;
  if (s.length === 0) throw new Fixed18Error('EMPTY', 'decimal is empty', s);
  if (s.length > MAX_DECIMAL_LENGTH) throw new Fixed18Error('TOO_LONG', `decimal is longer than ${MAX_DECIMAL_LENGTH} characters`, s);
  const m = DECIMAL_RE.exec(s);
  if (m === null) {
    if (/[eE]/.test(s)) {
      if (options?.allowZeroExponent === true && s === '0E-18') return 0n;
      throw new Fixed18Error('EXPONENT', 'exponent notation is not accepted', s);
    }
    throw new Fixed18Error('MALFORMED', 'not a plain decimal number', s);
  }
  const sign = m[1];
  if (sign !== '' && options?.allowSign !== true) throw new Fixed18Error('SIGN_NOT_ALLOWED', 'a sign is not accepted here', s);
  const frac = m[3] ?? '';
  if (frac.length > DECIMALS) throw new Fixed18Error('TOO_MANY_DECIMALS', `more than ${DECIMALS} fractional digits`, s);
  const atoms = BigInt(m[2] + frac + FRACTION_PAD.slice(frac.length));
  if (sign === '') {
    if (PARSED.size >= PARSED_MAX) PARSED.clear();
    PARSED.set(s, atoms);
  }
  return sign === '-' ? -atoms : atoms;
}

/** True when `s` parses (same rules and options as parseDecimal). */
export function isDecimal(s: string, options?: ParseOptions): boolean {
  try {
    parseDecimal(s, options);
    return true;
  } catch {
    return false;
  }
}

/** Wire format: always exactly 18 fractional digits, '-' for negatives: 100n*SCALE → '100.000000000000000000', 0n → '0.000000000000000000'. */
export function formatDecimal(v: bigint): string {
  const neg = v < 0n;
  let digits = (neg ? -v : v).toString();
  if (digits.length <= DECIMALS) digits = digits.padStart(DECIMALS + 1, '0');
  const cut = digits.length - DECIMALS;
  const out = digits.slice(0, cut) + '.' + digits.slice(cut);
  return neg ? '-' + out : out;
}

/** Shortest exact form, no trailing zeros: 1500000000000000000n → '1.5', 0n → '0' (amounts in native units). */
export function formatPlain(v: bigint): string {
  const full = formatDecimal(v);
  return full.replace(/\.?0+$/, '');
}

/** As formatDecimal, but zero as '0E-18' — how the public API prints a zero `estim_market_value`. */
export function formatZeroAsExponent(v: bigint): string {
  return v === 0n ? '0E-18' : formatDecimal(v);
}

/** Integer (number or bigint) → fixed18 atoms: fromInteger(5) === 5n * SCALE. Throws on a non-integer number. */
export function fromInteger(n: number | bigint): bigint {
  if (typeof n === 'number' && !Number.isSafeInteger(n)) throw new Fixed18Error('MALFORMED', 'not a safe integer', n);
  return BigInt(n) * SCALE;
}

/**
 * Rounding of the digits past the 18th:
 * - TRUNCATE: toward zero (the default; what BigInt division does),
 * - FLOOR: toward −∞, CEIL: toward +∞,
 * - HALF_EVEN: to nearest, ties to even (banker's rounding).
 */
export type Rounding = 'TRUNCATE' | 'FLOOR' | 'CEIL' | 'HALF_EVEN';

/** n / d rounded as asked (d ≠ 0). */
export function divideRounded(n: bigint, d: bigint, rounding: Rounding = 'TRUNCATE'): bigint {
  if (d === 0n) throw new Fixed18Error('DIVISION_BY_ZERO', 'division by zero');
  const q = n / d; // truncated toward zero
  if (rounding === 'TRUNCATE') return q;
  const r = n % d; // same sign as n
  if (r === 0n) return q;
  const positive = n < 0n === d < 0n; // sign of the exact quotient
  switch (rounding) {
    case 'FLOOR':
      return positive ? q : q - 1n;
    case 'CEIL':
      return positive ? q + 1n : q;
    case 'HALF_EVEN': {
      const twiceR = (r < 0n ? -r : r) * 2n;
      const absD = d < 0n ? -d : d;
      const away = positive ? q + 1n : q - 1n;
      if (twiceR > absD) return away;
      if (twiceR < absD) return q;
      return q % 2n === 0n ? q : away;
    }
  }
}

/**
 * Product of two fixed18 values as fixed18: (a × b) / 10^18. Digits beyond the 18th are dropped toward zero by
 * default (TRUNCATE), e.g. mul(0.000000000000000001, 0.5) = 0; pass a Rounding for anything else. Notional
 * (size × price) of wire values is exact whenever the true product has ≤ 18 fractional digits.
 */
export function mul(a: bigint, b: bigint, rounding: Rounding = 'TRUNCATE'): bigint {
  return rounding === 'TRUNCATE' ? (a * b) / SCALE : divideRounded(a * b, SCALE, rounding);
}

/** Quotient of two fixed18 values as fixed18: (a × 10^18) / b, TRUNCATE (toward zero) by default. Throws on b = 0. */
export function div(a: bigint, b: bigint, rounding: Rounding = 'TRUNCATE'): bigint {
  return divideRounded(a * SCALE, b, rounding);
}

/** Whether `size` is a whole multiple of `step` (e.g. of a market's contract size). `step` must be > 0. */
export function isMultipleOf(size: bigint, step: bigint): boolean {
  if (step <= 0n) throw new Fixed18Error('INVALID_STEP', 'step must be positive', step);
  return size % step === 0n;
}

export function compare(a: bigint, b: bigint): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export function abs(a: bigint): bigint {
  return a < 0n ? -a : a;
}
