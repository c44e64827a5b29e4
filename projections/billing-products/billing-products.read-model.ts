/** The billing product catalogue (docs/billing.md): products on sale, and the retired ones kept for their subscriptions. */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { BillingProduct, CatalogEvent } from '../../src/modules/billing/domain/catalog';

export interface ProductRecord extends BillingProduct {
  retired: boolean;
}
export const BILLING_PRODUCTS: JsonRecordTable<ProductRecord> = { table: 'billing_products', key: 'code', columns: ['product_type', 'retired'] };

export class BillingProducts1764000011700 implements MigrationInterface {
  name = 'BillingProducts1764000011700';
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'billing_products',
        columns: [
          { name: 'code', type: 'varchar', length: '40', isPrimary: true },
          { name: 'product_type', type: 'varchar', length: '8' },
          { name: 'retired', type: 'varchar', length: '8' },
          { name: 'position', type: 'varchar', length: '20' },
          { name: 'record', type: 'text' },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('billing_products');
  }
}

export class BillingProductsProjector implements Projector {
  readonly name = 'billing-products';
  readonly handles = ['BillingProductDefined', 'BillingProductRetired'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const e = { type: event.type, data: event.data } as CatalogEvent;
    if (e.type === 'BillingProductDefined') await insertRecord(tx, BILLING_PRODUCTS, { ...e.data.product, retired: false }, { position: event.position.toString().padStart(20, '0') });
    else await patchRecord(tx, BILLING_PRODUCTS, e.data.code, () => ({ retired: true }));
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM billing_products');
  }
}

export const billingProductsReadModel: ReadModelDefinition = {
  name: 'billing-products',
  entities: [],
  migrations: [BillingProducts1764000011700],
  projector: BillingProductsProjector,
};
