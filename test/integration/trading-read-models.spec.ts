/**
 * The trading read models (orders with engine state, trades, positions) fed by realistic order- and engine-stream
 * events through the real ProjectionRunner, on SQLite and PostgreSQL; then the read query handlers on them.
 */
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import type { JsonObject } from '../../src/platform/commitments/json';
import { PlatformError } from '../../src/platform/errors';
import type { Principal } from '../../src/platform/auth/principal';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { marketStream } from '../../src/modules/trading/domain/market';
import { orderStream } from '../../src/modules/trading/domain/order';
import { CANCEL_REASONS, engineStream, type EngineCancelCode } from '../../src/modules/trading/domain/engine-events';
import { formatDecimal, parseDecimal } from '../../src/platform/decimal/fixed18';
import { orderWire } from '../../projections/trading-orders/order-wire';
import {
  GetMarketHistory,
  GetMarketHistoryHandler,
  GetOrderBook,
  GetOrderBookHandler,
  GetOrderMeta,
  GetOrderMetaHandler,
  GetTradeMeta,
  GetTradeMetaHandler,
  ListPositions,
  ListPositionsHandler,
} from '../../src/modules/trading/reads';
import { TradingMarketsProjector, tradingMarketsReadModel } from '../../projections/trading-markets/trading-markets.read-model';
import { TradingOrders1764000002100, TradingOrdersProjector, tradingOrdersReadModel, type OrderRow } from '../../projections/trading-orders/trading-orders.read-model';
import { TradingPositionsProjector, tradingPositionsReadModel } from '../../projections/trading-positions/trading-positions.read-model';
import { TradingTradesProjector, tradingTradesReadModel } from '../../projections/trading-trades/trading-trades.read-model';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';
import { hex32, newEvent } from '../support/events';

const D = (s: string): string => formatDecimal(parseDecimal(s, { allowSign: true }));
const ZERO = D('0');
const principal = (profile_uuid: string): Principal => ({ profile_uuid, tenant_uuid: '0'.repeat(32), session_id: hex32(), platform_role: null });
const at = (hms: string): string => `2026-03-01T${hms}Z`;

