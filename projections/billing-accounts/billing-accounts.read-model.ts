/**
 * Billing accounts (docs/billing.md): each account (a tenant's, or one person's of the global tenant; keyed by its
 * account key, src/modules/billing/domain/account-key.ts, the key its stream is named by) folded with the decider's own
 * `evolve` (the balance the API shows is the balance the commands decide on), the usage rated per period (and per source
 * type, the rated usage's source_type, in billing_usage_by_source, published as billing-usage), the top-ups
 * and the adjustments.
 * The rater's reconciliation counts (`billing_rating_checks`) live beside them but are the rater's, written with its
 * checkpoint: a rebuild of this read model re-projects the rated usage and leaves them (and the rating) alone.
 */
import { Table, TableColumn, TableIndex, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
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
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type Publication, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';
import { publishedAccount } from './account-record';

export interface AccountRow {
  account_key: string;
  account_id: string;
  period_ends_at: string;
  state: StoredAccountState;
}
export const ACCOUNTS: JsonRecordTable<AccountRow> = { table: 'billing_accounts', key: 'account_key', columns: ['account_id', 'period_ends_at'] };

/** Whose account a top-up or adjustment is on: the tenant, and the person for a person's own account (absent before). */
interface OnAccount {
  tenant_uuid: string;
  profile_uuid?: string | null;
}

export interface TopupRecord extends Topup, OnAccount {
  rail_reference: string | null;
  settled_at: string | null;
  updated: string;
}
export const TOPUPS: JsonRecordTable<TopupRecord> = { table: 'billing_topups', key: 'topup_id', columns: ['tenant_uuid', 'status'] };

export interface AdjustmentRecord extends OnAccount {
  adjustment_id: string;
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

/**
 * Accounts are keyed by their account key, no longer by tenant (a person of the global tenant has an account of their
 * own): the key columns are renamed (a tenant's account keeps its key, its tenant's id, so every existing row stays
 * right as it is), and top-ups and adjustments gain the key of their account (their tenant's, for every existing one).
 */
export class BillingAccountKeys1764000013900 implements MigrationInterface {
  name = 'BillingAccountKeys1764000013900';
  async up(q: QueryRunner): Promise<void> {
    for (const t of ['billing_accounts', 'billing_usage_periods', 'billing_rating_checks']) await q.query(`ALTER TABLE ${t} RENAME COLUMN tenant_uuid TO account_key`);
    for (const [t, old] of [['billing_topups', 'idx_billing_topups_tenant'], ['billing_adjustments', 'idx_billing_adjustments_tenant']]) {
      await q.addColumn(t, new TableColumn({ name: 'account_key', type: 'varchar', length: '32', isNullable: true }));
      await q.query(`UPDATE ${t} SET account_key = tenant_uuid`);
      await q.dropIndex(t, old);
      await q.createIndex(t, new TableIndex({ name: `${old.replace(/_tenant$/, '_account')}`, columnNames: ['account_key', 'position'] }));
    }
  }
  async down(q: QueryRunner): Promise<void> {
    for (const [t, old] of [['billing_topups', 'idx_billing_topups_tenant'], ['billing_adjustments', 'idx_billing_adjustments_tenant']]) {
      await q.dropIndex(t, old.replace(/_tenant$/, '_account'));
      await q.dropColumn(t, 'account_key');
      await q.createIndex(t, new TableIndex({ name: old, columnNames: ['tenant_uuid', 'position'] }));
    }
    for (const t of ['billing_accounts', 'billing_usage_periods', 'billing_rating_checks']) await q.query(`ALTER TABLE ${t} RENAME COLUMN account_key TO tenant_uuid`);
  }
}

/** The accounts' outbox (src/platform/outbox): each change of an account, as its BillingAccount record, for Kafka. */
export class BillingAccountsOutbox1764000014500 implements MigrationInterface {
  name = 'BillingAccountsOutbox1764000014500';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_billing_accounts');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_billing_accounts');
  }
}

/**
 * Usage per source ("product": the event type the rate card priced, a rated usage's `source_type`) of each account and
 * period, beside the period's total in billing_usage_periods, and its outbox (topic billing-usage). After this migration
 * the table is empty for the periods already projected: `npm run projections -- rebuild billing-accounts` fills it
 * (every BillingUsageRated carries its source_type).
 */
