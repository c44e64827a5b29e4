/**
 * Transfers as the API shows them (without `actions`): the transfer, where it stands, its envelope's manifest, its
 * governance binding, and of a compliance cancellation only the reason code and the evidence's commitment (the
 * evidence itself stays sealed in the log). Also the recipient key directory.
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { RecipientKeyCore, RecipientKeyEvent, RecipientKeyStatus } from '../../src/modules/commerce/domain/recipient-key';
import { transferAfter, transferOpened, type TransferCore, type TransferEvent, type TransferState } from '../../src/modules/commerce/domain/transfer';

export type TransferRecord = TransferCore & Omit<TransferState, 'transfer'> & { funds_movement_available: false };
export interface RecipientKeyRecord extends RecipientKeyCore {
  status: RecipientKeyStatus;
  version: number;
  successor_key_id: string | null;
  updated: string;
}

export const TRANSFERS: JsonRecordTable<TransferRecord> = { table: 'commerce_transfers', key: 'transfer_uuid', columns: ['merchant_uuid', 'workspace_uuid', 'tenant_uuid', 'state'] };
export const RECIPIENT_KEYS: JsonRecordTable<RecipientKeyRecord> = { table: 'commerce_recipient_keys', key: 'recipient_key_id', columns: ['status'] };

const recordOf = (s: TransferState): TransferRecord => {
  const { transfer, ...progress } = s;
  return { ...transfer, ...progress, funds_movement_available: false };
};
const stateOf = (r: TransferRecord): TransferState => {
  const { state, version, updated, screening_reference, envelope, governance, transaction_reference, failure_code, cancellation, funds_movement_available: _, ...transfer } = r;
  return { transfer, state, version, updated, screening_reference, envelope, governance, transaction_reference, failure_code, cancellation };
};

export class CommerceTransfers1764000011500 implements MigrationInterface {
  name = 'CommerceTransfers1764000011500';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'commerce_transfers',
        columns: [
          { name: 'transfer_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('merchant_uuid', '32'),
          text('workspace_uuid', '32'),
          text('tenant_uuid', '32'),
          text('state', '24'),
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [
          { name: 'idx_commerce_transfers_workspace', columnNames: ['workspace_uuid', 'position'] },
          { name: 'idx_commerce_transfers_tenant', columnNames: ['tenant_uuid', 'position'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'commerce_recipient_keys',
        columns: [
          { name: 'recipient_key_id', type: 'varchar', length: '32', isPrimary: true },
          text('status', '16'),
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [{ name: 'idx_commerce_recipient_keys_position', columnNames: ['position'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['commerce_recipient_keys', 'commerce_transfers']) await q.dropTable(t);
  }
}

export class CommerceTransfersProjector implements Projector {
  readonly name = 'commerce-transfers';
  readonly handles = [
    'CommerceTransferRequested', 'CommerceTransferScreeningStarted', 'CommerceTransferScreened', 'CommerceTransferEnvelopeAuthorized', 'CommerceTransferGovernanceBound',
    'CommerceTransferGovernanceDecided', 'CommerceTransferSubmitted', 'CommerceTransferConfirmed', 'CommerceTransferFailed', 'CommerceTransferCancelled',
    'CommerceRecipientKeyRegistered', 'CommerceRecipientKeyRetired',
  ] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const position = event.position.toString().padStart(20, '0');
    if (event.type.startsWith('CommerceRecipientKey')) {
      const e = { type: event.type, data: event.data } as unknown as RecipientKeyEvent;
      if (e.type === 'CommerceRecipientKeyRegistered') {
        await insertRecord(tx, RECIPIENT_KEYS, { ...e.data.key, status: 'ACTIVE', version: 0, successor_key_id: null, updated: e.data.key.created }, { position });
      } else {
        const d = e.data;
        await patchRecord(tx, RECIPIENT_KEYS, d.recipient_key_id, (r) => ({ status: 'RETIRED' as const, version: r.version + 1, successor_key_id: d.successor_key_id, updated: d.at }));
      }
      return;
    }
    const e = { type: event.type, data: event.data } as unknown as TransferEvent;
    if (e.type === 'CommerceTransferRequested') {
      await insertRecord(tx, TRANSFERS, recordOf(transferOpened(e.data.transfer)), { position });
      return;
    }
    await patchRecord(tx, TRANSFERS, e.data.transfer_uuid, (r) => recordOf(transferAfter(stateOf(r), e)));
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['commerce_recipient_keys', 'commerce_transfers']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const commerceTransfersReadModel: ReadModelDefinition = {
  name: 'commerce-transfers',
  entities: [],
  migrations: [CommerceTransfers1764000011500],
  projector: CommerceTransfersProjector,
};
