/**
 * The arena clock: the node holding the `arena-clock` lease starts SCHEDULED seasons at starts_at, settles LIVE ones
 * at ends_at, and finalizes SETTLING ones (the read model shows SETTLING only once it has folded the settle, so every
 * trade before it is in the standings). Each move is decided on the season's stream: a repeat or a late run changes
 * nothing, and a run after downtime catches up.
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { CLOCK, type Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/command/command-executor';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { LeasedSweepService } from '../../platform/jobs/periodic-job';
import { CheckpointStore } from '../../platform/projections/checkpoint.store';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../../platform/projections/node-identity';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { seasonDecider, seasonStream } from './domain/season';

@Injectable()
export class ArenaClock extends LeasedSweepService implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly commands: CommandExecutor,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity,
    logger: Logger,
  ) {
    super(new CheckpointStore(db, identity), 'arena-clock', config.arenaClockSweepMs, logger);
  }

  protected sweep(): Promise<number> {
    return this.run();
  }

  /** Moves every season that is due; answers how many events it appended. */
  async run(): Promise<number> {
    const now = this.clock().toISOString();
    const due: Array<{ season_uuid: string; status: string }> = await this.db.reader.query(
      this.db.sql("SELECT season_uuid, status FROM arena_seasons WHERE (status = 'SCHEDULED' AND starts_at <= ?) OR (status = 'LIVE' AND ends_at <= ?) OR status = 'SETTLING' ORDER BY starts_at LIMIT 200"),
      [now, now],
    );
    let moved = 0;
    for (const { season_uuid, status } of due) {
      const command = status === 'SETTLING' ? ({ kind: 'Finalize' } as const) : ({ kind: 'Tick' } as const);
      moved += (await this.commands.execute(seasonStream(season_uuid), seasonDecider, command)).events.length;
    }
    return moved;
  }
}
