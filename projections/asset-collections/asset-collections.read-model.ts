/**
 * Asset collections as the catalogue lists them (AssetCollectionSummary) with their metadata: one row per collection,
 * a lower-cased search column (name, description, category) so `q` matches the same rows on SQLite and PostgreSQL.
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { CollectionCore, CollectionEvent, CollectionStatus } from '../../src/modules/asset-collections/domain/collection';

export interface CollectionRecord extends CollectionCore {
  status: CollectionStatus;
  updated_at: string;
  version: number;
  search_text: string;
}
export const COLLECTIONS: JsonRecordTable<CollectionRecord> = { table: 'asset_collections', key: 'collection_uuid', columns: ['status', 'search_text'] };

export class AssetCollections1764000011900 implements MigrationInterface {
  name = 'AssetCollections1764000011900';
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'asset_collections',
        columns: [
          { name: 'collection_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'search_text', type: 'text' },
          { name: 'position', type: 'varchar', length: '20' },
          { name: 'record', type: 'text' },
        ],
        indices: [{ name: 'idx_asset_collections_status', columnNames: ['status', 'position'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('asset_collections');
  }
}

export class AssetCollectionsProjector implements Projector {
  readonly name = 'asset-collections';
  readonly handles = ['AssetCollectionRegistered', 'AssetCollectionStatusChanged'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const e = { type: event.type, data: event.data } as CollectionEvent;
    if (e.type === 'AssetCollectionRegistered') {
      const c = e.data.collection;
      const search_text = [c.name, c.description, c.category_code].join('\n').toLowerCase();
      await insertRecord(tx, COLLECTIONS, { ...c, status: 'DRAFT', updated_at: c.created_at, version: 0, search_text }, { position: event.position.toString().padStart(20, '0') });
      return;
    }
    const d = e.data;
    await patchRecord(tx, COLLECTIONS, d.collection_uuid, (r) => (r.version >= Number(event.revision) ? {} : { status: d.to, updated_at: d.at, version: Number(event.revision) }));
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM asset_collections');
  }
}

export const assetCollectionsReadModel: ReadModelDefinition = {
  name: 'asset-collections',
  entities: [],
  migrations: [AssetCollections1764000011900],
  projector: AssetCollectionsProjector,
};
