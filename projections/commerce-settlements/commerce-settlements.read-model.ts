/** Settlement intents as the API shows them (without `actions`): state, revision and the latest request_commitment. */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, readRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { SettlementChange, SettlementEvent, SettlementIntentCore, SettlementState } from '../../src/modules/commerce/domain/settlement';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';

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

/** The settlement intents' outbox (src/platform/outbox): each change of an intent row, as its record, for Kafka. */
export class CommerceSettlementsOutbox1764000014300 implements MigrationInterface {
  name = 'CommerceSettlementsOutbox1764000014300';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_commerce_settlement_intents');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_commerce_settlement_intents');
  }
}

/**
 * A settlement intent as the API shows it, without `actions` (the CommerceSettlementIntent component's members, in
 * its order): what the settlement queries add the actions to, and what the topic publishes. Typed as the record: a
 * member added to it must be added here.
 */
export function settlementRecord(r: SettlementIntentRecord): SettlementIntentRecord {
  return {
    settlement_intent_uuid: r.settlement_intent_uuid, merchant_uuid: r.merchant_uuid, workspace_uuid: r.workspace_uuid, tenant_uuid: r.tenant_uuid, network_id: r.network_id, asset: r.asset,
    amount: r.amount, destination: r.destination, state: r.state, revision: r.revision, version: r.version, request_commitment: r.request_commitment,
    transaction_reference: r.transaction_reference, failure_code: r.failure_code, reason_code: r.reason_code, funds_movement_available: r.funds_movement_available,
    requested_by_profile_uuid: r.requested_by_profile_uuid, created: r.created, updated: r.updated,
  };
}

const settlementHeaders = (r: SettlementIntentRecord) => ({ merchant_uuid: r.merchant_uuid, workspace_uuid: r.workspace_uuid, tenant_uuid: r.tenant_uuid });

/** Settlement intents. With Kafka on, every change of an intent row also goes to the outbox, keyed by its id. */
export class CommerceSettlementsProjector implements Projector, PublishingProjector {
  readonly name = 'commerce-settlements';
  readonly handles = ['CommerceSettlementRequested', 'CommerceSettlementApproved', 'CommerceSettlementSubmitted', 'CommerceSettlementConfirmed', 'CommerceSettlementFailed', 'CommerceSettlementCancelled'] as const;
  readonly outbox = new ProjectionOutbox('commerce-settlements', 'outbox_commerce_settlement_intents', {
    title: 'Commerce settlement intent (value of platform.projections.commerce-settlements)',
    key: "the value's settlement_intent_uuid",
    description:
      "One settlement intent (a merchant's request to pay out settled funds) as GET /api/v1/commerce/settlement-intents/{settlement_intent_uuid} shows it: each change raises revision (and version, the same) and request_commitment commits to the request at that revision. No funds move (funds_movement_available is always false).",
    component: 'CommerceSettlementIntent',
    omit: { actions: 'what the caller may do now: depends on who asks' },
    headers: { merchant_uuid: 'the merchant whose settled funds the intent draws on', workspace_uuid: "the merchant's workspace", tenant_uuid: "the workspace's tenant" },
  });
  readonly published: PublishedTable<{ record: string }> = {
    table: 'commerce_settlement_intents',
    key: 'settlement_intent_uuid',
    columns: 'settlement_intent_uuid, record',
    change: (row) => {
      const r = JSON.parse(row.record) as SettlementIntentRecord;
      return { key: r.settlement_intent_uuid, value: settlementRecord(r), headers: settlementHeaders(r) };
    },
  };

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const e = { type: event.type, data: event.data } as unknown as SettlementEvent;
    if (e.type === 'CommerceSettlementRequested') {
      const { intent, revision, request_commitment } = e.data;
      const record: SettlementIntentRecord = {
        ...intent, state: 'REQUESTED', revision, version: revision, request_commitment, updated: intent.created, transaction_reference: null, failure_code: null, reason_code: null, funds_movement_available: false,
      };
      await insertRecord(tx, SETTLEMENT_INTENTS, record, { position: event.position.toString().padStart(20, '0') });
      await this.publish(tx, event, this.outbox.enabled ? await readRecord(tx, SETTLEMENT_INTENTS, intent.settlement_intent_uuid) : null);
      return;
    }
    const d = e.data as SettlementChange;
    const after = await patchRecord(tx, SETTLEMENT_INTENTS, d.settlement_intent_uuid, (r) => ({
      state: d.to,
      revision: d.revision,
      version: d.revision,
      request_commitment: d.request_commitment,
      updated: d.at,
      transaction_reference: d.transaction_reference ?? r.transaction_reference,
      failure_code: d.failure_code,
      reason_code: d.reason_code,
    }));
    await this.publish(tx, event, after);
  }

  /** The intent row's new state into the outbox (Kafka on; no row: nothing). */
  private async publish(tx: EntityManager, event: RecordedEvent, after: SettlementIntentRecord | null): Promise<void> {
    if (!after || !this.outbox.enabled) return;
    await this.outbox.put(tx, { key: after.settlement_intent_uuid, value: settlementRecord(after), position: event.position, event_id: event.event_id, headers: settlementHeaders(after) });
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM commerce_settlement_intents');
  }
}

export const commerceSettlementsReadModel: ReadModelDefinition = {
  name: 'commerce-settlements',
  entities: [],
  migrations: [CommerceSettlements1764000011400, CommerceSettlementsOutbox1764000014300],
  projector: CommerceSettlementsProjector,
};
