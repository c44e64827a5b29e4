/**
 * Billing's answer to the platform's credits gate (src/platform/credits/credits-gate.ts): a caller whose account has
 * nothing left to spend (its credits used up, or usage it still owes) is refused billable commands with 402
 * CREDITS_REQUIRED. The account is the one the rater will bill the command's events to (account-key.ts: the tenant's;
 * in the global tenant the caller's own, an agent's being its binding owner's). An account not opened yet has the free allowance ahead of it.
 *
 * How far a fast client can overrun: the gate reads the account as the read model has it, which trails the log by
 * the rater's and the projector's lag. Far from the end (at least HEADROOM_FACTOR times the command's rate left) the
 * gate answers at once; near it, it first waits until the rater has rated the log as it is now and the account shows
 * that (bounded by READ_YOUR_WRITES_TIMEOUT_MS). A client sending one command after another therefore stops exactly
 * where its credits end; one with N commands in flight can overrun by at most those N (they passed the gate before
 * any of them was rated). What is overrun is still rated: it is owed, and the next grant pays it first.
 */
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/clock';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { CreditsGate, type CreditsAnswer, type CreditsAnswerer, type CreditsQuestion } from '../../platform/credits/credits-gate';
import { formatPlain, parseDecimal } from '../../platform/decimal/fixed18';
import type { EventStore } from '../../platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../platform/privacy/sealing-event-store';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { readRecord } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { ACCOUNTS } from '../../../projections/billing-accounts/billing-accounts.read-model';
import { billingAccountDecider, type BillingAccountState } from './domain/account';
import { billingAccountKey, billingPayer } from './domain/account-key';
import { loadState, spendable } from './domain/account-view';
import { rateOf, RATE_CARD_V1 } from './domain/rate-card';
import { BillingJobs } from './billing-jobs';

/** Below this many commands' worth of credits, the gate waits for the rater before it answers. */
export const HEADROOM_FACTOR = 50n;

@Injectable()
export class BillingCreditsAnswerer implements CreditsAnswerer, OnModuleInit {
  constructor(
    private readonly gate: CreditsGate,
    private readonly db: ReadModelDatabase,
    private readonly runner: ProjectionRunner,
    private readonly jobs: BillingJobs,
    @Inject(RAW_EVENT_STORE) private readonly log: EventStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    if (this.config.billingEnforcement) this.gate.register(this);
  }

  async answer({ tenant_uuid, actor, on_behalf_of, usage }: CreditsQuestion): Promise<CreditsAnswer> {
    const rate = rateOf(RATE_CARD_V1, usage);
    if (rate === null) return null;
    const required = parseDecimal(rate);
    // The same rule and the same inputs the rater reads from the events' envelope (actor, on_behalf_of).
    const key = billingAccountKey(billingPayer(tenant_uuid, actor, on_behalf_of));
    let available = await this.available(key);
    if (available < required * HEADROOM_FACTOR) {
      const timeout = this.config.readYourWritesTimeoutMs;
      if (await this.jobs.raterReached(await this.log.headPosition(), timeout)) await this.runner.waitFor(await this.log.headPosition(), ['billing-accounts'], timeout);
      available = await this.available(key);
    }
    return available > 0n ? null : { available_credits: formatPlain(available), required_credits: rate };
  }

  /** What the account can spend now; a period that has ended counts as closed (its next allowance granted). */
  private async available(account_key: string): Promise<bigint> {
    const row = await readRecord(this.db.reader.manager, ACCOUNTS, account_key);
    if (!row) return parseDecimal(this.config.billingFreeAllowanceCredits);
    const now = this.clock();
    let state: BillingAccountState = loadState(row.state);
    for (const e of billingAccountDecider.decide({ kind: 'ClosePeriod', free_allowance: this.config.billingFreeAllowanceCredits }, state, { now, newId: () => '' })) state = billingAccountDecider.evolve(state, e);
    return spendable(state, now.toISOString());
  }
}
