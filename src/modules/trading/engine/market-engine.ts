/**
 * One market's engine state and its decider, pure: `decide(input)` matches an order-stream input (an accepted
 * order or a cancel request) against the book and returns the engine events it appends; `evolve(event)` applies
 * one engine event to a state (rebuild after a restart). The live path mutates the book while deciding (matching
 * needs it); evolving the same events on the previous state gives the same state — tested as a property.
 *
 * Beyond the core matcher (matching.ts): stop orders (STOP → market, STOP_LIMIT → limit) armed until their
 * reference price reaches their trigger (BUY: reference ≥ trigger, SELL: reference ≤ trigger; at once if already there
 * on arrival), released in arming order, cascading; reduce-only orders cut to the owner's position in this market
 * (never resting: acceptance refuses reduce-only GTC limits); per-owner net positions; the last trade price.
 *
 * The reference is the stop's trigger source: the last trade price (LAST_PRICE, the default), or, on a market bound to
 * a price feed, its mark or index price (domain/mark-price.ts). The binding and the feed's values are inputs like
 * orders (BIND_FEED, INDEX_TICK), so the engine reads no clock and a replay makes the same triggers. While the feed is
 * stale there is no mark and no index, and stops on them hold: never a silent fall back to the last price.
 */
import { createHash } from 'node:crypto';
import type { EngineCancelCode, EngineEvent, EngineTimeInForce, OrderOpenedData } from '../domain/engine-events';
import { formatDecimal, parseDecimal } from '../../../platform/decimal/fixed18';
import { EngineInputError, match, type EngineDecision } from './matching';
import type { TriggerSource } from '../domain/mark-price';
import { ReferencePrices, type EngineFeed } from './reference-prices';
import { Emitter } from './emitter';
import type { EngineInput, EngineMarket, EngineOrder } from './engine-input';
import { OrderBook, type Side } from './order-book';
import { snapshotImage, type ArmedStop, type EngineCapture, type EngineSnapshot, type SnapshotOrder } from './snapshot-image';

export type { EngineFeed } from './reference-prices';
export type { EngineInput, EngineMarket, EngineOrder } from './engine-input';
export { snapshotImage, type EngineCapture, type EngineSnapshot } from './snapshot-image';

export type TradeIdSource = (market_uuid: string, input_position: bigint, n: number) => string;

/** Trade ids derived from where the trade was decided: the same on every replay, unique per market and input. */
export const derivedTradeId: TradeIdSource = (market, position, n) => createHash('sha256').update(`mtf-trade:${market}:${position}:${n}`).digest('hex').slice(0, 32);

const ENGINE_REJECTED = 'ENGINE_REJECTED';

export class MarketEngine {
  book = new OrderBook();
  private readonly stops = new Map<string, ArmedStop>();
  private readonly positions = new Map<string, bigint>();
  lastPrice: bigint | null = null;
  lastInputPosition = 0n;
  private prices = new ReferencePrices();

  constructor(
    readonly market: EngineMarket,
    private readonly tradeId: TradeIdSource = derivedTradeId,
  ) {}

  engineId(sequence: number): string {
    return `GW-${this.market.market_id}-0-${sequence}`;
  }

  position(profile_uuid: string): bigint {
    return this.positions.get(profile_uuid) ?? 0n;
  }

  /** The bound price feed (null: stops trigger on the last price only). */
  get feed(): EngineFeed | null {
    return this.prices.feed;
  }

  /** The index price; null before the feed's first value and while it is stale. */
  get index(): bigint | null {
    return this.prices.index;
  }

  /** The mark price now (null: no feed, or the index is stale). */
  markPrice(): bigint | null {
    return this.prices.mark(this.book, this.lastPrice);
  }

  /** Whether the engine holds the order (resting in the book or an armed stop). */
  holds(order_uuid: string): boolean {
    return this.book.has(order_uuid) || this.stops.has(order_uuid);
  }

  // ---------------------------------------------------------------------------------------------------- decide

