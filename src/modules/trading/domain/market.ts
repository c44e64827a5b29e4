/**
 * Markets: a registry stream hands out market ids and keeps symbols unique; each market's own stream holds its
 * definition and its admin flags (suspended, cancel-only, maker-only). Pure decide/evolve.
 */
import type { Decider } from '../../../platform/command/decider';
import { PlatformError, StateConflict } from '../../../platform/errors';
import type { TriggerSource } from './mark-price';

export const MARKET_REGISTRY_STREAM = 'mtf-market-registry';
export const marketStream = (marketUuid: string): string => `mtf-market-${marketUuid}`;

export type MarketRegistryEvent = { type: 'MarketListed'; data: { market_id: number; market_uuid: string; market_symbol: string } };
export interface MarketRegistryState {
  count: number;
  symbols: Record<string, string>;
}

export const marketRegistryDecider: Decider<{ market_uuid: string; market_symbol: string }, MarketRegistryState, MarketRegistryEvent> = {
  initialState: () => ({ count: 0, symbols: {} }),
  evolve: (s, e) => ({ count: Math.max(s.count, e.data.market_id), symbols: { ...s.symbols, [e.data.market_symbol]: e.data.market_uuid } }),
  decide: (c, s) => {
    if (s.symbols[c.market_symbol]) throw new StateConflict(`Market ${c.market_symbol} exists.`);
    return [{ type: 'MarketListed', data: { market_id: s.count + 1, market_uuid: c.market_uuid, market_symbol: c.market_symbol } }];
  },
};

export interface MarketDefinition {
  market_uuid: string;
  market_id: number;
  market_symbol: string;
  instrument_isin: string;
  market_type: 'PERPETUAL';
  /** Decimal strings: exact in the domain, rendered as JSON numbers on the seeds' Market record. */
  contract_size: string;
  mininum_quantity: string;
  minimum_execution_quantity: string;
  operating_mic: string;
  segment_mic: string;
  price_currency: string;
  quote_currency: string;
  base_currency: string;
  /** Smallest price increment (decimal string); orders' limit prices must be multiples of it. */
  tick_size: string;
  /**
   * Largest quantity one order may have (decimal string); null: no maximum. Markets created before it existed have
   * none (their MarketCreated events lack the field).
   */
  maximum_quantity: string | null;
}

/** Fractional digits a decimal string needs (trailing zeros do not count): '0.050' → 2, '1' → 0. */
export function decimalPlaces(value: string): number {
  const fraction = value.split('.')[1] ?? '';
  return fraction.replace(/0+$/, '').length;
}

export interface MarketFlags {
  is_suspended: boolean;
  is_cancel_only: boolean;
  is_maker_only: boolean;
}

/**
 * The composite feed a market's index price comes from (docs/trading.md, "Mark price"), what its stops trigger on
 * unless an order says otherwise, and the window of the mark's basis average. The matching engine takes the binding
 * in its ordered input, so every later index tick and order is decided under it.
 */
export interface MarketPriceFeedBinding {
  feed_id: string;
  stop_trigger_source: TriggerSource;
  mark_basis_window_ms: number;
}

export type MarketEvent =
  | { type: 'MarketCreated'; data: MarketDefinition & MarketFlags }
  | { type: 'MarketFlagsChanged'; data: MarketFlags }
  | { type: 'MarketPriceFeedBound'; data: { market_uuid: string } & MarketPriceFeedBinding };

export interface MarketState {
  definition: MarketDefinition | null;
  flags: MarketFlags;
  price_feed: MarketPriceFeedBinding | null;
}

export type MarketCommand =
  | { kind: 'CreateMarket'; definition: MarketDefinition }
  | { kind: 'ChangeMarketFlags'; flags: Partial<MarketFlags> }
  | { kind: 'BindPriceFeed'; binding: MarketPriceFeedBinding };

export const marketDecider: Decider<MarketCommand, MarketState, MarketEvent> = {
  initialState: () => ({ definition: null, flags: { is_suspended: false, is_cancel_only: false, is_maker_only: false }, price_feed: null }),
  evolve: (s, e) => {
    if (e.type === 'MarketCreated') {
      const { is_suspended, is_cancel_only, is_maker_only, ...definition } = e.data;
      return { definition: { ...definition, maximum_quantity: definition.maximum_quantity ?? null }, flags: { is_suspended, is_cancel_only, is_maker_only }, price_feed: null };
    }
    if (e.type === 'MarketPriceFeedBound') {
      const { market_uuid: _m, ...binding } = e.data;
      return { ...s, price_feed: binding };
    }
    return { ...s, flags: e.data };
  },
  decide: (c, s) => {
    if (c.kind === 'CreateMarket') {
      if (s.definition) throw new StateConflict('The market exists.');
      return [{ type: 'MarketCreated', data: { ...c.definition, is_suspended: false, is_cancel_only: false, is_maker_only: false } }];
    }
    if (!s.definition) throw new PlatformError('NOT_FOUND', 'No such market.');
    if (c.kind === 'BindPriceFeed') {
      const b = s.price_feed;
      const same = b && b.feed_id === c.binding.feed_id && b.stop_trigger_source === c.binding.stop_trigger_source && b.mark_basis_window_ms === c.binding.mark_basis_window_ms;
      return same ? [] : [{ type: 'MarketPriceFeedBound', data: { market_uuid: s.definition.market_uuid, ...c.binding } }];
    }
    const flags: MarketFlags = {
      is_suspended: c.flags.is_suspended ?? s.flags.is_suspended,
      is_cancel_only: c.flags.is_cancel_only ?? s.flags.is_cancel_only,
      is_maker_only: c.flags.is_maker_only ?? s.flags.is_maker_only,
    };
    if (flags.is_suspended === s.flags.is_suspended && flags.is_cancel_only === s.flags.is_cancel_only && flags.is_maker_only === s.flags.is_maker_only) return [];
    return [{ type: 'MarketFlagsChanged', data: flags }];
  },
};
