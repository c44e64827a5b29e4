/**
 * The price-feed staleness sweep: values are computed when quotes arrive, so a feed whose providers fall silent would
 * keep its last value for ever. The node holding the `price-feed-staleness` lease recomputes, every
 * PRICE_FEED_STALENESS_SWEEP_MS, each LIVE feed whose value as of now differs (a source aged past max_staleness_ms: the
 * feed lost a source, or went STALE) — one PriceFeedValueComputed without a quote, decided on the feed's stream, which
 * the markets bound to it take as an index tick. A feed goes stale in the engines at most one sweep after it does by
 * the clock.
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
import { FEEDS, type FeedRow } from '../../../projections/trading-price-feeds/trading-price-feeds.read-model';
import { feedStream, priceFeedDecider, valueChangedSince } from './domain/price-feed';

@Injectable()
export class PriceFeedStalenessSweep extends LeasedSweepService implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly commands: CommandExecutor,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity,
    logger: Logger,
  ) {
    super(new CheckpointStore(db, identity), 'price-feed-staleness', config.priceFeedStalenessSweepMs, logger);
  }

  protected sweep(): Promise<number> {
    return this.reassess();
  }

  /** Recomputes the feeds whose value time alone changed; answers how many values it appended. */
  async reassess(): Promise<number> {
    const now = this.clock();
    let computed = 0;
    // The read model only picks the candidates; the feed's own stream decides (it may have moved on meanwhile).
    const rows: Array<{ record: string }> = await this.db.reader.query(`SELECT record FROM ${FEEDS.table}`);
    for (const row of rows.map((r) => JSON.parse(r.record) as FeedRow)) {
      if (row.state.last?.status !== 'LIVE' || !valueChangedSince(row.state, now)) continue;
      computed += (await this.commands.execute(feedStream(row.feed_id), priceFeedDecider, { kind: 'Reassess' })).events.length;
    }
    return computed;
  }
}