  /** Decides one input, updating this state; returns the events to append (never empty). */
  decide(input: EngineInput): EngineEvent[] {
    if (input.input_position <= this.lastInputPosition) throw new Error(`engine input ${input.input_position} is not after ${this.lastInputPosition}`);
    const out = new Emitter(this.market.market_uuid, input.input_position);
    if (input.kind === 'CANCEL') this.decideCancel(input, out);
    else if (input.kind === 'PLACE') this.decidePlace(input.order, input.input_position, out);
    else if (input.kind === 'BIND_FEED') this.decideBind(input, out);
    else this.decideTick(input, out);
    if (this.feed) this.emitMarkIfChanged(out);
    this.lastInputPosition = input.input_position;
    return out.events;
  }

  private decideBind(input: Extract<EngineInput, { kind: 'BIND_FEED' }>, out: Emitter): void {
    const data = { market_uuid: out.market_uuid, input_position: out.input_position, feed_id: input.feed_id, stop_trigger_source: input.stop_trigger_source, mark_basis_window_ms: input.mark_basis_window_ms };
    this.prices.attach(data);
    out.push({ type: 'PriceFeedAttached', data });
  }

  private decideTick(input: Extract<EngineInput, { kind: 'INDEX_TICK' }>, out: Emitter): void {
    // Only the bound feed's values reach here (the host filters).
    const { index_price, basis } = this.prices.tick(input.value, input.status === 'LIVE', this.book);
    const data = { market_uuid: out.market_uuid, input_position: out.input_position, feed_id: input.feed_id, feed_status: index_price === null ? ('STALE' as const) : ('LIVE' as const), index_price, at: input.at, basis };
    this.prices.applyTick(data);
    out.push({ type: 'IndexPriceUpdated', data });
    this.releaseStops(out);
  }

  private emitMarkIfChanged(out: Emitter): void {
    const mark = this.markPrice();
    if (mark === this.prices.emittedMark) return;
    this.prices.emittedMark = mark;
    out.push({ type: 'MarkPriceUpdated', data: { market_uuid: out.market_uuid, input_position: out.input_position, mark_price: mark === null ? null : formatDecimal(mark) } });
  }

  private decideCancel(input: Extract<EngineInput, { kind: 'CANCEL' }>, out: Emitter): void {
    const reason: EngineCancelCode = input.reason;
    const resting = this.book.get(input.order_uuid);
    if (resting && resting.owner === input.profile_uuid) {
      const remaining = resting.remaining;
      this.book.delete(input.order_uuid);
      out.cancelled(input.order_uuid, input.profile_uuid, reason, remaining);
      // A resting order gone can move the best bid or ask, so the mark: mark stops may be reached now.
      if (this.feed) this.releaseStops(out);
      return;
    }
    const stop = this.stops.get(input.order_uuid);
    if (stop && stop.profile_uuid === input.profile_uuid) {
      this.stops.delete(input.order_uuid);
      out.cancelled(input.order_uuid, input.profile_uuid, reason, stop.size);
      return;
    }
    out.push({ type: 'OrderCancelRejected', data: { market_uuid: out.market_uuid, input_position: out.input_position, order_uuid: input.order_uuid, profile_uuid: input.profile_uuid, reason: 'ORDER_NOT_OPEN' } });
  }