export class BillingUsageBySource1764000014900 implements MigrationInterface {
  name = 'BillingUsageBySource1764000014900';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string) => ({ name, type: 'varchar', length });
    await q.createTable(
      new Table({
        name: 'billing_usage_by_source',
        columns: [
          { ...text('account_key', '32'), isPrimary: true },
          { ...text('period_started_at', '32'), isPrimary: true },
          { ...text('source_type', '100'), isPrimary: true },
          text('tenant_uuid', '32'),
          text('credits', '40'),
          { name: 'events', type: 'bigint' },
        ],
      }),
    );
    await createOutboxTable(q, 'outbox_billing_usage_by_source');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_billing_usage_by_source');
    await q.dropTable('billing_usage_by_source');
  }
}

/** An account row as its topic carries it: keyed by account_id, whose account it is in the headers. */
const accountChange = (row: Pick<AccountRow, 'state'>) => {
  const record = publishedAccount(row);
  return { key: record.account_id, value: record, headers: { tenant_uuid: record.tenant_uuid, account_key: record.account_key } };
};

/** A row of billing_usage_by_source: one account's usage of one source type in one period. */
export interface UsageBySourceRow {
  account_key: string;
  period_started_at: string;
  source_type: string;
  /** The account's tenant (every account has one). */
  tenant_uuid: string;
  credits: string;
  events: string | number;
}

/** The value of the topic billing-usage: a row of billing_usage_by_source as GET /billing/usage's by_source names it. */
export interface PublishedUsageBySource {
  account_key: string;
  tenant_uuid: string;
  period_started_at: string;
  source_type: string;
  credits: string;
  usage_events: number;
}

/** A usage-by-source row as its topic carries it: keyed by `<account_key>:<period_started_at>:<source_type>`. */
const usageBySourceChange = (row: UsageBySourceRow) => {
  const value: PublishedUsageBySource = {
    account_key: row.account_key,
    tenant_uuid: row.tenant_uuid,
    period_started_at: row.period_started_at,
    source_type: row.source_type,
    credits: formatPlain(parseDecimal(row.credits)),
    usage_events: Number(row.events),
  };
  return { key: `${row.account_key}:${row.period_started_at}:${row.source_type}`, value, headers: { tenant_uuid: row.tenant_uuid, account_key: row.account_key } };
};

/** A period's usage being folded (read once per batch, written at its end): its total, or one source's part of it. */
interface UsageSum {
  account_key: string;
  period: string;
  credits: string;
  events: number;
  stored: boolean;
}

/** The account's key, from its stream's name (`billing-account-<key>`). */
const keyOf = (stream: string): string => stream.slice('billing-account-'.length);

