/** The matching engine core: price-time priority, maker pricing, partial fills, TIFs, post-only, STP, cancel. */
import { OrderBook } from '../../../src/modules/trading/engine/order-book';
import { EngineInputError, cancel, match } from '../../../src/modules/trading/engine/matching';
import type { EngineDecision, IncomingOrder } from '../../../src/modules/trading/engine/matching';
import { d, limit, market, stable, tradeIds } from './helpers';

function setup() {
  const book = new OrderBook();
  const opts = tradeIds();
  const run = (o: IncomingOrder): EngineDecision => match(book, o, opts);
  return { book, opts, run };
}

const tradeSummary = (r: EngineDecision) => r.trades.map((t) => [t.maker_order_id, t.price, t.size]);

describe('matching: resting and priority', () => {
  it('rests a non-crossing GTC limit with the next sequence', () => {
    const { book, run } = setup();
    const r1 = run(limit('b1', 'A', 'BUY', '100', '1'));
    const r2 = run(limit('s1', 'B', 'SELL', '101', '2'));
    expect(r1).toMatchObject({ status: 'RESTING', rested: true, sequence: 1, filled: 0n, remaining: d('1'), trades: [], fills: [], cancelled: [] });
    expect(r1.resting_order).toEqual({ order_id: 'b1', owner: 'A', side: 'BUY', price: d('100'), remaining: d('1'), sequence: 1 });
    expect(r1.book_changes).toEqual([{ kind: 'ADDED', order: r1.resting_order }]);
    expect(r2.sequence).toBe(2);
    expect(book.bestBid()).toBe(d('100'));
    expect(book.bestAsk()).toBe(d('101'));
    expect(book.size).toBe(2);
    expect(book.nextSequence).toBe(3);
  });

  it('fills across levels best price first, at each maker price', () => {
    const { book, run } = setup();
    run(limit('s3', 'M', 'SELL', '103', '1'));
    run(limit('s1', 'M', 'SELL', '101', '1'));
    run(limit('s2', 'M', 'SELL', '102', '1'));
    const r = run(limit('b', 'T', 'BUY', '102.5', '5'));
    expect(tradeSummary(r)).toEqual([
      ['s1', d('101'), d('1')],
      ['s2', d('102'), d('1')],
    ]);
    expect(r.status).toBe('RESTING');
    expect(r.filled).toBe(d('2'));
    expect(r.remaining).toBe(d('3'));
    expect(book.get('b')).toMatchObject({ price: d('102.5'), remaining: d('3') });
    expect(book.bestAsk()).toBe(d('103'));
    expect(book.bestBid()).toBe(d('102.5'));
  });

  it('fills within a level oldest first (time priority)', () => {
    const { run } = setup();
    run(limit('b1', 'M1', 'BUY', '100', '1'));
    run(limit('b2', 'M2', 'BUY', '100', '1'));
    run(limit('b3', 'M3', 'BUY', '100', '1'));
    const r = run(limit('s', 'T', 'SELL', '99', '2.5'));
    expect(tradeSummary(r)).toEqual([
      ['b1', d('100'), d('1')],
      ['b2', d('100'), d('1')],
      ['b3', d('100'), d('0.5')],
    ]);
    expect(r.status).toBe('FILLED');
  });

  it('trades at the maker price, not the taker limit (sell side too)', () => {
    const { run } = setup();
    run(limit('b', 'M', 'BUY', '105', '1'));
    const r = run(limit('s', 'T', 'SELL', '90', '1'));
    expect(r.trades).toEqual([{ trade_id: 'T1', maker_order_id: 'b', taker_order_id: 's', price: d('105'), size: d('1'), maker_owner: 'M', taker_owner: 'T', taker_side: 'SELL' }]);
  });

  it('reports partial fills of maker and taker, and the book changes', () => {
    const { book, run } = setup();
    run(limit('s1', 'M', 'SELL', '10', '3'));
    run(limit('s2', 'N', 'SELL', '10', '4'));
    const r = run(limit('b', 'T', 'BUY', '10', '5'));
    expect(r.fills).toEqual([
      { order_id: 's1', owner: 'M', role: 'MAKER', filled: d('3'), remaining: 0n },
      { order_id: 's2', owner: 'N', role: 'MAKER', filled: d('2'), remaining: d('2') },
      { order_id: 'b', owner: 'T', role: 'TAKER', filled: d('5'), remaining: 0n },
    ]);
    expect(r.book_changes).toEqual([
      { kind: 'REMOVED', order_id: 's1', side: 'SELL', price: d('10'), reason: 'FILLED' },
      { kind: 'REDUCED', order_id: 's2', side: 'SELL', price: d('10'), remaining: d('2') },
    ]);
    expect(r).toMatchObject({ status: 'FILLED', rested: false, resting_order: null, filled: d('5'), remaining: 0n });
    expect(book.has('s1')).toBe(false);
    expect(book.get('s2')?.remaining).toBe(d('2'));
    expect(book.depth('SELL')).toEqual([{ price: d('10'), size: d('2'), orders: 1 }]);
    // the partially filled maker keeps its place: a later order at the same price queues behind it
    run(limit('s3', 'N', 'SELL', '10', '1'));
    const r2 = run(limit('b2', 'T', 'BUY', '10', '2.5'));
    expect(tradeSummary(r2)).toEqual([
      ['s2', d('10'), d('2')],
      ['s3', d('10'), d('0.5')],
    ]);
  });

  it('stops at the limit price and rests the remainder', () => {
    const { book, run } = setup();
    run(limit('s1', 'M', 'SELL', '10', '1'));
    run(limit('s2', 'M', 'SELL', '11', '1'));
    const r = run(limit('b', 'T', 'BUY', '10.5', '3'));
    expect(tradeSummary(r)).toEqual([['s1', d('10'), d('1')]]);
    expect(book.get('b')?.remaining).toBe(d('2'));
    expect(book.bestBid()! < book.bestAsk()!).toBe(true);
  });

  it('uses exact 18-decimal sizes', () => {
    const { book, run } = setup();
    run(limit('s', 'M', 'SELL', '0.000000000000000003', '0.000000000000000007'));
    const r = run(limit('b', 'T', 'BUY', '0.000000000000000003', '0.000000000000000002'));
    expect(r.trades[0].size).toBe(2n);
    expect(book.get('s')?.remaining).toBe(5n);
  });
});

