/**
 * A participant's standing in a season (pure): realised P&L per market and in total, trades counted, markets traded.
 * Each fill goes through trading's position arithmetic (src/modules/trading/domain/position.ts), the same exact
 * fixed-point rules as the positions read model. The trading events the arena reads are named here too, so its
 * read model depends on the arena's domain only.
 */
import { formatDecimal, formatPlain, parseDecimal } from '../../../platform/decimal/fixed18';
import type { TradeExecutedData } from '../../trading/domain/engine-events';
import type { MarketRegistryEvent } from '../../trading/domain/market';
import { applyFill, FLAT, type Position } from '../../trading/domain/position';

export type { TradeExecutedData };
export type MarketListed = MarketRegistryEvent;

export interface StandingRecord {
  season_uuid: string;
  profile_uuid: string;
  disqualified: boolean;
  disqualification_reason: string | null;
  realized_pnl: string;
  trades: number;
  markets: string[];
  positions: Record<string, { quantity: string; entry_price: string; realized_pnl: string }>;
  enrolled_at: string;
}

const signed = { allowSign: true } as const;
const positionOf = (p: StandingRecord['positions'][string] | undefined): Position =>
  p ? { quantity: parseDecimal(p.quantity, signed), entry_price: parseDecimal(p.entry_price), realized_pnl: parseDecimal(p.realized_pnl, signed) } : FLAT;

/** The two sides of a trade: the taker on its side, the maker on the other. */
export const sidesOf = (d: TradeExecutedData): Array<[profile_uuid: string, side: 'BUY' | 'SELL']> => [
  [d.taker_profile_uuid, d.taker_side],
  [d.maker_profile_uuid, d.taker_side === 'BUY' ? 'SELL' : 'BUY'],
];

/** The standing after one fill in `symbol`. */
export function withFill(s: StandingRecord, symbol: string, side: 'BUY' | 'SELL', price: string, size: string): StandingRecord {
  const before = positionOf(s.positions[symbol]);
  const after = applyFill(before, side, parseDecimal(price), parseDecimal(size));
  return {
    ...s,
    realized_pnl: formatPlain(parseDecimal(s.realized_pnl, signed) + (after.realized_pnl - before.realized_pnl)),
    trades: s.trades + 1,
    markets: s.markets.includes(symbol) ? s.markets : [...s.markets, symbol].sort(),
    positions: { ...s.positions, [symbol]: { quantity: formatDecimal(after.quantity), entry_price: formatDecimal(after.entry_price), realized_pnl: formatDecimal(after.realized_pnl) } },
  };
}
