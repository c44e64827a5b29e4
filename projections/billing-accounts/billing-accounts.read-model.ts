/**
 * Billing accounts (docs/billing.md): each tenant's account folded with the decider's own `evolve` (the balance the
 * API shows is the balance the commands decide on), the usage rated per period, the top-ups and the adjustments.
 * The rater's reconciliation counts (`billing_rating_checks`) live beside them but are the rater's, written with its
 * checkpoint: a rebuild of this read model re-projects the rated usage and leaves them (and the rating) alone.
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import { formatPlain, parseDecimal } from '../../src/platform/decimal/fixed18';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { scrubRecords } from '../../src/platform/privacy/read-model-erasure';
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import { insertRecord, patchRecord, readRecord, replaceRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { periodOf, type BillingEvent, type Topup } from '../../src/modules/billing/domain/account';
import { foldStored, type StoredAccountState } from '../../src/modules/billing/domain/account-view';

export interface AccountRow {
  tenant_uuid: string;
  account_id: string;
  period_ends_at: string;
  state: StoredAccountState;
}
export const ACCOUNTS: JsonRecordTable<AccountRow> = { table: 'billing_accounts', key: 'tenant_uuid', columns: ['account_id', 'period_ends_at'] };

export interface TopupRecord extends Topup {
  tenant_uuid: string;
  rail_reference: string | null;
  settled_at: string | null;
  updated: string;
}
export const TOPUPS: JsonRecordTable<TopupRecord> = { table: 'billing_topups', key: 'topup_id', columns: ['tenant_uuid', 'status'] };

export interface AdjustmentRecord {
  adjustment_id: string;
  tenant_uuid: string;
  direction: 'CREDIT' | 'DEBIT';
  credits: string;
  reason: string;
  expires_at: string | null;
  /** CREDIT: the lot granted; DEBIT: what was drawn from which lots, and what no lot covered. */
  lot_id: string | null;
  draws: Array<{ lot_id: string; credits: string }>;
  uncovered_credits: string;
  by_profile_uuid: string;
  created: string;
}
export const ADJUSTMENTS: JsonRecordTable<AdjustmentRecord> = { table: 'billing_adjustments', key: 'adjustment_id', columns: ['tenant_uuid'] };

export class BillingAccounts1764000011600 implements MigrationInterface {
  name = 'BillingAccounts1764000011600';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    const record = { name: 'record', type: 'text' };
    await q.createTable(
      new Table({ name: 'billing_accounts', columns: [{ ...text('tenant_uuid', '32'), isPrimary: true }, text('account_id', '32'), text('period_ends_at', '32'), text('position', '20'), record], indices: [{ name: 'idx_billing_accounts_period', columnNames: ['period_ends_at'] }] }),
    );
    await q.createTable(
      new Table({
        name: 'billing_usage_periods',
        columns: [{ ...text('tenant_uuid', '32'), isPrimary: true }, { ...text('period_started_at', '32'), isPrimary: true }, text('credits', '40'), { name: 'events', type: 'bigint' }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'billing_rating_checks',
        columns: [{ ...text('tenant_uuid', '32'), isPrimary: true }, { ...text('period_started_at', '32'), isPrimary: true }, { name: 'checked', type: 'bigint' }],
      }),
    );
    await q.createTable(
      new Table({ name: 'billing_topups', columns: [{ ...text('topup_id', '32'), isPrimary: true }, text('tenant_uuid', '32'), text('status', '20'), text('position', '20'), record], indices: [{ name: 'idx_billing_topups_tenant', columnNames: ['tenant_uuid', 'position'] }] }),
    );
    await q.createTable(
      new Table({ name: 'billing_adjustments', columns: [{ ...text('adjustment_id', '32'), isPrimary: true }, text('tenant_uuid', '32'), text('position', '20'), record], indices: [{ name: 'idx_billing_adjustments_tenant', columnNames: ['tenant_uuid', 'position'] }] }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['billing_adjustments', 'billing_topups', 'billing_rating_checks', 'billing_usage_periods', 'billing_accounts']) await q.dropTable(t);
  }
}

const tenantOf = (stream: string): string => stream.slice('billing-account-'.length);

export class BillingAccountsProjector implements Projector {
  readonly name = 'billing-accounts';
  readonly handles = [
    'BillingAccountOpened', 'BillingCreditsGranted', 'BillingCreditsDebited', 'BillingUsageRated', 'BillingPeriodClosed', 'BillingSubscriptionStarted', 'BillingSubscriptionCancelRequested',
    'BillingTopupRequested', 'BillingTopupSettled', 'BillingTopupFailed', 'BillingTopupFlagged', 'AccountErased',
  ] as const;

  apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    return this.applyBatch([event], tx);
  }