describe('matching: market, IOC, FOK, post-only', () => {
  it('market order takes any price and cancels its remainder for lack of liquidity', () => {
    const { book, run } = setup();
    run(limit('s1', 'M', 'SELL', '100', '1'));
    run(limit('s2', 'M', 'SELL', '1000', '1'));
    const r = run(market('m', 'T', 'BUY', '3'));
    expect(tradeSummary(r)).toEqual([
      ['s1', d('100'), d('1')],
      ['s2', d('1000'), d('1')],
    ]);
    expect(r).toMatchObject({ status: 'CANCELLED', filled: d('2'), remaining: d('1'), rested: false });
    expect(r.cancelled).toEqual([{ order_id: 'm', owner: 'T', reason: 'MARKET_ORDER_NO_LIQUIDITY', remaining: d('1'), resting: false }]);
    expect(book.size).toBe(0);
  });

  it('market order with no liquidity is cancelled whole', () => {
    const { run } = setup();
    const r = run(market('m', 'T', 'SELL', '1', 'IOC'));
    expect(r).toMatchObject({ status: 'CANCELLED', filled: 0n, trades: [], fills: [], book_changes: [] });
    expect(r.cancelled).toEqual([{ order_id: 'm', owner: 'T', reason: 'MARKET_ORDER_NO_LIQUIDITY', remaining: d('1'), resting: false }]);
  });

  it('market order fully filled is FILLED', () => {
    const { run } = setup();
    run(limit('b', 'M', 'BUY', '5', '10'));
    const r = run(market('m', 'T', 'SELL', '4'));
    expect(r).toMatchObject({ status: 'FILLED', filled: d('4'), remaining: 0n, cancelled: [] });
  });

  it('IOC fills what it can and cancels the rest', () => {
    const { book, run } = setup();
    run(limit('s1', 'M', 'SELL', '10', '1'));
    run(limit('s2', 'M', 'SELL', '12', '1'));
    const r = run(limit('i', 'T', 'BUY', '11', '3', { time_in_force: 'IOC' }));
    expect(tradeSummary(r)).toEqual([['s1', d('10'), d('1')]]);
    expect(r.cancelled).toEqual([{ order_id: 'i', owner: 'T', reason: 'IOC_REMAINDER', remaining: d('2'), resting: false }]);
    expect(r).toMatchObject({ status: 'CANCELLED', rested: false, filled: d('1') });
    expect(book.has('i')).toBe(false);
    expect(book.bestBid()).toBeNull();
  });

  it('IOC with nothing to match is cancelled whole; fully filled IOC is FILLED', () => {
    const { run } = setup();
    expect(run(limit('i1', 'T', 'BUY', '1', '1', { time_in_force: 'IOC' })).cancelled[0].reason).toBe('IOC_REMAINDER');
    run(limit('s', 'M', 'SELL', '1', '1'));
    expect(run(limit('i2', 'T', 'BUY', '1', '1', { time_in_force: 'IOC' })).status).toBe('FILLED');
  });

  it('FOK unfillable: cancelled, book untouched', () => {
    const { book, run } = setup();
    run(limit('s1', 'M', 'SELL', '10', '1'));
    run(limit('s2', 'M', 'SELL', '11', '1'));
    const before = stable(book.snapshot().asks);
    const r = run(limit('f', 'T', 'BUY', '10.5', '2', { time_in_force: 'FOK' }));
    expect(r).toMatchObject({ status: 'CANCELLED', trades: [], fills: [], book_changes: [], filled: 0n, remaining: d('2') });
    expect(r.cancelled).toEqual([{ order_id: 'f', owner: 'T', reason: 'FOK_UNFILLABLE', remaining: d('2'), resting: false }]);
    expect(stable(book.snapshot().asks)).toBe(before);
  });

  it('FOK fillable across levels fills completely', () => {
    const { book, run } = setup();
    run(limit('s1', 'M', 'SELL', '10', '1'));
    run(limit('s2', 'M', 'SELL', '11', '1.5'));
    const r = run(limit('f', 'T', 'BUY', '11', '2', { time_in_force: 'FOK' }));
    expect(r.status).toBe('FILLED');
    expect(tradeSummary(r)).toEqual([
      ['s1', d('10'), d('1')],
      ['s2', d('11'), d('1')],
    ]);
    expect(book.get('s2')?.remaining).toBe(d('0.5'));
  });

  it('FOK counts only other owners\u2019 liquidity; own orders are STP-cancelled only when it executes', () => {
    const { book, run } = setup();
    run(limit('own', 'T', 'SELL', '10', '5'));
    run(limit('s1', 'M', 'SELL', '10', '1'));
    const r1 = run(limit('f1', 'T', 'BUY', '10', '2', { time_in_force: 'FOK' }));
    expect(r1.cancelled.map((c) => c.reason)).toEqual(['FOK_UNFILLABLE']);
    expect(book.has('own')).toBe(true);
    const r2 = run(limit('f2', 'T', 'BUY', '10', '1', { time_in_force: 'FOK' }));
    expect(r2.status).toBe('FILLED');
    expect(r2.cancelled).toEqual([{ order_id: 'own', owner: 'T', reason: 'SELF_TRADE_PREVENTION', remaining: d('5'), resting: true }]);
    expect(book.size).toBe(0);
  });

  it('market FOK', () => {
    const { run } = setup();
    run(limit('b', 'M', 'BUY', '10', '1'));
    expect(run(market('m1', 'T', 'SELL', '2', 'FOK')).cancelled[0].reason).toBe('FOK_UNFILLABLE');
    expect(run(market('m2', 'T', 'SELL', '1', 'FOK')).status).toBe('FILLED');
  });

  it('post-only that would trade is cancelled and changes nothing; otherwise it rests', () => {
    const { book, run } = setup();
    run(limit('s', 'M', 'SELL', '10', '1'));
    const r1 = run(limit('p1', 'T', 'BUY', '10', '1', { post_only: true }));
    expect(r1).toMatchObject({ status: 'CANCELLED', rested: false, trades: [], book_changes: [] });
    expect(r1.cancelled).toEqual([{ order_id: 'p1', owner: 'T', reason: 'BOOK_OR_CANCEL_WOULD_TRADE', remaining: d('1'), resting: false }]);
    expect(book.get('s')?.remaining).toBe(d('1'));
    const r2 = run(limit('p2', 'T', 'BUY', '9.99', '1', { post_only: true }));
    expect(r2).toMatchObject({ status: 'RESTING', rested: true });
    expect(book.bestBid()).toBe(d('9.99'));
    // would-cross is judged on price, even against the owner's own order (no STP for post-only)
    const r3 = run(limit('p3', 'M', 'BUY', '10', '1', { post_only: true }));
    expect(r3.cancelled[0].reason).toBe('BOOK_OR_CANCEL_WOULD_TRADE');
    expect(book.has('s')).toBe(true);
  });
});

