/**
 * The matching engine core: one incoming order against one market's OrderBook → an EngineDecision.
 *
 * Pure and deterministic: no I/O, no clock, no randomness. Trade ids come from the injected `nextTradeId`; the
 * engine assigns each incoming order the book's next sequence; the decision carries no time (the caller stamps the
 * events it appends), so replaying the same inputs on the same book yields identical decisions, field by field.
 * All quantities are fixed18 BigInt atoms (fixed18.ts); there is no floating point.
 *
 * Policies:
 * - Price-time priority: best price first; within a price, the oldest resting order (lowest sequence) first.
 * - A LIMIT order crosses while the best opposite price is at least as good as its limit (BUY: ask ≤ limit;
 *   SELL: bid ≥ limit); a MARKET order takes any price.
 * - Every trade executes at the RESTING (maker) order's price.
 * - Self-trade prevention, "cancel resting" (a.k.a. cancel oldest): when the best resting order belongs to the
 *   incoming order's owner, that resting order is cancelled (SELF_TRADE_PREVENTION) and matching continues with
 *   the next one. The incoming order is never cancelled by STP.
 * - FOK: before touching the book, the whole size must be fillable at acceptable prices counting only OTHER
 *   owners' liquidity (own orders would be removed by STP, never traded against). If it is not, the order is
 *   cancelled (FOK_UNFILLABLE) and the book is unchanged (own orders are not STP-cancelled either). If it is, it
 *   matches like any order (own resting orders met on the way are STP-cancelled) and always fills completely.
 * - Post-only (book-or-cancel, LIMIT + GTC only): if it would cross on arrival — the best opposite price is at least
 *   as good as its limit, whoever owns that order — it is cancelled (BOOK_OR_CANCEL_WOULD_TRADE) and the book is
 *   unchanged; otherwise it rests whole. It never trades and never triggers STP.
 * - IOC: fills what it can at acceptable prices; the remainder is cancelled (IOC_REMAINDER).
 * - MARKET (GTC or IOC): never rests; any unfilled remainder (all of it when there is no liquidity) is cancelled
 *   with MARKET_ORDER_NO_LIQUIDITY. A MARKET FOK follows the FOK rule (FOK_UNFILLABLE).
 * - GTC LIMIT: the remainder rests at the back of its price level with the sequence the order got on arrival.
 * - Sequences: every call of `match` consumes exactly one sequence (decision.sequence), whatever the outcome, so
 *   each order the engine takes has a unique, increasing engine sequence (for engine ids); a rejected
 *   FOK/post-only order changes no resting order but does consume its sequence.
 * - Never fills more than an order's remaining size; an order reaching zero leaves the book in the same step.
 * - Invalid input (non-positive size, LIMIT without a positive price, MARKET with a price, post-only with IOC/FOK or
 *   MARKET, an order id already resting, unknown enum values) throws EngineInputError BEFORE any change: the
 *   caller validates against the market first; the engine refuses to guess.
 */
import { OrderBook } from './order-book';
import type { BookOrder, OrderNode, Side } from './order-book';

export type { BookOrder, Side } from './order-book';
export type OrderType = 'LIMIT' | 'MARKET';
export type TimeInForce = 'GTC' | 'IOC' | 'FOK';

export interface IncomingOrder {
  order_id: string;
  /** Account id, for self-trade prevention. */
  owner: string;
  side: Side;
  type: OrderType;
  /** Limit price (fixed18 atoms, > 0) for LIMIT; null for MARKET. */
  price: bigint | null;
  /** Order size (fixed18 atoms, > 0). */
  size: bigint;
  time_in_force: TimeInForce;
  /** Book-or-cancel. Only with LIMIT + GTC. */
  post_only: boolean;
}

export type EngineCancelReason = 'SELF_TRADE_PREVENTION' | 'FOK_UNFILLABLE' | 'BOOK_OR_CANCEL_WOULD_TRADE' | 'IOC_REMAINDER' | 'MARKET_ORDER_NO_LIQUIDITY';

export interface Trade {
  /** From the injected generator, called once per trade in execution order. */
  trade_id: string;
  maker_order_id: string;
  taker_order_id: string;
  /** The maker's (resting order's) price. */
  price: bigint;
  /** > 0, ≤ both orders' remaining sizes before the trade. */
  size: bigint;
  maker_owner: string;
  taker_owner: string;
  /** The incoming (aggressor) order's side. */
  taker_side: Side;
}

export interface Fill {
  order_id: string;
  owner: string;
  role: 'MAKER' | 'TAKER';
  /** Filled in this decision (sum of this order's trades here; > 0). */
  filled: bigint;
  /** Unfilled size after this decision's trades (for the taker: before any cancellation of its remainder). */
  remaining: bigint;
}

export interface Cancellation {
  order_id: string;
  owner: string;
  reason: EngineCancelReason;
  /** The size cancelled (the order's unfilled remainder). */
  remaining: bigint;
  /** True for a resting order removed from the book (STP); false for the incoming order. */
  resting: boolean;
}

