/** Market rules, given/when/then. */
import { fold } from '../../src/platform/command/decider';
import { StateConflict } from '../../src/platform/errors';
import { decimalPlaces, marketDecider, marketRegistryDecider, type MarketDefinition, type MarketEvent } from '../../src/modules/trading/domain/market';
import { marketRuleViolations, type OrderPlacement } from '../../src/modules/trading/domain/order';
import { marketWire } from '../../src/modules/trading/markets';

const ctx = { now: new Date('2026-11-22T00:00:00Z'), newId: () => 'f'.repeat(32) };
const definition: MarketDefinition = {
  market_uuid: 'a'.repeat(32), market_id: 1, market_symbol: 'BTC-PERP', instrument_isin: 'XF0000BTC001', market_type: 'PERPETUAL', contract_size: '0.001',
  mininum_quantity: '0.001', minimum_execution_quantity: '0.001', operating_mic: 'XMTF', segment_mic: 'XMTS', price_currency: 'USD', quote_currency: 'USD', base_currency: 'BTC', tick_size: '0.5',
  maximum_quantity: '10',
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

describe('what an order must meet: tick, lot, minimum and maximum quantity', () => {
  const created: MarketEvent = { type: 'MarketCreated', data: { ...definition, is_suspended: false, is_cancel_only: false, is_maker_only: false } };
  const market = fold(marketDecider, [created]);
  const order = (over: Partial<OrderPlacement>): OrderPlacement => ({
    order_uuid: 'o'.repeat(32), profile_uuid: 'p'.repeat(32), tenant_uuid: '0'.repeat(32), market_uuid: definition.market_uuid, market_id: 1, market_symbol: 'BTC-PERP',
    base_currency: 'BTC', direction: 'BUY', order_type: 'LIMIT', time_in_force: 'GTC', post_only: false, reduce_only: false, order_size: '1', limit_price: '30000.5',
    trigger_price: null, external_ref: '', order_group: '', vault_uuid: '', liquidity_pool: '', channel: 'CANONICAL', leverage: 1, client_reference: null, reporting_identifier: null,
    ...over,
  });
  const fields = (over: Partial<OrderPlacement>) => marketRuleViolations(order(over), market).map((i) => `${i.field}: ${i.issue}`);

  it('given a market, when an order is on the grid and within the limits, then nothing is wrong', () => {
    expect(fields({})).toEqual([]);
    expect(fields({ order_size: '10', limit_price: '0.5' })).toEqual([]);
    expect(fields({ order_size: '0.001' })).toEqual([]);
  });

  it('given a market, when a price is off the tick, a quantity off the lot or outside the limits, then each names its field', () => {
    expect(fields({ limit_price: '30000.25' })).toEqual(['limit_price: not a multiple of the tick size 0.5']);
    expect(fields({ order_type: 'STOP_LIMIT', trigger_price: '100.1' })).toEqual(['trigger_price: not a multiple of the tick size 0.5']);
    expect(fields({ order_size: '1.0005' })).toEqual(['order_size: not a multiple of the contract size 0.001']);
    expect(fields({ order_size: '0.0005' })).toEqual(expect.arrayContaining(["order_size: below the market's minimum quantity 0.001"]));
    expect(fields({ order_size: '10.001' })).toEqual(["order_size: above the market's maximum quantity 10"]);
  });

  it('given a market created before maximum_quantity existed, when it is folded, then it has no maximum', () => {
    const { maximum_quantity: _none, ...old } = definition;
    const legacy = fold(marketDecider, [{ type: 'MarketCreated', data: { ...old, is_suspended: false, is_cancel_only: false, is_maker_only: false } } as unknown as MarketEvent]);
    expect(legacy.definition?.maximum_quantity).toBeNull();
    expect(marketRuleViolations(order({ order_size: '1000000' }), legacy)).toEqual([]);
  });

  it('publishes tick, lot, limits and precisions on the Market record', () => {
    const unbound = { price_feed_id: null, stop_trigger_source: null, mark_basis_window_ms: null, price_feed_status: null, index_price: null, index_at: null, mark_price: null };
    const wire = marketWire({ ...definition, is_suspended: 0, is_cancel_only: 0, is_maker_only: 0, version: 0, updated_at: '', ...unbound });
    expect(wire).toMatchObject({ tick_size: 0.5, lot_size: 0.001, mininum_quantity: 0.001, maximum_quantity: 10, price_precision: 1, quantity_precision: 3 });
    expect(Object.keys(wire)).not.toContain('price_feed_id'); // no feed: the record as it was
    const bound = marketWire({ ...definition, is_suspended: 0, is_cancel_only: 0, is_maker_only: 0, version: 0, updated_at: '', ...unbound, price_feed_id: 'e'.repeat(32), stop_trigger_source: 'MARK_PRICE', mark_basis_window_ms: 150_000 });
    expect(bound).toMatchObject({ price_feed_id: 'e'.repeat(32), price_feed_status: 'STALE', index_price: null, mark_price: null, mark_basis_window_ms: 150_000, stop_trigger_source: 'MARK_PRICE' });
    expect(Object.keys(bound)).toEqual([...Object.keys(bound)].sort());
    expect(Object.keys(wire)).toEqual([...Object.keys(wire)].sort());
    expect([decimalPlaces('0.050'), decimalPlaces('1'), decimalPlaces('0.000000000000000001'), decimalPlaces('25.000000000000000000')]).toEqual([2, 0, 18, 0]);
  });
});

describe('a market bound to a price feed', () => {
  const created: MarketEvent = { type: 'MarketCreated', data: { ...definition, is_suspended: false, is_cancel_only: false, is_maker_only: false } };
  const binding = { feed_id: 'e'.repeat(32), stop_trigger_source: 'MARK_PRICE' as const, mark_basis_window_ms: 150_000 };
  const stopOrder = (trigger_source: OrderPlacement['trigger_source'], order_type: OrderPlacement['order_type'] = 'STOP'): OrderPlacement => ({
    order_uuid: 'o'.repeat(32), profile_uuid: 'p'.repeat(32), tenant_uuid: '0'.repeat(32), market_uuid: definition.market_uuid, market_id: 1, market_symbol: 'BTC-PERP',
    base_currency: 'BTC', direction: 'SELL', order_type, time_in_force: 'GTC', post_only: false, reduce_only: false, order_size: '1', limit_price: order_type === 'LIMIT' ? '100' : null,
    trigger_price: order_type === 'LIMIT' ? null : '100', trigger_source, external_ref: '', order_group: '', vault_uuid: '', liquidity_pool: '', channel: 'CANONICAL', leverage: 1, client_reference: null, reporting_identifier: null,
  });

  it('given a market, when a feed is bound, then MarketPriceFeedBound; the same binding again records nothing; another source does', () => {
    const market = fold(marketDecider, [created]);
    const bound = marketDecider.decide({ kind: 'BindPriceFeed', binding }, market, ctx);
    expect(bound).toEqual([{ type: 'MarketPriceFeedBound', data: { market_uuid: definition.market_uuid, ...binding } }]);
    const after = fold(marketDecider, [created, ...bound]);
    expect(after.price_feed).toEqual(binding);
    expect(marketDecider.decide({ kind: 'BindPriceFeed', binding }, after, ctx)).toEqual([]);
    expect(marketDecider.decide({ kind: 'BindPriceFeed', binding: { ...binding, stop_trigger_source: 'INDEX_PRICE' } }, after, ctx)).toHaveLength(1);
    expect(() => marketDecider.decide({ kind: 'BindPriceFeed', binding }, marketDecider.initialState(), ctx)).toThrow(/No such market/);
  });

  it('given no feed, then only LAST_PRICE stops are accepted; a trigger source on a non-stop order is refused either way', () => {
    const unbound = fold(marketDecider, [created]);
    const bound = fold(marketDecider, [created, { type: 'MarketPriceFeedBound', data: { market_uuid: definition.market_uuid, ...binding } }]);
    const issues = (o: OrderPlacement, m = unbound) => marketRuleViolations(o, m).map((i) => `${i.field}: ${i.issue}`);
    expect(issues(stopOrder('MARK_PRICE'))).toEqual(['trigger_source: MARK_PRICE needs a price feed bound to the market; this market triggers on LAST_PRICE only']);
    expect(issues(stopOrder('LAST_PRICE'))).toEqual([]);
    expect(issues(stopOrder(null))).toEqual([]);
    expect(issues(stopOrder('INDEX_PRICE'), bound)).toEqual([]);
    expect(issues(stopOrder('MARK_PRICE', 'LIMIT'), bound)).toEqual(['trigger_source: a LIMIT order has no trigger source']);
  });
});
