/** Settlement intents as the API shows them (without `actions`): state, revision and the latest request_commitment. */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { SettlementChange, SettlementEvent, SettlementIntentCore, SettlementState } from '../../src/modules/commerce/domain/settlement';

export interface SettlementIntentRecord extends SettlementIntentCore {
  state: SettlementState;
  revision: number;
  /** The same as revision: every commerce document has a version. */
  version: number;
  request_commitment: string;
  updated: string;
  transaction_reference: string | null;
  failure_code: string | null;
  reason_code: string | null;
  /** There is no real payment rail here: no funds move (docs/commerce.md). */
  funds_movement_available: false;
}

export const SETTLEMENT_INTENTS: JsonRecordTable<SettlementIntentRecord> = {
  table: 'commerce_settlement_intents',
  key: 'settlement_intent_uuid',
  columns: ['merchant_uuid', 'workspace_uuid', 'network_id', 'asset', 'state'],
};

export class CommerceSettlements1764000011400 implements MigrationInterface {
  name = 'CommerceSettlements1764000011400';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'commerce_settlement_intents',
        columns: [
          { name: 'settlement_intent_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('merchant_uuid', '32'),
          text('workspace_uuid', '32'),
          text('network_id', '40'),
          text('asset', '16'),
          text('state', '16'),
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [
          { name: 'idx_commerce_settlements_workspace', columnNames: ['workspace_uuid', 'position'] },
          { name: 'idx_commerce_settlements_merchant', columnNames: ['merchant_uuid', 'position'] },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('commerce_settlement_intents');
  }
}

export class CommerceSettlementsProjector implements Projector {
  readonly name = 'commerce-settlements';
  readonly handles = ['CommerceSettlementRequested', 'CommerceSettlementApproved', 'CommerceSettlementSubmitted', 'CommerceSettlementConfirmed', 'CommerceSettlementFailed', 'CommerceSettlementCancelled'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const e = { type: event.type, data: event.data } as unknown as SettlementEvent;
    if (e.type === 'CommerceSettlementRequested') {
      const { intent, revision, request_commitment } = e.data;
      const record: SettlementIntentRecord = {
        ...intent, state: 'REQUESTED', revision, version: revision, request_commitment, updated: intent.created, transaction_reference: null, failure_code: null, reason_code: null, funds_movement_available: false,
      };
      await insertRecord(tx, SETTLEMENT_INTENTS, record, { position: event.position.toString().padStart(20, '0') });
      return;
    }
    const d = e.data as SettlementChange;
    await patchRecord(tx, SETTLEMENT_INTENTS, d.settlement_intent_uuid, (r) => ({
      state: d.to,
      revision: d.revision,
      version: d.revision,
      request_commitment: d.request_commitment,
      updated: d.at,
      transaction_reference: d.transaction_reference ?? r.transaction_reference,
      failure_code: d.failure_code,
      reason_code: d.reason_code,
    }));
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM commerce_settlement_intents');
  }
}

export const commerceSettlementsReadModel: ReadModelDefinition = {
  name: 'commerce-settlements',
  entities: [],
  migrations: [CommerceSettlements1764000011400],
  projector: CommerceSettlementsProjector,
};
