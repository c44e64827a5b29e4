/** Shared builders for the engine specs. */
import { parseDecimal } from '../../../src/platform/decimal/fixed18';
import type { IncomingOrder, MatchOptions, Side, TimeInForce } from '../../../src/modules/trading/engine/matching';

export const d = (s: string): bigint => parseDecimal(s);

/** A deterministic trade id generator: T1, T2, … */
export function tradeIds(prefix = 'T'): MatchOptions {
  let n = 0;
  return { nextTradeId: () => `${prefix}${++n}` };
}

export function limit(order_id: string, owner: string, side: Side, price: string, size: string, extra: Partial<IncomingOrder> = {}): IncomingOrder {
  return { order_id, owner, side, type: 'LIMIT', price: d(price), size: d(size), time_in_force: 'GTC', post_only: false, ...extra };
}

export function market(order_id: string, owner: string, side: Side, size: string, time_in_force: TimeInForce = 'GTC'): IncomingOrder {
  return { order_id, owner, side, type: 'MARKET', price: null, size: d(size), time_in_force, post_only: false };
}

/** JSON with bigints as strings (for determinism comparisons and readable failures). */
export function stable(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
}

export { prng } from '../../support/prng';
