/** Markets as the MTF endpoints list them. */
import { Table, TableColumn, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { decimalPlaces, type MarketDefinition } from '../../src/modules/trading/domain/market';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';

/** The market's reference prices where a feed is bound (null otherwise), as its engine last decided them. */
export interface MarketPriceColumns {
  price_feed_id: string | null;
  stop_trigger_source: string | null;
  mark_basis_window_ms: number | null;
  price_feed_status: string | null;
  index_price: string | null;
  index_at: string | null;
  mark_price: string | null;
}

/** The market's definition as stored, flags as 0/1 integers (SQLite binds no booleans). */
export type MarketRow = Omit<MarketDefinition, 'market_type'> & {
  market_type: string;
  is_suspended: number;
  is_cancel_only: number;
  is_maker_only: number;
  version: number;
  updated_at: string;
} & MarketPriceColumns;

export class TradingMarkets1764000002000 implements MigrationInterface {
  name = 'TradingMarkets1764000002000';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length = '64') => ({ name, type: 'varchar', length });
    await q.createTable(
      new Table({
        name: 'mtf_markets',
        columns: [
          { name: 'market_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'market_id', type: 'integer', isUnique: true },
          text('market_symbol'),
          text('instrument_isin'),
          text('market_type', '16'),
          text('contract_size', '48'),
          text('mininum_quantity', '48'),
          text('minimum_execution_quantity', '48'),
          text('operating_mic', '8'),
          text('segment_mic', '8'),
          text('price_currency', '16'),
          text('quote_currency', '16'),
          text('base_currency', '16'),
          text('tick_size', '48'),
          { name: 'is_suspended', type: 'integer' },
          { name: 'is_cancel_only', type: 'integer' },
          { name: 'is_maker_only', type: 'integer' },
          { name: 'version', type: 'integer' },
          text('updated_at', '40'),
        ],
        indices: [{ name: 'idx_mtf_markets_symbol', columnNames: ['market_symbol'], isUnique: true }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('mtf_markets');
  }
}

/** A market's largest order quantity (issue 18): null for markets created before it, and for markets without one. */
export class TradingMarketsMaximumQuantity1764000009810 implements MigrationInterface {
  name = 'TradingMarketsMaximumQuantity1764000009810';
  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('mtf_markets', new TableColumn({ name: 'maximum_quantity', type: 'varchar', length: '48', isNullable: true }));
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('mtf_markets', 'maximum_quantity');
  }
}

/** A market's price feed binding and the index and mark prices its engine decides (issue 27). */
export class TradingMarketsPriceFeed1764000012700 implements MigrationInterface {
  name = 'TradingMarketsPriceFeed1764000012700';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string) => new TableColumn({ name, type: 'varchar', length, isNullable: true });
    await q.addColumns('mtf_markets', [
      text('price_feed_id', '32'),
      text('stop_trigger_source', '16'),
      new TableColumn({ name: 'mark_basis_window_ms', type: 'integer', isNullable: true }),
      text('price_feed_status', '8'),
      text('index_price', '48'),
      text('index_at', '40'),
      text('mark_price', '48'),
    ]);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const c of ['mark_price', 'index_at', 'index_price', 'price_feed_status', 'mark_basis_window_ms', 'stop_trigger_source', 'price_feed_id']) await q.dropColumn('mtf_markets', c);
  }
}

/** The markets' outbox (src/platform/outbox): each change of a market, for Kafka. */
export class TradingMarketsOutbox1764000015000 implements MigrationInterface {
  name = 'TradingMarketsOutbox1764000015000';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_mtf_markets');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_mtf_markets');
  }
}

/**
 * The seeds' Market, members in the seeds' (alphabetical) order; quantities are JSON numbers there. Beside the
 * seeds' fields, what a client needs to place a valid order without trial and error: `tick_size` (limit and trigger
 * prices are multiples of it), `lot_size` (quantities are multiples of it: the contract size), `maximum_quantity`
 * (null: none), and `price_precision` / `quantity_precision` (fractional digits of tick and lot size). And the
 * reference prices where a feed is bound (docs/trading.md, "Mark price"): `price_feed_id`, `price_feed_status` (LIVE,
 * or STALE: no index and no mark, mark and index stops hold; STALE too until the first value), `index_price`,
 * `mark_price` (decimal strings), `mark_basis_window_ms` and `stop_trigger_source`; a market without a feed triggers
 * stops on the last price and its record has none of them. The API's markets and the trading-markets topic both
 * show a market as this record.
 */
export function marketWire(r: MarketRow): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    contract_size: Number(r.contract_size),
    expiration_date: null,
    index_price: r.index_price ?? null,
    instrument_isin: r.instrument_isin,
    is_cancel_only: r.is_cancel_only === 1,
    is_maker_only: r.is_maker_only === 1,
    is_suspended: r.is_suspended === 1,
    lot_size: Number(r.contract_size),
    mark_basis_window_ms: r.mark_basis_window_ms === null || r.mark_basis_window_ms === undefined ? null : Number(r.mark_basis_window_ms),
    mark_price: r.mark_price ?? null,
    market_id: r.market_id,
    market_symbol: r.market_symbol,
    market_type: r.market_type,
    market_uuid: r.market_uuid,
    maximum_quantity: r.maximum_quantity === null ? null : Number(r.maximum_quantity),
    minimum_execution_quantity: Number(r.minimum_execution_quantity),
    mininum_quantity: Number(r.mininum_quantity),
    operating_mic: r.operating_mic,
    price_currency: r.price_currency,
    price_feed_id: r.price_feed_id ?? null,
    price_feed_status: r.price_feed_id ? (r.price_feed_status ?? 'STALE') : null,
    price_precision: decimalPlaces(r.tick_size),
    quantity_precision: decimalPlaces(r.contract_size),
    quote_currency: r.quote_currency,
    segment_mic: r.segment_mic,
    stop_trigger_source: r.stop_trigger_source ?? 'LAST_PRICE',
    tick_size: Number(r.tick_size),
  };
  // A market without a feed keeps the record as it was: the reference-price fields appear where a feed is bound.
  if (!r.price_feed_id) for (const key of FEED_FIELDS) delete wire[key];
  return wire;
}

