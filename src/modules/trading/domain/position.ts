/**
 * Net position arithmetic, pure and exact (fixed18 atoms). A position is the signed net quantity (BUY fills +,
 * SELL fills −), the average entry price of what is open, and the PnL realized by reducing it.
 *
 * Rounding: the weighted-average entry price and each fill's realized PnL are rounded once to 18 fractional
 * digits, HALF_EVEN, from their exact values; realized PnL is the sum of those per-fill amounts.
 */
import { abs, divideRounded, min, SCALE } from '../../../platform/decimal/fixed18';

export interface Position {
  /** Signed: > 0 long, < 0 short. */
  quantity: bigint;
  /** Average entry price of the open quantity; 0 when flat. */
  entry_price: bigint;
  realized_pnl: bigint;
}

export const FLAT: Position = { quantity: 0n, entry_price: 0n, realized_pnl: 0n };

export function applyFill(p: Position, side: 'BUY' | 'SELL', price: bigint, size: bigint): Position {
  if (size <= 0n) throw new RangeError('a fill has a positive size');
  if (price < 0n) throw new RangeError('a fill has a non-negative price');
  const signed = side === 'BUY' ? size : -size;
  const held = p.quantity;
  if (held === 0n || held > 0n === signed > 0n) {
    // Opening or adding: the exact volume-weighted mean, (|held|·entry + size·price) / (|held| + size).
    const heldSize = abs(held);
    const entry = divideRounded(heldSize * p.entry_price + size * price, heldSize + size, 'HALF_EVEN');
    return { quantity: held + signed, entry_price: entry, realized_pnl: p.realized_pnl };
  }
  // Reducing: the closed part realizes (exit − entry) × qty, sign-flipped for a short.
  const closed = min(abs(held), size);
  const direction = held > 0n ? 1n : -1n;
  const pnl = divideRounded((price - p.entry_price) * closed * direction, SCALE, 'HALF_EVEN');
  const quantity = held + signed;
  // Flat resets the entry; a flip opens the rest at this fill's price; a reduction keeps the entry.
  const entry = quantity === 0n ? 0n : quantity > 0n === held > 0n ? p.entry_price : price;
  return { quantity, entry_price: entry, realized_pnl: p.realized_pnl + pnl };
}

export type PositionSide = 'LONG' | 'SHORT' | 'FLAT';

export const positionSide = (quantity: bigint): PositionSide => (quantity > 0n ? 'LONG' : quantity < 0n ? 'SHORT' : 'FLAT');
