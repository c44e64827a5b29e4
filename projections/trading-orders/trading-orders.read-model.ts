/** The order list of the MTF endpoints: one row per order, rendered to the seeds' Order record on read. */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';

export interface OrderRow {
  order_uuid: string;
  profile_uuid: string;
  tenant_uuid: string;
  market_uuid: string;
  market_symbol: string;
  market_id: number;
  base_currency: string;
  direction: string;
  order_type: string;
  time_in_force: string;
  post_only: number;
  order_size: string;
  limit_price: string | null;
  external_ref: string;
  order_group: string;
  vault_uuid: string;
  liquidity_pool: string;
  status: string;
  engine_id: string | null;
  order_sequence: string | null;
  cancel_reason: string | null;
  trades: string;
  created_at: string;
  updated_at: string;
  position: string;
}

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

export class TradingOrdersProjector implements Projector {
  readonly name = 'trading-orders';
  readonly handles = ['OrderAccepted'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const d = event.data as Record<string, string | number | boolean | null>;
    await tx.query(
      portableSql(
        tx,
        `INSERT INTO mtf_orders (order_uuid, profile_uuid, tenant_uuid, market_uuid, market_symbol, market_id, base_currency, direction, order_type, time_in_force, post_only,
           order_size, limit_price, external_ref, order_group, vault_uuid, liquidity_pool, status, trades, created_at, updated_at, position)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'NEW', '[]', ?, ?, ?)`,
      ),
      [
        d.order_uuid, d.profile_uuid, d.tenant_uuid, d.market_uuid, d.market_symbol, d.market_id, d.base_currency, d.direction, d.order_type, d.time_in_force, d.post_only ? 1 : 0,
        d.order_size, d.limit_price, d.external_ref, d.order_group, d.vault_uuid, d.liquidity_pool, event.occurred_at, event.occurred_at, event.position.toString().padStart(20, '0'),
      ],
    );
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM mtf_orders');
  }
}

export const tradingOrdersReadModel: ReadModelDefinition = {
  name: 'trading-orders',
  entities: [],
  migrations: [TradingOrders1764000002100],
  projector: TradingOrdersProjector,
};