  private decidePlace(o: EngineOrder, inputPosition: bigint, out: Emitter): void {
    // An order stream is accepted once (revision 0), so a second PLACE of one order is a broken input log.
    if (this.holds(o.order_uuid)) throw new Error(`invariant: order ${o.order_uuid} placed twice`);
    let size: bigint;
    let price: bigint | null;
    let trigger: bigint | null;
    try {
      size = parseDecimal(o.order_size);
      price = o.limit_price === null ? null : parseDecimal(o.limit_price);
      trigger = o.trigger_price === null ? null : parseDecimal(o.trigger_price);
    } catch {
      size = 0n;
      price = null;
      trigger = null;
    }
    const isStop = o.order_type === 'STOP' || o.order_type === 'STOP_LIMIT';
    const source: TriggerSource = o.trigger_source ?? this.feed?.stop_trigger_source ?? 'LAST_PRICE';
    const opened = (sequence: number): OrderOpenedData => ({
      market_uuid: out.market_uuid, input_position: out.input_position,
      order_uuid: o.order_uuid,
      profile_uuid: o.profile_uuid,
      sequence,
      engine_id: this.engineId(sequence),
      order_sequence: `${inputPosition}_${sequence}`,
      side: o.direction,
      order_type: o.order_type,
      time_in_force: o.time_in_force,
      post_only: o.post_only,
      reduce_only: o.reduce_only,
      price: price === null ? null : formatDecimal(price),
      trigger_price: trigger === null ? null : formatDecimal(trigger),
      size: formatDecimal(size),
      ...(isStop ? { trigger_source: source } : {}),
    });

    if (isStop) {
      const sequence = this.book.takeSequence();
      out.push({ type: 'OrderOpened', data: opened(sequence) });
      // A mark or index stop on a market without a feed cannot ever trigger (acceptance refuses it; this is the backstop).
      if (size <= 0n || trigger === null || trigger <= 0n || (o.order_type === 'STOP_LIMIT' ? price === null : price !== null) || o.post_only || (source !== 'LAST_PRICE' && !this.feed)) {
        out.cancelled(o.order_uuid, o.profile_uuid, ENGINE_REJECTED, size > 0n ? size : 0n);
        return;
      }
      const stop: ArmedStop = {
        order_uuid: o.order_uuid,
        profile_uuid: o.profile_uuid,
        side: o.direction,
        order_type: o.order_type as 'STOP' | 'STOP_LIMIT',
        time_in_force: o.time_in_force,
        reduce_only: o.reduce_only,
        price,
        trigger_price: trigger,
        size,
        sequence,
        source,
      };
      this.stops.set(o.order_uuid, stop);
    } else {
      const sequence = this.book.nextSequence;
      out.push({ type: 'OrderOpened', data: opened(sequence) });
      this.execute(
        { order_uuid: o.order_uuid, profile_uuid: o.profile_uuid, side: o.direction, type: o.order_type === 'MARKET' ? 'MARKET' : 'LIMIT', price, size, tif: o.time_in_force, post_only: o.post_only, reduce_only: o.reduce_only },
        out,
      );
    }
    this.releaseStops(out);
  }

  /** Matches an order (a new one, or a released stop) with the reduce-only cut; emits what happened. */
  private execute(
    o: { order_uuid: string; profile_uuid: string; side: Side; type: 'LIMIT' | 'MARKET'; price: bigint | null; size: bigint; tif: EngineTimeInForce; post_only: boolean; reduce_only: boolean },
    out: Emitter,
  ): void {
    let workSize = o.size;
    if (o.reduce_only) {
      const position = this.position(o.profile_uuid);
      const reducible = o.side === 'BUY' ? (position < 0n ? -position : 0n) : position > 0n ? position : 0n;
      if (reducible === 0n || (o.tif === 'FOK' && o.size > reducible)) {
        this.book.takeSequence();
        out.cancelled(o.order_uuid, o.profile_uuid, reducible === 0n ? 'REDUCE_ONLY_NO_POSITION' : 'REDUCE_ONLY_EXCEEDS_POSITION', o.size);
        return;
      }
      if (workSize > reducible) workSize = reducible;
    }
    const excess = o.size - workSize;
    let decision: EngineDecision;
    try {
      decision = match(this.book, { order_id: o.order_uuid, owner: o.profile_uuid, side: o.side, type: o.type, price: o.price, size: workSize, time_in_force: o.tif, post_only: o.post_only }, {
        nextTradeId: () => this.tradeId(this.market.market_uuid, out.position, out.nextTradeIndex()),
      });
    } catch (error) {
      if (!(error instanceof EngineInputError)) throw error;
      // Acceptance validates against the market; an order the matcher still refuses is cancelled, never guessed at.
      this.book.takeSequence();
      out.cancelled(o.order_uuid, o.profile_uuid, ENGINE_REJECTED, o.size);
      return;
    }
    this.emitDecision(decision, o.profile_uuid, excess, out);
  }

