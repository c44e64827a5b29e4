/**
 * What commerce prices and settles in: assets with their own scale (a cent is 2 decimals, a satoshi 8), the networks a
 * watch-only wallet or a settlement can be on and the assets each carries. Amounts are decimal strings on the wire
 * and exact fixed-point atoms inside (src/platform/decimal); a line's total is rounded half-to-even to the asset's
 * scale once, and the invoice total is the exact sum of its lines. Never a float.
 */
import { amountAtScale, parseAssetAmount, type AmountProblem } from '../../../platform/decimal/asset-amount';
import { divideRounded, SCALE } from '../../../platform/decimal/fixed18';
import { ValidationFailed } from '../../../platform/errors';

/** Asset code → decimals of its smallest unit. */
export const COMMERCE_ASSETS: Readonly<Record<string, number>> = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  CHF: 2,
  JPY: 0,
  BTC: 8,
  ETH: 18,
  SOL: 9,
  MATIC: 18,
  USDC: 6,
  USDT: 6,
};

/** Network id → the chain family (for address shapes) and the assets it carries. */
export const COMMERCE_NETWORKS: Readonly<Record<string, { family: 'BITCOIN' | 'EVM' | 'SOLANA'; assets: readonly string[] }>> = {
  'bitcoin-mainnet': { family: 'BITCOIN', assets: ['BTC'] },
  'bitcoin-testnet': { family: 'BITCOIN', assets: ['BTC'] },
  'ethereum-mainnet': { family: 'EVM', assets: ['ETH', 'USDC', 'USDT'] },
  'ethereum-sepolia': { family: 'EVM', assets: ['ETH', 'USDC'] },
  'polygon-mainnet': { family: 'EVM', assets: ['MATIC', 'USDC', 'USDT'] },
  'solana-mainnet': { family: 'SOLANA', assets: ['SOL', 'USDC'] },
  'solana-devnet': { family: 'SOLANA', assets: ['SOL', 'USDC'] },
};

export const ASSET_CODES = Object.keys(COMMERCE_ASSETS);
export const NETWORK_IDS = Object.keys(COMMERCE_NETWORKS);

const own = (o: object, k: unknown): k is string => typeof k === 'string' && Object.prototype.hasOwnProperty.call(o, k);
export const isCommerceAsset = (code: unknown): code is string => own(COMMERCE_ASSETS, code);
export const isCommerceNetwork = (id: unknown): id is string => own(COMMERCE_NETWORKS, id);

/** Watch-only addresses by chain family: the shape only (no checksum claims), so a typo of kind is caught early. */
const ADDRESS_SHAPES: Record<'BITCOIN' | 'EVM' | 'SOLANA', RegExp> = {
  BITCOIN: /^(?:bc1|tb1)[02-9ac-hj-np-z]{11,71}$|^[13mn2][1-9A-HJ-NP-Za-km-z]{25,34}$/,
  EVM: /^0x[0-9a-fA-F]{40}$/,
  SOLANA: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
};
export function isAddressOf(network_id: string, address: unknown): address is string {
  return typeof address === 'string' && isCommerceNetwork(network_id) && ADDRESS_SHAPES[COMMERCE_NETWORKS[network_id].family].test(address);
}

/** A positive (or, when allowed, zero) amount of `asset`, or a 400 naming the field. */
export function parseMoney(asset: string, value: unknown, field: string, options: { allowZero?: boolean } = {}): bigint {
  const parsed = parseAssetAmount(isCommerceAsset(asset) ? COMMERCE_ASSETS[asset] : undefined, value, options);
  if ('problem' in parsed) throw new ValidationFailed(`Invalid ${field}.`, [{ field, issue: describe(parsed.problem, asset) }]);
  return parsed.atoms;
}

function describe(problem: AmountProblem, asset: string): string {
  return problem === 'unknown asset' ? `${asset} is not an asset commerce prices in` : `${problem} (${asset})`;
}

/** Quantities: positive, up to 6 decimals (a weight, an hour fraction). */
export const QUANTITY_DECIMALS = 6;
export function parseQuantity(value: unknown, field: string): bigint {
  const parsed = parseAssetAmount(QUANTITY_DECIMALS, value);
  if ('problem' in parsed) throw new ValidationFailed(`Invalid ${field}.`, [{ field, issue: parsed.problem === 'more decimals than the asset has' ? `at most ${QUANTITY_DECIMALS} decimals` : parsed.problem }]);
  return parsed.atoms;
}

/** quantity × unit price, rounded half-to-even to the asset's scale (once per line). */
export function lineTotal(quantity: bigint, unitPrice: bigint, asset: string): bigint {
  const unit = 10n ** BigInt(18 - COMMERCE_ASSETS[asset]);
  const exact = quantity * unitPrice; // atoms², scale 10^36
  return divideRounded(exact, SCALE * unit, 'HALF_EVEN') * unit;
}

/** The amount as shown: exactly the asset's decimals ("12.50" USD, "0.00100000" BTC). */
export const money = (atoms: bigint, asset: string): string => amountAtScale(atoms, COMMERCE_ASSETS[asset] ?? 18);
