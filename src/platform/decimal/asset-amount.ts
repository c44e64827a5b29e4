/**
 * An amount of an asset with its own scale (a satoshi is 8 decimals, a cent 2): a decimal string, never a JSON
 * number, never more precise than the asset's smallest unit ("over-precise" is refused, not rounded), held as the
 * platform's exact fixed-point atoms (fixed18.ts). One rule for every module that takes amounts (AI-agent wallets,
 * commerce).
 */
import { Fixed18Error, formatPlain, parseDecimal } from './fixed18';

export type AmountProblem = 'not a decimal string' | 'exponent notation' | 'must be positive' | 'more decimals than the asset has' | 'unknown asset';

/**
 * `value` as exact atoms (value × 10^18) when it is a decimal string with at most `decimals` fractional digits (and
 * positive, or zero when allowed), else the problem with it. `decimals` undefined: the asset is unknown.
 */
export function parseAssetAmount(decimals: number | undefined, value: unknown, options: { allowZero?: boolean } = {}): { atoms: bigint } | { problem: AmountProblem } {
  if (decimals === undefined) return { problem: 'unknown asset' };
  if (typeof value !== 'string') return { problem: 'not a decimal string' };
  let atoms: bigint;
  try {
    atoms = parseDecimal(value);
  } catch (error) {
    if (error instanceof Fixed18Error && error.code === 'EXPONENT') return { problem: 'exponent notation' };
    if (error instanceof Fixed18Error && error.code === 'TOO_MANY_DECIMALS') return { problem: 'more decimals than the asset has' };
    return { problem: 'not a decimal string' };
  }
  if (atoms < 0n || (atoms === 0n && !options.allowZero)) return { problem: 'must be positive' };
  const fraction = value.split('.')[1] ?? '';
  if (fraction.replace(/0+$/, '').length > decimals) return { problem: 'more decimals than the asset has' };
  return { atoms };
}

/** The canonical text of an amount: shortest exact form ("1.5", "0.00000001", "0"). */
export const amountText = (atoms: bigint): string => formatPlain(atoms);

/** The amount with exactly the asset's decimals ("12.50" for 2): how totals are shown. */
export function amountAtScale(atoms: bigint, decimals: number): string {
  const plain = formatPlain(atoms);
  const [whole, fraction = ''] = plain.split('.');
  return decimals === 0 ? whole : `${whole}.${fraction.padEnd(decimals, '0').slice(0, decimals)}`;
}
