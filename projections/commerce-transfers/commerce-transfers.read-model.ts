/**
 * Transfers as the API shows them (without `actions`): the transfer, where it stands, its envelope's manifest, its
 * governance binding, and of a compliance cancellation only the reason code and the evidence's commitment (the
 * evidence itself stays sealed in the log). Also the recipient key directory.
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, readRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { RecipientKeyCore, RecipientKeyEvent, RecipientKeyStatus } from '../../src/modules/commerce/domain/recipient-key';
import { transferAfter, transferOpened, type TransferCore, type TransferEvent, type TransferState } from '../../src/modules/commerce/domain/transfer';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';

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

/** The transfers' outbox (src/platform/outbox): each change of a transfer row, as its record, for Kafka. */
export class CommerceTransfersOutbox1764000014400 implements MigrationInterface {
  name = 'CommerceTransfersOutbox1764000014400';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_commerce_transfers');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_commerce_transfers');
  }
}

/**
 * A transfer as the API shows it, without `actions` (the Transfer component's members, in its order): what the
 * transfer queries add the actions to, and what the topic publishes. Nothing in it is personal: the envelope is the
 * manifest of commitments (the travel-rule payload, with the originator's and beneficiary's details, is encrypted for
 * the receiving institution and never reaches the platform), and of a compliance cancellation only the reason code
 * and the evidence's commitment are kept (the evidence stays sealed in the log). Typed as the record: a member added
 * to it must be added here.
 */
export function transferRecord(r: TransferRecord): TransferRecord {
  return {
    transfer_uuid: r.transfer_uuid, merchant_uuid: r.merchant_uuid, workspace_uuid: r.workspace_uuid, tenant_uuid: r.tenant_uuid, source_wallet_uuid: r.source_wallet_uuid,
    network_id: r.network_id, asset: r.asset, amount: r.amount, destination: r.destination, envelope_required: r.envelope_required, travel_rule_threshold: r.travel_rule_threshold,
    governance_required: r.governance_required, state: r.state, version: r.version, screening_reference: r.screening_reference, envelope: r.envelope, governance: r.governance,
    transaction_reference: r.transaction_reference, failure_code: r.failure_code, cancellation: r.cancellation, funds_movement_available: r.funds_movement_available,
    requested_by_profile_uuid: r.requested_by_profile_uuid, created: r.created, updated: r.updated,
  };
}

const transferHeaders = (r: TransferRecord) => ({ merchant_uuid: r.merchant_uuid, workspace_uuid: r.workspace_uuid, tenant_uuid: r.tenant_uuid });

/**
 * Transfers and the recipient key directory. With Kafka on, every change of a transfer row also goes to the outbox,
 * keyed by transfer_uuid (the key directory has no topic).
 */
export class CommerceTransfersProjector implements Projector, PublishingProjector {
  readonly name = 'commerce-transfers';
  readonly outbox = new ProjectionOutbox('commerce-transfers', 'outbox_commerce_transfers', {
    title: 'Transfer (value of platform.projections.commerce-transfers)',
    key: "the value's transfer_uuid",
    description:
      "One outbound transfer of a merchant's settled funds as GET /api/v1/transfers/{transfer_uuid} shows it: where it stands (screening, travel-rule envelope, governance, rail), its version raised by every move. envelope is the manifest of commitments only: the travel-rule payload itself is encrypted for the receiving institution and never reaches the platform. Of a compliance cancellation, the reason code and the evidence's commitment (the evidence stays sealed in the log). No funds move (funds_movement_available is always false).",
    component: 'Transfer',
    omit: { actions: 'what the caller may do now: depends on who asks' },
    headers: { merchant_uuid: 'the merchant whose funds the transfer pays out', workspace_uuid: "the merchant's workspace", tenant_uuid: "the workspace's tenant (its compliance officers review the transfer)" },
  });
  readonly published: PublishedTable<{ record: string }> = {
    table: 'commerce_transfers',
    key: 'transfer_uuid',
    columns: 'transfer_uuid, record',
    change: (row) => {
      const r = JSON.parse(row.record) as TransferRecord;
      return { key: r.transfer_uuid, value: transferRecord(r), headers: transferHeaders(r) };
    },
  };
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
      await this.publish(tx, event, this.outbox.enabled ? await readRecord(tx, TRANSFERS, e.data.transfer.transfer_uuid) : null);
      return;
    }
    await this.publish(tx, event, await patchRecord(tx, TRANSFERS, e.data.transfer_uuid, (r) => recordOf(transferAfter(stateOf(r), e))));
  }

  /** The transfer row's new state into the outbox (Kafka on; no row: nothing). */
  private async publish(tx: EntityManager, event: RecordedEvent, after: TransferRecord | null): Promise<void> {
    if (!after || !this.outbox.enabled) return;
    await this.outbox.put(tx, { key: after.transfer_uuid, value: transferRecord(after), position: event.position, event_id: event.event_id, headers: transferHeaders(after) });
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['commerce_recipient_keys', 'commerce_transfers']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const commerceTransfersReadModel: ReadModelDefinition = {
  name: 'commerce-transfers',
  entities: [],
  migrations: [CommerceTransfers1764000011500, CommerceTransfersOutbox1764000014400],
  projector: CommerceTransfersProjector,
};
