/** Market rules, given/when/then. */
import { fold } from '../../src/platform/command/decider';
import { StateConflict } from '../../src/platform/errors';
import { marketDecider, marketRegistryDecider, type MarketDefinition, type MarketEvent } from '../../src/modules/trading/domain/market';

const ctx = { now: new Date('2026-11-22T00:00:00Z'), newId: () => 'f'.repeat(32) };
const definition: MarketDefinition = {
  market_uuid: 'a'.repeat(32), market_id: 1, market_symbol: 'BTC-PERP', instrument_isin: 'XF0000BTC001', market_type: 'PERPETUAL', contract_size: '0.001',
  mininum_quantity: '0.001', minimum_execution_quantity: '0.001', operating_mic: 'XMTF', segment_mic: 'XMTS', price_currency: 'USD', quote_currency: 'USD', base_currency: 'BTC', tick_size: '0.5',
};

describe('market registry', () => {
  it('numbers markets 1, 2, … and keeps symbols unique', () => {
    const first = marketRegistryDecider.decide({ market_uuid: 'u1', market_symbol: 'BTC-PERP' }, marketRegistryDecider.initialState(), ctx);
    expect(first).toEqual([{ type: 'MarketListed', data: { market_id: 1, market_uuid: 'u1', market_symbol: 'BTC-PERP' } }]);
    const state = fold(marketRegistryDecider, first);
    expect(marketRegistryDecider.decide({ market_uuid: 'u2', market_symbol: 'ETH-PERP' }, state, ctx)[0].data.market_id).toBe(2);
    expect(() => marketRegistryDecider.decide({ market_uuid: 'u3', market_symbol: 'BTC-PERP' }, state, ctx)).toThrow(StateConflict);
  });
});

describe('market flags', () => {
  const created: MarketEvent = { type: 'MarketCreated', data: { ...definition, is_suspended: false, is_cancel_only: false, is_maker_only: false } };
  it('changes only the flags given, and records nothing when nothing changes', () => {
    const state = fold(marketDecider, [created]);
    expect(marketDecider.decide({ kind: 'ChangeMarketFlags', flags: { is_cancel_only: true } }, state, ctx)).toEqual([
      { type: 'MarketFlagsChanged', data: { is_suspended: false, is_cancel_only: true, is_maker_only: false } },
    ]);
    expect(marketDecider.decide({ kind: 'ChangeMarketFlags', flags: { is_suspended: false } }, state, ctx)).toEqual([]);
    expect(() => marketDecider.decide({ kind: 'ChangeMarketFlags', flags: { is_suspended: true } }, marketDecider.initialState(), ctx)).toThrow(/No such market/);
  });
});