  /**
   * The batch folded account by account in memory: each account read once and written once, each period's usage
   * likewise (a burst of rated orders is one write, not a read and a write each). Side records (top-ups,
   * adjustments) are written as their events come.
   */
  async applyBatch(events: RecordedEvent[], tx: EntityManager): Promise<void> {
    const accounts = new Map<string, { row: AccountRow; stored: boolean; position: string }>();
    const usage = new Map<string, { tenant_uuid: string; period: string; credits: string; events: number; stored: boolean }>();
    for (const event of events) {
      if (event.type === 'AccountErased') {
        // The reasons the erased person wrote for adjustments (their words); the adjustments themselves stay.
        const profile = String(event.data.profile_uuid);
        await scrubRecords<AdjustmentRecord & Record<string, unknown>>(tx, { table: 'billing_adjustments', key: 'adjustment_id' }, profile, (r) =>
          r.by_profile_uuid === profile && r.reason !== ERASED_TEXT ? { ...r, reason: ERASED_TEXT } : null,
        );
        continue;
      }
      const e = { type: event.type, data: event.data } as BillingEvent;
      const tenant_uuid = tenantOf(event.stream);
      const position = event.position.toString().padStart(20, '0');
      let account = accounts.get(tenant_uuid);
      if (!account) {
        const stored = await readRecord(tx, ACCOUNTS, tenant_uuid);
        if (stored) account = { row: stored, stored: true, position };
      }
      // A replayed event (the checkpoint's batch again after a crash) is already folded in: the version tells.
      if (account && BigInt(account.row.state.version) >= event.revision) continue;
      const state = foldStored(account?.row.state ?? null, e);
      const row: AccountRow = { tenant_uuid, account_id: state.account!.account_id, period_ends_at: state.period.ends_at, state };
      accounts.set(tenant_uuid, { row, stored: account?.stored ?? false, position: account?.position ?? position });
      if (e.type === 'BillingUsageRated') await this.rated(usage, tenant_uuid, periodOf(e.data.at).started_at, e.data.credits, tx);
      else await this.side(e, tenant_uuid, position, tx);
    }
    for (const { row, stored, position } of accounts.values()) {
      if (stored) await replaceRecord(tx, ACCOUNTS, row);
      else await insertRecord(tx, ACCOUNTS, row, { position });
    }
    for (const u of usage.values()) {
      if (u.stored) await tx.query(portableSql(tx, 'UPDATE billing_usage_periods SET credits = ?, events = ? WHERE tenant_uuid = ? AND period_started_at = ?'), [u.credits, u.events, u.tenant_uuid, u.period]);
      else await tx.query(portableSql(tx, 'INSERT INTO billing_usage_periods (tenant_uuid, period_started_at, credits, events) VALUES (?, ?, ?, ?)'), [u.tenant_uuid, u.period, u.credits, u.events]);
    }
  }

  /** A rated usage added to its period's totals (read once per batch, written at its end). */
  private async rated(usage: Map<string, { tenant_uuid: string; period: string; credits: string; events: number; stored: boolean }>, tenant_uuid: string, period: string, credits: string, tx: EntityManager): Promise<void> {
    const key = `${tenant_uuid} ${period}`;
    let u = usage.get(key);
    if (!u) {
      const rows: Array<{ credits: string; events: string | number }> = await tx.query(portableSql(tx, 'SELECT credits, events FROM billing_usage_periods WHERE tenant_uuid = ? AND period_started_at = ?'), [tenant_uuid, period]);
      u = rows.length === 0 ? { tenant_uuid, period, credits: '0', events: 0, stored: false } : { tenant_uuid, period, credits: rows[0].credits, events: Number(rows[0].events), stored: true };
      usage.set(key, u);
    }
    u.credits = formatPlain(parseDecimal(u.credits) + parseDecimal(credits));
    u.events += 1;
  }

  /** The per-period usage, the top-ups and the adjustments. */
  private async side(e: BillingEvent, tenant_uuid: string, position: string, tx: EntityManager): Promise<void> {
    switch (e.type) {
      case 'BillingTopupRequested':
        await insertRecord(tx, TOPUPS, { ...e.data.topup, tenant_uuid, rail_reference: null, settled_at: null, updated: e.data.topup.requested_at }, { position });
        return;
      case 'BillingTopupSettled':
        await patchRecord(tx, TOPUPS, e.data.topup_id, () => ({ status: 'SETTLED' as const, rail_reference: e.data.rail_reference, settled_at: e.data.at, updated: e.data.at }));
        return;
      case 'BillingTopupFailed':
        await patchRecord(tx, TOPUPS, e.data.topup_id, () => ({ status: 'FAILED' as const, rail_reference: e.data.rail_reference, updated: e.data.at }));
        return;
      case 'BillingTopupFlagged':
        await patchRecord(tx, TOPUPS, e.data.topup_id, () => ({ status: 'REVIEW_REQUIRED' as const, updated: e.data.at }));
        return;
      case 'BillingCreditsGranted': {
        const lot = e.data.lot;
        if (lot.pool !== 'adjustments' || !e.data.by_profile_uuid) return;
        await insertRecord(
          tx,
          ADJUSTMENTS,
          {
            adjustment_id: lot.source.slice('ADJUSTMENT:'.length), tenant_uuid, direction: 'CREDIT', credits: lot.granted, reason: e.data.reason ?? '', expires_at: lot.expires_at, lot_id: lot.lot_id, draws: [],
            uncovered_credits: '0', by_profile_uuid: e.data.by_profile_uuid, created: lot.granted_at,
          },
          { position },
        );
        return;
      }
      case 'BillingCreditsDebited': {
        const d = e.data;
        await insertRecord(
          tx,
          ADJUSTMENTS,
          { adjustment_id: d.adjustment_id, tenant_uuid, direction: 'DEBIT', credits: d.credits, reason: d.reason, expires_at: null, lot_id: null, draws: d.draws, uncovered_credits: d.uncovered_added, by_profile_uuid: d.by_profile_uuid, created: d.at },
          { position },
        );
        return;
      }
      default:
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['billing_accounts', 'billing_usage_periods', 'billing_topups', 'billing_adjustments']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const billingAccountsReadModel: ReadModelDefinition = {
  name: 'billing-accounts',
  entities: [],
  migrations: [BillingAccounts1764000011600],
  projector: BillingAccountsProjector,
};
