/**
 * A binding's activity (AiWalletActivityEvent): one row per event of the binding's stream, in revision order, with
 * the store's own event_commitment and previous_event_commitment — the chain an auditor verifies.
 */
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { scrubRecords } from '../../src/platform/privacy/read-model-erasure';
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { activityOf, BINDING_EVENT_TYPES } from '../../src/modules/ai-wallets/domain/activity';
import { BINDING_STREAM_PREFIX } from '../../src/modules/ai-wallets/domain/binding';

export interface ActivityRow {
  binding_uuid: string;
  revision: string;
  record: string;
}

export class AiWalletActivity1764000003300 implements MigrationInterface {
  name = 'AiWalletActivity1764000003300';
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'ai_wallet_activity',
        columns: [
          { name: 'binding_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'revision', type: 'varchar', length: '20', isPrimary: true },
          { name: 'record', type: 'text' },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('ai_wallet_activity');
  }
}

/** Activity whose reason is what the actor (a person) wrote, rather than the platform's own sentence. */
const PERSON_WORDS: ReadonlySet<string> = new Set(['AiWalletBindingStateChanged', 'AiWalletApprovalApproved', 'AiWalletApprovalRejected', 'AiWalletExecutionModeChanged']);

export class AiWalletActivityProjector implements Projector {
  readonly name = 'ai-wallet-activity';
  readonly handles = [...BINDING_EVENT_TYPES, 'AccountErased'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    if (event.type === 'AccountErased') {
      // Where the erased person's own words are the activity's reason (a state change, a review, a mode change).
      const profile = String(event.data.profile_uuid);
      await scrubRecords<{ actor_reference: string; event_type: string; reason: string }>(tx, { table: 'ai_wallet_activity', key: ['binding_uuid', 'revision'] }, profile, (r) =>
        r.actor_reference === profile && PERSON_WORDS.has(r.event_type) && r.reason !== ERASED_TEXT ? { ...r, reason: ERASED_TEXT } : null,
      );
      return;
    }
    if (!event.stream.startsWith(BINDING_STREAM_PREFIX)) return;
    await tx.query(portableSql(tx, 'INSERT INTO ai_wallet_activity (binding_uuid, revision, record) VALUES (?, ?, ?)'), [
      event.stream.slice(BINDING_STREAM_PREFIX.length), event.revision.toString().padStart(20, '0'), JSON.stringify(activityOf(event)),
    ]);
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM ai_wallet_activity');
  }
}

export const aiWalletActivityReadModel: ReadModelDefinition = {
  name: 'ai-wallet-activity',
  entities: [],
  migrations: [AiWalletActivity1764000003300],
  projector: AiWalletActivityProjector,
};
