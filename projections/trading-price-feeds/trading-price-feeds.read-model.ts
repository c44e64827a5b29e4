/**
 * Price feeds and providers as the API lists them: each feed's definition, the latest quote of each source and the
 * last computed value (folded with the feed decider's own `evolve`); which feeds each provider's symbol feeds (to
 * route a pushed quote); the providers (never their key hash).
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import { insertRecord, patchRecord, readRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { priceFeedDecider, type PriceFeedEvent, type PriceFeedState, type PriceProviderEvent } from '../../src/modules/trading/domain/price-feed';

export interface FeedRow {
  feed_id: string;
  state: PriceFeedState;
}
export const FEEDS: JsonRecordTable<FeedRow> = { table: 'mtf_price_feeds', key: 'feed_id', columns: [] };

export interface ProviderRow {
  provider_uuid: string;
  name: string;
  created_at: string;
}
export const PROVIDERS: JsonRecordTable<ProviderRow> = { table: 'mtf_price_providers', key: 'provider_uuid', columns: ['name'] };

export class TradingPriceFeeds1764000012100 implements MigrationInterface {
  name = 'TradingPriceFeeds1764000012100';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string) => ({ name, type: 'varchar', length });
    await q.createTable(new Table({ name: 'mtf_price_feeds', columns: [{ ...text('feed_id', '32'), isPrimary: true }, text('position', '20'), { name: 'record', type: 'text' }] }));
    await q.createTable(
      new Table({ name: 'mtf_price_feed_sources', columns: [{ ...text('provider_uuid', '32'), isPrimary: true }, { ...text('provider_symbol', '64'), isPrimary: true }, { ...text('feed_id', '32'), isPrimary: true }] }),
    );
    await q.createTable(new Table({ name: 'mtf_price_providers', columns: [{ ...text('provider_uuid', '32'), isPrimary: true }, text('name', '120'), text('position', '20'), { name: 'record', type: 'text' }] }));
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['mtf_price_providers', 'mtf_price_feed_sources', 'mtf_price_feeds']) await q.dropTable(t);
  }
}

export class TradingPriceFeedsProjector implements Projector {
  readonly name = 'trading-price-feeds';
  readonly handles = ['PriceFeedCreated', 'PriceFeedValueComputed', 'PriceProviderRegistered'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const position = event.position.toString().padStart(20, '0');
    if (event.type === 'PriceProviderRegistered') {
      const d = (event as unknown as PriceProviderEvent).data;
      await insertRecord(tx, PROVIDERS, { provider_uuid: d.provider_uuid, name: d.name, created_at: d.at }, { position });
      return;
    }
    const e = { type: event.type, data: event.data } as unknown as PriceFeedEvent;
    const feed_id = event.stream.slice('mtf-price-feed-'.length);
    const before = await readRecord(tx, FEEDS, feed_id);
    if (before && BigInt(before.state.version) >= event.revision) return;
    const state = priceFeedDecider.evolve(before?.state ?? priceFeedDecider.initialState(), e);
    if (before) await patchRecord(tx, FEEDS, feed_id, () => ({ state }));
    else await insertRecord(tx, FEEDS, { feed_id, state }, { position });
    if (e.type === 'PriceFeedCreated') {
      for (const s of e.data.feed.sources) {
        await tx.query(portableSql(tx, 'INSERT INTO mtf_price_feed_sources (provider_uuid, provider_symbol, feed_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'), [s.provider_uuid, s.provider_symbol, feed_id]);
      }
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['mtf_price_feeds', 'mtf_price_feed_sources', 'mtf_price_providers']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const tradingPriceFeedsReadModel: ReadModelDefinition = {
  name: 'trading-price-feeds',
  entities: [],
  migrations: [TradingPriceFeeds1764000012100],
  projector: TradingPriceFeedsProjector,
};
