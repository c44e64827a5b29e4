/** The AI-agent wallet reads: bindings, policy versions, budgets, intents, approvals and activity, from read models. */
import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CLOCK, type Clock } from '../../platform/clock';
import { verifyStreamChain } from '../../platform/commitments/commitment';
import { PlatformError } from '../../platform/errors';
import type { EventStore } from '../../platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../platform/privacy/sealing-event-store';
import { rawPage, rawPageAfter } from '../../platform/http/pagination';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import type { BindingRow } from '../../../projections/ai-wallet-bindings/ai-wallet-bindings.read-model';
import type { BudgetHoldRow } from '../../../projections/ai-wallet-budgets/ai-wallet-budgets.read-model';
import type { ApprovalRow, IntentRow } from '../../../projections/ai-wallet-intents/ai-wallet-intents.read-model';
import { intentRecord } from '../../../projections/ai-wallet-intents/intent-record';
import type { ActivityRow } from '../../../projections/ai-wallet-activity/ai-wallet-activity.read-model';
import { bindingStream, budgetOf, utcMonth, type AiWalletBudget, type AiWalletIntent } from './domain/binding';
import { policyExpired, type AiWalletPolicy } from './domain/policy';
import { WalletAccess, type Need } from './wallet-access';

export interface Paged<T> {
  items: T[];
  next_cursor?: string;
}

/** The version as shown now: ACTIVE (or EXPIRED past expires_at) for the binding's current version, else SUPERSEDED. */
export function policyView(p: AiWalletPolicy, currentVersion: number, now: Date): Omit<AiWalletPolicy, 'lifecycle'> & { lifecycle: string } {
  const lifecycle = p.version !== currentVersion ? 'SUPERSEDED' : policyExpired(p, now) ? 'EXPIRED' : 'ACTIVE';
  return { ...p, lifecycle };
}

export function bindingView(row: BindingRow, budget: AiWalletBudget, now: Date): Record<string, unknown> {
  const core = JSON.parse(row.binding) as Record<string, unknown>;
  const policy = row.policy ? (JSON.parse(row.policy) as AiWalletPolicy) : null;
  return {
    ...core,
    state: row.state,
    state_reason: row.state_reason,
    updated: row.updated_at,
    budget,
    execution_mode: JSON.parse(row.execution_mode),
    policy: policy ? policyView(policy, policy.version, now) : null,
  };
}

/**
 * The budgets of these bindings at `now`, from one read of their reservations of the month (a day is inside its
 * month) and of earlier months' reservations not yet expired: those no longer count in the day or month, but are
 * still open, so `active_intent_count` counts them as the decision does.
 */
async function budgetsFor(db: ReadModelDatabase, rows: BindingRow[], now: Date): Promise<AiWalletBudget[]> {
  if (rows.length === 0) return [];
  const holds: BudgetHoldRow[] = await db.reader.query(
    db.sql(`SELECT * FROM ai_wallet_budget_holds WHERE (month = ? OR expires_at > ?) AND binding_uuid IN (${rows.map(() => '?').join(', ')})`),
    [utcMonth(now), now.toISOString(), ...rows.map((r) => r.binding_uuid)],
  );
  return rows.map((row) => budgetOf(row.policy ? (JSON.parse(row.policy) as AiWalletPolicy) : null, holds.filter((h) => h.binding_uuid === row.binding_uuid), now));
}

export async function budgetFor(db: ReadModelDatabase, row: BindingRow, now: Date): Promise<AiWalletBudget> {
  const [budget] = await budgetsFor(db, [row], now);
  return budget;
}

const byPosition = (r: { position: string }): string => r.position;

// ---------------------------------------------------------------------------------------------------------------

export class GetBinding {
  constructor(readonly principal: Principal, readonly binding_uuid: string, readonly need: Need = 'read') {}
}

@QueryHandler(GetBinding)
export class GetBindingHandler implements IQueryHandler<GetBinding> {
  constructor(private readonly access: WalletAccess, private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, binding_uuid, need }: GetBinding): Promise<Record<string, unknown>> {
    const row = await this.access.binding(principal, binding_uuid, need);
    const now = this.clock();
    return bindingView(row, await budgetFor(this.db, row, now), now);
  }
}