const FEED_FIELDS = ['index_price', 'mark_basis_window_ms', 'mark_price', 'price_feed_id', 'price_feed_status', 'stop_trigger_source'] as const;

const marketChange = (row: MarketRow) => ({ key: row.market_uuid, value: marketWire(row) });

const flag = (v: unknown): number => (v ? 1 : 0);

export class TradingMarketsProjector implements Projector, PublishingProjector {
  readonly name = 'trading-markets';
  readonly handles = ['MarketCreated', 'MarketFlagsChanged', 'MarketPriceFeedBound', 'IndexPriceUpdated', 'MarkPriceUpdated'] as const;
  readonly outbox = new ProjectionOutbox('trading-markets', 'outbox_mtf_markets', {
    title: 'Market (value of platform.projections.trading-markets)',
    key: "the value's market_uuid",
    description:
      'A market as GET /api/v1/api/v1/mtf/markets lists it (the entry under its market_symbol), after every change: created, flags changed, price feed bound, and every ' +
      'index and mark price update of its feed. A market with a bound feed therefore has many messages (one per index or mark price its engine decides); compaction keeps ' +
      "the newest. The trading-trades topic's market_uuid joins here (for the market_symbol).",
    component: 'Market',
  });
  readonly published: PublishedTable<MarketRow> = { table: 'mtf_markets', key: 'market_uuid', change: marketChange };

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const market_uuid = await this.write(event, tx);
    if (!this.outbox.enabled) return;
    const [row] = (await tx.query(portableSql(tx, 'SELECT * FROM mtf_markets WHERE market_uuid = ?'), [market_uuid])) as MarketRow[];
    if (row) await this.outbox.put(tx, { ...marketChange(row), position: event.position, event_id: event.event_id });
  }

  /** Writes the event's change of its market row; gives the market's uuid. */
  private async write(event: RecordedEvent, tx: EntityManager): Promise<string> {
    const d = event.data as Record<string, string | number | boolean>;
    if (event.type === 'MarketCreated') {
      await tx.query(
        portableSql(
          tx,
          `INSERT INTO mtf_markets (market_uuid, market_id, market_symbol, instrument_isin, market_type, contract_size, mininum_quantity, minimum_execution_quantity,
             operating_mic, segment_mic, price_currency, quote_currency, base_currency, tick_size, maximum_quantity, is_suspended, is_cancel_only, is_maker_only, version, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ),
        [
          d.market_uuid, d.market_id, d.market_symbol, d.instrument_isin, d.market_type, d.contract_size, d.mininum_quantity, d.minimum_execution_quantity,
          d.operating_mic, d.segment_mic, d.price_currency, d.quote_currency, d.base_currency, d.tick_size, d.maximum_quantity ?? null, flag(d.is_suspended), flag(d.is_cancel_only), flag(d.is_maker_only),
          Number(event.revision), event.occurred_at,
        ],
      );
      return String(d.market_uuid);
    }
    if (event.type === 'MarketPriceFeedBound') {
      // Another feed: its index is not known until the engine's first tick of it.
      const keep = (c: string) => `${c} = CASE WHEN price_feed_id = ? THEN ${c} ELSE NULL END`;
      await tx.query(
        portableSql(
          tx,
          `UPDATE mtf_markets SET ${['price_feed_status', 'index_price', 'index_at', 'mark_price'].map(keep).join(', ')},
             price_feed_id = ?, stop_trigger_source = ?, mark_basis_window_ms = ?, version = ?, updated_at = ? WHERE market_uuid = ?`,
        ),
        [d.feed_id, d.feed_id, d.feed_id, d.feed_id, d.feed_id, d.stop_trigger_source, d.mark_basis_window_ms, Number(event.revision), event.occurred_at, d.market_uuid],
      );
      return String(d.market_uuid);
    }
    if (event.type === 'IndexPriceUpdated') {
      await tx.query(portableSql(tx, 'UPDATE mtf_markets SET price_feed_status = ?, index_price = ?, index_at = ? WHERE market_uuid = ?'), [d.feed_status, d.index_price ?? null, d.at, d.market_uuid]);
      return String(d.market_uuid);
    }
    if (event.type === 'MarkPriceUpdated') {
      await tx.query(portableSql(tx, 'UPDATE mtf_markets SET mark_price = ? WHERE market_uuid = ?'), [d.mark_price ?? null, d.market_uuid]);
      return String(d.market_uuid);
    }
    const market_uuid = event.stream.slice('mtf-market-'.length);
    await tx.query(portableSql(tx, 'UPDATE mtf_markets SET is_suspended = ?, is_cancel_only = ?, is_maker_only = ?, version = ?, updated_at = ? WHERE market_uuid = ?'), [
      flag(d.is_suspended), flag(d.is_cancel_only), flag(d.is_maker_only), Number(event.revision), event.occurred_at, market_uuid,
    ]);
    return market_uuid;
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM mtf_markets');
  }
}

export const tradingMarketsReadModel: ReadModelDefinition = {
  name: 'trading-markets',
  entities: [],
  migrations: [TradingMarkets1764000002000, TradingMarketsMaximumQuantity1764000009810, TradingMarketsPriceFeed1764000012700, TradingMarketsOutbox1764000015000],
  projector: TradingMarketsProjector,
};
