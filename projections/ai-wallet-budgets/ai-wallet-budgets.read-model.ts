/**
 * Wallet budgets (WalletBudgetProjector): one row per reservation an intent made, with the UTC day and month it
 * counts against and its state. The budget query sums the rows of the current UTC day and month (the clock decides
 * which: a new day starts from zero without any write) and counts the open ones, exactly as the binding's own
 * decision does; a rejected or expired intent's row stops counting the moment its event is projected.
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { BindingEvent } from '../../src/modules/ai-wallets/domain/binding';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';

export interface BudgetHoldRow {
  intent_uuid: string;
  binding_uuid: string;
  asset_code: string;
  amount: string;
  day: string;
  month: string;
  state: string;
  expires_at: string | null;
}

export class AiWalletBudgets1764000003200 implements MigrationInterface {
  name = 'AiWalletBudgets1764000003200';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'ai_wallet_budget_holds',
        columns: [
          { name: 'intent_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('binding_uuid', '32'),
          text('asset_code', '16'),
          text('amount', '48'),
          text('day', '10'),
          text('month', '7'),
          text('state', '20'),
          text('expires_at', '40', true),
        ],
        indices: [{ name: 'idx_ai_wallet_budget_holds_month', columnNames: ['binding_uuid', 'month'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('ai_wallet_budget_holds');
  }
}

/** The budgets' outbox (src/platform/outbox): each change of a reservation row, for Kafka. */
export class AiWalletBudgetsOutbox1764000009200 implements MigrationInterface {
  name = 'AiWalletBudgetsOutbox1764000009200';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_ai_wallet_budget_holds');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_ai_wallet_budget_holds');
  }
}

/**
 * A reservation as the budgets topic carries it: the row itself (a budget is the sum of its binding's rows of the
 * UTC day and month that still count — not ended: REJECTED or EXPIRED — exactly what the budget query computes).
 */
export function budgetHoldView(row: BudgetHoldRow): BudgetHoldRow {
  return {
    intent_uuid: row.intent_uuid,
    binding_uuid: row.binding_uuid,
    asset_code: row.asset_code,
    amount: row.amount,
    day: row.day,
    month: row.month,
    state: row.state,
    expires_at: row.expires_at,
  };
}

/** Reservations per intent. With Kafka on, every change of a row also goes to the outbox, keyed by intent_uuid. */
export class WalletBudgetProjector implements Projector, PublishingProjector {
  readonly name = 'ai-wallet-budgets';
  readonly handles = ['AiWalletIntentReserved', 'AiWalletApprovalApproved', 'AiWalletApprovalRejected', 'AiWalletIntentExpired', 'AiWalletIntentSettled'] as const;
  readonly outbox = new ProjectionOutbox('ai-wallet-budgets', 'outbox_ai_wallet_budget_holds', {
    // No API record: the API shows the budget these rows add up to, so the schema is written by hand.
    title: 'Budget reservation (value of platform.projections.ai-wallet-budgets)',
    description: 'One reservation a live intent made against its binding\'s budget.',
    key: "the value's intent_uuid",
    headers: { binding_uuid: 'the binding whose budget the reservation counts against' },
  });
  readonly published: PublishedTable<BudgetHoldRow> = {
    table: 'ai_wallet_budget_holds',
    key: 'intent_uuid',
    change: (row) => ({ key: row.intent_uuid, value: budgetHoldView(row), headers: { binding_uuid: row.binding_uuid } }),
  };

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    const e = { type: event.type, data: event.data } as BindingEvent;
    let changed: string;
    switch (e.type) {
      case 'AiWalletIntentReserved': {
        const { intent, reservation: r } = e.data;
        await q('INSERT INTO ai_wallet_budget_holds (intent_uuid, binding_uuid, asset_code, amount, day, month, state, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
          intent.intent_uuid, intent.binding_uuid, r.asset_code, r.amount, r.day, r.month, intent.state, intent.expires_at,
        ]);
        changed = intent.intent_uuid;
        break;
      }
      case 'AiWalletApprovalApproved':
        await q('UPDATE ai_wallet_budget_holds SET state = ?, expires_at = ? WHERE intent_uuid = ?', ['APPROVED', e.data.intent_expires_at, e.data.intent_uuid]);
        changed = e.data.intent_uuid;
        break;
      case 'AiWalletApprovalRejected':
        await q('UPDATE ai_wallet_budget_holds SET state = ? WHERE intent_uuid = ?', ['REJECTED', e.data.intent_uuid]);
        changed = e.data.intent_uuid;
        break;
      case 'AiWalletIntentExpired':
        await q('UPDATE ai_wallet_budget_holds SET state = ? WHERE intent_uuid = ?', ['EXPIRED', e.data.intent_uuid]);
        changed = e.data.intent_uuid;
        break;
      case 'AiWalletIntentSettled':
        await q('UPDATE ai_wallet_budget_holds SET state = ? WHERE intent_uuid = ?', ['SETTLED', e.data.intent_uuid]);
        changed = e.data.intent_uuid;
        break;
      default:
        return;
    }
    if (!this.outbox.enabled) return;
    const [row] = (await q('SELECT * FROM ai_wallet_budget_holds WHERE intent_uuid = ?', [changed])) as BudgetHoldRow[];
    if (row) await this.outbox.put(tx, { key: row.intent_uuid, value: budgetHoldView(row), position: event.position, event_id: event.event_id, headers: { binding_uuid: row.binding_uuid } });
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM ai_wallet_budget_holds');
  }
}

export const aiWalletBudgetsReadModel: ReadModelDefinition = {
  name: 'ai-wallet-budgets',
  entities: [],
  migrations: [AiWalletBudgets1764000003200, AiWalletBudgetsOutbox1764000009200],
  projector: WalletBudgetProjector,
};
