/** The account closure sweep, under a lease. */
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Logger } from 'nestjs-pino';
import { CLOCK, type Clock } from '../../platform/clock';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { LeasedSweepService } from '../../platform/jobs/periodic-job';
import { CheckpointStore } from '../../platform/projections/checkpoint.store';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../../platform/projections/node-identity';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { CompleteDueClosure } from './commands/account-lifecycle.commands';
import { ListDueClosures } from './queries/identity.queries';

/**
 * Every CLOSURE_SWEEP_INTERVAL_MS, closures whose grace period has passed are completed. Run by the node holding the
 * `identity-closure-sweep` lease; each completion is decided on the account's stream (nothing happens to an account
 * whose closure was cancelled or already completed), so a late run after the lease moved changes nothing.
 */
@Injectable()
export class AccountClosureSweep extends LeasedSweepService implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
    db: ReadModelDatabase,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity,
    logger: Logger,
  ) {
    super(new CheckpointStore(db, identity), 'identity-closure-sweep', config.closureSweepIntervalMs, logger);
  }

  protected sweep(): Promise<number> {
    return this.completeDueClosures(this.clock());
  }

  /** Completes every closure due at `now` (its grace period over); returns how many it completed. */
  async completeDueClosures(now: Date): Promise<number> {
    const due: string[] = await this.queryBus.execute(new ListDueClosures(now.toISOString()));
    let completed = 0;
    for (const profile of due) if (await this.commandBus.execute(new CompleteDueClosure(profile, now))) completed++;
    return completed;
  }
}
