/** The order list of the MTF endpoints: one row per order, rendered to the seeds' Order record on read. */
import { Table, TableColumn, TableIndex, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { formatDecimal, parseDecimal } from '../../src/platform/decimal/fixed18';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';
import { ORDER_WIRE_COLUMNS, orderWire, type OrderWireRow } from './order-wire';
import type { OrderPlacement } from '../../src/modules/trading/domain/order';
import type {
  OrderCancelledData,
  OrderOpenedData,
  OrderRestedData,
  StopOrderTriggeredData,
  TradeExecutedData,
} from '../../src/modules/trading/domain/engine-events';

export type { OrderRow } from './order-row';
import type { OrderRow } from './order-row';

export class TradingOrders1764000002100 implements MigrationInterface {
  name = 'TradingOrders1764000002100';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, nullable = false) => ({ name, type: 'varchar', length, isNullable: nullable });
    await q.createTable(
      new Table({
        name: 'mtf_orders',
        columns: [
          { name: 'order_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('profile_uuid', '32'),
          text('tenant_uuid', '32'),
          text('market_uuid', '32'),
          text('market_symbol', '64'),
          { name: 'market_id', type: 'integer' },
          text('base_currency', '16'),
          text('direction', '4'),
          text('order_type', '16'),
          text('time_in_force', '4'),
          { name: 'post_only', type: 'integer' },
          text('order_size', '48'),
          text('limit_price', '48', true),
          text('external_ref', '128'),
          text('order_group', '36'),
          text('vault_uuid', '32'),
          text('liquidity_pool', '32'),
          text('status', '16'),
          text('engine_id', '64', true),
          text('order_sequence', '64', true),
          text('cancel_reason', '64', true),
          { name: 'trades', type: 'text' },
          text('created_at', '40'),
          text('updated_at', '40'),
          // Zero-padded global position of the acceptance: newest-first order and keyset cursor.
          text('position', '20'),
        ],
        indices: [
          { name: 'idx_mtf_orders_owner', columnNames: ['profile_uuid', 'position'] },
          { name: 'idx_mtf_orders_owner_status', columnNames: ['profile_uuid', 'status', 'position'] },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('mtf_orders');
  }
}

const ZERO18 = '0.000000000000000000';

/** A change counter per order row: list pages reuse rendered Order records while it is unchanged. */
export class TradingOrdersWireVersion1764000002120 implements MigrationInterface {
  name = 'TradingOrdersWireVersion1764000002120';
  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('mtf_orders', new TableColumn({ name: 'wire_version', type: 'integer', default: 0 }));
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('mtf_orders', 'wire_version');
  }
}

/**
 * The list's page query (a caller's keys and change counters, newest first) answered from the index alone: with the
 * counter and id in the index, a page of 100 no longer looks up 100 wide rows (about a third of a list request).
 */
export class TradingOrdersListIndex1764000009400 implements MigrationInterface {
  name = 'TradingOrdersListIndex1764000009400';
  async up(q: QueryRunner): Promise<void> {
    await q.dropIndex('mtf_orders', 'idx_mtf_orders_owner');
    await q.dropIndex('mtf_orders', 'idx_mtf_orders_owner_status');
    await q.createIndex('mtf_orders', new TableIndex({ name: 'idx_mtf_orders_owner_page', columnNames: ['profile_uuid', 'position', 'order_uuid', 'wire_version'] }));
    await q.createIndex('mtf_orders', new TableIndex({ name: 'idx_mtf_orders_owner_status_page', columnNames: ['profile_uuid', 'status', 'position', 'order_uuid', 'wire_version'] }));
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('mtf_orders', 'idx_mtf_orders_owner_status_page');
    await q.dropIndex('mtf_orders', 'idx_mtf_orders_owner_page');
    await q.createIndex('mtf_orders', new TableIndex({ name: 'idx_mtf_orders_owner', columnNames: ['profile_uuid', 'position'] }));
    await q.createIndex('mtf_orders', new TableIndex({ name: 'idx_mtf_orders_owner_status', columnNames: ['profile_uuid', 'status', 'position'] }));
  }
}

/** What the matching engine decides about an order: fills, book presence, the placement's newer fields. */
export class TradingOrdersEngineState1764000002110 implements MigrationInterface {
  name = 'TradingOrdersEngineState1764000002110';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, options: { nullable?: boolean; default?: string } = {}) =>
      new TableColumn({ name, type: 'varchar', length, isNullable: options.nullable ?? false, ...(options.default !== undefined ? { default: `'${options.default}'` } : {}) });
    const flag = (name: string) => new TableColumn({ name, type: 'integer', default: 0 });
    // Defaults let existing rows (all NEW: nothing matched before the engine) take the columns.
    await q.addColumns('mtf_orders', [
      text('trigger_price', '48', { nullable: true }),
      flag('reduce_only'),
      text('channel', '16', { default: 'MTF' }),
      text('filled', '48', { default: ZERO18 }),
      text('remaining', '48', { default: ZERO18 }),
      flag('in_book'),
      text('book_price', '48', { nullable: true }),
      flag('cancel_requested'),
      text('triggered_at', '40', { nullable: true }),
    ]);
    await q.query('UPDATE mtf_orders SET remaining = order_size');
    await q.createIndex('mtf_orders', new TableIndex({ name: 'idx_mtf_orders_book', columnNames: ['market_uuid', 'in_book'] }));
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('mtf_orders', 'idx_mtf_orders_book');
    for (const c of ['triggered_at', 'cancel_requested', 'book_price', 'in_book', 'remaining', 'filled', 'channel', 'reduce_only', 'trigger_price']) await q.dropColumn('mtf_orders', c);
  }
}

/** The order list's outbox (src/platform/outbox): each change of an order row, as its Order record, for Kafka. */
export class TradingOrdersOutbox1764000009100 implements MigrationInterface {
  name = 'TradingOrdersOutbox1764000009100';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_mtf_orders');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_mtf_orders');
  }
}

