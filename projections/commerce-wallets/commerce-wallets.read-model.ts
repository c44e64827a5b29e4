/** Commerce wallets (watch-only) as the API shows them (without `actions`): pool counts, never a key. */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { WalletCore, WalletEvent, WalletStatus } from '../../src/modules/commerce/domain/wallet';

export interface WalletRecord extends WalletCore {
  status: WalletStatus;
  version: number;
  updated: string;
  /** ROTATIONAL: fresh addresses left, and how many invoices took one. */
  addresses_available: number;
  addresses_allocated: number;
  /** Always true: the platform holds no key of a commerce wallet. */
  watch_only: true;
}

export const WALLETS: JsonRecordTable<WalletRecord> = { table: 'commerce_wallets', key: 'wallet_uuid', columns: ['wallet_type', 'workspace_uuid', 'merchant_uuid', 'network_id', 'status'] };

export class CommerceWallets1764000011300 implements MigrationInterface {
  name = 'CommerceWallets1764000011300';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'commerce_wallets',
        columns: [
          { name: 'wallet_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('wallet_type', '16'),
          text('workspace_uuid', '32'),
          text('merchant_uuid', '32', true),
          text('network_id', '40'),
          text('status', '16'),
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [
          { name: 'idx_commerce_wallets_workspace', columnNames: ['workspace_uuid', 'network_id', 'position'] },
          { name: 'idx_commerce_wallets_merchant', columnNames: ['merchant_uuid', 'network_id', 'position'] },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('commerce_wallets');
  }
}

export class CommerceWalletsProjector implements Projector {
  readonly name = 'commerce-wallets';
  readonly handles = ['CommerceWalletRegistered', 'CommerceWalletAddressesAdded', 'CommerceWalletAddressAllocated', 'CommerceWalletRetired'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const e = { type: event.type, data: event.data } as WalletEvent;
    switch (e.type) {
      case 'CommerceWalletRegistered': {
        const w = e.data.wallet;
        const record: WalletRecord = { ...w, status: 'ACTIVE', version: 0, updated: w.created, addresses_available: e.data.addresses.length, addresses_allocated: 0, watch_only: true };
        await insertRecord(tx, WALLETS, record, { position: event.position.toString().padStart(20, '0') });
        return;
      }
      case 'CommerceWalletAddressesAdded': {
        const d = e.data;
        await patchRecord(tx, WALLETS, d.wallet_uuid, (r) => ({ version: r.version + 1, updated: d.at, addresses_available: r.addresses_available + d.addresses.length }));
        return;
      }
      case 'CommerceWalletAddressAllocated': {
        const d = e.data;
        await patchRecord(tx, WALLETS, d.wallet_uuid, (r) => ({ version: r.version + 1, updated: d.at, addresses_available: r.addresses_available - 1, addresses_allocated: r.addresses_allocated + 1 }));
        return;
      }
      case 'CommerceWalletRetired':
        await patchRecord(tx, WALLETS, e.data.wallet_uuid, (r) => ({ status: 'RETIRED' as const, version: r.version + 1, updated: e.data.at }));
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM commerce_wallets');
  }
}

export const commerceWalletsReadModel: ReadModelDefinition = {
  name: 'commerce-wallets',
  entities: [],
  migrations: [CommerceWallets1764000011300],
  projector: CommerceWalletsProjector,
};