/** How the book changed, in order; applying these to a mirror of the book reproduces it exactly. */
export type BookChange =
  | { kind: 'REDUCED'; order_id: string; side: Side; price: bigint; remaining: bigint }
  | { kind: 'REMOVED'; order_id: string; side: Side; price: bigint; reason: 'FILLED' | 'CANCELLED' }
  | { kind: 'ADDED'; order: BookOrder };

/** Final state of the incoming order after this decision. */
export type IncomingStatus = 'FILLED' | 'RESTING' | 'CANCELLED';

export interface EngineDecision {
  /** The incoming order. */
  order_id: string;
  /** The engine sequence this order got (consumed on every call). */
  sequence: number;
  status: IncomingStatus;
  /** Total filled of the incoming order. */
  filled: bigint;
  /** Unfilled size of the incoming order after matching (resting or cancelled; 0 when FILLED). */
  remaining: bigint;
  /** Trades in execution order. */
  trades: readonly Trade[];
  /** One entry per order that traded: makers in trade order, then the taker (if it filled anything). */
  fills: readonly Fill[];
  /** Whether the incoming order now rests in the book. */
  rested: boolean;
  /** The resting remainder (a copy) when rested. */
  resting_order: BookOrder | null;
  /** STP-cancelled resting orders in the order met, then the incoming order's cancellation if any. */
  cancelled: readonly Cancellation[];
  book_changes: readonly BookChange[];
}

export interface MatchOptions {
  /** Injected trade id generator (e.g. 32-hex ids derived from the stream); called once per trade, in order. */
  nextTradeId: () => string;
}

export type EngineInputErrorCode = 'INVALID_ORDER_ID' | 'INVALID_OWNER' | 'INVALID_SIDE' | 'INVALID_TYPE' | 'INVALID_TIME_IN_FORCE' | 'INVALID_SIZE' | 'INVALID_PRICE' | 'INVALID_POST_ONLY' | 'DUPLICATE_ORDER_ID';

export class EngineInputError extends Error {
  override readonly name = 'EngineInputError';
  constructor(
    readonly code: EngineInputErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const NONE: readonly never[] = Object.freeze([]);

function validate(book: OrderBook, o: IncomingOrder): void {
  if (typeof o.order_id !== 'string' || o.order_id.length === 0) throw new EngineInputError('INVALID_ORDER_ID', 'order_id is required');
  if (typeof o.owner !== 'string') throw new EngineInputError('INVALID_OWNER', 'owner must be a string');
  if (o.side !== 'BUY' && o.side !== 'SELL') throw new EngineInputError('INVALID_SIDE', 'side must be BUY or SELL');
  if (typeof o.size !== 'bigint' || o.size <= 0n) throw new EngineInputError('INVALID_SIZE', 'size must be a positive fixed18 bigint');
  if (o.time_in_force !== 'GTC' && o.time_in_force !== 'IOC' && o.time_in_force !== 'FOK') throw new EngineInputError('INVALID_TIME_IN_FORCE', 'time_in_force must be GTC, IOC or FOK');
  if (o.type === 'LIMIT') {
    if (typeof o.price !== 'bigint' || o.price <= 0n) throw new EngineInputError('INVALID_PRICE', 'a LIMIT order needs a positive fixed18 bigint price');
  } else if (o.type === 'MARKET') {
    if (o.price !== null) throw new EngineInputError('INVALID_PRICE', 'a MARKET order has no price (null)');
  } else throw new EngineInputError('INVALID_TYPE', 'type must be LIMIT or MARKET');
  if (o.post_only === true) {
    if (o.type !== 'LIMIT' || o.time_in_force !== 'GTC') throw new EngineInputError('INVALID_POST_ONLY', 'post-only (book-or-cancel) needs a GTC LIMIT order');
  } else if (o.post_only !== false) throw new EngineInputError('INVALID_POST_ONLY', 'post_only must be a boolean');
  if (book.has(o.order_id)) throw new EngineInputError('DUPLICATE_ORDER_ID', `order ${o.order_id} is already resting`);
}

function copyOrder(o: BookOrder): BookOrder {
  return { order_id: o.order_id, owner: o.owner, side: o.side, price: o.price, remaining: o.remaining, sequence: o.sequence };
}

/** Whether `size` is fillable from other owners' liquidity at prices acceptable to `limit` (null: any price). */
function fillable(book: OrderBook, side: Side, owner: string, limit: bigint | null, size: bigint): boolean {
  const isBuy = side === 'BUY';
  const levels = (isBuy ? book.asks : book.bids).levels;
  let need = size;
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i];
    if (limit !== null && (isBuy ? level.price > limit : level.price < limit)) return false;
    for (let n = level.head; n !== null; n = n.next) {
      if (n.owner !== owner) {
        need -= n.remaining;
        if (need <= 0n) return true;
      }
    }
  }
  return false;
}

/**
 * Match one incoming order against the book, mutating the book, and return what happened. See the module comment
 * for the policies. Throws EngineInputError (book untouched) on invalid input.
 */