/**
 * The row of a just-accepted order. OrderAccepted events stored before the placement grew trigger_price,
 * reduce_only and channel lack them: missing reads as null / false / 'MTF'.
 */
export function acceptedOrderRow(p: Partial<OrderPlacement> & Pick<OrderPlacement, 'order_uuid' | 'order_size'>, occurredAt: string, position: bigint): OrderRow {
  return {
    order_uuid: p.order_uuid,
    profile_uuid: p.profile_uuid!,
    tenant_uuid: p.tenant_uuid!,
    market_uuid: p.market_uuid!,
    market_symbol: p.market_symbol!,
    market_id: p.market_id!,
    base_currency: p.base_currency!,
    direction: p.direction!,
    order_type: p.order_type ?? (p.limit_price == null ? 'MARKET' : 'LIMIT'),
    time_in_force: p.time_in_force ?? 'GTC',
    post_only: p.post_only ? 1 : 0,
    order_size: p.order_size,
    limit_price: p.limit_price ?? null,
    external_ref: p.external_ref!,
    order_group: p.order_group!,
    vault_uuid: p.vault_uuid!,
    liquidity_pool: p.liquidity_pool!,
    status: 'NEW',
    engine_id: null,
    order_sequence: null,
    cancel_reason: null,
    trades: '[]',
    created_at: occurredAt,
    updated_at: occurredAt,
    position: position.toString().padStart(20, '0'),
    trigger_price: p.trigger_price ?? null,
    reduce_only: p.reduce_only ? 1 : 0,
    channel: p.channel ?? 'MTF',
    filled: ZERO18,
    remaining: p.order_size,
    in_book: 0,
    book_price: null,
    cancel_requested: 0,
    triggered_at: null,
    wire_version: 0,
  };
}

const ROW_COLUMNS = Object.keys(acceptedOrderRow({ order_uuid: '', order_size: '' }, '', 0n)) as Array<keyof OrderRow>;
/** Rows of one multi-row INSERT at most (SQLite binds up to 32,766 parameters; about 30 columns a row). */
const INSERT_ROWS = 200;
const INSERT_ORDER = `INSERT INTO mtf_orders (${ROW_COLUMNS.join(', ')}) VALUES (${ROW_COLUMNS.map(() => '?').join(', ')})`;
/** What a published order row carries: the Order record's columns and the owner (headers). */
const PUBLISHED_COLUMNS = [...ORDER_WIRE_COLUMNS, 'profile_uuid', 'tenant_uuid'].join(', ');
const SELECT_PUBLISHED = `SELECT ${PUBLISHED_COLUMNS} FROM mtf_orders WHERE order_uuid = ?`;

