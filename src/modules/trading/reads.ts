/**
 * Trading read side beyond the order list: one order's detail with its trades, one trade, order-book depth,
 * one-minute candles and the caller's positions. Read models only (mtf_orders, mtf_trades, mtf_positions,
 * mtf_markets); another account's order or trade is indistinguishable from a missing one (404).
 */
import type { Provider } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { PlatformError } from '../../platform/errors';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import type { OrderRow } from '../../../projections/trading-orders/trading-orders.read-model';
import { positionView, type PositionRow } from '../../../projections/trading-positions/trading-positions.read-model';
import type { PositionSide } from './domain/position';
import type { TradeRow } from '../../../projections/trading-trades/trading-trades.read-model';
import { divideRounded, formatDecimal, parseDecimal } from '../../platform/decimal/fixed18';
import { aggregateDepth, historyWindowStart, minuteCandles, type Candle, type DepthLevel, type RestingOrder, type TradePrint } from './market-data';
import { orderWire } from '../../../projections/trading-orders/order-wire';

const rfc3339 = (at: string): string => new Date(at).toISOString();
const decimal = (s: string | null): string | null => (s === null ? null : formatDecimal(parseDecimal(s)));

/** A trade as one of its parties sees it: its own side, role and order; never the other party. */
export interface TradeRecord {
  trade_uuid: string;
  market: string;
  price: string;
  size: string;
  taker_side: 'BUY' | 'SELL';
  side: 'BUY' | 'SELL';
  role: 'MAKER' | 'TAKER';
  order_uuid: string;
  executed_at: string;
}

function tradeRecord(t: TradeRow, market: string, role: 'MAKER' | 'TAKER'): TradeRecord {
  const takerSide = t.taker_side as 'BUY' | 'SELL';
  return {
    trade_uuid: t.trade_uuid,
    market,
    price: formatDecimal(parseDecimal(t.price)),
    size: formatDecimal(parseDecimal(t.size)),
    taker_side: takerSide,
    side: role === 'TAKER' ? takerSide : takerSide === 'BUY' ? 'SELL' : 'BUY',
    role,
    order_uuid: role === 'TAKER' ? t.taker_order_uuid : t.maker_order_uuid,
    executed_at: rfc3339(t.executed_at),
  };
}

/** The market of a symbol, from the markets read model; NOT_FOUND naming `market` when there is none. */
/** Symbol to market, per read-model database: a market keeps its symbol for good, so a found one is remembered. */
const knownMarkets = new WeakMap<ReadModelDatabase, Map<string, { market_uuid: string; market_symbol: string }>>();

export async function marketBySymbol(db: ReadModelDatabase, symbol: string): Promise<{ market_uuid: string; market_symbol: string }> {
  let known = knownMarkets.get(db);
  if (!known) knownMarkets.set(db, (known = new Map()));
  const hit = known.get(symbol);
  if (hit) return hit;
  const found: Array<{ market_uuid: string; market_symbol: string }> = await db.reader.query(db.sql('SELECT market_uuid, market_symbol FROM mtf_markets WHERE market_symbol = ?'), [symbol]);
  if (found.length === 0) throw new PlatformError('NOT_FOUND', 'No such market.', { details: [{ field: 'market', issue: 'unknown market symbol' }] });
  known.set(symbol, found[0]);
  return found[0];
}

export interface OrderMeta {
  /** The seeds' Order record, as the order list renders it. */
  order: Record<string, unknown>;
  market_symbol: string;
  order_type: string;
  time_in_force: string;
  reduce_only: boolean;
  trigger_price: string | null;
  channel: string;
  filled: string;
  remaining: string;
  /** Volume-weighted price of the fills (HALF_EVEN to 18 digits); null before the first. */
  average_price: string | null;
  in_book: boolean;
  book_price: string | null;
  cancel_requested: boolean;
  triggered_at: string | null;
  trades: TradeRecord[];
}

const ORDERS_PROJECTOR = 'trading-orders';
const TRADES_PROJECTOR = 'trading-trades';
/** How long an order read waits for the trades projector to catch up with the orders projector. */
const FILLS_CATCH_UP_MS = 2000;

export class GetOrderMeta {
  constructor(readonly principal: Principal, readonly order_uuid: string) {}
}

