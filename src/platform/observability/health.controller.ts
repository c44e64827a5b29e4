import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { ProjectionRunner } from '../projections/projection-runner';
import { ReadModelDatabase } from '../read-model/read-model.datasource';
import { Public } from '../http/public.decorator';
import { Logger } from 'nestjs-pino';
import { MetricsService } from './metrics.service';
import { KafkaPublisherService } from '../kafka/kafka-publisher.service';
import { PLATFORM_CONFIG, type PlatformConfig } from '../config/platform-config';

@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly db: ReadModelDatabase,
    private readonly runner: ProjectionRunner,
    private readonly metrics: MetricsService,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly logger: Logger,
    private readonly kafka: KafkaPublisherService,
  ) {}

  @Get('health/live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready when the event store and read-model database answer and no projector is stopped or failing. */
  @Get('health/ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<object> {
    const checks: Record<string, { status: 'up' | 'down'; detail?: string }> = {};
    try {
      const head = await this.store.headPosition();
      checks.event_store = { status: 'up', detail: `${this.store.kind}, head ${head}` };
    } catch (error) {
      checks.event_store = { status: 'down', detail: describe(error, this.logger) };
    }
    try {
      await this.db.ping();
      checks.read_models = { status: 'up', detail: this.db.isPostgres ? 'postgres' : 'sqlite' };
    } catch (error) {
      checks.read_models = { status: 'down', detail: describe(error, this.logger) };
    }
    await this.runner.refreshRemote().catch(() => undefined);
    const projections = this.runner.status().map((s) => ({ name: s.name, state: s.state, checkpoint: s.checkpoint.toString(), failing: s.last_error !== null }));
    // A node started with PROJECTIONS_AUTOSTART=false serves the API while other nodes project.
    const healthy = this.config.projectionsAutostart ? ['running', 'standby', 'starting'] : ['running', 'standby', 'starting', 'stopped'];
    const projectionsOk = projections.every((p) => healthy.includes(p.state));
    checks.projections = { status: projectionsOk ? 'up' : 'down' };
    // Where this node publishes to Kafka: ready once every platform topic exists (created at start-up), so nothing
    // this node says it serves waits on a topic. A broker outage later does not take the API out of service: the
    // publisher keeps its checkpoint and catches up (platform_kafka_publisher_up shows it).
    const topics = this.kafka.topicsReady;
    if (topics !== null) checks.kafka_topics = { status: topics ? 'up' : 'down', detail: this.kafka.topicsDetail() };
    const ok = Object.values(checks).every((c) => c.status === 'up');
    reply.code(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'unavailable', checks, projections };
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}

/** The response names the failing part only; the driver's own text (hosts, users) goes to the log. */
function describe(error: unknown, logger: Logger): string {
  logger.warn({ err: error }, 'readiness check failed');
  return 'unreachable';
}
