/**
 * In-memory limit order book of one market, price-time priority. Pure: no I/O, no clock, no randomness.
 *
 * Layout (chosen for the matching hot path):
 * - each side keeps its price levels in one array sorted worst → best, so the best level is the LAST element:
 *   best-price access is O(1), consuming the best level is an O(1) `pop()`, and a level is found or inserted by
 *   binary search (O(log n) comparisons; the splice moves only the levels better than the new one, which in a
 *   real book are few because new orders cluster near the touch). No Map iteration order is relied on anywhere.
 * - each level is a FIFO queue: an intrusive doubly linked list of order nodes (head = oldest = first to fill),
 *   with the level's order count and total remaining volume kept up to date (aggregated depth is free).
 * - a Map order_id → node gives O(1) lookup and O(1) cancel (unlink from its level).
 *
 * Prices and sizes are fixed18 BigInt atoms (see fixed18.ts). Only limit orders rest, so a resting order always
 * has a price; market orders never enter the book.
 */

export type Side = 'BUY' | 'SELL';

/** A resting order as the book exposes it (read-only view; the book owns the state). */
export interface BookOrder {
  readonly order_id: string;
  /** Account id; used for self-trade prevention. */
  readonly owner: string;
  readonly side: Side;
  /** Limit price, fixed18 atoms (> 0). */
  readonly price: bigint;
  /** Unfilled size, fixed18 atoms (always > 0 while in the book). */
  readonly remaining: bigint;
  /** Engine-assigned sequence (strictly increasing within a level, in queue order). */
  readonly sequence: number;
}

/** What `OrderBook.add` takes; `sequence` is assigned from the book's counter when omitted. */
export interface NewBookOrder {
  order_id: string;
  owner: string;
  side: Side;
  price: bigint;
  remaining: bigint;
  sequence?: number;
}

/** One aggregated depth row. */
export interface DepthLevel {
  price: bigint;
  /** Sum of the remaining sizes at this price. */
  size: bigint;
  /** Number of resting orders at this price. */
  orders: number;
}

/** A complete, serializable-by-the-caller image of a book (orders in priority order, best first). */
export interface BookSnapshot {
  /** The sequence the next incoming order will get. */
  next_sequence: number;
  bids: BookOrder[];
  asks: BookOrder[];
}

export type OrderBookErrorCode = 'DUPLICATE_ORDER_ID' | 'INVALID_ORDER' | 'SEQUENCE_OUT_OF_ORDER' | 'WOULD_CROSS';

export class OrderBookError extends Error {
  override readonly name = 'OrderBookError';
  constructor(
    readonly code: OrderBookErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * @internal A node of a level's queue. The book owns and mutates it; outside this module treat it as a BookOrder.
 */
export class OrderNode implements BookOrder {
  prev: OrderNode | null = null;
  next: OrderNode | null = null;
  constructor(
    readonly order_id: string,
    readonly owner: string,
    readonly side: Side,
    readonly price: bigint,
    public remaining: bigint,
    readonly sequence: number,
    public level: PriceLevel,
  ) {}
}

/** @internal One price level: a FIFO queue of nodes plus aggregates. Read-only outside this module. */
export class PriceLevel {
  head: OrderNode | null = null;
  tail: OrderNode | null = null;
  count = 0;
  volume = 0n;
  constructor(readonly price: bigint) {}
}

/** @internal One side of the book: levels sorted worst → best (best = last). */
export class BookSide {
  /** Sorted worst → best: BUY ascending prices, SELL descending prices. */
  readonly levels: PriceLevel[] = [];
  constructor(readonly side: Side) {}

  /** Best level (highest bid / lowest ask), or undefined when the side is empty. */
  best(): PriceLevel | undefined {
    return this.levels[this.levels.length - 1];
  }

  /**
   * Index of the level with `price`, or −(insertion index) − 1 when absent (binary search over worst → best).
   */
  indexOf(price: bigint): number {
    const levels = this.levels;
    let lo = 0;
    let hi = levels.length - 1;
    if (this.side === 'BUY') {
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const p = levels[mid].price;
        if (p < price) lo = mid + 1;
        else if (p > price) hi = mid - 1;
        else return mid;
      }
    } else {
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const p = levels[mid].price;
        if (p > price) lo = mid + 1;
        else if (p < price) hi = mid - 1;
        else return mid;
      }
    }
    return -lo - 1;
  }

