/**
 * Native assets and networks an agent wallet can hold and spend on. Amounts are decimal strings in native units,
 * never more precise than the asset's smallest unit (a satoshi, a wei, a lamport): "over-precise" is refused, not
 * rounded. Arithmetic is the platform's exact fixed-point (18 fractional digits covers every asset here).
 */
import { parseAssetAmount, type AmountProblem } from '../../../platform/decimal/asset-amount';

/** Native asset code → number of decimals of its smallest unit. */
export const NATIVE_ASSETS: Readonly<Record<string, number>> = {
  BTC: 8,
  ETH: 18,
  SOL: 9,
  MATIC: 18,
  AVAX: 18,
  XRP: 6,
  ADA: 6,
  DOT: 10,
};

export interface Network {
  chain_family: 'BITCOIN' | 'EVM' | 'SOLANA';
  native_asset: string;
}

export const NETWORKS: Readonly<Record<string, Network>> = {
  'bitcoin-mainnet': { chain_family: 'BITCOIN', native_asset: 'BTC' },
  'bitcoin-testnet': { chain_family: 'BITCOIN', native_asset: 'BTC' },
  'ethereum-mainnet': { chain_family: 'EVM', native_asset: 'ETH' },
  'ethereum-sepolia': { chain_family: 'EVM', native_asset: 'ETH' },
  'polygon-mainnet': { chain_family: 'EVM', native_asset: 'MATIC' },
  'avalanche-c-chain': { chain_family: 'EVM', native_asset: 'AVAX' },
  'solana-mainnet': { chain_family: 'SOLANA', native_asset: 'SOL' },
  'solana-devnet': { chain_family: 'SOLANA', native_asset: 'SOL' },
};

export const isNativeAsset = (code: unknown): code is string => typeof code === 'string' && Object.prototype.hasOwnProperty.call(NATIVE_ASSETS, code);

export type { AmountProblem } from '../../../platform/decimal/asset-amount';
export { amountText } from '../../../platform/decimal/asset-amount';

/**
 * A positive amount of `asset` in native units, as exact atoms (value × 10^18), or the problem with it. JSON numbers
 * never get here (the DTO refuses them); signs, exponents, zero and digits below the asset's smallest unit do not pass.
 */
export function parseAmount(asset: string, value: unknown, options: { allowZero?: boolean } = {}): { atoms: bigint } | { problem: AmountProblem } {
  return parseAssetAmount(isNativeAsset(asset) ? NATIVE_ASSETS[asset] : undefined, value, options);
}
