/** The merchants' catalogue: products as the API shows them (without `actions`), with a search column for `q`. */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { ProductCore, ProductEvent, ProductStatus } from '../../src/modules/commerce/domain/product';

export interface ProductRecord extends ProductCore {
  status: ProductStatus;
  version: number;
  updated: string;
}

export const PRODUCTS: JsonRecordTable<ProductRecord> = { table: 'commerce_products', key: 'product_uuid', columns: ['merchant_uuid', 'workspace_uuid', 'status'] };

export const productSearchText = (p: ProductCore): string => `${p.name}\n${p.description}\n${p.sku ?? ''}`.toLowerCase();

export class CommerceProducts1764000011100 implements MigrationInterface {
  name = 'CommerceProducts1764000011100';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'commerce_products',
        columns: [
          { name: 'product_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('merchant_uuid', '32'),
          text('workspace_uuid', '32'),
          text('status', '20'),
          { name: 'search_text', type: 'text' },
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [{ name: 'idx_commerce_products_merchant', columnNames: ['merchant_uuid', 'position'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('commerce_products');
  }
}

export class CommerceProductsProjector implements Projector {
  readonly name = 'commerce-products';
  readonly handles = ['CommerceProductCreated', 'CommerceProductChanged'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const e = { type: event.type, data: event.data } as ProductEvent;
    if (e.type === 'CommerceProductCreated') {
      const p = e.data.product;
      await insertRecord(tx, PRODUCTS, { ...p, status: 'DRAFT', version: 0, updated: p.created }, { search_text: productSearchText(p), position: event.position.toString().padStart(20, '0') });
      return;
    }
    const d = e.data;
    await patchRecord(tx, PRODUCTS, d.product_uuid, (r) => ({ status: d.to, version: r.version + 1, updated: d.at }));
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM commerce_products');
  }
}

export const commerceProductsReadModel: ReadModelDefinition = {
  name: 'commerce-products',
  entities: [],
  migrations: [CommerceProducts1764000011100],
  projector: CommerceProductsProjector,
};