  /** The level at `price`, created (and inserted in order) when absent. */
  levelFor(price: bigint): PriceLevel {
    const levels = this.levels;
    const n = levels.length;
    if (n > 0) {
      // fast paths at the touch, where most orders arrive
      const best = levels[n - 1];
      if (best.price === price) return best;
      if (this.side === 'BUY' ? price > best.price : price < best.price) {
        const level = new PriceLevel(price);
        levels.push(level);
        return level;
      }
    } else {
      const level = new PriceLevel(price);
      levels.push(level);
      return level;
    }
    const i = this.indexOf(price);
    if (i >= 0) return levels[i];
    const level = new PriceLevel(price);
    levels.splice(-i - 1, 0, level);
    return level;
  }

  /** Drop an (empty) level. */
  dropLevel(level: PriceLevel): void {
    const levels = this.levels;
    const last = levels.length - 1;
    if (levels[last] === level) {
      levels.pop();
      return;
    }
    const i = this.indexOf(level.price);
    if (i >= 0) levels.splice(i, 1);
  }

  /** Aggregated depth, best first, at most `maxLevels` rows. */
  depth(maxLevels = Infinity): DepthLevel[] {
    const out: DepthLevel[] = [];
    const levels = this.levels;
    for (let i = levels.length - 1; i >= 0 && out.length < maxLevels; i--) {
      const l = levels[i];
      out.push({ price: l.price, size: l.volume, orders: l.count });
    }
    return out;
  }

  /** Resting orders in priority order (best price first, oldest first within a price). */
  *orders(): IterableIterator<BookOrder> {
    const levels = this.levels;
    for (let i = levels.length - 1; i >= 0; i--) {
      for (let n = levels[i].head; n !== null; n = n.next) yield n;
    }
  }
}

function copy(o: BookOrder): BookOrder {
  return { order_id: o.order_id, owner: o.owner, side: o.side, price: o.price, remaining: o.remaining, sequence: o.sequence };
}

export class OrderBook {
  readonly bids = new BookSide('BUY');
  readonly asks = new BookSide('SELL');
  private readonly byId = new Map<string, OrderNode>();
  private seq: number;

  /** @param nextSequence the sequence the first incoming order gets (default 1). */
  constructor(nextSequence = 1) {
    if (!Number.isSafeInteger(nextSequence) || nextSequence < 0) throw new OrderBookError('INVALID_ORDER', 'nextSequence must be a non-negative safe integer');
    this.seq = nextSequence;
  }

  /** Number of resting orders. */
  get size(): number {
    return this.byId.size;
  }

  /** The sequence the next incoming order will get (not consumed). */
  get nextSequence(): number {
    return this.seq;
  }

  /** Restore: make the next sequence at least `next` (never goes back). */
  advanceSequence(next: number): void {
    if (!Number.isSafeInteger(next) || next < 0) throw new OrderBookError('INVALID_ORDER', 'sequence must be a non-negative safe integer');
    if (next > this.seq) this.seq = next;
  }

  /** Restore: set a resting order's remaining size (0 < remaining; a full fill is a delete). */
  setRemaining(orderId: string, remaining: bigint): void {
    const node = this.byId.get(orderId);
    if (node === undefined) throw new OrderBookError('INVALID_ORDER', `order ${orderId} is not in the book`);
    if (remaining <= 0n) throw new OrderBookError('INVALID_ORDER', 'remaining must be positive');
    node.level.volume += remaining - node.remaining;
    node.remaining = remaining;
  }

  /** @internal Consume and return the next sequence (the matcher calls this once per incoming order). */
  takeSequence(): number {
    return this.seq++;
  }

  side(side: Side): BookSide {
    return side === 'BUY' ? this.bids : this.asks;
  }

  has(orderId: string): boolean {
    return this.byId.has(orderId);
  }

  /** The resting order (a live read-only view: do not keep it across mutations; copy what you need). */
  get(orderId: string): BookOrder | undefined {
    return this.byId.get(orderId);
  }

  bestBid(): bigint | null {
    const l = this.bids.best();
    return l === undefined ? null : l.price;
  }

  bestAsk(): bigint | null {
    const l = this.asks.best();
    return l === undefined ? null : l.price;
  }