  private emitDecision(d: EngineDecision, taker: string, excess: bigint, out: Emitter): void {
    let t = 0;
    let filled = 0n;
    const takerSize = d.filled + d.remaining + excess;
    for (const change of d.book_changes) {
      if (change.kind === 'ADDED') continue;
      if (change.kind === 'REMOVED' && change.reason === 'CANCELLED') {
        const stp = d.cancelled.find((c) => c.resting && c.order_id === change.order_id)!;
        out.cancelled(stp.order_id, stp.owner, 'SELF_TRADE_PREVENTION', stp.remaining);
        continue;
      }
      const trade = d.trades[t++];
      filled += trade.size;
      const makerRemaining = change.kind === 'REDUCED' ? change.remaining : 0n;
      this.recordTrade(trade.taker_side, trade.maker_owner, taker, trade.price, trade.size);
      out.push({
        type: 'TradeExecuted',
        data: {
          market_uuid: out.market_uuid, input_position: out.input_position,
          trade_uuid: trade.trade_id,
          maker_order_uuid: trade.maker_order_id,
          taker_order_uuid: trade.taker_order_id,
          maker_profile_uuid: trade.maker_owner,
          taker_profile_uuid: taker,
          taker_side: trade.taker_side,
          price: formatDecimal(trade.price),
          size: formatDecimal(trade.size),
          maker_remaining: formatDecimal(makerRemaining),
          taker_remaining: formatDecimal(takerSize - filled),
        },
      });
      if (makerRemaining === 0n) out.push({ type: 'OrderFilled', data: { market_uuid: out.market_uuid, input_position: out.input_position, order_uuid: trade.maker_order_id, profile_uuid: trade.maker_owner } });
    }
    if (t !== d.trades.length) throw new Error('invariant: every trade has its book change');
    if (d.status === 'FILLED') {
      if (excess > 0n) out.cancelled(d.order_id, taker, 'REDUCE_ONLY_EXCEEDS_POSITION', excess);
      else out.push({ type: 'OrderFilled', data: { market_uuid: out.market_uuid, input_position: out.input_position, order_uuid: d.order_id, profile_uuid: taker } });
    } else if (d.status === 'CANCELLED') {
      const own = d.cancelled.find((c) => !c.resting)!;
      out.cancelled(d.order_id, taker, own.reason, own.remaining + excess);
    } else {
      const r = d.resting_order!;
      out.push({
        type: 'OrderRested',
        data: { market_uuid: out.market_uuid, input_position: out.input_position, order_uuid: r.order_id, profile_uuid: taker, side: r.side, price: formatDecimal(r.price), remaining: formatDecimal(r.remaining), sequence: r.sequence },
      });
    }
  }

  private recordTrade(takerSide: Side, maker: string, taker: string, price: bigint, size: bigint): void {
    const signed = takerSide === 'BUY' ? size : -size;
    this.positions.set(taker, this.position(taker) + signed);
    this.positions.set(maker, this.position(maker) - signed);
    this.lastPrice = price;
  }

  /**
   * Releases armed stops their reference price has reached, oldest armed first; a release may trade (moving the last
   * and the mark price) and release more. No reference (no trade yet, a stale feed): the stop holds.
   */
  private releaseStops(out: Emitter): void {
    for (;;) {
      if (this.stops.size === 0) return;
      const last = this.lastPrice;
      // The mark needs the book's best prices: computed once per pass, and only if a mark stop is armed.
      let mark: bigint | null | undefined;
      let next: ArmedStop | undefined;
      let reference: bigint | null = null;
      for (const s of this.stops.values()) {
        reference = s.source === 'LAST_PRICE' ? last : s.source === 'INDEX_PRICE' ? this.index : mark === undefined ? (mark = this.markPrice()) : mark;
        if (reference !== null && (s.side === 'BUY' ? reference >= s.trigger_price : reference <= s.trigger_price)) {
          next = s;
          break;
        }
      }
      if (!next || reference === null) return;
      this.stops.delete(next.order_uuid);
      out.push({
        type: 'StopOrderTriggered',
        data: {
          market_uuid: out.market_uuid, input_position: out.input_position, order_uuid: next.order_uuid, last_price: last === null ? null : formatDecimal(last), sequence: this.book.nextSequence,
          trigger_source: next.source, reference_price: formatDecimal(reference),
        },
      });
      this.execute(
        {
          order_uuid: next.order_uuid,
          profile_uuid: next.profile_uuid,
          side: next.side,
          type: next.order_type === 'STOP' ? 'MARKET' : 'LIMIT',
          price: next.price,
          size: next.size,
          tif: next.time_in_force,
          post_only: false,
          reduce_only: next.reduce_only,
        },
        out,
      );
    }
  }

  // ---------------------------------------------------------------------------------------------------- evolve

