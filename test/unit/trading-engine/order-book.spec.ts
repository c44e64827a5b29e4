/** The order book structure: level ordering, FIFO queues, aggregates, guards, snapshot/restore. */
import { OrderBook, OrderBookError } from '../../../src/modules/trading/engine/order-book';
import { d, stable } from './helpers';

const codeOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(OrderBookError);
    return (e as OrderBookError).code;
  }
  throw new Error('did not throw');
};

describe('OrderBook', () => {
  it('keeps levels sorted (best last) and reports depth best first', () => {
    const book = new OrderBook();
    for (const p of ['10', '12', '11', '9', '12', '10.5']) book.add({ order_id: `b${p}-${book.size}`, owner: 'A', side: 'BUY', price: d(p), remaining: d('1') });
    for (const p of ['20', '15', '18', '15', '30']) book.add({ order_id: `s${p}-${book.size}`, owner: 'A', side: 'SELL', price: d(p), remaining: d('2') });
    expect(book.bids.levels.map((l) => l.price)).toEqual(['9', '10', '10.5', '11', '12'].map(d));
    expect(book.asks.levels.map((l) => l.price)).toEqual(['30', '20', '18', '15'].map(d));
    expect(book.bestBid()).toBe(d('12'));
    expect(book.bestAsk()).toBe(d('15'));
    expect(book.depth('BUY', 2)).toEqual([
      { price: d('12'), size: d('2'), orders: 2 },
      { price: d('11'), size: d('1'), orders: 1 },
    ]);
    expect(book.depth('SELL')[0]).toEqual({ price: d('15'), size: d('4'), orders: 2 });
    expect([...book.orders('SELL')].map((o) => o.price)).toEqual(['15', '15', '18', '20', '30'].map(d));
  });

  it('removes from the middle, the head and the tail of a level, and drops empty levels anywhere', () => {
    const book = new OrderBook();
    for (const id of ['a', 'b', 'c', 'd']) book.add({ order_id: id, owner: 'A', side: 'SELL', price: d('10'), remaining: d('1') });
    book.add({ order_id: 'x', owner: 'A', side: 'SELL', price: d('11'), remaining: d('1') });
    book.add({ order_id: 'y', owner: 'A', side: 'SELL', price: d('12'), remaining: d('1') });
    expect(book.remove('b')).toMatchObject({ order_id: 'b', remaining: d('1') });
    expect(book.delete('a')).toBe(true);
    expect(book.delete('d')).toBe(true);
    expect(book.delete('d')).toBe(false);
    expect([...book.orders('SELL')].map((o) => o.order_id)).toEqual(['c', 'x', 'y']);
    expect(book.delete('x')).toBe(true); // a middle level
    expect(book.asks.levels.map((l) => l.price)).toEqual([d('12'), d('10')]);
    expect(book.delete('c')).toBe(true); // the best level
    expect(book.bestAsk()).toBe(d('12'));
    expect(book.remove('zzz')).toBeUndefined();
  });

  it('refuses duplicates, invalid orders, crossing and out-of-order sequences', () => {
    const book = new OrderBook();
    book.add({ order_id: 'a', owner: 'A', side: 'BUY', price: d('10'), remaining: d('1') });
    expect(codeOf(() => book.add({ order_id: 'a', owner: 'A', side: 'BUY', price: d('9'), remaining: d('1') }))).toBe('DUPLICATE_ORDER_ID');
    expect(codeOf(() => book.add({ order_id: 'b', owner: 'A', side: 'BUY', price: 0n, remaining: d('1') }))).toBe('INVALID_ORDER');
    expect(codeOf(() => book.add({ order_id: 'b', owner: 'A', side: 'BUY', price: d('1'), remaining: 0n }))).toBe('INVALID_ORDER');
    expect(codeOf(() => book.add({ order_id: 'b', owner: 'A', side: 'SELL', price: d('10'), remaining: d('1') }))).toBe('WOULD_CROSS');
    expect(codeOf(() => book.add({ order_id: 'b', owner: 'A', side: 'BUY', price: d('10'), remaining: d('1'), sequence: 1 }))).toBe('SEQUENCE_OUT_OF_ORDER');
    expect(book.size).toBe(1);
    expect(book.bids.levels.length).toBe(1);
  });

  it('restores a snapshot with the same priority, sequences and next sequence', () => {
    const book = new OrderBook(100);
    book.add({ order_id: 'b1', owner: 'A', side: 'BUY', price: d('10'), remaining: d('1') });
    book.add({ order_id: 'b2', owner: 'B', side: 'BUY', price: d('10'), remaining: d('2') });
    book.add({ order_id: 'b3', owner: 'B', side: 'BUY', price: d('9'), remaining: d('3') });
    book.add({ order_id: 's1', owner: 'C', side: 'SELL', price: d('11'), remaining: d('4') });
    book.takeSequence();
    const snap = book.snapshot();
    expect(snap.next_sequence).toBe(105);
    expect(snap.bids.map((o) => [o.order_id, o.sequence])).toEqual([
      ['b1', 100],
      ['b2', 101],
      ['b3', 102],
    ]);
    const copy = OrderBook.fromSnapshot(snap);
    expect(stable(copy.snapshot())).toBe(stable(snap));
    expect(copy.nextSequence).toBe(105);
    // the snapshot is detached
    book.delete('b1');
    expect(snap.bids.length).toBe(3);
  });
});