  /**
   * Put an order at the back of its price level's queue (time priority = arrival order). Used by the matcher for a
   * resting remainder and by restore/replay. Does NOT match: an order that would cross the opposite best price is
   * refused (WOULD_CROSS), so the book is never crossed. `sequence` defaults to the next one (consumed); an explicit
   * sequence must exceed the level tail's (SEQUENCE_OUT_OF_ORDER) and advances the counter past itself.
   */
  add(o: NewBookOrder): BookOrder {
    if (typeof o.order_id !== 'string' || o.order_id.length === 0) throw new OrderBookError('INVALID_ORDER', 'order_id is required');
    if (this.byId.has(o.order_id)) throw new OrderBookError('DUPLICATE_ORDER_ID', `order ${o.order_id} is already in the book`);
    if (o.side !== 'BUY' && o.side !== 'SELL') throw new OrderBookError('INVALID_ORDER', 'side must be BUY or SELL');
    if (typeof o.price !== 'bigint' || o.price <= 0n) throw new OrderBookError('INVALID_ORDER', 'a resting order needs a positive price');
    if (typeof o.remaining !== 'bigint' || o.remaining <= 0n) throw new OrderBookError('INVALID_ORDER', 'a resting order needs a positive remaining size');
    const opposite = (o.side === 'BUY' ? this.asks : this.bids).best();
    if (opposite !== undefined && (o.side === 'BUY' ? opposite.price <= o.price : opposite.price >= o.price)) {
      throw new OrderBookError('WOULD_CROSS', `order ${o.order_id} would cross the opposite best price`);
    }
    let sequence: number;
    if (o.sequence === undefined) sequence = this.seq++;
    else {
      sequence = o.sequence;
      if (!Number.isSafeInteger(sequence) || sequence < 0) throw new OrderBookError('INVALID_ORDER', 'sequence must be a non-negative safe integer');
    }
    const side = o.side === 'BUY' ? this.bids : this.asks;
    const level = side.levelFor(o.price);
    const tail = level.tail;
    if (tail !== null && tail.sequence >= sequence) {
      throw new OrderBookError('SEQUENCE_OUT_OF_ORDER', `sequence ${sequence} is not after ${tail.sequence} at its price level`);
    }
    if (sequence >= this.seq) this.seq = sequence + 1;
    const node = new OrderNode(o.order_id, o.owner, o.side, o.price, o.remaining, sequence, level);
    if (tail === null) level.head = node;
    else {
      tail.next = node;
      node.prev = tail;
    }
    level.tail = node;
    level.count++;
    level.volume += o.remaining;
    this.byId.set(o.order_id, node);
    return node;
  }

  /** Remove a resting order; returns a copy of it as it was, or undefined when it was not in the book. */
  remove(orderId: string): BookOrder | undefined {
    const node = this.byId.get(orderId);
    if (node === undefined) return undefined;
    const out = copy(node);
    this.removeNode(node);
    return out;
  }

  /** Remove a resting order without copying it; returns whether it was in the book. */
  delete(orderId: string): boolean {
    const node = this.byId.get(orderId);
    if (node === undefined) return false;
    this.removeNode(node);
    return true;
  }

  /** @internal Unlink a node (it must be in the book). */
  removeNode(node: OrderNode): void {
    const level = node.level;
    const prev = node.prev;
    const next = node.next;
    if (prev === null) level.head = next;
    else prev.next = next;
    if (next === null) level.tail = prev;
    else next.prev = prev;
    node.prev = null;
    node.next = null;
    level.count--;
    level.volume -= node.remaining;
    this.byId.delete(node.order_id);
    if (level.count === 0) (node.side === 'BUY' ? this.bids : this.asks).dropLevel(level);
  }

  /** @internal Reduce a node by `qty` (0 < qty < remaining; a full fill goes through removeNode). */
  reduceNode(node: OrderNode, qty: bigint): void {
    node.remaining -= qty;
    node.level.volume -= qty;
  }

  /** Aggregated depth of one side, best first. */
  depth(side: Side, maxLevels?: number): DepthLevel[] {
    return this.side(side).depth(maxLevels);
  }

  /** Resting orders of one side in priority order (live views; do not mutate the book while iterating). */
  orders(side: Side): IterableIterator<BookOrder> {
    return this.side(side).orders();
  }

  /** A detached image of the book (copies), orders best first, oldest first within a price. */
  snapshot(): BookSnapshot {
    const bids: BookOrder[] = [];
    const asks: BookOrder[] = [];
    for (const o of this.bids.orders()) bids.push(copy(o));
    for (const o of this.asks.orders()) asks.push(copy(o));
    return { next_sequence: this.seq, bids, asks };
  }

  /** Rebuild a book from a snapshot (same priority, same sequences, same next sequence). */
  static fromSnapshot(s: BookSnapshot): OrderBook {
    const book = new OrderBook(s.next_sequence);
    for (const o of s.bids) book.add(o);
    for (const o of s.asks) book.add(o); // add refuses a crossed image (WOULD_CROSS)
    if (book.seq < s.next_sequence) book.seq = s.next_sequence;
    return book;
  }
}