describe.each<DatabaseKind>(['sqlite', 'postgres'])('trading read models on %s', (kind) => {
  let testDb: TestDatabase;
  let store: SqliteEventStore;
  let db: ReadModelDatabase;
  let runner: ProjectionRunner;

  const market = { uuid: hex32(), id: 1, symbol: 'BTC-PERP' };
  const alice = hex32();
  const bob = hex32();
  const carol = hex32();

  beforeEach(async () => {
    testDb = makeTestDatabase(kind);
    store = new SqliteEventStore({ filename: join(testDb.dataDir, 'events.sqlite'), pollIntervalMs: 20 });
    db = await testDb.open([tradingMarketsReadModel, tradingOrdersReadModel, tradingTradesReadModel, tradingPositionsReadModel]);
    runner = new ProjectionRunner(store, db, [new TradingMarketsProjector(), new TradingOrdersProjector(), new TradingTradesProjector(), new TradingPositionsProjector()], {
      batchSize: 7,
      retryDelayMs: 20,
    });
    await store.append(marketStream(market.uuid), [newEvent('MarketCreated', {
      market_uuid: market.uuid, market_id: market.id, market_symbol: market.symbol, instrument_isin: 'XF0000BTC001', market_type: 'PERPETUAL', contract_size: '0.001',
      mininum_quantity: '0.001', minimum_execution_quantity: '0.001', operating_mic: 'XMTF', segment_mic: 'XMTS', price_currency: 'USD', quote_currency: 'USD',
      base_currency: 'BTC', tick_size: '0.25', maximum_quantity: '50', is_suspended: false, is_cancel_only: false, is_maker_only: false,
    }, { occurred_at: at('09:00:00.000') })], 'no_stream');
  });

  afterEach(async () => {
    await runner.stop();
    await db.close();
    await store.close();
    await testDb.dispose();
  });

  async function projected(): Promise<void> {
    runner.start();
    expect(await runner.waitFor(await store.headPosition(), undefined, 10_000)).toBe(true);
  }

  // ---- event builders with the shapes of domain/order.ts and domain/engine-events.ts ----

  let inputPosition = 0n;
  let sequence = 0;

  interface Placed { order_uuid: string; profile_uuid: string; direction: 'BUY' | 'SELL' }

  async function accept(profile: string, o: { direction: 'BUY' | 'SELL'; type?: string; tif?: string; size: string; price?: string | null; trigger?: string | null }, when: string): Promise<Placed> {
    const order_uuid = hex32();
    const type = o.type ?? 'LIMIT';
    const data: JsonObject = {
      order_uuid, profile_uuid: profile, tenant_uuid: '0'.repeat(32), market_uuid: market.uuid, market_id: market.id, market_symbol: market.symbol, base_currency: 'BTC',
      direction: o.direction, order_type: type, time_in_force: o.tif ?? 'GTC', post_only: false, reduce_only: false, order_size: D(o.size),
      limit_price: o.price ? D(o.price) : null, trigger_price: o.trigger ? D(o.trigger) : null, external_ref: 'cmVmLTE=', order_group: '6f1c2a3b-0000-4000-8000-000000000001',
      vault_uuid: hex32(), liquidity_pool: hex32(), channel: 'MTF', leverage: null, client_reference: null, reporting_identifier: null,
    };
    const { position } = await store.append(orderStream(order_uuid), [newEvent('OrderAccepted', data, { occurred_at: when })], 'no_stream');
    inputPosition = position;
    return { order_uuid, profile_uuid: profile, direction: o.direction };
  }

  const base = (): JsonObject => ({ market_uuid: market.uuid, input_position: inputPosition.toString() });
  const opened = (o: Placed, size: string, extra: JsonObject = {}) => {
    sequence += 1;
    return newEvent('OrderOpened', {
      ...base(), order_uuid: o.order_uuid, profile_uuid: o.profile_uuid, sequence, engine_id: `GW-${market.id}-0-${sequence}`, order_sequence: `${inputPosition}_${sequence}`,
      side: o.direction, order_type: 'LIMIT', time_in_force: 'GTC', post_only: false, reduce_only: false, price: null, trigger_price: null, size: D(size), ...extra,
    });
  };
  const rested = (o: Placed, price: string, remaining: string) =>
    newEvent('OrderRested', { ...base(), order_uuid: o.order_uuid, profile_uuid: o.profile_uuid, side: o.direction, price: D(price), remaining: D(remaining), sequence });
  const filled = (o: Placed) => newEvent('OrderFilled', { ...base(), order_uuid: o.order_uuid, profile_uuid: o.profile_uuid });
  const cancelled = (o: Placed, reason: EngineCancelCode, remaining: string) =>
    newEvent('OrderCancelled', { ...base(), order_uuid: o.order_uuid, profile_uuid: o.profile_uuid, reason, cancel_reason: CANCEL_REASONS[reason], remaining: D(remaining) });
  const trade = (trade_uuid: string, maker: Placed, taker: Placed, price: string, size: string, makerRemaining: string, takerRemaining: string) =>
    newEvent('TradeExecuted', {
      ...base(), trade_uuid, maker_order_uuid: maker.order_uuid, taker_order_uuid: taker.order_uuid, maker_profile_uuid: maker.profile_uuid, taker_profile_uuid: taker.profile_uuid,
      taker_side: taker.direction, price: D(price), size: D(size), maker_remaining: D(makerRemaining), taker_remaining: D(takerRemaining),
    });

  /** One engine decision: one atomic append on the engine stream, all stamped with the decision's time. */
  async function engine(when: string, ...events: ReturnType<typeof newEvent>[]): Promise<void> {
    await store.append(engineStream(market.uuid), events.map((e) => ({ ...e, occurred_at: when })), 'any');
  }

  const order = async (uuid: string): Promise<OrderRow> => (await db.reader.query(db.sql('SELECT * FROM mtf_orders WHERE order_uuid = ?'), [uuid]))[0];
  const notFound = async (p: Promise<unknown>): Promise<void> => {
    const error = await p.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).code).toBe('NOT_FOUND');
  };

  const T1 = hex32();
  const T2 = hex32();
  const T3 = hex32();
  const T4 = hex32();

  /**
   * Book building, then: Bob buys 1.2 at market (takes a1 1 @ 100.5 and c1 0.2 @ 100.75); Alice sells 0.3 IOC into
   * Bob's 100 bid; Carol cancels the rest of c1; Bob sells 0.5 at market (takes Carol's 99 bid, self-trade prevention
   * cancels his own 9.5 bid, the rest finds no liquidity), which triggers Alice's sell stop (no liquidity left).
   */
  async function scenario() {
    const a1 = await accept(alice, { direction: 'SELL', size: '1', price: '100.5' }, at('10:00:01.000'));
    await engine(at('10:00:01.010'), opened(a1, '1', { price: D('100.5') }), rested(a1, '100.5', '1'));
    const a2 = await accept(alice, { direction: 'SELL', size: '2', price: '101' }, at('10:00:02.000'));
    await engine(at('10:00:02.010'), opened(a2, '2', { price: D('101') }), rested(a2, '101', '2'));
    const c1 = await accept(carol, { direction: 'SELL', size: '0.5', price: '100.75' }, at('10:00:03.000'));
    await engine(at('10:00:03.010'), opened(c1, '0.5', { price: D('100.75') }), rested(c1, '100.75', '0.5'));
    const c3 = await accept(carol, { direction: 'SELL', size: '0.25', price: '100.5' }, at('10:00:03.500'));
    await engine(at('10:00:03.510'), opened(c3, '0.25', { price: D('100.5') }));
    const b2 = await accept(bob, { direction: 'BUY', size: '0.3', price: '100' }, at('10:00:04.000'));
    await engine(at('10:00:04.010'), opened(b2, '0.3', { price: D('100') }), rested(b2, '100', '0.3'));
    const c2 = await accept(carol, { direction: 'BUY', size: '0.4', price: '99' }, at('10:00:05.000'));
    await engine(at('10:00:05.010'), opened(c2, '0.4', { price: D('99') }), rested(c2, '99', '0.4'));
    const b1 = await accept(bob, { direction: 'BUY', size: '0.1', price: '9.5' }, at('10:00:06.000'));
    await engine(at('10:00:06.010'), opened(b1, '0.1', { price: D('9.5') }), rested(b1, '9.5', '0.1'));
    const s1 = await accept(alice, { direction: 'SELL', type: 'STOP', size: '0.1', trigger: '99.5' }, at('10:00:07.000'));
    await engine(at('10:00:07.010'), opened(s1, '0.1', { order_type: 'STOP', trigger_price: D('99.5') }));
    // c3 is still with the engine (OPEN, not rested): not part of the book.
    return { a1, a2, c1, c2, c3, b1, b2, s1 };
  }

  async function trading(o: Awaited<ReturnType<typeof scenario>>) {
    const b3 = await accept(bob, { direction: 'BUY', type: 'MARKET', tif: 'IOC', size: '1.2' }, at('10:01:10.000'));
    await engine(at('10:01:10.005'), opened(b3, '1.2', { order_type: 'MARKET', time_in_force: 'IOC' }),
      trade(T1, o.a1, b3, '100.5', '1', '0', '0.2'), filled(o.a1),
      trade(T2, o.c1, b3, '100.75', '0.2', '0.3', '0'), filled(b3));
    const a3 = await accept(alice, { direction: 'SELL', tif: 'IOC', size: '0.3', price: '100' }, at('10:02:20.000'));
    await engine(at('10:02:20.005'), opened(a3, '0.3', { price: D('100'), time_in_force: 'IOC' }), trade(T3, o.b2, a3, '100', '0.3', '0', '0'), filled(o.b2), filled(a3));
    const cancel = await store.append(orderStream(o.c1.order_uuid), [newEvent('OrderCancelRequested', { order_uuid: o.c1.order_uuid, profile_uuid: carol, market_uuid: market.uuid, reason: 'USER_REQUEST', note: null }, { occurred_at: at('10:03:40.000') })], 0n);
    inputPosition = cancel.position;
    await engine(at('10:03:40.005'), cancelled(o.c1, 'USER_REQUEST', '0.3'));
    const b4 = await accept(bob, { direction: 'SELL', type: 'MARKET', tif: 'GTC', size: '0.5' }, at('10:04:50.000'));
    await engine(at('10:04:50.005'), opened(b4, '0.5', { order_type: 'MARKET' }),
      trade(T4, o.c2, b4, '99', '0.4', '0', '0.1'), filled(o.c2),
      cancelled(o.b1, 'SELF_TRADE_PREVENTION', '0.1'), cancelled(b4, 'MARKET_ORDER_NO_LIQUIDITY', '0.1'),
      newEvent('StopOrderTriggered', { ...base(), order_uuid: o.s1.order_uuid, last_price: D('99'), sequence: sequence + 1 }),
      cancelled(o.s1, 'MARKET_ORDER_NO_LIQUIDITY', '0.1'));
    return { b3, a3, b4 };
  }

  it('tracks each order through the engine: opened, rested, traded, filled, cancelled', async () => {
    const o = await scenario();
    await projected();
    expect(await order(o.a1.order_uuid)).toMatchObject({ status: 'OPEN', engine_id: 'GW-1-0-1', in_book: 1, book_price: D('100.5'), filled: ZERO, remaining: D('1'), trades: '[]', updated_at: at('10:00:01.010') });
    expect(await order(o.c3.order_uuid)).toMatchObject({ status: 'OPEN', in_book: 0, book_price: null, remaining: D('0.25') });
    expect(await order(o.s1.order_uuid)).toMatchObject({ status: 'OPEN', order_type: 'STOP', trigger_price: D('99.5'), limit_price: null, in_book: 0, triggered_at: null });

    const { b3, a3, b4 } = await trading(o);
    await projected();
    const a1 = await order(o.a1.order_uuid);
    expect(a1).toMatchObject({ status: 'FILLED', in_book: 0, filled: D('1'), remaining: ZERO, updated_at: at('10:01:10.005') });
    expect(JSON.parse(a1.trades)).toEqual([T1]);
    const b3row = await order(b3.order_uuid);
    expect(b3row).toMatchObject({ status: 'FILLED', filled: D('1.2'), remaining: ZERO, in_book: 0, book_price: null, order_sequence: expect.stringMatching(/^\d+_\d+$/) });
    expect(JSON.parse(b3row.trades)).toEqual([T1, T2]);
    expect(await order(o.c1.order_uuid)).toMatchObject({
      status: 'CANCELLED', cancel_reason: '10_CancelReason_UserRequest', cancel_requested: 1, in_book: 0, filled: D('0.2'), remaining: D('0.3'), updated_at: at('10:03:40.005'),
    });
    expect(await order(a3.order_uuid)).toMatchObject({ status: 'FILLED', filled: D('0.3'), remaining: ZERO, in_book: 0 });
    expect(await order(o.b1.order_uuid)).toMatchObject({ status: 'CANCELLED', cancel_reason: '30_CancelReason_SelfTradePrevention', in_book: 0, filled: ZERO, remaining: D('0.1') });
    expect(await order(b4.order_uuid)).toMatchObject({ status: 'CANCELLED', cancel_reason: '41_CancelReason_MarketOrderNoLiquidity', filled: D('0.4'), remaining: D('0.1'), cancel_requested: 0 });
    expect(await order(o.s1.order_uuid)).toMatchObject({ status: 'CANCELLED', triggered_at: at('10:04:50.005'), cancel_reason: '41_CancelReason_MarketOrderNoLiquidity' });
    expect(await order(o.a2.order_uuid)).toMatchObject({ status: 'OPEN', in_book: 1, book_price: D('101'), remaining: D('2') });

    // The seeds' Order record renders the engine's state.
    expect(orderWire(b3row)).toMatchObject({ status: 'FILLED', engine_id: b3row.engine_id, trades: [T1, T2], cancel_reason: null, limit_price: null });
    expect(orderWire(await order(o.c1.order_uuid))).toMatchObject({ status: 'CANCELLED', cancel_reason: '10_CancelReason_UserRequest', trades: [T2] });

    const trades = await db.reader.query(db.sql('SELECT * FROM mtf_trades ORDER BY position'));
    expect(trades).toEqual([
      expect.objectContaining({ trade_uuid: T1, market_uuid: market.uuid, price: D('100.5'), size: D('1'), taker_side: 'BUY', maker_order_uuid: o.a1.order_uuid, taker_order_uuid: b3.order_uuid, maker_profile_uuid: alice, taker_profile_uuid: bob, executed_at: at('10:01:10.005') }),
      expect.objectContaining({ trade_uuid: T2, price: D('100.75'), size: D('0.2'), maker_profile_uuid: carol }),
      expect.objectContaining({ trade_uuid: T3, taker_side: 'SELL', maker_profile_uuid: bob, taker_profile_uuid: alice }),
      expect.objectContaining({ trade_uuid: T4, price: D('99'), taker_side: 'SELL', maker_order_uuid: o.c2.order_uuid }),
    ]);
    expect(trades.every((t: { position: string }) => /^\d{20}$/.test(t.position))).toBe(true);
  });

  it('keeps exact positions: weighted entries (HALF_EVEN), realized PnL, flips', async () => {
    await trading(await scenario());
    await projected();
    const positions = new ListPositionsHandler(db);
    expect(await positions.execute(new ListPositions(principal(bob)))).toEqual([{
      market: 'BTC-PERP', market_uuid: market.uuid, side: 'LONG', quantity: D('1.1'), signed_quantity: D('1.1'),
      // (1·100.5 + 0.2·100.75)/1.2 → 100.541666666666666667; (1.2·that + 0.3·100)/1.5 → 100.433333333333333334
      entry_price: '100.433333333333333334',
      // (99 − 100.433333333333333334) × 0.4 = −0.5733333333333333336 → …334
      realized_pnl: '-0.573333333333333334',
      updated_at: '2026-03-01T10:04:50.005Z',
    }]);
    expect(await positions.execute(new ListPositions(principal(alice)))).toEqual([
      expect.objectContaining({ side: 'SHORT', quantity: D('1.3'), signed_quantity: D('-1.3'), entry_price: '100.384615384615384615', realized_pnl: ZERO }),
    ]);
    // Short 0.2 @ 100.75, then bought 0.4 @ 99: 0.35 realized, long 0.2 @ 99.
    expect(await positions.execute(new ListPositions(principal(carol), 'BTC-PERP'))).toEqual([
      expect.objectContaining({ side: 'LONG', quantity: D('0.2'), signed_quantity: D('0.2'), entry_price: D('99'), realized_pnl: D('0.35') }),
    ]);
    expect(await positions.execute(new ListPositions(principal(carol), 'ETH-PERP'))).toEqual([]);
    expect(await positions.execute(new ListPositions(principal(hex32())))).toEqual([]);
    // Net quantities over all accounts sum to zero.
    const all: Array<{ quantity: string }> = await db.reader.query('SELECT quantity FROM mtf_positions');
    expect(all.reduce((s, r) => s + parseDecimal(r.quantity, { allowSign: true }), 0n)).toBe(0n);
  });

  it('answers the order book: resting remainders summed per price, best first, numeric order', async () => {
    const o = await scenario();
    await projected();
    const book = new GetOrderBookHandler(db);
    expect(await book.execute(new GetOrderBook('BTC-PERP', 50))).toEqual({
      market: 'BTC-PERP',
      bids: [
        { price: D('100'), size: D('0.3'), orders: 1 },
        { price: D('99'), size: D('0.4'), orders: 1 },
        { price: D('9.5'), size: D('0.1'), orders: 1 },
      ],
      asks: [
        { price: D('100.5'), size: D('1'), orders: 1 },
        { price: D('100.75'), size: D('0.5'), orders: 1 },
        { price: D('101'), size: D('2'), orders: 1 },
      ],
    });
    expect(await book.execute(new GetOrderBook('BTC-PERP', 2))).toMatchObject({ bids: [{ price: D('100') }, { price: D('99') }], asks: [{ price: D('100.5') }, { price: D('100.75') }] });

    // A second resting order at a level adds up exactly.
    const c4 = await accept(carol, { direction: 'SELL', size: '0.000000000000000001', price: '101' }, at('10:00:08.000'));
    await engine(at('10:00:08.010'), opened(c4, '0.000000000000000001', { price: D('101') }), rested(c4, '101', '0.000000000000000001'));
    await trading(o);
    await projected();
    expect(await book.execute(new GetOrderBook('BTC-PERP'))).toEqual({ market: 'BTC-PERP', bids: [], asks: [{ price: D('101'), size: '2.000000000000000001', orders: 2 }] });
    await notFound(book.execute(new GetOrderBook('NOPE-PERP')));
  });

  it('answers one-minute OHLCV candles of the recent trades', async () => {
    await trading(await scenario());
    await projected();
    const history = new GetMarketHistoryHandler(db);
    const now = new Date('2026-03-01T10:05:30Z');
    expect(await history.execute(new GetMarketHistory('BTC-PERP', 5, now))).toEqual([
      { start: '2026-03-01T10:01:00Z', open: D('100.5'), high: D('100.75'), low: D('100.5'), close: D('100.75'), volume: D('1.2'), trades: 2 },
      { start: '2026-03-01T10:02:00Z', open: D('100'), high: D('100'), low: D('100'), close: D('100'), volume: D('0.3'), trades: 1 },
      { start: '2026-03-01T10:04:00Z', open: D('99'), high: D('99'), low: D('99'), close: D('99'), volume: D('0.4'), trades: 1 },
    ]);
    expect((await history.execute(new GetMarketHistory('BTC-PERP', 4, now))).map((c) => c.start)).toEqual(['2026-03-01T10:02:00Z', '2026-03-01T10:04:00Z']);
    expect(await history.execute(new GetMarketHistory('BTC-PERP', 60, new Date('2026-03-01T12:00:00Z')))).toEqual([]);
    await notFound(history.execute(new GetMarketHistory('NOPE-PERP', 60, now)));
  });

  it("answers an order's detail with its trades to its owner only", async () => {
    const o = await scenario();
    const { b3 } = await trading(o);
    await projected();
    const meta = new GetOrderMetaHandler(db, runner);
    const detail = await meta.execute(new GetOrderMeta(principal(bob), b3.order_uuid));
    expect(detail).toEqual({
      order: orderWire(await order(b3.order_uuid)),
      market_symbol: 'BTC-PERP', order_type: 'MARKET', time_in_force: 'IOC', reduce_only: false, trigger_price: null, channel: 'MTF',
      filled: D('1.2'), remaining: ZERO, average_price: '100.541666666666666667', in_book: false, book_price: null, cancel_requested: false, triggered_at: null,
      trades: [
        { trade_uuid: T1, market: 'BTC-PERP', price: D('100.5'), size: D('1'), taker_side: 'BUY', side: 'BUY', role: 'TAKER', order_uuid: b3.order_uuid, executed_at: '2026-03-01T10:01:10.005Z' },
        { trade_uuid: T2, market: 'BTC-PERP', price: D('100.75'), size: D('0.2'), taker_side: 'BUY', side: 'BUY', role: 'TAKER', order_uuid: b3.order_uuid, executed_at: '2026-03-01T10:01:10.005Z' },
      ],
    });
    expect((detail.order as { status: string }).status).toBe('FILLED');

    const c1 = await meta.execute(new GetOrderMeta(principal(carol), o.c1.order_uuid));
    expect(c1).toMatchObject({ filled: D('0.2'), remaining: D('0.3'), cancel_requested: true, in_book: false, book_price: D('100.75'), average_price: D('100.75') });
    expect(c1.trades).toEqual([expect.objectContaining({ trade_uuid: T2, role: 'MAKER', side: 'SELL', order_uuid: o.c1.order_uuid })]);
    expect(await meta.execute(new GetOrderMeta(principal(alice), o.s1.order_uuid))).toMatchObject({ order_type: 'STOP', trigger_price: D('99.5'), triggered_at: '2026-03-01T10:04:50.005Z', average_price: null, trades: [] });
    expect(await meta.execute(new GetOrderMeta(principal(alice), o.a2.order_uuid))).toMatchObject({ in_book: true, book_price: D('101'), remaining: D('2'), order: expect.objectContaining({ status: 'OPEN' }) });

    await notFound(meta.execute(new GetOrderMeta(principal(alice), b3.order_uuid)));
    await notFound(meta.execute(new GetOrderMeta(principal(bob), hex32())));
  });

  it('answers a trade to its parties only, from their side, never naming the other account', async () => {
    const o = await scenario();
    const { b3 } = await trading(o);
    await projected();
    const meta = new GetTradeMetaHandler(db);
    const asTaker = await meta.execute(new GetTradeMeta(principal(bob), T2));
    expect(asTaker).toEqual({ trade_uuid: T2, market: 'BTC-PERP', price: D('100.75'), size: D('0.2'), taker_side: 'BUY', side: 'BUY', role: 'TAKER', order_uuid: b3.order_uuid, executed_at: '2026-03-01T10:01:10.005Z' });
    const asMaker = await meta.execute(new GetTradeMeta(principal(carol), T2));
    expect(asMaker).toMatchObject({ side: 'SELL', role: 'MAKER', order_uuid: o.c1.order_uuid });
    expect(JSON.stringify(asTaker)).not.toContain(carol);
    expect(JSON.stringify(asMaker)).not.toContain(bob);
    expect(JSON.stringify(asMaker)).not.toContain(b3.order_uuid);
    await notFound(meta.execute(new GetTradeMeta(principal(alice), T2)));
    await notFound(meta.execute(new GetTradeMeta(principal(bob), hex32())));
  });

  it('projects OrderAccepted events stored before the placement grew trigger_price, reduce_only and channel', async () => {
    const order_uuid = hex32();
    await store.append(orderStream(order_uuid), [newEvent('OrderAccepted', {
      order_uuid, profile_uuid: bob, tenant_uuid: '0'.repeat(32), market_uuid: market.uuid, market_id: 1, market_symbol: 'BTC-PERP', base_currency: 'BTC',
      direction: 'BUY', order_type: 'LIMIT', time_in_force: 'GTC', post_only: false, order_size: D('0.01'), limit_price: D('64000.5'), external_ref: 'cmVmLTE=',
      order_group: '6f1c2a3b-0000-4000-8000-000000000002', vault_uuid: hex32(), liquidity_pool: hex32(),
    }, { occurred_at: at('08:00:00.000') })], 'no_stream');
    await projected();
    expect(await order(order_uuid)).toMatchObject({
      status: 'NEW', trigger_price: null, reduce_only: 0, channel: 'MTF', filled: ZERO, remaining: D('0.01'), in_book: 0, book_price: null, cancel_requested: 0, triggered_at: null,
      created_at: at('08:00:00.000'), position: expect.stringMatching(/^\d{20}$/),
    });
    expect(orderWire(await order(order_uuid))).toMatchObject({ status: 'NEW', engine_id: null, order_sequence: null, trades: [], estim_market_value: '640.005000000000000000' });
  });

  it('migrates an order list written before the engine columns: rows kept, remaining = order size', async () => {
    const legacy = makeTestDatabase(kind);
    try {
      const old = await legacy.open([{ ...tradingOrdersReadModel, migrations: [TradingOrders1764000002100] }]);
      const uuid = hex32();
      await old.transaction((tx) =>
        tx.query(
          old.sql(`INSERT INTO mtf_orders (order_uuid, profile_uuid, tenant_uuid, market_uuid, market_symbol, market_id, base_currency, direction, order_type, time_in_force, post_only,
             order_size, limit_price, external_ref, order_group, vault_uuid, liquidity_pool, status, trades, created_at, updated_at, position)
           VALUES (?, ?, ?, ?, 'BTC-PERP', 1, 'BTC', 'BUY', 'LIMIT', 'GTC', 0, ?, ?, 'cmVmLTE=', '6f1c2a3b-0000-4000-8000-000000000003', ?, ?, 'NEW', '[]', ?, ?, ?)`),
          [uuid, bob, '0'.repeat(32), market.uuid, D('0.75'), D('100'), hex32(), hex32(), at('07:00:00.000'), at('07:00:00.000'), '1'.padStart(20, '0')],
        ),
      );
      await old.close();
      const upgraded = await legacy.open([tradingOrdersReadModel]);
      try {
        const rows: OrderRow[] = await upgraded.reader.query(upgraded.sql('SELECT * FROM mtf_orders WHERE order_uuid = ?'), [uuid]);
        expect(rows[0]).toMatchObject({ status: 'NEW', order_size: D('0.75'), remaining: D('0.75'), filled: ZERO, channel: 'MTF', reduce_only: 0, in_book: 0, cancel_requested: 0, trigger_price: null });
      } finally {
        await upgraded.close();
      }
    } finally {
      await legacy.dispose();
    }
  });

  it('rebuilds every trading read model from the log to the same rows', async () => {
    await trading(await scenario());
    await projected();
    const snapshot = async () => ({
      orders: await db.reader.query('SELECT * FROM mtf_orders ORDER BY order_uuid'),
      trades: await db.reader.query('SELECT * FROM mtf_trades ORDER BY trade_uuid'),
      positions: await db.reader.query('SELECT * FROM mtf_positions ORDER BY profile_uuid, market_uuid'),
    });
    const before = await snapshot();
    await runner.stop();
    const rebuilder = new ProjectionRunner(store, db, [new TradingOrdersProjector(), new TradingTradesProjector(), new TradingPositionsProjector()], { batchSize: 5 });
    for (const name of rebuilder.names) await rebuilder.rebuild(name);
    expect(await snapshot()).toEqual(before);
    // Event by event (batches of one) and all in one batch (accepted orders in one INSERT, an opened and rested order
    // updated once: TradingOrdersProjector.applyBatch) leave the same rows.
    for (const batchSize of [1, 1000]) {
      const orders = new TradingOrdersProjector();
      const batches = jest.spyOn(orders, 'applyBatch');
      await new ProjectionRunner(store, db, [orders], { batchSize }).rebuild('trading-orders');
      expect(batches.mock.calls.some(([events]) => events.length > 1)).toBe(batchSize > 1);
      expect(await snapshot()).toEqual(before);
    }
  });
});