export class ListBindings {
  constructor(readonly principal: Principal, readonly workspace_uuid: string, readonly limit: number, readonly cursor?: string) {}
}

@QueryHandler(ListBindings)
export class ListBindingsHandler implements IQueryHandler<ListBindings> {
  constructor(private readonly access: WalletAccess, private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, workspace_uuid, limit, cursor }: ListBindings): Promise<Paged<Record<string, unknown>>> {
    await this.access.workspace(principal, workspace_uuid, 'read');
    const before = rawPageAfter(cursor, workspace_uuid);
    const rows: Array<BindingRow & { position: string }> = await this.db.reader.query(
      this.db.sql(`SELECT * FROM ai_wallet_bindings WHERE workspace_uuid = ?${before ? ' AND position < ?' : ''} ORDER BY position DESC LIMIT ?`),
      before ? [workspace_uuid, before, limit + 1] : [workspace_uuid, limit + 1],
    );
    const now = this.clock();
    const { rows: taken, next_cursor } = rawPage(rows, limit, byPosition, workspace_uuid);
    const budgets = await budgetsFor(this.db, taken, now);
    const items = taken.map((r, i) => bindingView(r, budgets[i], now));
    return { items, ...(next_cursor ? { next_cursor } : {}) };
  }
}

export class GetPolicy {
  constructor(readonly principal: Principal, readonly binding_uuid: string, readonly version?: number) {}
}

@QueryHandler(GetPolicy)
export class GetPolicyHandler implements IQueryHandler<GetPolicy> {
  constructor(private readonly access: WalletAccess, private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, binding_uuid, version }: GetPolicy): Promise<object> {
    const row = await this.access.binding(principal, binding_uuid, 'read');
    const current = row.policy ? (JSON.parse(row.policy) as AiWalletPolicy) : null;
    if (!current) throw new PlatformError('NOT_FOUND', 'This binding has no policy yet.');
    const wanted = version ?? current.version;
    const rows: Array<{ record: string }> = await this.db.reader.query(this.db.sql('SELECT record FROM ai_wallet_policies WHERE binding_uuid = ? AND version = ?'), [binding_uuid, wanted]);
    if (rows.length === 0) throw new PlatformError('NOT_FOUND', `No policy version ${wanted}.`);
    return policyView(JSON.parse(rows[0].record) as AiWalletPolicy, current.version, this.clock());
  }
}

export class GetBudget {
  constructor(readonly principal: Principal, readonly binding_uuid: string) {}
}

@QueryHandler(GetBudget)
export class GetBudgetHandler implements IQueryHandler<GetBudget> {
  constructor(private readonly access: WalletAccess, private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, binding_uuid }: GetBudget): Promise<AiWalletBudget> {
    const row = await this.access.binding(principal, binding_uuid, 'agent-or-read');
    return budgetFor(this.db, row, this.clock());
  }
}

export class GetIntent {
  constructor(readonly principal: Principal, readonly intent_uuid: string) {}
}

@QueryHandler(GetIntent)
export class GetIntentHandler implements IQueryHandler<GetIntent> {
  constructor(private readonly access: WalletAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, intent_uuid }: GetIntent): Promise<AiWalletIntent> {
    const rows: IntentRow[] = await this.db.reader.query(this.db.sql('SELECT * FROM ai_wallet_intents WHERE intent_uuid = ?'), [intent_uuid]);
    if (rows.length === 0) throw new PlatformError('NOT_FOUND', 'No such intent.');
    await this.access.binding(principal, rows[0].binding_uuid, 'read', () => new PlatformError('NOT_FOUND', 'No such intent.'));
    return intentRecord(rows[0]);
  }
}

export class ListIntents {
  constructor(readonly principal: Principal, readonly binding_uuid: string, readonly limit: number, readonly cursor?: string) {}
}

