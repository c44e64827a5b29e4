/**
 * AI-agent wallet bindings as the API shows them: the binding record, its current policy and execution mode, every
 * policy version, and the workload tokens agents hold (by hash; the guard resolves agents through this table).
 */
import { Table, TableColumn, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { BindingEvent } from '../../src/modules/ai-wallets/domain/binding';
import type { WorkloadTokenIssuedData } from '../../src/modules/ai-wallets/domain/workload';

export interface BindingRow {
  binding_uuid: string;
  workspace_uuid: string;
  tenant_uuid: string;
  workload_client_id: string;
  state: string;
  state_reason: string | null;
  updated_at: string;
  /** Zero-padded position of the creation: list order. */
  position: string;
  /** AiWalletBindingCore + binding_commitment (JSON). */
  binding: string;
  /** Current AiWalletPolicy (JSON) or null. */
  policy: string | null;
  /** AiWalletExecutionMode (JSON). */
  execution_mode: string;
}

export class AiWalletBindings1764000003000 implements MigrationInterface {
  name = 'AiWalletBindings1764000003000';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    const json = (name: string, isNullable = false) => ({ name, type: 'text', isNullable });
    await q.createTable(
      new Table({
        name: 'ai_wallet_bindings',
        columns: [
          { name: 'binding_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('workspace_uuid', '32'),
          text('tenant_uuid', '32'),
          text('workload_client_id', '32'),
          text('state', '16'),
          text('state_reason', '320', true),
          text('updated_at', '40'),
          text('position', '20'),
          json('binding'),
          json('policy', true),
          json('execution_mode'),
        ],
        indices: [
          { name: 'idx_ai_wallet_bindings_workspace', columnNames: ['workspace_uuid', 'position'] },
          { name: 'idx_ai_wallet_bindings_client', columnNames: ['workload_client_id'], isUnique: true },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'ai_wallet_policies',
        columns: [
          { name: 'binding_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'version', type: 'integer', isPrimary: true },
          json('record'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'ai_wallet_workload_tokens',
        columns: [
          { name: 'token_hash', type: 'varchar', length: '64', isPrimary: true },
          text('workload_client_id', '32'),
          text('binding_uuid', '32'),
          text('issued_at', '40'),
          text('expires_at', '40'),
        ],
        indices: [{ name: 'idx_ai_wallet_tokens_binding', columnNames: ['binding_uuid'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['ai_wallet_workload_tokens', 'ai_wallet_policies', 'ai_wallet_bindings']) await q.dropTable(t);
  }
}

export class AiWalletBindingsProjector implements Projector {
  readonly name = 'ai-wallet-bindings';
  readonly handles = ['AiWalletBindingCreated', 'AiWalletPolicyPublished', 'AiWalletBindingStateChanged', 'AiWalletExecutionModeChanged', 'WorkloadTokenIssued', 'AccountErased'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    if (event.type === 'WorkloadTokenIssued') {
      const d = event.data as unknown as WorkloadTokenIssuedData;
      await q('INSERT INTO ai_wallet_workload_tokens (token_hash, workload_client_id, binding_uuid, issued_at, expires_at) VALUES (?, ?, ?, ?, ?)', [
        d.token_hash, d.workload_client_id, d.binding_uuid, event.occurred_at, d.expires_at,
      ]);
      // Expired tokens of this client go as new ones come: the table stays as small as the live tokens.
      await q('DELETE FROM ai_wallet_workload_tokens WHERE workload_client_id = ? AND expires_at < ?', [d.workload_client_id, event.occurred_at]);
      return;
    }
    const e = { type: event.type, data: event.data } as BindingEvent;
    switch (e.type) {
      case 'AiWalletBindingCreated': {
        const b = e.data.binding;
        await q(
          `INSERT INTO ai_wallet_bindings (binding_uuid, workspace_uuid, tenant_uuid, workload_client_id, state, state_reason, updated_at, position, binding, policy, execution_mode)
           VALUES (?, ?, ?, ?, 'PENDING', NULL, ?, ?, ?, NULL, ?)`,
          [b.binding_uuid, b.workspace_uuid, e.data.tenant_uuid, b.workload_client_id, b.created, event.position.toString().padStart(20, '0'),
            JSON.stringify({ ...b, binding_commitment: e.data.binding_commitment }), JSON.stringify(e.data.execution_mode)],
        );
        return;
      }
      case 'AiWalletPolicyPublished': {
        const p = e.data.policy;
        // Stored as published; the query shows ACTIVE, SUPERSEDED or EXPIRED against the binding's current version.
        await q('INSERT INTO ai_wallet_policies (binding_uuid, version, record) VALUES (?, ?, ?)', [p.binding_uuid, p.version, JSON.stringify(p)]);
        await q('UPDATE ai_wallet_bindings SET policy = ?, updated_at = ? WHERE binding_uuid = ?', [JSON.stringify(p), p.created, p.binding_uuid]);
        return;
      }
      case 'AiWalletBindingStateChanged':
        await q('UPDATE ai_wallet_bindings SET state = ?, state_reason = ?, state_reason_by = ?, updated_at = ? WHERE binding_uuid = ?', [
          e.data.to, e.data.reason, event.metadata.actor.reference, e.data.changed_at, e.data.binding_uuid,
        ]);
        return;
      case 'AiWalletExecutionModeChanged':
        await q('UPDATE ai_wallet_bindings SET execution_mode = ?, mode_reason_by = ?, updated_at = ? WHERE binding_uuid = ?', [
          JSON.stringify(e.data.execution_mode), event.metadata.actor.reference, e.data.execution_mode.updated, e.data.binding_uuid,
        ]);
        return;
    }
    if (event.type === 'AccountErased') {
      // The reasons the erased person wrote (their words) go; the bindings, their states and modes stay.
      const profile = String(event.data.profile_uuid);
      await q('UPDATE ai_wallet_bindings SET state_reason = ? WHERE state_reason_by = ?', [ERASED_TEXT, profile]);
      const modes: Array<{ binding_uuid: string; execution_mode: string }> = await q('SELECT binding_uuid, execution_mode FROM ai_wallet_bindings WHERE mode_reason_by = ?', [profile]);
      for (const m of modes) {
        await q('UPDATE ai_wallet_bindings SET execution_mode = ? WHERE binding_uuid = ?', [JSON.stringify({ ...JSON.parse(m.execution_mode), state_reason: ERASED_TEXT }), m.binding_uuid]);
      }
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['ai_wallet_workload_tokens', 'ai_wallet_policies', 'ai_wallet_bindings']) await tx.query(`DELETE FROM ${t}`);
  }
}

/**
 * Who wrote a binding's state reason and its execution mode's reason (their words are personal, docs/privacy.md): an
 * erasure scrubs the reasons its person wrote. Rows from before this migration have none until a rebuild.
 */
export class AiWalletBindingReasonAuthors1764000010100 implements MigrationInterface {
  name = 'AiWalletBindingReasonAuthors1764000010100';
  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('ai_wallet_bindings', new TableColumn({ name: 'state_reason_by', type: 'varchar', length: '64', isNullable: true }));
    await q.addColumn('ai_wallet_bindings', new TableColumn({ name: 'mode_reason_by', type: 'varchar', length: '64', isNullable: true }));
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('ai_wallet_bindings', 'mode_reason_by');
    await q.dropColumn('ai_wallet_bindings', 'state_reason_by');
  }
}

export const aiWalletBindingsReadModel: ReadModelDefinition = {
  name: 'ai-wallet-bindings',
  entities: [],
  migrations: [AiWalletBindings1764000003000, AiWalletBindingReasonAuthors1764000010100],
  projector: AiWalletBindingsProjector,
};
