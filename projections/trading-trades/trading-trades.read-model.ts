/** Every trade the matching engines executed: one row per TradeExecuted (trade records, depth of history, candles). */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { TradeExecutedData } from '../../src/modules/trading/domain/engine-events';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';
import { formatDecimal, parseDecimal } from '../../src/platform/decimal/fixed18';

export interface TradeRow {
  trade_uuid: string;
  market_uuid: string;
  price: string;
  size: string;
  taker_side: string;
  maker_order_uuid: string;
  taker_order_uuid: string;
  maker_profile_uuid: string;
  taker_profile_uuid: string;
  /** The event's occurred_at (RFC 3339). */
  executed_at: string;
  /** Zero-padded global position of the TradeExecuted event: execution order within and across markets. */
  position: string;
}

export class TradingTrades1764000002200 implements MigrationInterface {
  name = 'TradingTrades1764000002200';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string) => ({ name, type: 'varchar', length });
    await q.createTable(
      new Table({
        name: 'mtf_trades',
        columns: [
          { name: 'trade_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('market_uuid', '32'),
          text('price', '48'),
          text('size', '48'),
          text('taker_side', '4'),
          text('maker_order_uuid', '32'),
          text('taker_order_uuid', '32'),
          text('maker_profile_uuid', '32'),
          text('taker_profile_uuid', '32'),
          text('executed_at', '40'),
          text('position', '20'),
        ],
        indices: [
          { name: 'idx_mtf_trades_market_time', columnNames: ['market_uuid', 'executed_at'] },
          { name: 'idx_mtf_trades_maker_order', columnNames: ['maker_order_uuid'] },
          { name: 'idx_mtf_trades_taker_order', columnNames: ['taker_order_uuid'] },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('mtf_trades');
  }
}

/** The trades' outbox (src/platform/outbox): each executed trade, for Kafka. */
export class TradingTradesOutbox1764000014000 implements MigrationInterface {
  name = 'TradingTradesOutbox1764000014000';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_mtf_trades');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_mtf_trades');
  }
}

/** A trade as its topic carries it: both of its orders, neither party's point of view (docs/kafka.md). */
export interface TradeView {
  trade_uuid: string;
  market_uuid: string;
  price: string;
  size: string;
  taker_side: string;
  maker_order_uuid: string;
  taker_order_uuid: string;
  executed_at: string;
  position: string;
}

export function tradeView(row: TradeRow): TradeView {
  return {
    trade_uuid: row.trade_uuid,
    market_uuid: row.market_uuid,
    price: formatDecimal(parseDecimal(row.price)),
    size: formatDecimal(parseDecimal(row.size)),
    taker_side: row.taker_side,
    maker_order_uuid: row.maker_order_uuid,
    taker_order_uuid: row.taker_order_uuid,
    executed_at: new Date(row.executed_at).toISOString(),
    position: BigInt(row.position).toString(),
  };
}

const tradeChange = (row: TradeRow) => ({ key: row.trade_uuid, value: tradeView(row), headers: { maker_profile_uuid: row.maker_profile_uuid, taker_profile_uuid: row.taker_profile_uuid } });

export class TradingTradesProjector implements Projector, PublishingProjector {
  readonly name = 'trading-trades';
  readonly handles = ['TradeExecuted'] as const;
  readonly outbox = new ProjectionOutbox('trading-trades', 'outbox_mtf_trades', {
    // No API record: the API shows a trade to one of its parties (OrderFill: its side, role and order), so this
    // party-neutral record's schema is written by hand.
    title: 'Trade (value of platform.projections.trading-trades)',
    key: "the value's trade_uuid",
    description: 'One trade a matching engine executed (a TradeExecuted event): the public tape plus both orders.',
    headers: { maker_profile_uuid: 'the account whose resting order was filled', taker_profile_uuid: 'the account whose incoming order filled it' },
  });
  readonly published: PublishedTable<TradeRow> = { table: 'mtf_trades', key: 'trade_uuid', change: tradeChange };

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const d = event.data as unknown as TradeExecutedData;
    const row: TradeRow = {
      trade_uuid: d.trade_uuid, market_uuid: d.market_uuid, price: d.price, size: d.size, taker_side: d.taker_side, maker_order_uuid: d.maker_order_uuid, taker_order_uuid: d.taker_order_uuid,
      maker_profile_uuid: d.maker_profile_uuid, taker_profile_uuid: d.taker_profile_uuid, executed_at: event.occurred_at, position: event.position.toString().padStart(20, '0'),
    };
    await tx.query(
      portableSql(
        tx,
        `INSERT INTO mtf_trades (trade_uuid, market_uuid, price, size, taker_side, maker_order_uuid, taker_order_uuid, maker_profile_uuid, taker_profile_uuid, executed_at, position)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      [row.trade_uuid, row.market_uuid, row.price, row.size, row.taker_side, row.maker_order_uuid, row.taker_order_uuid, row.maker_profile_uuid, row.taker_profile_uuid, row.executed_at, row.position],
    );
    await this.outbox.put(tx, { ...tradeChange(row), position: event.position, event_id: event.event_id });
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM mtf_trades');
  }
}

export const tradingTradesReadModel: ReadModelDefinition = {
  name: 'trading-trades',
  entities: [],
  migrations: [TradingTrades1764000002200, TradingTradesOutbox1764000014000],
  projector: TradingTradesProjector,
};