describe('matching: self-trade prevention (cancel resting)', () => {
  it('cancels the owner\u2019s resting orders met at the top and keeps matching others', () => {
    const { book, run } = setup();
    run(limit('own1', 'A', 'SELL', '10', '1'));
    run(limit('x', 'B', 'SELL', '10', '1'));
    run(limit('own2', 'A', 'SELL', '11', '2'));
    run(limit('y', 'C', 'SELL', '11', '1'));
    const r = run(limit('t', 'A', 'BUY', '11', '3'));
    expect(tradeSummary(r)).toEqual([
      ['x', d('10'), d('1')],
      ['y', d('11'), d('1')],
    ]);
    expect(r.cancelled).toEqual([
      { order_id: 'own1', owner: 'A', reason: 'SELF_TRADE_PREVENTION', remaining: d('1'), resting: true },
      { order_id: 'own2', owner: 'A', reason: 'SELF_TRADE_PREVENTION', remaining: d('2'), resting: true },
    ]);
    expect(r.book_changes.map((c) => c.kind)).toEqual(['REMOVED', 'REMOVED', 'REMOVED', 'REMOVED', 'ADDED']);
    expect(r).toMatchObject({ status: 'RESTING', filled: d('2'), remaining: d('1') });
    expect(book.asks.levels.length).toBe(0);
    expect(book.get('t')?.remaining).toBe(d('1'));
  });

  it('never trades an owner with itself, and only touches own orders that are at the top', () => {
    const { book, run } = setup();
    run(limit('x', 'B', 'BUY', '10', '1'));
    run(limit('own', 'A', 'BUY', '9', '1'));
    const r = run(limit('t', 'A', 'SELL', '10', '1'));
    expect(r.trades.every((t) => t.maker_owner !== t.taker_owner)).toBe(true);
    expect(r.status).toBe('FILLED');
    expect(book.has('own')).toBe(true);
  });

  it('market order: STP then no liquidity', () => {
    const { book, run } = setup();
    run(limit('own', 'A', 'BUY', '10', '1'));
    const r = run(market('m', 'A', 'SELL', '1'));
    expect(r.cancelled.map((c) => [c.order_id, c.reason])).toEqual([
      ['own', 'SELF_TRADE_PREVENTION'],
      ['m', 'MARKET_ORDER_NO_LIQUIDITY'],
    ]);
    expect(book.size).toBe(0);
  });
});

