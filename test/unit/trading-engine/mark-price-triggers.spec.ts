/**
 * Stops on the mark and index price in the market engine: given a bound feed and its ticks (inputs, like orders),
 * when the last price spikes or the index moves, then exactly the stops whose trigger source was reached are released;
 * a stale feed holds mark and index stops; and replay (evolve from the log, or restore a snapshot mid-run) decides the
 * same triggers as the engine that never stopped.
 */
import type { EngineEvent } from '../../../src/modules/trading/domain/engine-events';
import type { TriggerSource } from '../../../src/modules/trading/domain/mark-price';
import { MarketEngine, type EngineInput, type EngineOrder } from '../../../src/modules/trading/engine/market-engine';
import { prng } from './helpers';

const MARKET = { market_uuid: 'b'.repeat(32), market_id: 9 };
const FEED = 'f'.repeat(32);
const T0 = Date.parse('2026-11-25T10:00:00.000Z');

function order(order_uuid: string, profile_uuid: string, direction: 'BUY' | 'SELL', size: string, limit_price: string | null, extra: Partial<EngineOrder> = {}): EngineOrder {
  return { order_uuid, profile_uuid, direction, order_type: limit_price === null ? 'MARKET' : 'LIMIT', time_in_force: 'GTC', post_only: false, reduce_only: false, order_size: size, limit_price, trigger_price: null, ...extra };
}
const stop = (id: string, owner: string, side: 'BUY' | 'SELL', trigger: string, source: TriggerSource | null): EngineOrder =>
  order(id, owner, side, '1', null, { order_type: 'STOP', trigger_price: trigger, trigger_source: source });

/** An engine input without its position (the harness numbers them). */
type Input = EngineInput extends infer I ? (I extends EngineInput ? Omit<I, 'input_position'> : never) : never;

class Harness {
  engine = new MarketEngine(MARKET);
  log: EngineEvent[] = [];
  position = 100n;

  run(input: Input): EngineEvent[] {
    const events = this.engine.decide({ ...input, input_position: (this.position += 2n) } as EngineInput);
    this.log.push(...events);
    return events;
  }
  place(o: EngineOrder): EngineEvent[] {
    return this.run({ kind: 'PLACE', order: o });
  }
  bind(source: TriggerSource = 'LAST_PRICE', window = 60_000): EngineEvent[] {
    return this.run({ kind: 'BIND_FEED', feed_id: FEED, stop_trigger_source: source, mark_basis_window_ms: window });
  }
  tick(value: string | null, atMs: number): EngineEvent[] {
    return this.run({ kind: 'INDEX_TICK', feed_id: FEED, status: value === null ? 'STALE' : 'LIVE', value, at: new Date(T0 + atMs).toISOString() });
  }
}

const types = (events: EngineEvent[]): string[] => events.map((e) => e.type);
const triggered = (events: EngineEvent[]): string[] => events.filter((e) => e.type === 'StopOrderTriggered').map((e) => (e.data as { order_uuid: string }).order_uuid);
const markOf = (events: EngineEvent[]): string | null | undefined => (events.find((e) => e.type === 'MarkPriceUpdated')?.data as { mark_price: string | null } | undefined)?.mark_price;

/** Index 100, a thin book: bids 99 and 90 (one each), ask 101; two sell stops at 95, one on the last price, one on the mark. */
function thinBook(): Harness {
  const h = new Harness();
  h.bind();
  h.tick('100', 0);
  h.place(order('b99', 'mm', 'BUY', '1', '99'));
  h.place(order('b90', 'mm', 'BUY', '1', '90'));
  h.place(order('a101', 'mm', 'SELL', '1', '101'));
  h.place(stop('on-last', 'alice', 'SELL', '95', 'LAST_PRICE'));
  h.place(stop('on-mark', 'bob', 'SELL', '95', 'MARK_PRICE'));
  return h;
}