export class BillingAccountsProjector implements Projector, PublishingProjector {
  readonly name = 'billing-accounts';
  readonly outbox = new ProjectionOutbox('billing-accounts', 'outbox_billing_accounts', {
    title: 'Billing account (value of platform.projections.billing-accounts)',
    key: "the value's account_id",
    description:
      'One billing account with its usage of the current period (rated_usage_credits, usage_events, period) as GET /api/v1/billing/account shows it, ' +
      'after each change of the account (a rated usage, a period close, a grant, a top-up, a subscription). The usage here is the period\'s total; ' +
      'its breakdown by source event type (product) is on platform.projections.billing-usage. status and available_credits are as the stored state says: every lot ' +
      'still holding credits counts (the API reads them at the time of reading, so a lot whose expiry passed before the period close no longer counts ' +
      'there; compare credit_pools.*.first_expires_at).',
    component: 'BillingAccount',
    omit: {
      pending_usage_events: "the rater's reconciliation count (billing_rating_checks, written by the rater, not by this projection): GET /api/v1/billing/usage answers it",
    },
    headers: {
      tenant_uuid: 'the tenant the account bills',
      account_key: "the account's key (its stream billing-account-<key>): the tenant's id for a tenant's account, a digest of the person for a person's own in the global tenant",
    },
  });
  readonly published: PublishedTable<Pick<AccountRow, 'account_key'> & { record: string }> = {
    table: 'billing_accounts',
    key: 'account_key',
    columns: 'account_key, record',
    change: (row) => accountChange(JSON.parse(row.record) as AccountRow),
  };
  /** Usage per account, period and source type (billing_usage_by_source): topic billing-usage. */
  private readonly usageBySource: Publication = {
    outbox: new ProjectionOutbox('billing-usage', 'outbox_billing_usage_by_source', {
      title: 'Billing usage of one source in one period (value of platform.projections.billing-usage)',
      key: '`<account_key>:<period_started_at>:<source_type>`: the account, the period (its start) and the source type',
      description:
        'The credits one billing account consumed in one period on one source, the event type the rate card priced (a rated usage\'s source_type: ' +
        'OrderAccepted, AiWalletIntentReserved, AgenticMemoryRequestAccepted, ...; "product" for an analyst), after each batch of rated usage that ' +
        'changed it, as an entry of GET /api/v1/billing/usage by_source shows it. The sum over the source types of a period is the period\'s ' +
        'rated_usage_credits and usage_events (platform.projections.billing-accounts, keyed by account_id).',
      headers: {
        tenant_uuid: 'the tenant the account bills',
        account_key: "the account's key (its stream billing-account-<key>)",
      },
    }),
    published: {
      table: 'billing_usage_by_source',
      key: ['account_key', 'period_started_at', 'source_type'],
      change: (row: UsageBySourceRow) => usageBySourceChange(row),
    },
  };
  readonly morePublications: readonly Publication[] = [this.usageBySource];
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
    const accounts = new Map<string, { row: AccountRow; stored: boolean; position: string; last: RecordedEvent }>();
    const usage = new Map<string, UsageSum>();
    const bySource = new Map<string, UsageSum & { source_type: string; tenant_uuid: string; last: RecordedEvent }>();
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
      const account_key = keyOf(event.stream);
      const position = event.position.toString().padStart(20, '0');
      let account = accounts.get(account_key);
      if (!account) {
        const stored = await readRecord(tx, ACCOUNTS, account_key);
        if (stored) account = { row: stored, stored: true, position, last: event };
      }
      // A replayed event (the checkpoint's batch again after a crash) is already folded in: the version tells.
      if (account && BigInt(account.row.state.version) >= event.revision) continue;
      const state = foldStored(account?.row.state ?? null, e);
      const row: AccountRow = { account_key, account_id: state.account!.account_id, period_ends_at: state.period.ends_at, state };
      accounts.set(account_key, { row, stored: account?.stored ?? false, position: account?.position ?? position, last: event });
      const { tenant_uuid, profile_uuid } = state.account!;
      if (e.type === 'BillingUsageRated') {
        const period = periodOf(e.data.at).started_at;
        await this.rated(usage, account_key, period, e.data.credits, tx);
        await this.ratedBySource(bySource, { account_key, period, source_type: e.data.source_type, tenant_uuid }, e.data.credits, event, tx);
      }
      else await this.side(e, { account_key, on: { tenant_uuid, profile_uuid } }, position, tx);
    }
    for (const { row, stored, position, last } of accounts.values()) {
      if (stored) await replaceRecord(tx, ACCOUNTS, row);
      else await insertRecord(tx, ACCOUNTS, row, { position });
      // Kafka on: the account as written, once per batch (its newest state), with the last event that changed it.
      if (this.outbox.enabled) await this.outbox.put(tx, { ...accountChange(row), position: last.position, event_id: last.event_id });
    }
    for (const u of usage.values()) {
      if (u.stored) await tx.query(portableSql(tx, 'UPDATE billing_usage_periods SET credits = ?, events = ? WHERE account_key = ? AND period_started_at = ?'), [u.credits, u.events, u.account_key, u.period]);
      else await tx.query(portableSql(tx, 'INSERT INTO billing_usage_periods (account_key, period_started_at, credits, events) VALUES (?, ?, ?, ?)'), [u.account_key, u.period, u.credits, u.events]);
    }
    for (const u of bySource.values()) {
      const at = [u.account_key, u.period, u.source_type];
      if (u.stored) await tx.query(portableSql(tx, 'UPDATE billing_usage_by_source SET credits = ?, events = ? WHERE account_key = ? AND period_started_at = ? AND source_type = ?'), [u.credits, u.events, ...at]);
      else await tx.query(portableSql(tx, 'INSERT INTO billing_usage_by_source (account_key, period_started_at, source_type, tenant_uuid, credits, events) VALUES (?, ?, ?, ?, ?, ?)'), [...at, u.tenant_uuid, u.credits, u.events]);
      // Kafka on: the row as written, once per batch, with the last usage that changed it.
      const outbox = this.usageBySource.outbox;
      if (outbox.enabled) {
        const row: UsageBySourceRow = { account_key: u.account_key, period_started_at: u.period, source_type: u.source_type, tenant_uuid: u.tenant_uuid, credits: u.credits, events: u.events };
        await outbox.put(tx, { ...usageBySourceChange(row), position: u.last.position, event_id: u.last.event_id });
      }
    }
  }

  /** A rated usage added to its source type's part of its period (read once per batch, written at its end). */
  private async ratedBySource(
    bySource: Map<string, UsageSum & { source_type: string; tenant_uuid: string; last: RecordedEvent }>,
    { account_key, period, source_type, tenant_uuid }: { account_key: string; period: string; source_type: string; tenant_uuid: string },
    credits: string,
    event: RecordedEvent,
    tx: EntityManager,
  ): Promise<void> {
    const key = `${account_key} ${period} ${source_type}`;
    let u = bySource.get(key);
    if (!u) {
      const rows: Array<{ credits: string; events: string | number }> = await tx.query(
        portableSql(tx, 'SELECT credits, events FROM billing_usage_by_source WHERE account_key = ? AND period_started_at = ? AND source_type = ?'),
        [account_key, period, source_type],
      );
      u =
        rows.length === 0
          ? { account_key, period, source_type, tenant_uuid, credits: '0', events: 0, stored: false, last: event }
          : { account_key, period, source_type, tenant_uuid, credits: rows[0].credits, events: Number(rows[0].events), stored: true, last: event };
      bySource.set(key, u);
    }
    u.credits = formatPlain(parseDecimal(u.credits) + parseDecimal(credits));
    u.events += 1;
    u.last = event;
  }

  /** A rated usage added to its period's totals (read once per batch, written at its end). */
  private async rated(usage: Map<string, UsageSum>, account_key: string, period: string, credits: string, tx: EntityManager): Promise<void> {
    const key = `${account_key} ${period}`;
    let u = usage.get(key);
    if (!u) {
      const rows: Array<{ credits: string; events: string | number }> = await tx.query(portableSql(tx, 'SELECT credits, events FROM billing_usage_periods WHERE account_key = ? AND period_started_at = ?'), [account_key, period]);
      u = rows.length === 0 ? { account_key, period, credits: '0', events: 0, stored: false } : { account_key, period, credits: rows[0].credits, events: Number(rows[0].events), stored: true };
      usage.set(key, u);
    }
    u.credits = formatPlain(parseDecimal(u.credits) + parseDecimal(credits));
    u.events += 1;
  }

  /** The top-ups and the adjustments, each with its account's key (a column) and whose account it is (in the record). */
  private async side(e: BillingEvent, { account_key, on }: { account_key: string; on: OnAccount }, position: string, tx: EntityManager): Promise<void> {
    const extra = { position, account_key };
    switch (e.type) {
      case 'BillingTopupRequested':
        await insertRecord(tx, TOPUPS, { ...e.data.topup, ...on, rail_reference: null, settled_at: null, updated: e.data.topup.requested_at }, extra);
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
            adjustment_id: lot.source.slice('ADJUSTMENT:'.length), ...on, direction: 'CREDIT', credits: lot.granted, reason: e.data.reason ?? '', expires_at: lot.expires_at, lot_id: lot.lot_id, draws: [],
            uncovered_credits: '0', by_profile_uuid: e.data.by_profile_uuid, created: lot.granted_at,
          },
          extra,
        );
        return;
      }
      case 'BillingCreditsDebited': {
        const d = e.data;
        await insertRecord(
          tx,
          ADJUSTMENTS,
          { adjustment_id: d.adjustment_id, ...on, direction: 'DEBIT', credits: d.credits, reason: d.reason, expires_at: null, lot_id: null, draws: d.draws, uncovered_credits: d.uncovered_added, by_profile_uuid: d.by_profile_uuid, created: d.at },
          extra,
        );
        return;
      }
      default:
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['billing_accounts', 'billing_usage_periods', 'billing_usage_by_source', 'billing_topups', 'billing_adjustments']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const billingAccountsReadModel: ReadModelDefinition = {
  name: 'billing-accounts',
  entities: [],
  migrations: [BillingAccounts1764000011600, BillingAccountKeys1764000013900, BillingAccountsOutbox1764000014500, BillingUsageBySource1764000014900],
  projector: BillingAccountsProjector,
};