export function match(book: OrderBook, incoming: IncomingOrder, options: MatchOptions): EngineDecision {
  validate(book, incoming);
  const sequence = book.takeSequence();
  const { order_id, owner, side, size } = incoming;
  const isBuy = side === 'BUY';
  const limit = incoming.type === 'LIMIT' ? (incoming.price as bigint) : null;
  const opposite = isBuy ? book.asks : book.bids;

  if (incoming.post_only) {
    const best = opposite.best();
    if (best !== undefined && (isBuy ? best.price <= (limit as bigint) : best.price >= (limit as bigint))) {
      return rejected(order_id, owner, sequence, size, 'BOOK_OR_CANCEL_WOULD_TRADE');
    }
    const node = book.add({ order_id, owner, side, price: limit as bigint, remaining: size, sequence });
    const resting = copyOrder(node);
    return {
      order_id,
      sequence,
      status: 'RESTING',
      filled: 0n,
      remaining: size,
      trades: NONE,
      fills: NONE,
      rested: true,
      resting_order: resting,
      cancelled: NONE,
      book_changes: [{ kind: 'ADDED', order: resting }],
    };
  }

  if (incoming.time_in_force === 'FOK' && !fillable(book, side, owner, limit, size)) {
    return rejected(order_id, owner, sequence, size, 'FOK_UNFILLABLE');
  }

  let remaining = size;
  let trades: Trade[] | null = null;
  let fills: Fill[] | null = null;
  let cancelled: Cancellation[] | null = null;
  const changes: BookChange[] = [];
  const nextTradeId = options.nextTradeId;

  while (remaining > 0n) {
    const level = opposite.best();
    if (level === undefined) break;
    const price = level.price;
    if (limit !== null && (isBuy ? price > limit : price < limit)) break;
    const maker = level.head as OrderNode;
    if (maker.owner === owner) {
      (cancelled ??= []).push({ order_id: maker.order_id, owner, reason: 'SELF_TRADE_PREVENTION', remaining: maker.remaining, resting: true });
      changes.push({ kind: 'REMOVED', order_id: maker.order_id, side: maker.side, price, reason: 'CANCELLED' });
      book.removeNode(maker);
      continue;
    }
    const makerRemaining = maker.remaining;
    const qty = makerRemaining < remaining ? makerRemaining : remaining;
    remaining -= qty;
    const makerLeft = makerRemaining - qty;
    (trades ??= []).push({
      trade_id: nextTradeId(),
      maker_order_id: maker.order_id,
      taker_order_id: order_id,
      price,
      size: qty,
      maker_owner: maker.owner,
      taker_owner: owner,
      taker_side: side,
    });
    (fills ??= []).push({ order_id: maker.order_id, owner: maker.owner, role: 'MAKER', filled: qty, remaining: makerLeft });
    if (makerLeft === 0n) {
      changes.push({ kind: 'REMOVED', order_id: maker.order_id, side: maker.side, price, reason: 'FILLED' });
      book.removeNode(maker);
    } else {
      changes.push({ kind: 'REDUCED', order_id: maker.order_id, side: maker.side, price, remaining: makerLeft });
      book.reduceNode(maker, qty);
    }
  }

  const filled = size - remaining;
  if (filled > 0n) (fills as Fill[]).push({ order_id, owner, role: 'TAKER', filled, remaining });

  let status: IncomingStatus;
  let resting: BookOrder | null = null;
  if (remaining === 0n) status = 'FILLED';
  else if (limit === null || incoming.time_in_force !== 'GTC') {
    // MARKET (any TIF), IOC; a FOK that passed the fillability check cannot get here (see fillable).
    if (incoming.time_in_force === 'FOK') throw new Error('invariant: a fillable FOK order left a remainder');
    const reason: EngineCancelReason = limit === null ? 'MARKET_ORDER_NO_LIQUIDITY' : 'IOC_REMAINDER';
    (cancelled ??= []).push({ order_id, owner, reason, remaining, resting: false });
    status = 'CANCELLED';
  } else {
    resting = copyOrder(book.add({ order_id, owner, side, price: limit, remaining, sequence }));
    changes.push({ kind: 'ADDED', order: resting });
    status = 'RESTING';
  }

  return {
    order_id,
    sequence,
    status,
    filled,
    remaining,
    trades: trades ?? NONE,
    fills: fills ?? NONE,
    rested: resting !== null,
    resting_order: resting,
    cancelled: cancelled ?? NONE,
    book_changes: changes,
  };
}

function rejected(order_id: string, owner: string, sequence: number, size: bigint, reason: EngineCancelReason): EngineDecision {
  return {
    order_id,
    sequence,
    status: 'CANCELLED',
    filled: 0n,
    remaining: size,
    trades: NONE,
    fills: NONE,
    rested: false,
    resting_order: null,
    cancelled: [{ order_id, owner, reason, remaining: size, resting: false }],
    book_changes: NONE,
  };
}

/** Remove a resting order (user cancel, cancel-all, …). Returns whether it was in the book. */
export function cancel(book: OrderBook, order_id: string): boolean {
  return book.delete(order_id);
}
