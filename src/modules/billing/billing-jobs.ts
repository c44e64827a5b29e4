/**
 * Billing's background work on each node: the rater (rater.ts, under its lease) and the period close (a leased
 * sweep). Both are safe on every node at once: one holds each lease, the others stand by.
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { Gauge } from 'prom-client';
import { CLOCK, type Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/command/command-executor';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import type { EventStore } from '../../platform/event-store/event-store.port';
import { LeasedSweep, PeriodicJob } from '../../platform/jobs/periodic-job';
import { MetricsService } from '../../platform/observability/metrics.service';
import { RAW_EVENT_STORE } from '../../platform/privacy/sealing-event-store';
import { CheckpointStore } from '../../platform/projections/checkpoint.store';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../../platform/projections/node-identity';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { accountStream, billingAccountDecider } from './domain/account';
import { GLOBAL_TENANT_UUID } from './domain/account-key';
import { BillingRater, RATER_LEASE } from './rater';

/**
 * A period is closed only this long after its end, and only once the rater has passed the log's head as it was then:
 * a command stamps its events before it appends them, so an event of the old period may still land just after the
 * boundary; this grace lets it be rated into the period it belongs to.
 */
export const PERIOD_CLOSE_GRACE_MS = 5_000;

@Injectable()
export class BillingJobs implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly rater: BillingRater;
  private readonly closeLease: LeasedSweep;
  private closeJob: PeriodicJob | null = null;
  private readonly checkpoints: CheckpointStore;

  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(RAW_EVENT_STORE) private readonly log: EventStore,
    private readonly db: ReadModelDatabase,
    private readonly commands: CommandExecutor,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity,
    private readonly logger: Logger,
    metrics: MetricsService,
  ) {
    const jobLogger = { info: (o: object, m: string) => logger.log(o, m), warn: (o: object, m: string) => logger.warn(o, m), error: (o: object, m: string) => logger.error(o, m) };
    this.rater = new BillingRater(log, db, commands, { logger: jobLogger, identity, freeAllowance: config.billingFreeAllowanceCredits, currency: config.billingCurrency, coalesceMs: config.billingRaterCoalesceMs });
    this.checkpoints = new CheckpointStore(db, identity);
    this.closeLease = new LeasedSweep(this.checkpoints, 'billing-period-close', () => this.closeDuePeriods());
    const rater = this.rater;
    new Gauge({
      name: 'platform_billing_rater_position',
      help: 'Global position up to which the billing rater has rated the log (on the node that runs it).',
      registers: [metrics.registry],
      collect() {
        this.reset();
        if (rater.state === 'running') this.set(Number(rater.position));
      },
    });
  }

  onApplicationBootstrap(): void {
    // The rater follows the log as the projectors do: a node that does not run projectors does not rate either.
    if (this.config.projectionsAutostart) this.rater.start();
    this.closeJob = new PeriodicJob(this.config.billingPeriodCloseSweepMs, () => this.closeLease.tick(), (err) => this.logger.warn({ err }, 'billing period close failed'));
    this.closeJob.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.closeJob?.stop();
    await this.closeLease.release().catch(() => undefined);
    await this.rater.stop();
  }

  /** One period-close run under its lease (null: another node holds it). */
  closeTick(): Promise<number | null> {
    return this.closeLease.tick();
  }

  /**
   * Resolves true once the rater has rated the log up to `position` (followed in memory where it runs here, through its
   * checkpoint where another node runs it), false after `timeoutMs`.
   */
  async raterReached(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.rater.state === 'running') return this.rater.waitFor(position, timeoutMs);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = (await this.checkpoints.positions([RATER_LEASE])).get(RATER_LEASE) ?? 0n;
      if (at >= position) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Closes the periods that ended at least PERIOD_CLOSE_GRACE_MS ago, once the rater has passed every event committed
   * before now (so every usage of the old period is in it). Each close is decided on the account's stream (a no-op when
   * the rater closed it first, with the first event of the new period). The global tenant's former shared account is
   * left as it stands: nobody is billed on it any more (each person of the global tenant has their own), so it gets no
   * new allowances.
   */
  async closeDuePeriods(): Promise<number> {
    const now = this.clock().getTime();
    const due: Array<{ account_key: string }> = await this.db.reader.query(
      this.db.sql('SELECT account_key FROM billing_accounts WHERE period_ends_at <= ? AND account_key <> ? ORDER BY period_ends_at LIMIT 200'),
      [new Date(now - PERIOD_CLOSE_GRACE_MS).toISOString(), GLOBAL_TENANT_UUID],
    );
    if (due.length === 0) return 0;
    if (!(await this.raterReached(await this.log.headPosition(), 10_000))) return 0;
    let closed = 0;
    for (const { account_key } of due) {
      const outcome = await this.commands.execute(accountStream(account_key), billingAccountDecider, { kind: 'ClosePeriod', free_allowance: this.config.billingFreeAllowanceCredits });
      closed += outcome.events.length > 0 ? 1 : 0;
    }
    return closed;
  }
}
