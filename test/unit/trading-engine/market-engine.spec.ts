/**
 * The market engine decider: given inputs, when an order or cancel arrives, then these engine events; and the
 * restore property: evolving the emitted events from an empty (or snapshotted) state gives the live state.
 */
import type { EngineEvent } from '../../../src/modules/trading/domain/engine-events';
import { MarketEngine, type EngineInput, type EngineOrder } from '../../../src/modules/trading/engine/market-engine';
import { prng } from './helpers';

const MARKET = { market_uuid: 'a'.repeat(32), market_id: 7 };

function order(order_uuid: string, profile_uuid: string, direction: 'BUY' | 'SELL', size: string, limit_price: string | null, extra: Partial<EngineOrder> = {}): EngineOrder {
  return {
    order_uuid,
    profile_uuid,
    direction,
    order_type: limit_price === null ? 'MARKET' : 'LIMIT',
    time_in_force: 'GTC',
    post_only: false,
    reduce_only: false,
    order_size: size,
    limit_price,
    trigger_price: null,
    ...extra,
  };
}

class Harness {
  engine = new MarketEngine(MARKET);
  log: EngineEvent[] = [];
  private position = 100n;

  place(o: EngineOrder): EngineEvent[] {
    return this.run({ kind: 'PLACE', input_position: (this.position += 3n), order: o });
  }

  cancel(order_uuid: string, profile_uuid: string, reason: 'USER_REQUEST' | 'CANCEL_ALL' = 'USER_REQUEST'): EngineEvent[] {
    return this.run({ kind: 'CANCEL', input_position: (this.position += 3n), order_uuid, profile_uuid, reason });
  }

  run(input: EngineInput): EngineEvent[] {
    const events = this.engine.decide(input);
    this.log.push(...events);
    return events;
  }
}

const types = (events: EngineEvent[]): string[] => events.map((e) => e.type);
const only = <T extends EngineEvent['type']>(events: EngineEvent[], type: T) => events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);