describe('MarketEngine: stops on the mark and index price', () => {
  it('given a bound feed, when an index tick arrives, then IndexPriceUpdated with the basis sample and the mark, and the mark follows the book', () => {
    const h = new Harness();
    expect(types(h.bind('MARK_PRICE'))).toEqual(['PriceFeedAttached']);
    const first = h.tick('100', 0);
    expect(types(first)).toEqual(['IndexPriceUpdated', 'MarkPriceUpdated']);
    expect(first[0].data).toMatchObject({ feed_id: FEED, feed_status: 'LIVE', index_price: '100.000000000000000000', basis: null });
    expect(markOf(first)).toBe('100.000000000000000000'); // empty book: the index alone
    h.place(order('b', 'mm', 'BUY', '1', '101'));
    // No basis history yet (B = 0): median(100, 100, median(101, 103) = 102) = 100, unchanged: no MarkPriceUpdated.
    expect(markOf(h.place(order('a', 'mm', 'SELL', '1', '103')))).toBeUndefined();
    expect(h.engine.markPrice()).toBe(100n * 10n ** 18n);
    // The book sits 2 above the index: sampled at 10 s (held for no time yet), then held 10 s → B = 2 at 20 s.
    expect(h.tick('100', 10_000)[0].data).toMatchObject({ basis: '2.000000000000000000' });
    expect(h.engine.markPrice()).toBe(100n * 10n ** 18n);
    expect(markOf(h.tick('100', 20_000))).toBe('102.000000000000000000'); // median(100, 102, 102)
  });

  it('given a thin book, when one trader spikes the last price down through 95, then the LAST_PRICE stop triggers and the MARK_PRICE stop does not', () => {
    const h = thinBook();
    const spike = h.place(order('dump', 'eve', 'SELL', '2', null)); // trades 99 then 90: last 90
    expect(triggered(spike)).toEqual(['on-last']);
    expect(h.engine.holds('on-mark')).toBe(true);
    expect(h.engine.markPrice()).toBe(100n * 10n ** 18n); // median(100, 100 + 0, median(ask 101, last 90) = 95.5)
    expect(spike.find((e) => e.type === 'StopOrderTriggered')!.data).toMatchObject({ trigger_source: 'LAST_PRICE', reference_price: '90.000000000000000000' });
  });

  it('given the same book, when the index falls to 94 with no trade, then the MARK_PRICE stop triggers and a LAST_PRICE stop at 85 does not', () => {
    const h = thinBook();
    h.place(stop('last-85', 'carol', 'SELL', '85', 'LAST_PRICE'));
    h.place(order('b98', 'mm', 'BUY', '1', '98'));
    const fall = h.tick('94', 30_000);
    // No trade yet and no basis history (the book was empty at the first tick): mark = median(94, 94, median(99, 101)) = 94.
    expect(triggered(fall)).toEqual(['on-mark']);
    expect(fall.find((e) => e.type === 'StopOrderTriggered')!.data).toMatchObject({ trigger_source: 'MARK_PRICE', reference_price: '94.000000000000000000', last_price: null });
    expect(h.engine.holds('on-last')).toBe(true); // the released stop sold into 99 (last 99): above 95
    expect(h.engine.holds('last-85')).toBe(true);
  });

  it('given an INDEX_PRICE buy stop, when the index reaches it, then it triggers on that tick only', () => {
    const h = new Harness();
    h.bind('INDEX_PRICE');
    h.tick('100', 0);
    h.place(order('a', 'mm', 'SELL', '5', '105'));
    expect(h.place(stop('ix', 'alice', 'BUY', '104', null))).toEqual([expect.objectContaining({ type: 'OrderOpened', data: expect.objectContaining({ trigger_source: 'INDEX_PRICE' }) })]);
    expect(triggered(h.tick('103.5', 1000))).toEqual([]);
    const hit = h.tick('104', 2000);
    expect(triggered(hit)).toEqual(['ix']);
    expect(hit.find((e) => e.type === 'TradeExecuted')!.data).toMatchObject({ taker_order_uuid: 'ix', price: '105.000000000000000000' });
  });

  it('given a stale feed, then mark and index stops hold (no fall back to the last price), the mark is null, and the next live value releases them', () => {
    const h = thinBook();
    const stale = h.tick(null, 10_000);
    expect(stale[0].data).toMatchObject({ feed_status: 'STALE', index_price: null, basis: null });
    expect(markOf(stale)).toBeNull();
    expect(h.engine.markPrice()).toBeNull();
    const spike = h.place(order('dump', 'eve', 'SELL', '2', null)); // last 90 again: below both triggers
    expect(triggered(spike)).toEqual(['on-last']);
    expect(h.engine.holds('on-mark')).toBe(true);
    // Live at 94 on an empty bid side: median(94, 94 + B, median(ask 101, last 90)) ≤ 95.
    expect(triggered(h.tick('94', 20_000))).toEqual(['on-mark']);
  });

  it('given a mark held up by the best bid, when that bid is cancelled, then the mark falls and the MARK_PRICE stop triggers on the cancel', () => {
    const h = new Harness();
    h.bind('MARK_PRICE', 60_000);
    h.place(order('b89', 'mm', 'BUY', '1', '89'));
    h.place(order('a91', 'mm', 'SELL', '1', '91'));
    h.tick('100', 0); // basis sample 90 − 100 = −10
    h.tick('100', 10_000); // B = −10 (held 10 s): the mark lies between 90 and 100
    h.place(order('b97', 'mm', 'BUY', '1', '97.5'));
    h.place(order('a98', 'mm2', 'SELL', '1', '98.5'));
    h.run({ kind: 'CANCEL', order_uuid: 'a91', profile_uuid: 'mm', reason: 'USER_REQUEST' });
    expect(h.engine.markPrice()).toBe(98n * 10n ** 18n); // median(100, 90, median(97.5, 98.5) = 98)
    h.place(stop('sl', 'alice', 'SELL', '95', null));
    const cancel = h.run({ kind: 'CANCEL', order_uuid: 'b97', profile_uuid: 'mm', reason: 'USER_REQUEST' });
    // best bid 89, ask 98.5: median(100, 90, 93.75) = 93.75 ≤ 95
    expect(types(cancel).slice(0, 2)).toEqual(['OrderCancelled', 'StopOrderTriggered']);
    expect(cancel[1].data).toMatchObject({ order_uuid: 'sl', trigger_source: 'MARK_PRICE', reference_price: '93.750000000000000000' });
  });

  it('given a market without a feed, then a MARK_PRICE stop is cancelled as the engine cannot trigger it', () => {
    const h = new Harness();
    const events = h.place(stop('m', 'alice', 'SELL', '95', 'MARK_PRICE'));
    expect(types(events)).toEqual(['OrderOpened', 'OrderCancelled']);
    expect(events[1].data).toMatchObject({ reason: 'ENGINE_REJECTED' });
  });

  it("given the market's default MARK_PRICE, then a stop without its own source takes it, and one naming LAST_PRICE keeps it", () => {
    const h = new Harness();
    h.bind('MARK_PRICE');
    expect(h.place(stop('d', 'alice', 'SELL', '95', null))[0].data).toMatchObject({ trigger_source: 'MARK_PRICE' });
    expect(h.place(stop('l', 'alice', 'SELL', '95', 'LAST_PRICE'))[0].data).toMatchObject({ trigger_source: 'LAST_PRICE' });
    expect(h.place(order('x', 'mm', 'BUY', '1', '99'))[0].data).not.toHaveProperty('trigger_source');
  });
});

