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
import type { EventStore } from '../event-store/event-store.port';
import { RAW_EVENT_STORE } from '../privacy/sealing-event-store';
import { MetricsService } from '../observability/metrics.service';
import type { ProjectionOutbox } from '../outbox/outbox';
import { ReadModelDatabase } from '../read-model/read-model.datasource';
import { EventPublisher } from './event-publisher';
import { kafkaLinkOptions, openKafkaLink, type KafkaLink, type KafkaLogger } from './kafka-client';
import { OutboxRelay } from './outbox-relay';
import { platformTopics } from './topics';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../projections/node-identity';
import { equalJitter } from '../projections/lease-loop';
import { ReadinessRegistry } from '../observability/readiness';

export const PROJECTION_OUTBOXES = Symbol('PROJECTION_OUTBOXES');

@Injectable()
export class KafkaPublisherService implements OnApplicationBootstrap, OnModuleDestroy {
  events: EventPublisher | null = null;
  relay: OutboxRelay | null = null;
  private link: KafkaLink | null = null;
  private readonly logger: KafkaLogger;
  private provisioned = false;
  private provisionError: string | null = null;
  private provisioning: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;

  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(RAW_EVENT_STORE) private readonly store: EventStore,
    private readonly db: ReadModelDatabase,
    @Inject(PROJECTION_OUTBOXES) private readonly outboxes: ProjectionOutbox[],
    logger: Logger,
    metrics: MetricsService,
    @Inject(NODE_IDENTITY) private readonly identity: LeaseOwnerIdentity,
    private readonly readiness: ReadinessRegistry,
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

  private topicsDetail(): string {
    return this.provisioned ? `${this.topicNames().length} topics` : (this.provisionError ?? 'creating');
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    // Ready once every platform topic exists (created at start-up), so nothing waits on a topic. A broker outage
    // later does not take the API out of service: the publisher keeps its checkpoint and catches up
    // (platform_kafka_publisher_up shows it).
    this.readiness.register('kafka_topics', () => ({ status: this.provisioned ? 'up' : 'down', detail: this.topicsDetail() }));
    this.link = openKafkaLink(kafkaLinkOptions(this.config, this.logger));
    this.provisioning = this.provisionTopics(this.link);
    const common = { logger: this.logger, batchSize: this.config.kafkaBatchSize, identity: this.identity };
    this.events = new EventPublisher(this.store, this.db, this.link, common);
    this.relay = new OutboxRelay(this.db, this.link, this.outboxes, { ...common, pollMs: this.config.kafkaOutboxPollMs });
    this.logger.info({ brokers: this.config.kafkaBrokers, prefix: this.config.kafkaTopicPrefix, outboxes: this.outboxes.map((o) => o.readModel) }, 'Kafka publisher starting');
    this.events.start();
    this.relay.start();
  }

  private topicNames(): string[] {
    return platformTopics(this.config.kafkaTopicPrefix, this.outboxes.map((o) => o.readModel));
  }

  /** Creates the missing platform topics (idempotent: existing ones are left as they are), retrying until it could. */
  private async provisionTopics(link: KafkaLink): Promise<void> {
    let delay = 500;
    while (!this.stopping) {
      try {
        await link.topics.ensure(this.topicNames());
        this.provisioned = true;
        this.provisionError = null;
        this.logger.info({ topics: this.topicNames().length, prefix: this.config.kafkaTopicPrefix }, 'Kafka topics present');
        return;
      } catch (error) {
        link.topics.forget();
        this.provisionError = 'broker unreachable or refusing topic creation';
        this.logger.warn({ err: error }, 'Kafka topics could not be checked or created yet; retrying');
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, equalJitter(delay)).unref();
        });
        delay = Math.min(delay * 2, 30_000);
      }
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.provisioning?.catch(() => undefined);
    await Promise.all([this.events?.stop(), this.relay?.stop()]);
    await this.link?.topics.close();
    this.link = null;
  }
}