describe('MarketEngine.decide', () => {
  it('given an empty book, when a limit order arrives, then it is opened with engine id and sequence and rests', () => {
    const h = new Harness();
    const events = h.place(order('o1', 'alice', 'BUY', '1', '100'));
    expect(types(events)).toEqual(['OrderOpened', 'OrderRested']);
    const opened = only(events, 'OrderOpened')[0].data;
    expect(opened.engine_id).toBe('GW-7-0-1');
    expect(opened.order_sequence).toBe('103_1');
    expect(opened.price).toBe('100.000000000000000000');
    expect(opened.input_position).toBe('103');
    expect(only(events, 'OrderRested')[0].data).toMatchObject({ remaining: '1.000000000000000000', sequence: 1 });
  });

  it('given a resting ask, when a larger buy crosses, then one trade, the maker filled, the taker rests the rest', () => {
    const h = new Harness();
    h.place(order('ask', 'bob', 'SELL', '1', '100'));
    const events = h.place(order('bid', 'alice', 'BUY', '3', '101'));
    expect(types(events)).toEqual(['OrderOpened', 'TradeExecuted', 'OrderFilled', 'OrderRested']);
    const trade = only(events, 'TradeExecuted')[0].data;
    expect(trade).toMatchObject({ maker_order_uuid: 'ask', taker_order_uuid: 'bid', price: '100.000000000000000000', size: '1.000000000000000000', maker_remaining: '0.000000000000000000', taker_remaining: '2.000000000000000000', taker_side: 'BUY' });
    expect(trade.trade_uuid).toMatch(/^[0-9a-f]{32}$/);
    expect(only(events, 'OrderFilled')[0].data.order_uuid).toBe('ask');
    expect(only(events, 'OrderRested')[0].data).toMatchObject({ order_uuid: 'bid', price: '101.000000000000000000', remaining: '2.000000000000000000' });
    expect(h.engine.position('alice')).toBe(10n ** 18n);
    expect(h.engine.position('bob')).toBe(-(10n ** 18n));
    expect(h.engine.lastPrice).toBe(100n * 10n ** 18n);
  });

  it('given no liquidity, when a market order arrives, then it is cancelled with 41_CancelReason_MarketOrderNoLiquidity', () => {
    const h = new Harness();
    const events = h.place(order('m', 'alice', 'BUY', '1', null));
    expect(types(events)).toEqual(['OrderOpened', 'OrderCancelled']);
    expect(only(events, 'OrderCancelled')[0].data).toMatchObject({ reason: 'MARKET_ORDER_NO_LIQUIDITY', cancel_reason: '41_CancelReason_MarketOrderNoLiquidity', remaining: '1.000000000000000000' });
  });

  it.each([
    ['IOC remainder', { time_in_force: 'IOC' as const }, 'IOC_REMAINDER', '20_CancelReason_ImmediateOrCancelRemainder'],
    ['FOK unfillable', { time_in_force: 'FOK' as const }, 'FOK_UNFILLABLE', '21_CancelReason_FillOrKillUnfillable'],
    ['book-or-cancel would trade', { post_only: true }, 'BOOK_OR_CANCEL_WOULD_TRADE', '22_CancelReason_BookOrCancelWouldTrade'],
  ])('given a small ask, when a crossing buy is %s, then the cancel reason says so', (_label, extra, reason, text) => {
    const h = new Harness();
    h.place(order('ask', 'bob', 'SELL', '1', '100'));
    const events = h.place(order('bid', 'alice', 'BUY', '2', '100', extra));
    const cancelled = only(events, 'OrderCancelled');
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0].data).toMatchObject({ order_uuid: 'bid', reason, cancel_reason: text });
  });

  it('given my own resting ask, when I buy through it, then self-trade prevention cancels the resting order', () => {
    const h = new Harness();
    h.place(order('mine', 'alice', 'SELL', '1', '100'));
    h.place(order('theirs', 'bob', 'SELL', '1', '100.5'));
    const events = h.place(order('bid', 'alice', 'BUY', '1', '101'));
    expect(types(events)).toEqual(['OrderOpened', 'OrderCancelled', 'TradeExecuted', 'OrderFilled', 'OrderFilled']);
    expect(only(events, 'OrderCancelled')[0].data).toMatchObject({ order_uuid: 'mine', cancel_reason: '30_CancelReason_SelfTradePrevention' });
  });

  it('given a resting order, when its owner cancels twice, then one OrderCancelled and one OrderCancelRejected', () => {
    const h = new Harness();
    h.place(order('o1', 'alice', 'BUY', '1', '100'));
    expect(h.cancel('o1', 'bob')[0]).toMatchObject({ type: 'OrderCancelRejected' }); // not bob's order
    expect(h.cancel('o1', 'alice')[0].data).toMatchObject({ order_uuid: 'o1', cancel_reason: '10_CancelReason_UserRequest', remaining: '1.000000000000000000' });
    expect(h.cancel('o1', 'alice', 'CANCEL_ALL')[0]).toMatchObject({ type: 'OrderCancelRejected', data: { reason: 'ORDER_NOT_OPEN' } });
    expect(h.engine.book.size).toBe(0);
  });

  it('given a filled order, when a cancel arrives after the fill, then it is rejected and nothing changes', () => {
    const h = new Harness();
    h.place(order('ask', 'bob', 'SELL', '1', '100'));
    h.place(order('bid', 'alice', 'BUY', '1', '100'));
    expect(types(h.cancel('ask', 'bob'))).toEqual(['OrderCancelRejected']);
  });

  it('given no position, when a reduce-only order arrives, then it is cancelled; with a long position it is cut to it', () => {
    const h = new Harness();
    expect(only(h.place(order('r0', 'alice', 'SELL', '1', null, { reduce_only: true })), 'OrderCancelled')[0].data.cancel_reason).toBe('50_CancelReason_ReduceOnlyNoPosition');
    h.place(order('ask', 'bob', 'SELL', '2', '100'));
    h.place(order('buy', 'alice', 'BUY', '2', '100')); // alice long 2
    h.place(order('bid', 'carol', 'BUY', '5', '99'));
    const events = h.place(order('close', 'alice', 'SELL', '3', null, { reduce_only: true }));
    expect(only(events, 'TradeExecuted')[0].data).toMatchObject({ size: '2.000000000000000000', taker_remaining: '1.000000000000000000' });
    expect(only(events, 'OrderCancelled')[0].data).toMatchObject({ order_uuid: 'close', cancel_reason: '51_CancelReason_ReduceOnlyExceedsPosition', remaining: '1.000000000000000000' });
    expect(h.engine.position('alice')).toBe(0n);
  });

  it('given a reduce-only fill-or-kill larger than the position, then it is cancelled whole', () => {
    const h = new Harness();
    h.place(order('ask', 'bob', 'SELL', '1', '100'));
    h.place(order('buy', 'alice', 'BUY', '1', '100'));
    h.place(order('bid', 'carol', 'BUY', '5', '99'));
    const events = h.place(order('close', 'alice', 'SELL', '2', null, { reduce_only: true, time_in_force: 'FOK' }));
    expect(types(events)).toEqual(['OrderOpened', 'OrderCancelled']);
    expect(h.engine.position('alice')).toBe(10n ** 18n);
  });

  it('given an armed stop, when a trade reaches its trigger, then it is released as a market order and trades', () => {
    const h = new Harness();
    const armed = h.place(order('stop', 'alice', 'BUY', '1', null, { order_type: 'STOP', trigger_price: '101' }));
    expect(types(armed)).toEqual(['OrderOpened']);
    expect(h.engine.holds('stop')).toBe(true);
    h.place(order('a1', 'bob', 'SELL', '1', '101'));
    h.place(order('a2', 'bob', 'SELL', '1', '102'));
    const events = h.place(order('b1', 'carol', 'BUY', '1', '101')); // trade at 101 → stop triggers, buys at 102
    expect(types(events)).toEqual(['OrderOpened', 'TradeExecuted', 'OrderFilled', 'OrderFilled', 'StopOrderTriggered', 'TradeExecuted', 'OrderFilled', 'OrderFilled']);
    expect(only(events, 'StopOrderTriggered')[0].data).toMatchObject({ order_uuid: 'stop', last_price: '101.000000000000000000' });
    expect(only(events, 'TradeExecuted')[1].data).toMatchObject({ taker_order_uuid: 'stop', price: '102.000000000000000000' });
  });

  it('given a last price past the trigger, when a stop-limit arrives, then it is released at once and rests at its limit', () => {
    const h = new Harness();
    h.place(order('a1', 'bob', 'SELL', '1', '100'));
    h.place(order('b1', 'carol', 'BUY', '1', '100')); // last 100
    const events = h.place(order('sl', 'alice', 'SELL', '1', '99', { order_type: 'STOP_LIMIT', trigger_price: '100' }));
    expect(types(events)).toEqual(['OrderOpened', 'StopOrderTriggered', 'OrderRested']);
    expect(h.cancel('sl', 'alice')[0].type).toBe('OrderCancelled');
  });

  it('given an armed stop, when its owner cancels it, then it is cancelled and never triggers', () => {
    const h = new Harness();
    h.place(order('stop', 'alice', 'SELL', '1', null, { order_type: 'STOP', trigger_price: '90' }));
    expect(only(h.cancel('stop', 'alice'), 'OrderCancelled')[0].data.remaining).toBe('1.000000000000000000');
    expect(h.engine.holds('stop')).toBe(false);
  });

  it('refuses an input that is not after the last one', () => {
    const h = new Harness();
    h.place(order('o1', 'alice', 'BUY', '1', '100'));
    expect(() => h.engine.decide({ kind: 'CANCEL', input_position: 1n, order_uuid: 'o1', profile_uuid: 'alice', reason: 'USER_REQUEST' })).toThrow(/not after/);
  });
});

