/**
 * What every module stands on: configuration, the event store (SQLite or EventStoreDB), the read-model database,
 * the projection runner, the command executor, idempotency, metrics and health, and the Kafka publisher.
 */
import { ServedOpenApiDocument } from './http/openapi';
import { Global, Inject, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { join } from 'node:path';
import { Logger } from 'nestjs-pino';
import { CLOCK, systemClock, type Clock } from './clock';
import { CommandExecutor } from './command/command-executor';
import { CreditsGate } from './credits/credits-gate';
import { PLATFORM_CONFIG, type PlatformConfig } from './config/platform-config';
import { EVENT_STORE, type EventStore } from './event-store/event-store.port';
import { EventStoreDbEventStore } from './event-store/eventstoredb/eventstoredb.event-store';
import { SqliteEventStore } from './event-store/sqlite/sqlite.event-store';
import { PostgresEventStore } from './event-store/postgres/postgres.event-store';
import { CommandAnswers } from './http/command-answers';
import { CommandPipelineGuard } from './http/command-pipeline';
import { IdempotencyStore, RequestFingerprints } from './http/idempotency.store';
import { PlatformExceptionFilter } from './http/platform-exception.filter';
import { PlatformValidationPipe } from './http/validation';
import { HealthController } from './observability/health.controller';
import { MetricsService } from './observability/metrics.service';
import { ReadinessRegistry } from './observability/readiness';
import { KafkaPublisherService, PROJECTION_OUTBOXES } from './kafka/kafka-publisher.service';
import { outboxesOf, type ProjectionOutbox } from './outbox/outbox';
import { ProjectionRunner } from './projections/projection-runner';
import { PROJECTORS, type Projector } from './projections/projector';
import { identityOf, loadOrCreateNodeId, nextIncarnation, NODE_IDENTITY, type LeaseOwnerIdentity } from './projections/node-identity';
import { openReadModelDatabase, ReadModelDatabase } from './read-model/read-model.datasource';
import { assertSealedLog, RAW_EVENT_STORE, SealingEventStore } from './privacy/sealing-event-store';
import { SubjectKeyStore } from './privacy/subject-keys';
import { nodeHeartbeatMs, setLeaseDuration } from './projections/checkpoint.store';
import { NodeMembership } from './jobs/node-membership';
import { PostgresSubjectKeyRows } from './privacy/postgres-subject-keys';
import { subjectKeysInFile } from './privacy/sqlite-subject-keys';
import { loadOrCreateKey } from './security/key-file';
import type { ReadModelDefinition } from './read-model/read-model.definition';
import { randomUUID } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { ForwardingEventStore } from './workers/forwarded-appends';
import { ThreadBus } from './workers/thread-bus';
import { acceptsJob } from './workers/thread-layout';
import { PLATFORM_LOG_STREAM, THREAD_BUS, THREAD_EXTRAS, WorkerThreads, WRITE_LOCK, type ThreadExtras } from './workers/worker-threads.service';
import { ProcessWriteLock } from './workers/process-write-lock';

export interface PlatformModuleOptions {
  config: PlatformConfig;
  readModels: ReadModelDefinition[];
  /** The system clock unless a test brings its own. */
  clock?: Clock;
  /** Where the app's log lines go (stdout unless a test brings its own): the worker threads' too. */
  logStream?: NodeJS.WritableStream;
  /** What the app adds beyond the platform's modules, by file, for its worker threads (worker-threads.service.ts). */
  threadExtras?: ThreadExtras;
}

/** The adapter itself (RAW_EVENT_STORE): events as stored, sealed values sealed. What publishes or verifies reads it. */
export function openEventStore(config: PlatformConfig): EventStore {
  if (config.eventStoreConnectionString) return new EventStoreDbEventStore(config.eventStoreConnectionString);
  if (config.eventStoreUrl) return new PostgresEventStore({ connectionString: config.eventStoreUrl, schema: config.eventStoreSchema });
  // A worker thread reads the file on a connection of its own and appends through the main thread (the one writer).
  if (config.thread) return new ForwardingEventStore(new SqliteEventStore({ filename: join(config.dataDir, 'events.sqlite') }), parentPort!);
  return new SqliteEventStore({ filename: join(config.dataDir, 'events.sqlite'), writerThread: config.sqliteWriterThread });
}

/**
 * The data subjects' keys (docs/privacy.md), wrapped by PRIVACY_MASTER_KEY: in PostgreSQL where several nodes share
 * them (SUBJECT_KEYS_URL, by default the PostgreSQL event store's), else DATA_DIR/subject-keys.sqlite.
 */
export function openSubjectKeys(config: PlatformConfig): SubjectKeyStore {
  const master = loadOrCreateKey(config.dataDir, 'privacy-master.key', config.privacyMasterKey, 'PRIVACY_MASTER_KEY');
  const rows = config.subjectKeysUrl
    ? new PostgresSubjectKeyRows({ connectionString: config.subjectKeysUrl, schema: config.subjectKeysSchema })
    : null;
  return rows ? new SubjectKeyStore(rows, master) : subjectKeysInFile(join(config.dataDir, 'subject-keys.sqlite'), master);
}

/** The store as modules and projectors use it (EVENT_STORE): personal and secret fields sealed on append, opened on read. */
export function openSealedEventStore(config: PlatformConfig): { store: SealingEventStore; keys: SubjectKeyStore } {
  const keys = openSubjectKeys(config);
  return { store: new SealingEventStore(openEventStore(config), keys), keys };
}

@Global()
@Module({})
export class PlatformModule implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private purgeTimer: NodeJS.Timeout | null = null;

  private get membership(): NodeMembership | null {
    return this.identity.jobs instanceof NodeMembership ? this.identity.jobs : null;
  }

  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly db: ReadModelDatabase,
    private readonly runner: ProjectionRunner,
    private readonly idempotency: IdempotencyStore,
    private readonly keys: SubjectKeyStore,
    private readonly fingerprints: RequestFingerprints,
    @Inject(NODE_IDENTITY) private readonly identity: LeaseOwnerIdentity,
  ) {}

  static forRoot(options: PlatformModuleOptions): DynamicModule {
    setLeaseDuration(options.config.leaseMs);
    return {
      module: PlatformModule,
      controllers: [HealthController],
      providers: [
        ServedOpenApiDocument,
        CreditsGate,
        CommandAnswers,
        { provide: PLATFORM_CONFIG, inject: [ConfigService], useFactory: (config: ConfigService) => config.getOrThrow<PlatformConfig>('platform') },
        { provide: CLOCK, useValue: options.clock ?? systemClock },
        { provide: PLATFORM_LOG_STREAM, useValue: options.logStream ?? null },
        { provide: THREAD_EXTRAS, useValue: options.threadExtras ?? null },
        // The threads of this process tell each other of commits and checkpoints (worker-threads.service.ts).
        { provide: THREAD_BUS, useFactory: () => (options.config.thread ? new ThreadBus(options.config.thread.busId) : options.config.workerThreads > 0 ? new ThreadBus(randomUUID()) : null) },
        // The read models' write lock the process's threads share (SQLite with worker threads only).
        {
          provide: WRITE_LOCK,
          useFactory: () =>
            options.config.databaseUrl ? null : options.config.thread?.writeLock ? new ProcessWriteLock(options.config.thread.writeLock) : options.config.workerThreads > 0 ? new ProcessWriteLock() : null,
        },
        WorkerThreads,
        { provide: RAW_EVENT_STORE, useFactory: () => openEventStore(options.config) },
        { provide: SubjectKeyStore, useFactory: () => openSubjectKeys(options.config) },
        {
          provide: EVENT_STORE,
          inject: [RAW_EVENT_STORE, SubjectKeyStore],
          useFactory: async (raw: EventStore, keys: SubjectKeyStore) => {
            await assertSealedLog(raw, keys);
            return new SealingEventStore(raw, keys);
          },
        },
        {
          provide: ReadModelDatabase,
          inject: [THREAD_BUS, WRITE_LOCK],
          useFactory: async (bus: ThreadBus | null, lock: ProcessWriteLock | null) => {
            const db = await openReadModelDatabase({
              dataDir: options.config.dataDir,
              databaseUrl: options.config.databaseUrl,
              schema: options.config.databaseSchema,
              readModels: options.readModels,
              // A worker thread opens what the main thread migrated before it started the thread.
              migrate: options.config.thread === undefined,
            });
            if (bus) db.useBus(bus);
            if (lock) db.useWriteLock(lock);
            return db;
          },
        },
        // One instance of each projector; those that publish to Kafka write their outbox when KAFKA_BROKERS is set.
        {
          provide: PROJECTORS,
          useFactory: (): Projector[] => {
            const projectors = options.readModels.map((m) => new m.projector());
            for (const p of projectors) for (const outbox of outboxesOf(p)) outbox.enabled = Boolean(options.config.kafkaBrokers?.length);
            return projectors;
          },
        },
        {
          provide: PROJECTION_OUTBOXES,
          inject: [PROJECTORS],
          useFactory: (projectors: Projector[]): ProjectionOutbox[] => projectors.flatMap(outboxesOf),
        },
        // This start of this node: whose leases the server's single-writer jobs hold (node-identity.ts).
        {
          provide: NODE_IDENTITY,
          inject: [ReadModelDatabase, Logger],
          useFactory: async (db: ReadModelDatabase, logger: Logger): Promise<LeaseOwnerIdentity> => {
            const nodeId = loadOrCreateNodeId(options.config.dataDir, options.config.nodeId);
            const rows: Array<{ owner: string | null }> = await db.reader.query('SELECT owner FROM projection_checkpoints WHERE owner IS NOT NULL');
            const identity = identityOf(nodeId, nextIncarnation(nodeId, rows.map((r) => r.owner), Date.now()));
            // The live nodes share the single-writer jobs (node-membership.ts); started at bootstrap, before any job.
            identity.jobs = new NodeMembership(db, identity, {
              heartbeatMs: nodeHeartbeatMs(),
              lockDatabase: options.config.databaseUrl ? { connectionString: options.config.databaseUrl, schema: options.config.databaseSchema } : undefined,
              logger: { warn: (o, m) => logger.warn(o, m) },
              // With worker threads each thread is a member that takes only its role's jobs (thread-layout.ts).
              accepts: acceptsJob(options.config),
            });
            return identity;
          },
        },
        {
          provide: ProjectionRunner,
          inject: [EVENT_STORE, ReadModelDatabase, Logger, PROJECTORS, NODE_IDENTITY],
          useFactory: (store: EventStore, db: ReadModelDatabase, logger: Logger, projectors: Projector[], identity: LeaseOwnerIdentity) =>
            new ProjectionRunner(
              store,
              db,
              projectors,
              {
                identity,
                batchSize: options.config.projectionBatchSize,
                logger: { info: (o, m) => logger.log(o, m), warn: (o, m) => logger.warn(o, m), error: (o, m) => logger.error(o, m) },
              },
            ),
        },
        { provide: IdempotencyStore, inject: [ReadModelDatabase], useFactory: (db: ReadModelDatabase) => new IdempotencyStore(db, options.config.idempotencyTtlSeconds) },
        { provide: RequestFingerprints, useFactory: () => RequestFingerprints.load(options.config) },
        CommandExecutor,
        MetricsService,
        ReadinessRegistry,
        KafkaPublisherService,
        CommandPipelineGuard,
        PlatformExceptionFilter,
        PlatformValidationPipe,
      ],
      exports: [WorkerThreads, ServedOpenApiDocument, CreditsGate, CommandAnswers, NODE_IDENTITY, CLOCK, PLATFORM_CONFIG, EVENT_STORE, RAW_EVENT_STORE, SubjectKeyStore, ReadModelDatabase, ProjectionRunner, KafkaPublisherService, PROJECTION_OUTBOXES, IdempotencyStore, CommandExecutor, MetricsService, ReadinessRegistry, CommandPipelineGuard, PlatformExceptionFilter, PlatformValidationPipe],
    };
  }

  /**
   * Before any job starts (every module's init runs before the first bootstrap): a node whose PLATFORM_SECRET_KEY the
   * other nodes of the log do not hold or trust would refuse their clients' retries, and they its clients'.
   */
  async onModuleInit(): Promise<void> {
    await this.keys.assertKeyAmongNodes(this.fingerprints.nodeKey);
  }

  async onApplicationBootstrap(): Promise<void> {
    // The node joins the live nodes before any job takes a lease, so a node starting beside others takes only its share.
    await this.membership?.start();
    // Read-your-writes on projectors other nodes run: their announced checkpoints, on every node (API-only ones too).
    this.runner.followAnnouncements();
    // With worker threads the projectors run on the background thread; this one follows their announcements.
    if (this.config.projectionsAutostart && this.config.workerThreads === 0) this.runner.start();
    this.purgeTimer = setInterval(() => void this.idempotency.purgeExpired().catch(() => undefined), 10 * 60_000);
    this.purgeTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    await this.runner.stop();
    // Every module's jobs stopped before (their onModuleDestroy): the node leaves, the others share its jobs out.
    await this.membership?.stop();
    await this.db.close();
    await this.store.close();
    await this.keys.close();
  }
}
