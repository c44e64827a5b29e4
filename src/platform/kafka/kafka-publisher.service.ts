/**
 * Kafka on a node (PLATFORM.md section 8): when KAFKA_BROKERS is set and KAFKA_PUBLISHER is not false, this node
 * runs the event publisher (global log → event and checkpoint topics) and the outbox relay (projection outboxes →
 * compacted projection topics), each under its own lease, so however many nodes run, one publishes. Projectors
 * write their outboxes whenever KAFKA_BROKERS is set (platform.module.ts), on every node that projects.
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { Gauge } from 'prom-client';
import { PLATFORM_CONFIG, type PlatformConfig } from '../config/platform-config';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { MetricsService } from '../observability/metrics.service';
import type { ProjectionOutbox } from '../outbox/outbox';
import { ReadModelDatabase } from '../read-model/read-model.datasource';
import { EventPublisher } from './event-publisher';
import { kafkaLinkOptions, openKafkaLink, type KafkaLink, type KafkaLogger } from './kafka-client';
import { OutboxRelay } from './outbox-relay';

export const PROJECTION_OUTBOXES = Symbol('PROJECTION_OUTBOXES');

@Injectable()
export class KafkaPublisherService implements OnApplicationBootstrap, OnModuleDestroy {
  events: EventPublisher | null = null;
  relay: OutboxRelay | null = null;
  private link: KafkaLink | null = null;
  private readonly logger: KafkaLogger;

  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly db: ReadModelDatabase,
    @Inject(PROJECTION_OUTBOXES) private readonly outboxes: ProjectionOutbox[],
    logger: Logger,
    metrics: MetricsService,
  ) {
    this.logger = { info: (o, m) => logger.log(o, m), warn: (o, m) => logger.warn(o, m), error: (o, m) => logger.error(o, m) };
    const self = this;
    new Gauge({
      name: 'platform_kafka_publisher_position',
      help: 'Global position up to which the broker acknowledged the events (the publisher checkpoint, on the node that runs it).',
      registers: [metrics.registry],
      collect() {
        this.reset();
        if (self.events) this.set(Number(self.events.position));
      },
    });
    new Gauge({
      name: 'platform_kafka_publisher_up',
      help: '1 when this node runs the Kafka event publisher or outbox relay or stands by for another node, 0 when stopped or failing.',
      labelNames: ['job', 'state'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const [job, w] of [['events', self.events], ['projections', self.relay]] as const) {
          if (w) this.set({ job, state: w.state }, w.state === 'running' || w.state === 'standby' || w.state === 'starting' ? 1 : 0);
        }
      },
    });
  }

  get enabled(): boolean {
    return Boolean(this.config.kafkaBrokers?.length) && this.config.kafkaPublisher;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.link = openKafkaLink(kafkaLinkOptions(this.config, this.logger));
    const common = { logger: this.logger, batchSize: this.config.kafkaBatchSize };
    this.events = new EventPublisher(this.store, this.db, this.link, common);
    this.relay = new OutboxRelay(this.db, this.link, this.outboxes, { ...common, pollMs: this.config.kafkaOutboxPollMs });
    this.logger.info({ brokers: this.config.kafkaBrokers, prefix: this.config.kafkaTopicPrefix, outboxes: this.outboxes.map((o) => o.readModel) }, 'Kafka publisher starting');
    this.events.start();
    this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.events?.stop(), this.relay?.stop()]);
    await this.link?.topics.close();
    this.link = null;
  }
}
