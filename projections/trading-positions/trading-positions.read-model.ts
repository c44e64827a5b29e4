/** Each account's net position per market, from the trades it was a party to (maker or taker). */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { TradeExecutedData } from '../../src/modules/trading/domain/engine-events';
import { formatDecimal, parseDecimal } from '../../src/platform/decimal/fixed18';
import { applyFill, FLAT, positionSide, type Position, type PositionSide } from '../../src/modules/trading/domain/position';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';

/** Decimal strings with 18 fractional digits; quantity and realized_pnl signed. */
export interface PositionRow {
  profile_uuid: string;
  market_uuid: string;
  quantity: string;
  entry_price: string;
  realized_pnl: string;
  trades: number;
  updated_at: string;
}

export class TradingPositions1764000002300 implements MigrationInterface {
  name = 'TradingPositions1764000002300';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string) => ({ name, type: 'varchar', length });
    await q.createTable(
      new Table({
        name: 'mtf_positions',
        columns: [
          { name: 'profile_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'market_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('quantity', '64'),
          text('entry_price', '64'),
          text('realized_pnl', '80'),
          { name: 'trades', type: 'integer' },
          text('updated_at', '40'),
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('mtf_positions');
  }
}

/** The positions' outbox (src/platform/outbox): each change of a position, for Kafka. */
export class TradingPositionsOutbox1764000014050 implements MigrationInterface {
  name = 'TradingPositionsOutbox1764000014050';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_mtf_positions');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_mtf_positions');
  }
}

const signed = { allowSign: true } as const;

/** A position as GET /positions shows it, without the market's symbol (the trading-markets read model's). */
export interface PositionView {
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

export function positionView(row: PositionRow): PositionView {
  const quantity = parseDecimal(row.quantity, signed);
  return {
    market_uuid: row.market_uuid,
    side: positionSide(quantity),
    quantity: formatDecimal(quantity < 0n ? -quantity : quantity),
    signed_quantity: formatDecimal(quantity),
    entry_price: quantity === 0n ? null : formatDecimal(parseDecimal(row.entry_price)),
    realized_pnl: formatDecimal(parseDecimal(row.realized_pnl, signed)),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

const positionChange = (row: PositionRow) => ({ key: `${row.profile_uuid}:${row.market_uuid}`, value: positionView(row), headers: { profile_uuid: row.profile_uuid } });

export class TradingPositionsProjector implements Projector, PublishingProjector {
  readonly name = 'trading-positions';
  readonly handles = ['TradeExecuted'] as const;
  readonly outbox = new ProjectionOutbox('trading-positions', 'outbox_mtf_positions', {
    title: 'Position (value of platform.projections.trading-positions)',
    key: '`<profile_uuid>:<market_uuid>`: the account (header profile_uuid) and the market',
    description: 'One account\'s net position in one market, after each trade it was a party to, as GET /api/v1/trading/positions shows it.',
    component: 'Position',
    omit: { market: "the market's symbol, which is the markets read model's: join on market_uuid (MarketCreated on the trading events topic)" },
    headers: { profile_uuid: 'the account whose position it is' },
  });
  readonly published: PublishedTable<PositionRow> = { table: 'mtf_positions', key: ['profile_uuid', 'market_uuid'], change: positionChange };

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const d = event.data as unknown as TradeExecutedData;
    const price = parseDecimal(d.price);
    const size = parseDecimal(d.size);
    await this.fill(tx, event, d.taker_profile_uuid, d.market_uuid, d.taker_side, price, size, event.occurred_at);
    await this.fill(tx, event, d.maker_profile_uuid, d.market_uuid, d.taker_side === 'BUY' ? 'SELL' : 'BUY', price, size, event.occurred_at);
  }

  private async fill(tx: EntityManager, event: RecordedEvent, profile: string, market: string, side: 'BUY' | 'SELL', price: bigint, size: bigint, at: string): Promise<void> {
    const found: PositionRow[] = await tx.query(portableSql(tx, 'SELECT * FROM mtf_positions WHERE profile_uuid = ? AND market_uuid = ?'), [profile, market]);
    const before: Position = found.length === 0
      ? FLAT
      : { quantity: parseDecimal(found[0].quantity, signed), entry_price: parseDecimal(found[0].entry_price), realized_pnl: parseDecimal(found[0].realized_pnl, signed) };
    const after = applyFill(before, side, price, size);
    const values = [formatDecimal(after.quantity), formatDecimal(after.entry_price), formatDecimal(after.realized_pnl)];
    if (found.length === 0) {
      await tx.query(
        portableSql(tx, 'INSERT INTO mtf_positions (profile_uuid, market_uuid, quantity, entry_price, realized_pnl, trades, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?)'),
        [profile, market, ...values, at],
      );
    } else {
      await tx.query(
        portableSql(tx, 'UPDATE mtf_positions SET quantity = ?, entry_price = ?, realized_pnl = ?, trades = trades + 1, updated_at = ? WHERE profile_uuid = ? AND market_uuid = ?'),
        [...values, at, profile, market],
      );
    }
    const [quantity, entry_price, realized_pnl] = values;
    const row: PositionRow = { profile_uuid: profile, market_uuid: market, quantity, entry_price, realized_pnl, trades: (found[0]?.trades ?? 0) + 1, updated_at: at };
    await this.outbox.put(tx, { ...positionChange(row), position: event.position, event_id: event.event_id });
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM mtf_positions');
  }
}

export const tradingPositionsReadModel: ReadModelDefinition = {
  name: 'trading-positions',
  entities: [],
  migrations: [TradingPositions1764000002300, TradingPositionsOutbox1764000014050],
  projector: TradingPositionsProjector,
};
