/** AI-agent wallet intents and approvals as the API shows them, plus what the expiry sweep looks for. */
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { scrubRecords } from '../../src/platform/privacy/read-model-erasure';
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { AiWalletApproval, AiWalletIntent, BindingEvent } from '../../src/modules/ai-wallets/domain/binding';
import { NO_POLICY_UUID } from '../../src/modules/ai-wallets/domain/policy';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';
import { intentRecord } from './intent-record';

export interface IntentRow {
  intent_uuid: string;
  binding_uuid: string;
  workspace_uuid: string;
  state: string;
  expires_at: string | null;
  position: string;
  record: string;
}

export interface ApprovalRow {
  approval_uuid: string;
  binding_uuid: string;
  intent_uuid: string;
  workspace_uuid: string;
  state: string;
  position: string;
  record: string;
}

export class AiWalletIntents1764000003100 implements MigrationInterface {
  name = 'AiWalletIntents1764000003100';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'ai_wallet_intents',
        columns: [
          { name: 'intent_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('binding_uuid', '32'),
          text('workspace_uuid', '32'),
          text('state', '20'),
          text('expires_at', '40', true),
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [
          { name: 'idx_ai_wallet_intents_binding', columnNames: ['binding_uuid', 'position'] },
          { name: 'idx_ai_wallet_intents_due', columnNames: ['state', 'expires_at'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'ai_wallet_approvals',
        columns: [
          { name: 'approval_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('binding_uuid', '32'),
          text('intent_uuid', '32'),
          text('workspace_uuid', '32'),
          text('state', '16'),
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [{ name: 'idx_ai_wallet_approvals_binding', columnNames: ['binding_uuid', 'position'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['ai_wallet_approvals', 'ai_wallet_intents']) await q.dropTable(t);
  }
}

/** The intents' outbox (src/platform/outbox): each change of an intent, as its AiWalletIntent record, for Kafka. */
export class AiWalletIntentsOutbox1764000014800 implements MigrationInterface {
  name = 'AiWalletIntentsOutbox1764000014800';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_ai_wallet_intents');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_ai_wallet_intents');
  }
}

/** An intent as its topic carries it: keyed by intent_uuid, its workspace and binding in the headers. */
const intentChange = (i: AiWalletIntent) => ({ key: i.intent_uuid, value: i, headers: { workspace_uuid: i.workspace_uuid, binding_uuid: i.binding_uuid } });

export class AiWalletIntentsProjector implements Projector, PublishingProjector {
  readonly name = 'ai-wallet-intents';
  readonly handles = ['AiWalletIntentDenied', 'AiWalletIntentReserved', 'AiWalletApprovalRequested', 'AiWalletApprovalApproved', 'AiWalletApprovalRejected', 'AiWalletIntentExpired', 'AiWalletIntentSettled', 'AccountErased'] as const;
  readonly outbox = new ProjectionOutbox('ai-wallet-intents', 'outbox_ai_wallet_intents', {
    title: 'AI-agent wallet intent (value of platform.projections.ai-wallet-intents)',
    key: "the value's intent_uuid",
    description:
      'One intent an agent filed against its binding (denied or reserved, then approved, rejected, expired or settled) as GET /api/v1/ai-wallets/intents/{intent_uuid} ' +
      'shows it, after each change. Every field is internal: purpose, destination and rationale are the agent\'s, not a person\'s words (docs/privacy.md). ' +
      'EXPIRED is a state the expiry sweep records (an event), not read off the clock. Approvals have no topic.',
    component: 'AiWalletIntent',
    headers: { workspace_uuid: 'the workspace of the binding', binding_uuid: 'the binding the intent was filed against' },
  });
  readonly published: PublishedTable<{ intent_uuid: string; record: string }> = {
    table: 'ai_wallet_intents',
    key: 'intent_uuid',
    columns: 'intent_uuid, record',
    change: (row) => intentChange(intentRecord(row)),
  };

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    if (event.type === 'AccountErased') {
      // The review reasons the erased person wrote (their words); the approvals themselves stay.
      const profile = String(event.data.profile_uuid);
      await scrubRecords<AiWalletApproval & Record<string, unknown>>(tx, { table: 'ai_wallet_approvals', key: 'approval_uuid' }, profile, (r) =>
        r.reviewed_by_profile_uuid === profile && r.review_reason !== null && r.review_reason !== ERASED_TEXT ? { ...r, review_reason: ERASED_TEXT } : null,
      );
      return;
    }
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    const position = event.position.toString().padStart(20, '0');
    /** Intents and approvals keep their API record as JSON; a change merges into it and the indexed columns follow. */
    const patch = async <R extends { state: string; expires_at?: string | null }>(table: 'ai_wallet_intents' | 'ai_wallet_approvals', key: 'intent_uuid' | 'approval_uuid', id: string, changes: Partial<R>): Promise<R | null> => {
      const rows: Array<{ record: string }> = await q(`SELECT record FROM ${table} WHERE ${key} = ?`, [id]);
      if (rows.length === 0) return null;
      const record = { ...(JSON.parse(rows[0].record) as R), ...changes };
      if (table === 'ai_wallet_intents') await q(`UPDATE ${table} SET state = ?, expires_at = ?, record = ? WHERE ${key} = ?`, [record.state, record.expires_at ?? null, JSON.stringify(record), id]);
      else await q(`UPDATE ${table} SET state = ?, record = ? WHERE ${key} = ?`, [record.state, JSON.stringify(record), id]);
      return record;
    };
    /** An intent's record written, and (Kafka on) put into the outbox as it now is. */
    const published = async (intent: AiWalletIntent | null) => {
      if (intent) await this.outbox.put(tx, { ...intentChange(intent), position: event.position, event_id: event.event_id });
    };
    const patchIntent = async (id: string, changes: Partial<AiWalletIntent>) => published(await patch<AiWalletIntent>('ai_wallet_intents', 'intent_uuid', id, changes));
    const patchApproval = (id: string, changes: Partial<AiWalletApproval>) => patch<AiWalletApproval>('ai_wallet_approvals', 'approval_uuid', id, changes);
    const e = { type: event.type, data: event.data } as BindingEvent;
    switch (e.type) {
      case 'AiWalletIntentDenied':
      case 'AiWalletIntentReserved': {
        // Intents decided without a policy before the nil id replaced null (docs/ai-wallets.md).
        const i = { ...e.data.intent, policy_uuid: e.data.intent.policy_uuid ?? NO_POLICY_UUID };
        await q('INSERT INTO ai_wallet_intents (intent_uuid, binding_uuid, workspace_uuid, state, expires_at, position, record) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          i.intent_uuid, i.binding_uuid, i.workspace_uuid, i.state, i.expires_at, position, JSON.stringify(i),
        ]);
        await published(i);
        return;
      }
      case 'AiWalletApprovalRequested': {
        const a = e.data.approval;
        await q('INSERT INTO ai_wallet_approvals (approval_uuid, binding_uuid, intent_uuid, workspace_uuid, state, position, record) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          a.approval_uuid, a.binding_uuid, a.intent_uuid, a.workspace_uuid, a.state, position, JSON.stringify(a),
        ]);
        return;
      }
      case 'AiWalletApprovalApproved':
      case 'AiWalletApprovalRejected': {
        const d = e.data;
        const approved = e.type === 'AiWalletApprovalApproved';
        await patchApproval(d.approval_uuid, { state: approved ? 'APPROVED' : 'REJECTED', updated: d.reviewed_at, reviewed_at: d.reviewed_at, reviewed_by_profile_uuid: d.reviewed_by_profile_uuid, review_reason: d.reason });
        await patchIntent(d.intent_uuid, { state: approved ? 'APPROVED' : 'REJECTED', updated: d.reviewed_at, expires_at: d.intent_expires_at });
        return;
      }
      case 'AiWalletIntentExpired': {
        const d = e.data;
        await patchIntent(d.intent_uuid, { state: 'EXPIRED', updated: d.expired_at });
        if (d.approval_uuid) await patchApproval(d.approval_uuid, { state: 'EXPIRED', updated: d.expired_at });
        return;
      }
      case 'AiWalletIntentSettled': {
        const d = e.data;
        await patchIntent(d.intent_uuid, { state: 'SETTLED', updated: d.settled_at, settled_at: d.settled_at });
        if (d.approval_uuid) await patchApproval(d.approval_uuid, { updated: d.settled_at, transaction_hash: d.transaction_hash });
        return;
      }
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['ai_wallet_approvals', 'ai_wallet_intents']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const aiWalletIntentsReadModel: ReadModelDefinition = {
  name: 'ai-wallet-intents',
  entities: [],
  migrations: [AiWalletIntents1764000003100, AiWalletIntentsOutbox1764000014800],
  projector: AiWalletIntentsProjector,
};