@QueryHandler(GetOrderMeta)
export class GetOrderMetaHandler implements IQueryHandler<GetOrderMeta, OrderMeta> {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly runner: ProjectionRunner,
  ) {}

  async execute({ principal, order_uuid }: GetOrderMeta): Promise<OrderMeta> {
    return (await loadOrderMeta(this.db, this.runner, principal, order_uuid)).meta;
  }
}

/** The one read of an order: its row (the caller's own, else 404) and what its trades add up to. */
export async function loadOrderMeta(db: ReadModelDatabase, runner: ProjectionRunner, principal: Principal, order_uuid: string): Promise<{ row: OrderRow; meta: OrderMeta }> {
  {
    const rows: OrderRow[] = await db.reader.query(db.sql('SELECT * FROM mtf_orders WHERE order_uuid = ? AND profile_uuid = ?'), [order_uuid, principal.profile_uuid]);
    if (rows.length === 0) throw new PlatformError('NOT_FOUND', 'No such order.');
    const row = rows[0];
    const readTrades = (): Promise<TradeRow[]> =>
      db.reader.query(db.sql('SELECT * FROM mtf_trades WHERE maker_order_uuid = ? OR taker_order_uuid = ? ORDER BY position'), [order_uuid, order_uuid]);
    let trades = await readTrades();
    // The order row and the trades are two projectors: a FILLED row must not come with its fills still missing
    // (seen on PostgreSQL). When the row names a trade the trades table lacks, wait for that projector to catch up.
    const named = JSON.parse(row.trades) as string[];
    if (named.length > trades.length) {
      // Where the order list is: as stored (committed with the row just read) when another thread or node runs it, whose
      // announcement may not have arrived yet; in memory when this thread runs it.
      const shown = runner.status().find((s) => s.name === ORDERS_PROJECTOR)?.checkpoint ?? 0n;
      const stored = (await runner.checkpoints.positions([ORDERS_PROJECTOR])).get(ORDERS_PROJECTOR) ?? 0n;
      const orders = shown > stored ? shown : stored;
      if (await runner.waitFor(orders, [TRADES_PROJECTOR], FILLS_CATCH_UP_MS)) trades = await readTrades();
    }
    let notional = 0n;
    let volume = 0n;
    for (const t of trades) {
      const size = parseDecimal(t.size);
      notional += parseDecimal(t.price) * size;
      volume += size;
    }
    const meta: OrderMeta = {
      order: orderWire(row),
      market_symbol: row.market_symbol,
      order_type: row.order_type,
      time_in_force: row.time_in_force,
      reduce_only: row.reduce_only === 1,
      trigger_price: decimal(row.trigger_price),
      channel: row.channel,
      filled: formatDecimal(parseDecimal(row.filled)),
      remaining: formatDecimal(parseDecimal(row.remaining)),
      average_price: volume === 0n ? null : formatDecimal(divideRounded(notional, volume, 'HALF_EVEN')),
      in_book: row.in_book === 1,
      book_price: decimal(row.book_price),
      cancel_requested: row.cancel_requested === 1,
      triggered_at: row.triggered_at === null ? null : rfc3339(row.triggered_at),
      trades: trades.map((t) => tradeRecord(t, row.market_symbol, t.taker_order_uuid === order_uuid ? 'TAKER' : 'MAKER')),
    };
    return { row, meta };
  }
}

export class GetTradeMeta {
  constructor(readonly principal: Principal, readonly trade_uuid: string) {}
}

@QueryHandler(GetTradeMeta)
export class GetTradeMetaHandler implements IQueryHandler<GetTradeMeta, TradeRecord> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, trade_uuid }: GetTradeMeta): Promise<TradeRecord> {
    const rows: Array<TradeRow & { market_symbol: string | null }> = await this.db.reader.query(
      this.db.sql('SELECT t.*, m.market_symbol FROM mtf_trades t LEFT JOIN mtf_markets m ON m.market_uuid = t.market_uuid WHERE t.trade_uuid = ?'),
      [trade_uuid],
    );
    const t = rows[0];
    const me = principal.profile_uuid;
    if (!t || (t.taker_profile_uuid !== me && t.maker_profile_uuid !== me)) throw new PlatformError('NOT_FOUND', 'No such trade.');
    // Self-trades are prevented by the engine; were one recorded, its taker side is reported.
    return tradeRecord(t, t.market_symbol ?? t.market_uuid, t.taker_profile_uuid === me ? 'TAKER' : 'MAKER');
  }
}