@QueryHandler(ListIntents)
export class ListIntentsHandler implements IQueryHandler<ListIntents> {
  constructor(private readonly access: WalletAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, binding_uuid, limit, cursor }: ListIntents): Promise<Paged<AiWalletIntent>> {
    await this.access.binding(principal, binding_uuid, 'read');
    const before = rawPageAfter(cursor, `intents:${binding_uuid}`);
    const rows: IntentRow[] = await this.db.reader.query(
      this.db.sql(`SELECT * FROM ai_wallet_intents WHERE binding_uuid = ?${before ? ' AND position < ?' : ''} ORDER BY position DESC LIMIT ?`),
      before ? [binding_uuid, before, limit + 1] : [binding_uuid, limit + 1],
    );
    const { rows: taken, next_cursor } = rawPage(rows, limit, byPosition, `intents:${binding_uuid}`);
    return { items: taken.map(intentRecord), ...(next_cursor ? { next_cursor } : {}) };
  }
}

export class ListApprovals {
  constructor(readonly principal: Principal, readonly binding_uuid: string, readonly state: string | undefined, readonly limit: number, readonly cursor?: string) {}
}

@QueryHandler(ListApprovals)
export class ListApprovalsHandler implements IQueryHandler<ListApprovals> {
  constructor(private readonly access: WalletAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, binding_uuid, state, limit, cursor }: ListApprovals): Promise<Paged<unknown>> {
    await this.access.binding(principal, binding_uuid, 'read');
    const scope = `approvals:${binding_uuid}:${state ?? ''}`;
    const before = rawPageAfter(cursor, scope);
    const where = ['binding_uuid = ?'];
    const params: unknown[] = [binding_uuid];
    if (state) {
      where.push('state = ?');
      params.push(state);
    }
    if (before) {
      where.push('position < ?');
      params.push(before);
    }
    const rows: ApprovalRow[] = await this.db.reader.query(this.db.sql(`SELECT * FROM ai_wallet_approvals WHERE ${where.join(' AND ')} ORDER BY position DESC LIMIT ?`), [...params, limit + 1]);
    const { rows: taken, next_cursor } = rawPage(rows, limit, byPosition, scope);
    return { items: taken.map((r) => JSON.parse(r.record)), ...(next_cursor ? { next_cursor } : {}) };
  }
}

export class ListActivity {
  constructor(readonly principal: Principal, readonly binding_uuid: string, readonly limit: number, readonly cursor?: string) {}
}

/** Oldest first: the chain reads in the order it was written. */
@QueryHandler(ListActivity)
export class ListActivityHandler implements IQueryHandler<ListActivity> {
  constructor(private readonly access: WalletAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, binding_uuid, limit, cursor }: ListActivity): Promise<Paged<unknown>> {
    await this.access.binding(principal, binding_uuid, 'read');
    const scope = `activity:${binding_uuid}`;
    const from = rawPageAfter(cursor, scope);
    const rows: ActivityRow[] = await this.db.reader.query(
      this.db.sql(`SELECT * FROM ai_wallet_activity WHERE binding_uuid = ?${from ? ' AND revision > ?' : ''} ORDER BY revision ASC LIMIT ?`),
      from ? [binding_uuid, from, limit + 1] : [binding_uuid, limit + 1],
    );
    const { rows: taken, next_cursor } = rawPage(rows, limit, (r) => r.revision, scope);
    return { items: taken.map((r) => JSON.parse(r.record)), ...(next_cursor ? { next_cursor } : {}) };
  }
}

export class VerifyActivity {
  constructor(readonly principal: Principal, readonly binding_uuid: string) {}
}

export interface ActivityVerification {
  binding_uuid: string;
  verified: boolean;
  events: number;
  head_commitment: string | null;
  first_break: { revision: string; event_uuid: string; reason: string } | null;
}

/** Recomputes the binding stream's chain from the events as stored (not from the read model). */
@QueryHandler(VerifyActivity)
export class VerifyActivityHandler implements IQueryHandler<VerifyActivity> {
  constructor(private readonly access: WalletAccess, @Inject(RAW_EVENT_STORE) private readonly store: EventStore) {}

  async execute({ principal, binding_uuid }: VerifyActivity): Promise<ActivityVerification> {
    await this.access.binding(principal, binding_uuid, 'read');
    const events = await this.store.readStream(bindingStream(binding_uuid));
    const broken = verifyStreamChain(events);
    return {
      binding_uuid,
      verified: broken === null,
      events: events.length,
      head_commitment: events.length > 0 ? events[events.length - 1].event_commitment : null,
      first_break: broken ? { revision: broken.revision.toString(), event_uuid: broken.event_id, reason: broken.reason } : null,
    };
  }
}
