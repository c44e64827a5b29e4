/** Commerce merchants as the API shows them (without `actions`, which the query adds), with a search column for `q`. */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { MerchantCore, MerchantEvent, MerchantStatus, MerchantTransition } from '../../src/modules/commerce/domain/merchant';

export interface MerchantRecord extends MerchantCore {
  status: MerchantStatus;
  version: number;
  updated: string;
  last_review: { transition: MerchantTransition; by_profile_uuid: string; review_reference: string | null; reason_code: string | null; at: string } | null;
}

export const MERCHANTS: JsonRecordTable<MerchantRecord> = { table: 'commerce_merchants', key: 'merchant_uuid', columns: ['workspace_uuid', 'tenant_uuid', 'status'] };

/** Lower-cased text `q` searches: name, description, category. */
export const merchantSearchText = (m: MerchantCore): string => `${m.display_name}\n${m.description}\n${m.category_code}`.toLowerCase();

export class CommerceMerchants1764000011000 implements MigrationInterface {
  name = 'CommerceMerchants1764000011000';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'commerce_merchants',
        columns: [
          { name: 'merchant_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('workspace_uuid', '32'),
          text('tenant_uuid', '32'),
          text('status', '20'),
          { name: 'search_text', type: 'text' },
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [{ name: 'idx_commerce_merchants_workspace', columnNames: ['workspace_uuid', 'position'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('commerce_merchants');
  }
}

export class CommerceMerchantsProjector implements Projector {
  readonly name = 'commerce-merchants';
  readonly handles = ['CommerceMerchantCreated', 'CommerceMerchantReviewed'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const e = { type: event.type, data: event.data } as MerchantEvent;
    if (e.type === 'CommerceMerchantCreated') {
      const m = e.data.merchant;
      const record: MerchantRecord = { ...m, status: 'PENDING_REVIEW', version: 0, updated: m.created, last_review: null };
      await insertRecord(tx, MERCHANTS, record, { search_text: merchantSearchText(m), position: event.position.toString().padStart(20, '0') });
      return;
    }
    const d = e.data;
    await patchRecord(tx, MERCHANTS, d.merchant_uuid, (r) => ({
      status: d.to,
      version: r.version + 1,
      updated: d.at,
      last_review: { transition: d.transition, by_profile_uuid: d.by_profile_uuid, review_reference: d.review_reference, reason_code: d.reason_code, at: d.at },
    }));
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM commerce_merchants');
  }
}

export const commerceMerchantsReadModel: ReadModelDefinition = {
  name: 'commerce-merchants',
  entities: [],
  migrations: [CommerceMerchants1764000011000],
  projector: CommerceMerchantsProjector,
};
