/**
 * The rater (docs/billing.md): one process at a time (lease `billing:rater`) follows the global log from its
 * checkpoint and turns each billable event (the rate card) into a `BillingUsageRated` on the account that pays for it
 * (account-key.ts: its tenant's, or in the global tenant its person's own: the actor, or an agent's on_behalf_of), one
 * append per account per batch, with the expected revision (CommandExecutor). Then, in one read-model transaction
 * that also proves the lease, it counts the billable events it examined per account and period (the reconciliation's
 * `checked`) and moves its checkpoint.
 *
 * Exactly once: a crash between the appends and the checkpoint makes the next owner read those events again; the
 * account's decider ignores a source event at or below the position it already rated, so nothing is rated twice, and
 * the examination is counted once (its count commits with the checkpoint). The rater never rates its own events
 * (billing events are not on the card), and a rebuild of the billing read models never rates anything.
 */
import type { EntityManager } from 'typeorm';
import { CommandExecutor } from '../../platform/command/command-executor';
import { createRequestContext, runWithContext } from '../../platform/context/request-context';
import type { EventStore, EventSubscription, RecordedEvent } from '../../platform/event-store/event-store.port';
import { LeasedWorker, type LeasedWorkerOptions } from '../../platform/jobs/leased-worker';
import { portableSql, type ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { accountStream, billingAccountDecider, periodOf, type RateUsage } from './domain/account';
import { billingAccountKey, GLOBAL_TENANT_UUID, ratedOnSharedGlobalAccount, type BillingPayer } from './domain/account-key';
import { RATE_CARD_V1, usageFor, type RateCard } from './domain/rate-card';

export const RATER_LEASE = 'billing:rater';

export interface BillingRaterOptions extends LeasedWorkerOptions {
  freeAllowance: string;
  currency: string;
  batchSize?: number;
  card?: RateCard;
  /**
   * After a short batch (the log's head reached), wait this long before reading on, so the usage of the orders placed
   * meanwhile is rated in one append and one checkpoint (BILLING_RATER_COALESCE_MS). Without it a trader placing
   * orders one at a time costs the log a durable commit of usage per order, on the event loop that serves requests.
   */
  coalesceMs?: number;
  /** After a batch's usage is appended, before its checkpoint (tests kill the process here). */
  onRated?: (rated: { events: number; usages: number; position: bigint }) => void;
}

export class BillingRater extends LeasedWorker {
  private subscription: EventSubscription | null = null;
  private readonly card: RateCard;
  /** Ends the coalescing pause early (stop, a lost lease, someone waiting for the rater). */
  private endPause: (() => void) | null = null;

  constructor(
    /** The log as stored (the rater reads types, tenants and positions only: nothing to unseal). */
    private readonly log: EventStore,
    db: ReadModelDatabase,
    private readonly commands: CommandExecutor,
    private readonly raterOptions: BillingRaterOptions,
  ) {
    super(RATER_LEASE, db, raterOptions);
    this.card = raterOptions.card ?? RATE_CARD_V1;
  }

  protected async work(from: bigint): Promise<void> {
    const subscription = this.log.subscribeToAll({ after: from });
    this.subscription = subscription;
    try {
      if (this.stopping) return;
      const batchSize = this.raterOptions.batchSize ?? 500;
      for await (const batch of subscription.batches(batchSize)) {
        if (this.stopping) break;
        await this.rate(batch);
        if (batch.length < batchSize) await this.pause(this.raterOptions.coalesceMs ?? 0);
      }
    } finally {
      this.subscription = null;
      await subscription.close();
    }
  }

  protected async interrupt(): Promise<void> {
    this.endPause?.();
    await this.subscription?.close();
  }

  /** Someone waits for the rater (the credits gate near a tenant's last credits): no pause keeps them waiting. */
  override waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (position > this.position) this.endPause?.();
    return super.waitFor(position, timeoutMs);
  }

  private pause(ms: number): Promise<void> {
    if (ms <= 0 || this.stopping || this.leaseLost) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.endPause?.(), ms);
      this.endPause = () => {
        clearTimeout(timer);
        this.endPause = null;
        resolve();
      };
    });
  }

  /** Rates one batch of the log (in order) and checkpoints after it. */
  async rate(batch: RecordedEvent[]): Promise<void> {
    const billable = batch.map((e) => usageFor(e, this.card, this.raterOptions.freeAllowance)).filter((u) => u !== null);
    const sharedUntil = await this.sharedGlobalRatedUntil(billable);
    const byAccount = new Map<string, { payer: BillingPayer; usages: RateUsage[] }>();
    for (const usage of billable) {
      // Rated on the global tenant's former shared account before people were billed on their own: in already.
      if (ratedOnSharedGlobalAccount(usage.payer, usage.command.source_position, sharedUntil)) continue;
      const key = billingAccountKey(usage.payer);
      const account = byAccount.get(key) ?? { payer: usage.payer, usages: [] };
      account.usages.push(usage.command);
      byAccount.set(key, account);
    }
    // Accounts are independent streams: their appends go out together (the store orders them).
    await Promise.all([...byAccount].map(([key, { payer, usages }]) => this.rateAccount(key, payer, usages)));
    const usages = [...byAccount.values()].reduce((n, a) => n + a.usages.length, 0);
    const last = batch[batch.length - 1].position;
    this.raterOptions.onRated?.({ events: batch.length, usages, position: last });
    await this.db.transaction(async (tx) => {
      await countChecked(tx, byAccount);
      await this.advance(tx, last);
    });
    this.advanced(last);
  }

  /**
   * How far the global tenant's former shared account rated (docs/billing.md, "Which account pays"): the global
   * tenant's usage up to there was rated on it under the earlier rule and must not be rated again on the people's own
   * accounts when the log is read again (a lease moved before a checkpoint, a lost read-model database). Nothing is
   * rated on it any more, so the position only moves while a node of the earlier release still rates. Read only for
   * batches with usage of the global tenant's people.
   */
  private async sharedGlobalRatedUntil(billable: Array<{ payer: BillingPayer }>): Promise<bigint> {
    if (!billable.some((u) => u.payer.tenant_uuid === GLOBAL_TENANT_UUID)) return -1n;
    return (await this.commands.load(accountStream(GLOBAL_TENANT_UUID), billingAccountDecider)).state.rated_position;
  }

  private rateAccount(key: string, payer: BillingPayer, usages: RateUsage[]): Promise<void> {
    // The account's events carry its tenant and the first source event as their cause (the audit trail's link).
    const context = createRequestContext({ tenant_uuid: payer.tenant_uuid, causation_id: usages[0].source_event_id });
    return runWithContext(context, async () => {
      const { freeAllowance: free_allowance, currency } = this.raterOptions;
      await this.commands.execute(accountStream(key), billingAccountDecider, { kind: 'RateUsages', usages, opening: { ...payer, currency, free_allowance } });
    });
  }
}

/** The reconciliation's `checked`: billable events examined, per account and period, with the checkpoint. */
async function countChecked(tx: EntityManager, byAccount: Map<string, { usages: RateUsage[] }>): Promise<void> {
  for (const [account_key, { usages }] of byAccount) {
    const perPeriod = new Map<string, number>();
    for (const u of usages) {
      const period = periodOf(u.occurred_at).started_at;
      perPeriod.set(period, (perPeriod.get(period) ?? 0) + 1);
    }
    for (const [period, n] of perPeriod) {
      await tx.query(
        portableSql(tx, 'INSERT INTO billing_rating_checks (account_key, period_started_at, checked) VALUES (?, ?, ?) ON CONFLICT (account_key, period_started_at) DO UPDATE SET checked = billing_rating_checks.checked + ?'),
        [account_key, period, n, n],
      );
    }
  }
}
