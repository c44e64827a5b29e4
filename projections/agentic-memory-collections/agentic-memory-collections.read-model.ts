/**
 * Agentic memory collections as the API shows them: one row per collection (its settings and current version), its
 * audience (selected workspaces and invited principals, for the catalogue's access filter), every published version
 * (the object ids it holds and its commitment) and every memory object (the owner's record with its private
 * provenance, and its public projection once approved — kept after a withdrawal, so earlier versions stay readable).
 */
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { scrubRecords } from '../../src/platform/privacy/read-model-erasure';
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { projectionOf, type CollectionCore, type CollectionEvent, type MemoryItem } from '../../src/modules/agentic-memory/domain/collection';

export interface CollectionRow {
  collection_uuid: string;
  tenant_uuid: string;
  workspace_uuid: string;
  slug: string | null;
  access_mode: string;
  discovery_mode: string;
  category: string;
  version: number;
  commitment: string;
  projection_count: number;
  /** Zero-padded position of the creation: catalogue order. */
  position: string;
  updated_at: string;
  /** CollectionCore (JSON), settings as they are now. */
  record: string;
}

export interface VersionRow {
  collection_uuid: string;
  version: number;
  commitment: string;
  /** JSON array of the object ids the version holds, in canonical order. */
  object_uuids: string;
  published_at: string;
}

export interface ItemRow {
  object_uuid: string;
  collection_uuid: string;
  state: string;
  position: string;
  updated_at: string;
  /** MemoryItem (JSON): the owner's view. */
  record: string;
  /** MemoryProjection (JSON) once approved. */
  projection: string | null;
}

export const parseCore = (row: Pick<CollectionRow, 'record'>): CollectionCore => JSON.parse(row.record) as CollectionCore;