describe('MarketEngine with a feed: replay', () => {
  /** Orders, cancels and ticks (some stale) mixed at random, with stops on all three sources. */
  function randomRun(seed: number, steps: number): Harness {
    const rnd = prng(seed);
    const h = new Harness();
    h.bind('MARK_PRICE', 20_000);
    let clock = 0;
    let index = 100;
    const ids: Array<[string, string]> = [];
    const owners = ['p1', 'p2', 'p3', 'p4'];
    for (let i = 0; i < steps; i++) {
      const r = rnd();
      if (r < 0.15) {
        clock += 1 + Math.floor(rnd() * 3000);
        index = Math.max(80, Math.min(120, index + Math.round((rnd() - 0.5) * 8)));
        h.tick(rnd() < 0.1 ? null : index.toFixed(2), clock);
        continue;
      }
      const owner = owners[Math.floor(rnd() * owners.length)];
      if (r < 0.25 && ids.length > 0) {
        const [id, who] = ids[Math.floor(rnd() * ids.length)];
        h.run({ kind: 'CANCEL', order_uuid: id, profile_uuid: who, reason: 'USER_REQUEST' });
        continue;
      }
      const id = `o${i}`;
      ids.push([id, owner]);
      const side = rnd() < 0.5 ? 'BUY' : 'SELL';
      const price = (index - 10 + Math.floor(rnd() * 80) / 4).toFixed(2);
      const t = rnd();
      const source: TriggerSource | null = ([null, 'LAST_PRICE', 'MARK_PRICE', 'INDEX_PRICE'] as const)[Math.floor(rnd() * 4)];
      const extra: Partial<EngineOrder> =
        t < 0.1 ? { order_type: 'MARKET', limit_price: null }
        : t < 0.25 ? { order_type: 'STOP', limit_price: null, trigger_price: price, trigger_source: source }
        : t < 0.3 ? { order_type: 'STOP_LIMIT', trigger_price: price, trigger_source: source, time_in_force: 'IOC' }
        : {};
      h.place(order(id, owner, side, ((1 + Math.floor(rnd() * 300)) / 100).toFixed(2), price, extra));
    }
    return h;
  }

  it.each([1, 2, 3])('evolving the emitted events rebuilds the live state exactly, mark and index included (seed %i)', (seed) => {
    const h = randomRun(seed, 1500);
    const sources = new Set(h.log.filter((e) => e.type === 'StopOrderTriggered').map((e) => (e.data as { trigger_source: string }).trigger_source));
    expect([...sources].sort()).toEqual(['INDEX_PRICE', 'LAST_PRICE', 'MARK_PRICE']);
    expect(h.log.some((e) => e.type === 'IndexPriceUpdated' && e.data.feed_status === 'STALE')).toBe(true);
    const rebuilt = new MarketEngine(MARKET);
    for (const e of h.log) rebuilt.evolve(e);
    expect(rebuilt.snapshot()).toEqual(h.engine.snapshot());
    expect(rebuilt.markPrice()).toEqual(h.engine.markPrice());
  });

  it('a snapshot restored mid-run decides the same triggers as the engine that never stopped', () => {
    const h = randomRun(7, 900);
    const twin = new Harness();
    twin.engine = MarketEngine.restore(JSON.parse(JSON.stringify(h.engine.snapshot())));
    twin.position = h.position;
    const rnd = prng(77);
    let clock = 10_000_000;
    for (let i = 0; i < 400; i++) {
      const input: Input =
        rnd() < 0.2
          ? { kind: 'INDEX_TICK', feed_id: FEED, status: 'LIVE', value: (90 + Math.floor(rnd() * 80) / 4).toFixed(2), at: new Date(T0 + (clock += 500)).toISOString() }
          : { kind: 'PLACE', order: order(`n${i}`, `p${1 + Math.floor(rnd() * 4)}`, rnd() < 0.5 ? 'BUY' : 'SELL', '1.00', (90 + Math.floor(rnd() * 80) / 4).toFixed(2), rnd() < 0.2 ? { order_type: 'STOP', limit_price: null, trigger_price: '100.00', trigger_source: 'MARK_PRICE' } : {}) };
      expect(twin.run(input)).toEqual(h.run(input));
    }
    expect(h.log.slice(-2000).some((e) => e.type === 'StopOrderTriggered')).toBe(true);
    expect(twin.engine.snapshot()).toEqual(h.engine.snapshot());
  });
});