/**
 * Accepted orders (order streams) and what the market's engine decided about them (engine streams). With Kafka on,
 * every change of a row also goes to the outbox as the order's Order record (what the order list shows), keyed by
 * order_uuid, with the owner in the headers.
 */
export class TradingOrdersProjector implements Projector, PublishingProjector {
  readonly name = 'trading-orders';
  readonly handles = ['OrderAccepted', 'OrderCancelRequested', 'OrderOpened', 'StopOrderTriggered', 'TradeExecuted', 'OrderFilled', 'OrderCancelled', 'OrderRested'] as const;
  readonly outbox = new ProjectionOutbox('trading-orders', 'outbox_mtf_orders', {
    title: 'Order record (value of platform.projections.trading-orders)',
    description: 'One order of the order list as GET /api/v1/api/v1/mtf/orders shows it (the seeds\' Order record, members in this order); the owner is in the headers, not the record.',
    component: 'Order',
    key: "the value's order_uuid",
    headers: { profile_uuid: 'the account that placed the order', tenant_uuid: 'the tenant the order was placed under' },
  });
  readonly published: PublishedTable<OrderWireRow & { profile_uuid: string; tenant_uuid: string }> = {
    table: 'mtf_orders',
    key: 'order_uuid',
    columns: PUBLISHED_COLUMNS,
    change: (row) => ({ key: row.order_uuid, value: orderWire(row), headers: { profile_uuid: row.profile_uuid, tenant_uuid: row.tenant_uuid } }),
  };

  /**
   * A batch with fewer statements where it changes nothing seen (Kafka off: no outbox row per change): the orders
   * accepted in a row go in by one INSERT, and an order opened and rested by one engine decision (the two events side by
   * side) is updated once. Everything else, and everything with Kafka on, as `apply` does it, event by event.
   */
  async applyBatch(events: RecordedEvent[], tx: EntityManager): Promise<void> {
    if (this.outbox.enabled) {
      for (const event of events) await this.apply(event, tx);
      return;
    }
    for (let i = 0; i < events.length; ) {
      const event = events[i];
      if (event.type === 'OrderAccepted') {
        let end = i;
        while (end < events.length && events[end].type === 'OrderAccepted' && end - i < INSERT_ROWS) end++;
        await this.insertAccepted(events.slice(i, end), tx);
        i = end;
        continue;
      }
      const next = events[i + 1];
      if (event.type === 'OrderOpened' && next?.type === 'OrderRested' && next.data.order_uuid === event.data.order_uuid) {
        const opened = event.data as unknown as OrderOpenedData;
        const rested = next.data as unknown as OrderRestedData;
        await tx.query(
          portableSql(tx, "UPDATE mtf_orders SET status = 'OPEN', engine_id = ?, order_sequence = ?, in_book = 1, book_price = ?, remaining = ?, updated_at = ?, wire_version = wire_version + 2 WHERE order_uuid = ?"),
          [opened.engine_id, opened.order_sequence, rested.price, rested.remaining, next.occurred_at, opened.order_uuid],
        );
        i += 2;
        continue;
      }
      await this.apply(event, tx);
      i += 1;
    }
  }