describe('MarketEngine restore', () => {
  function randomRun(seed: number, steps: number): Harness {
    const rnd = prng(seed);
    const h = new Harness();
    const owners = ['p1', 'p2', 'p3', 'p4'];
    const ids: Array<[string, string]> = [];
    for (let i = 0; i < steps; i++) {
      const owner = owners[Math.floor(rnd() * owners.length)];
      if (rnd() < 0.12 && ids.length > 0) {
        const [id, who] = ids[Math.floor(rnd() * ids.length)];
        h.cancel(id, rnd() < 0.9 ? who : owner, rnd() < 0.5 ? 'USER_REQUEST' : 'CANCEL_ALL');
        continue;
      }
      const id = `o${i}`;
      ids.push([id, owner]);
      const side = rnd() < 0.5 ? 'BUY' : 'SELL';
      const price = (95 + Math.floor(rnd() * 40) / 4).toFixed(2);
      const size = (1 + Math.floor(rnd() * 500)) / 100;
      const t = rnd();
      const extra: Partial<EngineOrder> =
        t < 0.1 ? { order_type: 'MARKET', limit_price: null }
        : t < 0.17 ? { order_type: 'STOP', limit_price: null, trigger_price: price }
        : t < 0.22 ? { order_type: 'STOP_LIMIT', trigger_price: price, time_in_force: rnd() < 0.5 ? 'GTC' : 'IOC' }
        : t < 0.3 ? { time_in_force: rnd() < 0.5 ? 'IOC' : 'FOK', reduce_only: rnd() < 0.5 }
        : t < 0.36 ? { post_only: true }
        : {};
      h.place(order(id, owner, side, size.toFixed(2), price, extra));
    }
    return h;
  }

  it.each([1, 2, 3])('evolving the emitted events rebuilds the live state exactly (seed %i)', (seed) => {
    const h = randomRun(seed, 1500);
    expect(h.log.filter((e) => e.type === 'TradeExecuted').length).toBeGreaterThan(100);
    expect(h.log.some((e) => e.type === 'StopOrderTriggered')).toBe(true);
    const rebuilt = new MarketEngine(MARKET);
    for (const e of h.log) rebuilt.evolve(e);
    expect(rebuilt.snapshot()).toEqual(h.engine.snapshot());
  });

  it('a snapshot restored mid-run decides the rest exactly like the engine that never stopped', () => {
    const h = randomRun(9, 800);
    const restored = MarketEngine.restore(JSON.parse(JSON.stringify(h.engine.snapshot())));
    const twin = new Harness();
    twin.engine = restored;
    const rnd = prng(99);
    for (let i = 0; i < 400; i++) {
      const o = order(`n${i}`, `p${1 + Math.floor(rnd() * 4)}`, rnd() < 0.5 ? 'BUY' : 'SELL', '1.00', (95 + Math.floor(rnd() * 40) / 4).toFixed(2));
      const input: EngineInput = { kind: 'PLACE', input_position: 10_000n + BigInt(i), order: o };
      expect(twin.run(input)).toEqual(h.run(input));
    }
    expect(restored.snapshot()).toEqual(h.engine.snapshot());
  });

  it('never fills an order over its size', () => {
    const h = randomRun(4, 1500);
    const sizes = new Map<string, bigint>();
    const filled = new Map<string, bigint>();
    const atoms = (s: string) => BigInt(s.replace('.', ''));
    for (const e of h.log) {
      if (e.type === 'OrderOpened') sizes.set(e.data.order_uuid, atoms(e.data.size));
      if (e.type === 'TradeExecuted') {
        for (const id of [e.data.maker_order_uuid, e.data.taker_order_uuid]) filled.set(id, (filled.get(id) ?? 0n) + atoms(e.data.size));
      }
    }
    for (const [id, f] of filled) expect(f <= sizes.get(id)!).toBe(true);
  });
});