describe('matching: cancel and input checks', () => {
  it('cancels a resting order once', () => {
    const { book, run } = setup();
    run(limit('b1', 'A', 'BUY', '10', '1'));
    run(limit('b2', 'A', 'BUY', '10', '2'));
    expect(cancel(book, 'b1')).toBe(true);
    expect(cancel(book, 'b1')).toBe(false);
    expect(cancel(book, 'nope')).toBe(false);
    expect(book.depth('BUY')).toEqual([{ price: d('10'), size: d('2'), orders: 1 }]);
    expect(cancel(book, 'b2')).toBe(true);
    expect(book.bids.levels.length).toBe(0);
    expect(book.bestBid()).toBeNull();
  });

  it('a cancelled order id can be reused only after it left the book', () => {
    const { run, book } = setup();
    run(limit('b', 'A', 'BUY', '10', '1'));
    expect(() => run(limit('b', 'A', 'BUY', '10', '1'))).toThrow(EngineInputError);
    cancel(book, 'b');
    expect(run(limit('b', 'A', 'BUY', '10', '1')).status).toBe('RESTING');
  });

  it.each<[string, Partial<IncomingOrder>, string]>([
    ['zero size', { size: 0n }, 'INVALID_SIZE'],
    ['negative size', { size: -1n }, 'INVALID_SIZE'],
    ['number size', { size: 1 as unknown as bigint }, 'INVALID_SIZE'],
    ['limit without price', { price: null }, 'INVALID_PRICE'],
    ['limit with zero price', { price: 0n }, 'INVALID_PRICE'],
    ['market with price', { type: 'MARKET' }, 'INVALID_PRICE'],
    ['post-only IOC', { post_only: true, time_in_force: 'IOC' }, 'INVALID_POST_ONLY'],
    ['post-only FOK', { post_only: true, time_in_force: 'FOK' }, 'INVALID_POST_ONLY'],
    ['post-only market', { post_only: true, type: 'MARKET', price: null }, 'INVALID_POST_ONLY'],
    ['bad side', { side: 'buy' as never }, 'INVALID_SIDE'],
    ['bad tif', { time_in_force: 'GTD' as never }, 'INVALID_TIME_IN_FORCE'],
    ['bad type', { type: 'STOP' as never }, 'INVALID_TYPE'],
    ['empty id', { order_id: '' }, 'INVALID_ORDER_ID'],
  ])('refuses %s without touching the book or the sequence', (_name, patch, code) => {
    const { book, run } = setup();
    run(limit('s', 'M', 'SELL', '10', '1'));
    const before = stable(book.snapshot());
    let err: unknown;
    try {
      run(limit('x', 'T', 'BUY', '10', '1', patch));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EngineInputError);
    expect((err as EngineInputError).code).toBe(code);
    expect(stable(book.snapshot())).toBe(before);
  });

  it('consumes one sequence per incoming order, whatever the outcome', () => {
    const { run } = setup();
    run(limit('s', 'M', 'SELL', '10', '1'));
    expect(run(limit('p', 'T', 'BUY', '10', '1', { post_only: true })).sequence).toBe(2);
    expect(run(limit('f', 'T', 'BUY', '10', '5', { time_in_force: 'FOK' })).sequence).toBe(3);
    expect(run(limit('b', 'T', 'BUY', '9', '1')).resting_order?.sequence).toBe(4);
  });
});