  /** Applies one engine event (restore). The inverse of nothing: it trusts the stream it reads. */
  evolve(event: EngineEvent): void {
    const position = BigInt(event.data.input_position);
    if (position > this.lastInputPosition) this.lastInputPosition = position;
    switch (event.type) {
      case 'OrderOpened': {
        const d = event.data;
        this.book.advanceSequence(d.sequence + 1);
        if (d.order_type === 'STOP' || d.order_type === 'STOP_LIMIT') {
          this.stops.set(d.order_uuid, {
            order_uuid: d.order_uuid,
            profile_uuid: d.profile_uuid,
            side: d.side,
            order_type: d.order_type,
            time_in_force: d.time_in_force,
            reduce_only: d.reduce_only,
            price: d.price === null ? null : parseDecimal(d.price),
            trigger_price: d.trigger_price === null ? 0n : parseDecimal(d.trigger_price),
            size: parseDecimal(d.size),
            sequence: d.sequence,
            source: d.trigger_source ?? 'LAST_PRICE',
          });
        }
        return;
      }
      case 'StopOrderTriggered':
        this.stops.delete(event.data.order_uuid);
        this.book.advanceSequence(event.data.sequence + 1);
        return;
      case 'TradeExecuted': {
        const d = event.data;
        const makerRemaining = parseDecimal(d.maker_remaining);
        if (makerRemaining === 0n) this.book.delete(d.maker_order_uuid);
        else this.book.setRemaining(d.maker_order_uuid, makerRemaining);
        this.recordTrade(d.taker_side, d.maker_profile_uuid, d.taker_profile_uuid, parseDecimal(d.price), parseDecimal(d.size));
        return;
      }
      case 'OrderCancelled':
        this.book.delete(event.data.order_uuid);
        this.stops.delete(event.data.order_uuid);
        return;
      case 'OrderRested': {
        const d = event.data;
        this.book.add({ order_id: d.order_uuid, owner: d.profile_uuid, side: d.side, price: parseDecimal(d.price), remaining: parseDecimal(d.remaining), sequence: d.sequence });
        return;
      }
      case 'PriceFeedAttached':
        this.prices.attach(event.data);
        return;
      case 'IndexPriceUpdated':
        this.prices.applyTick(event.data);
        return;
      case 'MarkPriceUpdated':
        this.prices.emittedMark = event.data.mark_price === null ? null : parseDecimal(event.data.mark_price);
        return;
      case 'OrderFilled':
      case 'OrderCancelRejected':
        return;
    }
  }

  // ---------------------------------------------------------------------------------------------------- snapshot

  snapshot(): EngineSnapshot {
    return snapshotImage(this.capture());
  }

  /** The state now, detached: later decisions do not change it (EngineCapture). */
  capture(): EngineCapture {
    const book = this.book.snapshot();
    return {
      market: { market_uuid: this.market.market_uuid, market_id: this.market.market_id },
      last_input_position: this.lastInputPosition,
      last_price: this.lastPrice,
      next_sequence: book.next_sequence,
      bids: book.bids,
      asks: book.asks,
      stops: [...this.stops.values()].map((s) => ({ ...s })),
      positions: [...this.positions.entries()],
      prices: this.prices.snapshot(),
    };
  }

  static restore(s: EngineSnapshot, tradeId: TradeIdSource = derivedTradeId): MarketEngine {
    const engine = new MarketEngine({ market_uuid: s.market_uuid, market_id: s.market_id }, tradeId);
    const order = (side: Side) => (o: SnapshotOrder) => ({ order_id: o.order_id, owner: o.owner, side, price: parseDecimal(o.price), remaining: parseDecimal(o.remaining), sequence: o.sequence });
    engine.book = OrderBook.fromSnapshot({ next_sequence: s.next_sequence, bids: s.bids.map(order('BUY')), asks: s.asks.map(order('SELL')) });
    for (const st of s.stops) {
      engine.stops.set(st.order_uuid, { ...st, price: st.price === null ? null : parseDecimal(st.price), trigger_price: parseDecimal(st.trigger_price), size: parseDecimal(st.size), source: st.source ?? 'LAST_PRICE' });
    }
    engine.prices = ReferencePrices.restore(s);
    for (const [profile, v] of s.positions) engine.positions.set(profile, parseDecimal(v, { allowSign: true }));
    engine.lastPrice = s.last_price === null ? null : parseDecimal(s.last_price);
    engine.lastInputPosition = BigInt(s.last_input_position);
    return engine;
  }
}