  /** Accepted orders in one multi-row INSERT (rows as `apply` makes them). */
  private async insertAccepted(events: RecordedEvent[], tx: EntityManager): Promise<void> {
    const rows = events.map((e) => acceptedOrderRow(e.data as unknown as OrderPlacement, e.occurred_at, e.position));
    const one = `(${ROW_COLUMNS.map(() => '?').join(', ')})`;
    await tx.query(
      portableSql(tx, `INSERT INTO mtf_orders (${ROW_COLUMNS.join(', ')}) VALUES ${rows.map(() => one).join(', ')}`),
      rows.flatMap((row) => ROW_COLUMNS.map((c) => row[c])),
    );
  }

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const at = event.occurred_at;
    const update = async (set: string, params: unknown[], orderUuid: string) => {
      await tx.query(portableSql(tx, `UPDATE mtf_orders SET ${set}, updated_at = ?, wire_version = wire_version + 1 WHERE order_uuid = ?`), [...params, at, orderUuid]);
      await this.publish(tx, event, orderUuid);
    };
    switch (event.type) {
      case 'OrderAccepted': {
        const row = acceptedOrderRow(event.data as unknown as OrderPlacement, at, event.position);
        await tx.query(portableSql(tx, INSERT_ORDER), ROW_COLUMNS.map((c) => row[c]));
        await this.publish(tx, event, row.order_uuid, row);
        return;
      }
      case 'OrderCancelRequested':
        await update('cancel_requested = 1', [], String(event.data.order_uuid));
        return;
      case 'OrderOpened': {
        const d = event.data as unknown as OrderOpenedData;
        await update("status = 'OPEN', engine_id = ?, order_sequence = ?", [d.engine_id, d.order_sequence], d.order_uuid);
        return;
      }
      case 'StopOrderTriggered': {
        const d = event.data as unknown as StopOrderTriggeredData;
        await update('triggered_at = ?', [at], d.order_uuid);
        return;
      }
      case 'TradeExecuted': {
        const d = event.data as unknown as TradeExecutedData;
        if (await this.fill(tx, d.maker_order_uuid, d, d.maker_remaining, at)) await this.publish(tx, event, d.maker_order_uuid);
        if (await this.fill(tx, d.taker_order_uuid, d, d.taker_remaining, at)) await this.publish(tx, event, d.taker_order_uuid);
        return;
      }
      case 'OrderFilled':
        await update("status = 'FILLED', in_book = 0", [], String(event.data.order_uuid));
        return;
      case 'OrderCancelled': {
        const d = event.data as unknown as OrderCancelledData;
        await update("status = 'CANCELLED', cancel_reason = ?, in_book = 0", [d.cancel_reason], d.order_uuid);
        return;
      }
      case 'OrderRested': {
        const d = event.data as unknown as OrderRestedData;
        await update('in_book = 1, book_price = ?, remaining = ?', [d.price, d.remaining], d.order_uuid);
        return;
      }
    }
  }

  /** The row's new state into the outbox (Kafka on): read back after the change, or the row just inserted. */
  private async publish(tx: EntityManager, event: RecordedEvent, orderUuid: string, inserted?: OrderRow): Promise<void> {
    if (!this.outbox.enabled) return;
    let row: (OrderWireRow & { profile_uuid: string; tenant_uuid: string }) | undefined = inserted;
    if (!row) [row] = (await tx.query(portableSql(tx, SELECT_PUBLISHED), [orderUuid])) as Array<OrderWireRow & { profile_uuid: string; tenant_uuid: string }>;
    if (!row) return;
    await this.outbox.put(tx, { key: orderUuid, value: orderWire(row), position: event.position, event_id: event.event_id, headers: { profile_uuid: row.profile_uuid, tenant_uuid: row.tenant_uuid } });
  }

  /** One side of a trade: `filled` accumulates exactly (fixed18), `remaining` is the engine's. False: nothing changed. */
  private async fill(tx: EntityManager, orderUuid: string, d: TradeExecutedData, remaining: string, at: string): Promise<boolean> {
    const found: Array<{ filled: string; trades: string }> = await tx.query(portableSql(tx, 'SELECT filled, trades FROM mtf_orders WHERE order_uuid = ?'), [orderUuid]);
    if (found.length === 0) return false;
    const trades = JSON.parse(found[0].trades) as string[];
    if (trades.includes(d.trade_uuid)) return false;
    trades.push(d.trade_uuid);
    const filled = formatDecimal(parseDecimal(found[0].filled) + parseDecimal(d.size));
    await tx.query(portableSql(tx, 'UPDATE mtf_orders SET trades = ?, filled = ?, remaining = ?, updated_at = ?, wire_version = wire_version + 1 WHERE order_uuid = ?'), [JSON.stringify(trades), filled, remaining, at, orderUuid]);
    return true;
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM mtf_orders');
  }
}

export const tradingOrdersReadModel: ReadModelDefinition = {
  name: 'trading-orders',
  entities: [],
  migrations: [TradingOrders1764000002100, TradingOrdersEngineState1764000002110, TradingOrdersWireVersion1764000002120, TradingOrdersOutbox1764000009100, TradingOrdersListIndex1764000009400],
  projector: TradingOrdersProjector,
};