export interface OrderBookDepth {
  market: string;
  bids: DepthLevel[];
  asks: DepthLevel[];
  index_price?: string | null;
  mark_price?: string | null;
  price_feed_status?: string;
}

export class GetOrderBook {
  constructor(readonly market: string, readonly depth = 50) {}
}

@QueryHandler(GetOrderBook)
export class GetOrderBookHandler implements IQueryHandler<GetOrderBook, OrderBookDepth> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ market, depth }: GetOrderBook): Promise<OrderBookDepth> {
    const m = await marketBySymbol(this.db, market);
    const resting: RestingOrder[] = await this.db.reader.query(
      this.db.sql('SELECT direction, book_price, remaining FROM mtf_orders WHERE market_uuid = ? AND in_book = 1'),
      [m.market_uuid],
    );
    const [prices]: Array<{ price_feed_id: string | null; price_feed_status: string | null; index_price: string | null; mark_price: string | null }> = await this.db.reader.query(
      this.db.sql('SELECT price_feed_id, price_feed_status, index_price, mark_price FROM mtf_markets WHERE market_uuid = ?'),
      [m.market_uuid],
    );
    // Beside the book, where a feed is bound: the reference prices its stops may trigger on.
    const reference = prices?.price_feed_id ? { index_price: prices.index_price, mark_price: prices.mark_price, price_feed_status: prices.price_feed_status ?? 'STALE' } : {};
    return { market: m.market_symbol, ...aggregateDepth(resting, depth), ...reference };
  }
}

export class GetMarketHistory {
  constructor(readonly market: string, readonly minutes = 60, readonly now: Date = new Date()) {}
}

@QueryHandler(GetMarketHistory)
export class GetMarketHistoryHandler implements IQueryHandler<GetMarketHistory, Candle[]> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ market, minutes, now }: GetMarketHistory): Promise<Candle[]> {
    const m = await marketBySymbol(this.db, market);
    // Text comparison of timestamps is exact only for one spelling; a minute's slack, then the pure cut by instant.
    const from = new Date(historyWindowStart(now, minutes) - 60_000).toISOString();
    const trades: TradePrint[] = await this.db.reader.query(
      this.db.sql('SELECT price, size, executed_at FROM mtf_trades WHERE market_uuid = ? AND executed_at >= ? ORDER BY position'),
      [m.market_uuid, from],
    );
    return minuteCandles(trades, now, minutes);
  }
}

export interface PositionRecord {
  market: string;
  market_uuid: string;
  side: PositionSide;
  /** Absolute size. */
  quantity: string;
  /** > 0 long, < 0 short. */
  signed_quantity: string;
  /** Average entry of the open quantity; null when flat. */
  entry_price: string | null;
  realized_pnl: string;
  updated_at: string;
}

export class ListPositions {
  constructor(readonly principal: Principal, readonly market?: string) {}
}

@QueryHandler(ListPositions)
export class ListPositionsHandler implements IQueryHandler<ListPositions, PositionRecord[]> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, market }: ListPositions): Promise<PositionRecord[]> {
    const params: unknown[] = [principal.profile_uuid];
    let filter = '';
    if (market !== undefined) {
      filter = ' AND m.market_symbol = ?';
      params.push(market);
    }
    const rows: Array<PositionRow & { market_symbol: string | null }> = await this.db.reader.query(
      this.db.sql(`SELECT p.*, m.market_symbol FROM mtf_positions p LEFT JOIN mtf_markets m ON m.market_uuid = p.market_uuid WHERE p.profile_uuid = ?${filter} ORDER BY m.market_symbol, p.market_uuid`),
      params,
    );
    // The same record as the positions topic carries, with the market's symbol first.
    return rows.map((r) => ({ market: r.market_symbol ?? r.market_uuid, ...positionView(r) }));
  }
}

/** Register in the trading module's providers. */
export const TRADING_READ_PROVIDERS: Provider[] = [GetOrderMetaHandler, GetTradeMetaHandler, GetOrderBookHandler, GetMarketHistoryHandler, ListPositionsHandler];
