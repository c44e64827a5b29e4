/** Order placement and the order list. The matching engine takes NEW orders from here (next step of issue 4). */
import { CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { createHash } from 'node:crypto';
import type { Principal } from '../../platform/auth/principal';
import { CommandExecutor } from '../../platform/command/command-executor';
import { CreditsGate } from '../../platform/credits/credits-gate';
import { nextId } from '../../platform/context/request-context';
import { ValidationFailed } from '../../platform/errors';
import { rawPage, rawPageAfter } from '../../platform/http/pagination';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { acceptedOrderRow, type OrderRow } from '../../../projections/trading-orders/trading-orders.read-model';
import { formatDecimal, parseDecimal } from '../../platform/decimal/fixed18';
import { ORDER_WIRE_COLUMNS, OrderWireCache, type OrderWireRow } from '../../../projections/trading-orders/order-wire';
import { marketBySymbol } from './reads';
import { marketDecider, marketStream } from './domain/market';
import { orderDecider, orderStream, type OrderPlacement } from './domain/order';
import type { PlaceMtfOrderRequest } from './dto/order.dto';

const derived = (label: string, value: string): string => createHash('sha256').update(`${label}:${value}`).digest('hex').slice(0, 32);
/** A 32-hex id as a hyphenated UUID (the seeds' form for order_group and event_manager_id). */
export const asUuid = (hex: string): string => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** What any placement API asks for, in the engine's terms (the MTF and canonical shapes both map to it). */
export type OrderSpec = { market_symbol: string } & Pick<
  OrderPlacement,
  'direction' | 'order_type' | 'time_in_force' | 'post_only' | 'reduce_only' | 'order_size' | 'limit_price' | 'trigger_price' | 'external_ref' | 'channel' | 'leverage' | 'client_reference' | 'reporting_identifier'
> & { trigger_source?: OrderPlacement['trigger_source'] };

/** The MTF shape: a null limit price is a market order; the three 0/1 flags. */
export function mtfOrderSpec(r: PlaceMtfOrderRequest): OrderSpec {
  if (r.fill_or_kill === 1 && r.immediate_or_cancel === 1) {
    throw new ValidationFailed('An order is fill-or-kill or immediate-or-cancel, not both.', [{ field: 'fill_or_kill', issue: 'cannot be combined with immediate_or_cancel' }]);
  }
  return {
    market_symbol: r.market,
    direction: r.direction,
    order_type: r.limit_price === null ? 'MARKET' : 'LIMIT',
    time_in_force: r.fill_or_kill === 1 ? 'FOK' : r.immediate_or_cancel === 1 ? 'IOC' : 'GTC',
    post_only: r.book_or_cancel === 1,
    reduce_only: false,
    order_size: r.order_size,
    limit_price: r.limit_price,
    trigger_price: null,
    external_ref: r.external_ref,
    channel: 'MTF',
    leverage: null,
    client_reference: null,
    reporting_identifier: null,
  };
}

export class PlaceOrder {
  constructor(readonly principal: Principal, readonly spec: OrderSpec) {}
}

/** The new order's list row, plus what only the canonical answer shows. */
export type PlacedOrder = OrderRow & Pick<OrderPlacement, 'leverage' | 'client_reference' | 'reporting_identifier' | 'trigger_source'>;

@CommandHandler(PlaceOrder)
export class PlaceOrderHandler implements ICommandHandler<PlaceOrder, PlacedOrder> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly db: ReadModelDatabase,
    private readonly credits: CreditsGate,
  ) {}

  async execute({ principal, spec }: PlaceOrder): Promise<PlacedOrder> {
    const { market_uuid } = await marketBySymbol(this.db, spec.market_symbol);
    // An accepted order is billable usage (docs/billing.md): a tenant out of credits gets 402 CREDITS_REQUIRED, except
    // for a reduce-only order (closing a position): running out of credits must never trap anyone in a position.
    if (!spec.reduce_only) await this.credits.require({ tenant_uuid: principal.tenant_uuid, usage: 'OrderAccepted' });
    // The market's own stream, not the read model, decides whether it accepts orders right now.
    const market = await this.commands.load(marketStream(market_uuid), marketDecider);
    const d = market.state.definition!;
    const order_uuid = nextId();
    const exact = (v: string | null): string | null => (v === null ? null : formatDecimal(parseDecimal(v)));
    const placement: OrderPlacement = {
      order_uuid,
      profile_uuid: principal.profile_uuid,
      tenant_uuid: principal.tenant_uuid,
      market_uuid: d.market_uuid,
      market_id: d.market_id,
      market_symbol: d.market_symbol,
      base_currency: d.base_currency,
      direction: spec.direction,
      order_type: spec.order_type,
      time_in_force: spec.time_in_force,
      post_only: spec.post_only,
      reduce_only: spec.reduce_only,
      order_size: formatDecimal(parseDecimal(spec.order_size)),
      limit_price: exact(spec.limit_price),
      trigger_price: exact(spec.trigger_price),
      // Only when asked: orders without it keep OrderAccepted's shape (and the market's default applies).
      ...(spec.trigger_source ? { trigger_source: spec.trigger_source } : {}),
      external_ref: spec.external_ref,
      order_group: asUuid(nextId()),
      vault_uuid: derived('vault', principal.profile_uuid),
      liquidity_pool: derived('pool', d.market_uuid),
      channel: spec.channel,
      leverage: spec.leverage,
      client_reference: spec.client_reference,
      reporting_identifier: spec.reporting_identifier,
    };
    const outcome = await this.commands.execute(orderStream(order_uuid), orderDecider, { kind: 'PlaceOrder', placement, market: market.state }, { newStream: true });
    const at = outcome.events[0].occurred_at!;
    const { leverage, client_reference, reporting_identifier } = placement;
    return { ...acceptedOrderRow(placement, at, outcome.position ?? 0n), leverage, client_reference, reporting_identifier, trigger_source: placement.trigger_source ?? null };
  }
}

