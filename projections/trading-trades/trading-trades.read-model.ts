/** Every trade the matching engines executed: one row per TradeExecuted (trade records, depth of history, candles). */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { TradeExecutedData } from '../../src/modules/trading/domain/engine-events';

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

export class TradingTradesProjector implements Projector {
  readonly name = 'trading-trades';
  readonly handles = ['TradeExecuted'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const d = event.data as unknown as TradeExecutedData;
    await tx.query(
      portableSql(
        tx,
        `INSERT INTO mtf_trades (trade_uuid, market_uuid, price, size, taker_side, maker_order_uuid, taker_order_uuid, maker_profile_uuid, taker_profile_uuid, executed_at, position)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      [
        d.trade_uuid, d.market_uuid, d.price, d.size, d.taker_side, d.maker_order_uuid, d.taker_order_uuid, d.maker_profile_uuid, d.taker_profile_uuid,
        event.occurred_at, event.position.toString().padStart(20, '0'),
      ],
    );
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM mtf_trades');
  }
}

export const tradingTradesReadModel: ReadModelDefinition = {
  name: 'trading-trades',
  entities: [],
  migrations: [TradingTrades1764000002200],
  projector: TradingTradesProjector,
};
