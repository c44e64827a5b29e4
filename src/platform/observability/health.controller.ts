import { Capability } from '../capabilities/capability';
import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiExtraModels, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { LivenessReport, ReadinessCheckReport, ReadinessReport } from './health.dto';
import type { FastifyReply } from 'fastify';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { ProjectionRunner } from '../projections/projection-runner';
import { ReadModelDatabase } from '../read-model/read-model.datasource';
import { Public } from '../http/public.decorator';
import { Logger } from 'nestjs-pino';
import { MetricsService } from './metrics.service';
// The health application in the capability registry (docs/capabilities.md).
import './capabilities';
import { PLATFORM_CONFIG, type PlatformConfig } from '../config/platform-config';
import { ReadinessRegistry, type ReadinessCheck } from './readiness';
import type { ProjectorStatus } from '../projections/projection-runner';
import { mergeThreadMetrics, metricsText } from './thread-metrics';
import { WorkerThreads } from '../workers/worker-threads.service';

@ApiTags('health')
@ApiExtraModels(ReadinessCheckReport)
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
    private readonly readiness: ReadinessRegistry,
    private readonly workerThreads: WorkerThreads,
  ) {}

  @Capability('health', { exposure: 'internal' })
  @Get('health/live')
  @ApiOperation({ summary: 'Liveness: the process serves HTTP.' })
  @ApiOkResponse({ type: LivenessReport, description: 'The process serves HTTP.' })
  checkLiveness(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready when the event store and read-model database answer, every projector runs or stands by, and each module's checks hold. */
  @Capability('health', { exposure: 'internal' })
  @Get('health/ready')
  @ApiOperation({ summary: 'Readiness: stores answer, projectors and engines run, Kafka topics exist.' })
  @ApiOkResponse({ type: ReadinessReport, description: 'Ready: every check is up.' })
  @ApiServiceUnavailableResponse({ type: ReadinessReport, description: 'Not ready: the checks say which part is down.' })
  async checkReadiness(@Res({ passthrough: true }) reply: FastifyReply): Promise<object> {
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
    // With worker threads the projectors run on the background thread: its states are theirs, and its modules' checks
    // count with this thread's (each part up only where it is up on every thread). A thread that does not answer is
    // down in `worker_threads`; the projectors are then shown as this thread follows them.
    const answers = this.workerThreads.running ? await this.workerThreads.threadHealth() : [];
    const threads = answers.filter((h) => h !== null);
    const statuses = threads.length > 0 ? projectorStates(threads.map((h) => h.projections)) : this.runner.status();
    const projections = statuses.map((s) => ({ name: s.name, state: s.state, checkpoint: s.checkpoint.toString(), failing: s.last_error !== null }));
    // Ready once every projector this node holds runs ('starting': taking its lease, seeding; not yet) and the others
    // stand by for another node. A node started with PROJECTIONS_AUTOSTART=false serves the API while others project.
    const followsOnly = !this.config.projectionsAutostart || (this.config.workerThreads > 0 && threads.length === 0);
    const healthy = followsOnly ? ['running', 'standby', 'stopped'] : ['running', 'standby'];
    const projectionsOk = projections.every((p) => healthy.includes(p.state));
    const starting = projections.filter((p) => p.state === 'starting').length;
    checks.projections = projectionsOk ? { status: 'up' } : starting > 0 ? { status: 'down', detail: `${starting} starting` } : { status: 'down' };
    // The modules' own: the matching engines this node holds, the Kafka topics where it publishes.
    Object.assign(checks, mergeChecks(this.readiness.evaluate(), threads.map((h) => h.checks)));
    // Running but silent (wedged, or too busy to answer in time): what it runs cannot be vouched for.
    if (threads.length < answers.length && checks.worker_threads?.status === 'up') checks.worker_threads = { status: 'down', detail: 'a worker thread does not answer' };
    const ok = Object.values(checks).every((c) => c.status === 'up');
    reply.code(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'unavailable', checks, projections };
  }

  /** Prometheus text for the scraper: not part of the JSON API (nor of the OpenAPI document and the capability registry). */
  @Get('metrics')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    // With worker threads, theirs too: each runs jobs of its own and counts its own CPU.
    const workers = this.workerThreads.running ? await this.workerThreads.threadMetrics() : [];
    if (workers.length === 0) return this.metrics.registry.metrics();
    return metricsText(mergeThreadMetrics(await this.metrics.registry.getMetricsAsJSON(), workers));
  }
}

/** Each projector as the thread that runs it reports it (running there; standby everywhere else). */
function projectorStates(perThread: ProjectorStatus[][]): ProjectorStatus[] {
  const byName = new Map<string, ProjectorStatus>();
  for (const s of perThread.flat()) if (!byName.has(s.name) || s.state === 'running') byName.set(s.name, s);
  return [...byName.values()];
}

/** A check is up only where it is up on every thread that has it. */
function mergeChecks(main: Record<string, ReadinessCheck>, others: Array<Record<string, ReadinessCheck>>): Record<string, ReadinessCheck> {
  const merged = { ...main };
  for (const checks of others) for (const [name, check] of Object.entries(checks)) if (!merged[name] || check.status === 'down') merged[name] = check;
  return merged;
}

/** The response names the failing part only; the driver's own text (hosts, users) goes to the log. */
function describe(error: unknown, logger: Logger): string {
  logger.warn({ err: error }, 'readiness check failed');
  return 'unreachable';
}