export class ListOrders {
  constructor(readonly principal: Principal, readonly filters: { market?: string; status?: string }, readonly limit: number, readonly cursor?: string) {}
}

/** A page of the caller's orders: each the Order record's JSON (UTF-8), newest first. */
export interface OrderPage {
  orders: Buffer[];
  next_cursor?: string;
}

/**
 * The records the last pages hold, in bytes at most (least recently answered go first). The records are mostly the
 * rendered ones the wire cache holds anyway; the controller keeps one body per page kept, as much again.
 */
const LAST_PAGES_BYTES = 16 * 1024 * 1024;

/** A page kept: the keys text it was made from, and the read models' version the text was read at (null: unknown). */
interface LastPage {
  text: string;
  page: OrderPage;
  bytes: number;
  version: number | null;
}

@QueryHandler(ListOrders)
export class ListOrdersHandler implements IQueryHandler<ListOrders, OrderPage> {
  private readonly rendered = new OrderWireCache();
  /**
   * The last page answered per caller, list, filters, cursor and size, with the keys text it was made from. The page
   * is a function of that text (each order's id, row version and position; the cursor from the last position), so an
   * equal text read from the database again means an equal page: exact across nodes, like the rendered records. And
   * the text is a function of the read models, so while their version (ReadModelDatabase.readerVersion) is the one
   * the text was read at, it is not read again.
   */
  private readonly lastPages = new Map<string, LastPage>();
  private lastPagesBytes = 0;

  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, filters, limit, cursor }: ListOrders): Promise<OrderPage> {
    const where = ['profile_uuid = ?'];
    const params: unknown[] = [principal.profile_uuid];
    if (filters.market) {
      where.push('market_symbol = ?');
      params.push(filters.market);
    }
    if (filters.status) {
      where.push('status = ?');
      params.push(filters.status);
    }
    // The cursor is only valid with the filters it was issued for.
    const scope = `${filters.market ?? ''}|${filters.status ?? ''}`;
    const before = rawPageAfter(cursor, scope);
    if (before) {
      where.push('position < ?');
      params.push(before);
    }
    // A client polling while nothing was committed to the read models gets the page put together last time (SQLite:
    // one pragma instead of the index scan below).
    const memoKey = `${principal.profile_uuid}|${scope}|${before ?? ''}|${limit}`;
    const version = this.db.readerVersion();
    const last = this.lastPages.get(memoKey);
    if (last !== undefined && version !== null && last.version === version) return this.touch(memoKey, last).page;
    // The page's keys and versions first (from the covering index, as one text: a hundred row objects cost several
    // times the index scan); whole rows only for orders not rendered at their current version. The aggregate's own
    // ORDER BY would sort the page again in a temporary B-tree (40% of the query); the keys are sorted here instead,
    // since neither database promises to concatenate in the subquery's order.
    const concat = this.db.isPostgres ? 'string_agg' : 'group_concat';
    const [{ page: text }]: Array<{ page: string | null }> = await this.db.reader.query(
      this.db.sql(
        `SELECT ${concat}(order_uuid || ':' || wire_version || ':' || position, ',') AS page ` +
          `FROM (SELECT order_uuid, wire_version, position FROM mtf_orders WHERE ${where.join(' AND ')} ORDER BY position DESC LIMIT ?) k`,
      ),
      [...params, limit + 1],
    );
    // A client polling an unchanged list gets the same keys and versions again: the page put together last time.
    if (last !== undefined && last.text === text) {
      last.version = version;
      return this.touch(memoKey, last).page;
    }
    const keys = pageKeys(text);
    const { rows: page, next_cursor } = rawPage(keys, limit, (k) => k.position, scope);
    // One cache lookup per order; only the orders not rendered at their current version are read whole.
    const cached = page.map((k) => this.rendered.get(k.order_uuid, k.wire_version));
    const stale = page.filter((_, i) => cached[i] === undefined).map((k) => k.order_uuid);
    const fresh = new Map<string, Buffer>();
    for (let i = 0; i < stale.length; i += 500) {
      const ids = stale.slice(i, i + 500);
      const rows: Array<OrderWireRow & { wire_version: number }> = await this.db.reader.query(
        this.db.sql(`SELECT ${ORDER_WIRE_COLUMNS.join(', ')}, wire_version FROM mtf_orders WHERE order_uuid IN (${ids.map(() => '?').join(', ')})`),
        ids,
      );
      for (const row of rows) fresh.set(row.order_uuid, this.rendered.render({ ...row, wire_version: Number(row.wire_version) }));
    }
    // A stale row changed again between the two reads shows its newer rendering.
    const orders = page.map((k, i) => cached[i] ?? fresh.get(k.order_uuid)!);
    const answer: OrderPage = { orders, ...(next_cursor ? { next_cursor } : {}) };
    if (text !== null) this.remember(memoKey, text, answer, version);
    return answer;
  }

  /** Marks a kept page as the most recently answered. */
  private touch(key: string, last: LastPage): LastPage {
    this.lastPages.delete(key);
    this.lastPages.set(key, last);
    return last;
  }

  private remember(key: string, text: string, page: OrderPage, version: number | null): void {
    this.forget(key);
    const bytes = page.orders.reduce((n, order) => n + order.length, text.length);
    if (bytes > LAST_PAGES_BYTES) return;
    this.lastPages.set(key, { text, page, bytes, version });
    this.lastPagesBytes += bytes;
    while (this.lastPagesBytes > LAST_PAGES_BYTES) this.forget(this.lastPages.keys().next().value as string);
  }

  private forget(key: string): void {
    const entry = this.lastPages.get(key);
    if (entry === undefined) return;
    this.lastPages.delete(key);
    this.lastPagesBytes -= entry.bytes;
  }
}

/**
 * The order list's page keys from the aggregated `order_uuid:wire_version:position` text, newest first. Positions are
 * zero-padded to one width, so text order is numeric order.
 */
export function pageKeys(text: string | null): Array<{ order_uuid: string; wire_version: number; position: string }> {
  const keys = (text ? text.split(',') : []).map((key) => {
    const a = key.indexOf(':');
    const b = key.indexOf(':', a + 1);
    return { order_uuid: key.slice(0, a), wire_version: Number(key.slice(a + 1, b)), position: key.slice(b + 1) };
  });
  return keys.sort((x, y) => (x.position < y.position ? 1 : x.position > y.position ? -1 : 0));
}