export class AgenticMemoryCollections1764000006000 implements MigrationInterface {
  name = 'AgenticMemoryCollections1764000006000';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'agentic_memory_collections',
        columns: [
          { name: 'collection_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('tenant_uuid', '32'),
          text('workspace_uuid', '32'),
          text('slug', '64', true),
          text('access_mode', '24'),
          text('discovery_mode', '16'),
          text('category', '64'),
          { name: 'version', type: 'integer' },
          text('commitment', '64'),
          { name: 'projection_count', type: 'integer' },
          text('position', '20'),
          text('updated_at', '40'),
          { name: 'record', type: 'text' },
        ],
        indices: [
          { name: 'idx_agentic_memory_collections_slug', columnNames: ['tenant_uuid', 'slug'] },
          { name: 'idx_agentic_memory_collections_catalogue', columnNames: ['tenant_uuid', 'discovery_mode', 'position'] },
          { name: 'idx_agentic_memory_collections_workspace', columnNames: ['workspace_uuid', 'position'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'agentic_memory_audience',
        columns: [
          { name: 'collection_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'kind', type: 'varchar', length: '16', isPrimary: true },
          { name: 'reference', type: 'varchar', length: '32', isPrimary: true },
        ],
        indices: [{ name: 'idx_agentic_memory_audience_reference', columnNames: ['kind', 'reference'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'agentic_memory_versions',
        columns: [
          { name: 'collection_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'version', type: 'integer', isPrimary: true },
          text('commitment', '64'),
          { name: 'object_uuids', type: 'text' },
          text('published_at', '40'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'agentic_memory_items',
        columns: [
          { name: 'object_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('collection_uuid', '32'),
          text('state', '16'),
          text('position', '20'),
          text('updated_at', '40'),
          { name: 'record', type: 'text' },
          { name: 'projection', type: 'text', isNullable: true },
        ],
        indices: [{ name: 'idx_agentic_memory_items_collection', columnNames: ['collection_uuid', 'state', 'position'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['agentic_memory_items', 'agentic_memory_versions', 'agentic_memory_audience', 'agentic_memory_collections']) await q.dropTable(t);
  }
}

export class AgenticMemoryCollectionsProjector implements Projector {
  readonly name = 'agentic-memory-collections';
  readonly handles = [
    'AgenticMemoryCollectionCreated', 'AgenticMemoryCollectionUpdated', 'AgenticMemoryVersionPublished', 'AgenticMemoryItemAdded', 'AgenticMemoryItemApproved',
    'AgenticMemoryItemRejected', 'AgenticMemoryItemWithdrawn', 'AccountErased',
  ] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    if (event.type === 'AccountErased') {
      // What the erased person brought in privately (source id, payload) and the review reasons they wrote; the
      // approved projections (the collection's published knowledge) hold none of it and stay.
      const profile = String(event.data.profile_uuid);
      await scrubRecords<MemoryItem & Record<string, unknown>>(tx, { table: 'agentic_memory_items', key: 'object_uuid' }, profile, (r) => {
        const next = { ...r };
        if (r.submitted_by.reference === profile) {
          if (r.source_id !== null) next.source_id = ERASED_TEXT;
          if (r.payload !== null) next.payload = {};
        }
        if (r.reviewed_by_profile_uuid === profile && r.review_reason !== null) next.review_reason = ERASED_TEXT;
        return JSON.stringify(next) === JSON.stringify(r) ? null : next;
      });
      return;
    }
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    const position = event.position.toString().padStart(20, '0');
    const e = { type: event.type, data: event.data } as unknown as CollectionEvent;
    switch (e.type) {
      case 'AgenticMemoryCollectionCreated': {
        const c = e.data.collection;
        // Version and commitment arrive with AgenticMemoryVersionPublished, in the same append.
        await q(
          `INSERT INTO agentic_memory_collections (collection_uuid, tenant_uuid, workspace_uuid, slug, access_mode, discovery_mode, category, version, commitment, projection_count, position, updated_at, record)
           VALUES (?, ?, ?, ?, ?, ?, ?, 0, '', 0, ?, ?, ?)`,
          [c.collection_uuid, c.tenant_uuid, c.workspace_uuid, c.slug, c.access_mode, c.discovery_mode, c.category, position, c.created, JSON.stringify(c)],
        );
        await this.audience(q, c.collection_uuid, c.selected_workspaces, c.invited_principals);
        return;
      }
      case 'AgenticMemoryCollectionUpdated': {
        const d = e.data;
        const rows: Array<{ record: string }> = await q('SELECT record FROM agentic_memory_collections WHERE collection_uuid = ?', [d.collection_uuid]);
        if (rows.length === 0) return;
        const record: CollectionCore = { ...(JSON.parse(rows[0].record) as CollectionCore), ...d.settings };
        await q('UPDATE agentic_memory_collections SET access_mode = ?, discovery_mode = ?, category = ?, updated_at = ?, record = ? WHERE collection_uuid = ?', [
          record.access_mode, record.discovery_mode, record.category, d.updated, JSON.stringify(record), d.collection_uuid,
        ]);
        await this.audience(q, d.collection_uuid, record.selected_workspaces, record.invited_principals);
        return;
      }
      case 'AgenticMemoryVersionPublished': {
        const d = e.data;
        await q('INSERT INTO agentic_memory_versions (collection_uuid, version, commitment, object_uuids, published_at) VALUES (?, ?, ?, ?, ?)', [
          d.collection_uuid, d.version, d.commitment, JSON.stringify(d.object_uuids), d.published,
        ]);
        await q('UPDATE agentic_memory_collections SET version = ?, commitment = ?, projection_count = ?, updated_at = ? WHERE collection_uuid = ?', [
          d.version, d.commitment, d.projection_count, d.published, d.collection_uuid,
        ]);
        return;
      }
      case 'AgenticMemoryItemAdded': {
        const i = e.data.item;
        await q('INSERT INTO agentic_memory_items (object_uuid, collection_uuid, state, position, updated_at, record, projection) VALUES (?, ?, ?, ?, ?, ?, NULL)', [
          i.object_uuid, i.collection_uuid, i.state, position, i.created, JSON.stringify(i),
        ]);
        return;
      }
      case 'AgenticMemoryItemApproved':
      case 'AgenticMemoryItemRejected':
      case 'AgenticMemoryItemWithdrawn': {
        const d = e.data;
        const rows: Array<{ record: string }> = await q('SELECT record FROM agentic_memory_items WHERE object_uuid = ?', [d.object_uuid]);
        if (rows.length === 0) return;
        const state = e.type === 'AgenticMemoryItemApproved' ? 'APPROVED' : e.type === 'AgenticMemoryItemRejected' ? 'REJECTED' : 'WITHDRAWN';
        const item: MemoryItem = { ...(JSON.parse(rows[0].record) as MemoryItem), state, reviewed_at: d.reviewed_at, reviewed_by_profile_uuid: d.reviewed_by_profile_uuid, review_reason: d.reason };
        if (state === 'APPROVED') {
          await q('UPDATE agentic_memory_items SET state = ?, updated_at = ?, record = ?, projection = ? WHERE object_uuid = ?', [
            state, d.reviewed_at, JSON.stringify(item), JSON.stringify(projectionOf(item, d.reviewed_at)), d.object_uuid,
          ]);
        } else {
          // A withdrawn object keeps its projection: the versions that hold it still show it.
          await q('UPDATE agentic_memory_items SET state = ?, updated_at = ?, record = ? WHERE object_uuid = ?', [state, d.reviewed_at, JSON.stringify(item), d.object_uuid]);
        }
        return;
      }
    }
  }

  private async audience(q: (sql: string, params: unknown[]) => Promise<unknown>, collection_uuid: string, workspaces: string[], principals: string[]): Promise<void> {
    await q('DELETE FROM agentic_memory_audience WHERE collection_uuid = ?', [collection_uuid]);
    for (const w of workspaces) await q('INSERT INTO agentic_memory_audience (collection_uuid, kind, reference) VALUES (?, ?, ?)', [collection_uuid, 'WORKSPACE', w]);
    for (const p of principals) await q('INSERT INTO agentic_memory_audience (collection_uuid, kind, reference) VALUES (?, ?, ?)', [collection_uuid, 'PRINCIPAL', p]);
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['agentic_memory_items', 'agentic_memory_versions', 'agentic_memory_audience', 'agentic_memory_collections']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const agenticMemoryCollectionsReadModel: ReadModelDefinition = {
  name: 'agentic-memory-collections',
  entities: [],
  migrations: [AgenticMemoryCollections1764000006000],
  projector: AgenticMemoryCollectionsProjector,
};
