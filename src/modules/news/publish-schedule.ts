/**
 * The news scheduler: the node holding the `news-publish-schedule` lease publishes every SCHEDULED article whose
 * publish_at has come (PublishDue, decided on its stream), so articles due while every node was down are published
 * at the next run, each exactly once: a second run, or a person who published first, finds nothing to do.
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
import { articleDecider, articleStream } from './domain/article';

@Injectable()
export class NewsPublishSchedule extends LeasedSweepService implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly commands: CommandExecutor,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity,
    logger: Logger,
  ) {
    super(new CheckpointStore(db, identity), 'news-publish-schedule', config.newsPublishSweepMs, logger);
  }

  protected sweep(): Promise<number> {
    return this.publishDue();
  }

  /** Publishes what is due now; answers how many articles it published. */
  async publishDue(): Promise<number> {
    const due: Array<{ article_uuid: string }> = await this.db.reader.query(
      this.db.sql("SELECT article_uuid FROM news_articles WHERE status = 'SCHEDULED' AND publish_at <= ? ORDER BY publish_at LIMIT 500"),
      [this.clock().toISOString()],
    );
    let published = 0;
    for (const { article_uuid } of due) published += (await this.commands.execute(articleStream(article_uuid), articleDecider, { kind: 'PublishDue' })).events.length;
    return published;
  }
}
