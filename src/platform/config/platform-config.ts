/** The validated environment (every variable in README.md, "Configuration"): an invalid value stops the start, named. */
import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { PlatformConfig } from './platform-config.type';
import { addressList, emptyToUndefined, IsAddressList, KAFKA_BROKER_LIST, toBool, toInt, toIntSigned } from './env-transforms';

export { addressList } from './env-transforms';
export type { PlatformConfig } from './platform-config.type';

export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test']) @IsOptional()
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Transform(toInt) @IsInt() @Min(0) @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsString()
  DATA_DIR = './data';

  /** The SQLite event store commits on a writer thread, off the event loop (docs/operations.md: when it pays). */
  @Transform(toBool) @IsBoolean()
  SQLITE_WRITER_THREAD = false;

  /**
   * Worker threads for the background jobs beside the request thread (issue 48): `auto` (the default) sizes from the
   * machine, `0` runs everything on one thread. The embedded stores only, for now (docs/operations.md 10.4).
   */
  @Matches(/^(auto|\d{1,2})$/, { message: 'WORKER_THREADS must be auto or a number of threads from 0 to 64 (0: everything on one thread)' })
  WORKER_THREADS = 'auto';

  @Transform(emptyToUndefined) @IsOptional() @Matches(/^esdb(\+discover)?:\/\//, { message: 'EVENTSTORE_CONNECTION_STRING must be an esdb:// or esdb+discover:// connection string (KurrentDB accepts these too)' })
  EVENTSTORE_CONNECTION_STRING?: string;

  /** The event store on PostgreSQL (postgres://…): for several nodes without EventStoreDB. Exclusive with EVENTSTORE_CONNECTION_STRING. */
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^postgres(ql)?:\/\//, { message: 'EVENT_STORE_URL must be a postgres:// URL' })
  EVENT_STORE_URL?: string;

  /** The PostgreSQL schema of the event store's `events` table (created on start). */
  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'EVENT_STORE_SCHEMA must be a lower-case SQL identifier' })
  EVENT_STORE_SCHEMA = 'event_store';

  /** Where the data subjects' keys live so several nodes share them (postgres://…); default EVENT_STORE_URL's, else DATA_DIR. */
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^postgres(ql)?:\/\//, { message: 'SUBJECT_KEYS_URL must be a postgres:// URL' })
  SUBJECT_KEYS_URL?: string;

  /** The PostgreSQL schema of the subject keys' tables; by default EVENT_STORE_SCHEMA. */
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'SUBJECT_KEYS_SCHEMA must be a lower-case SQL identifier' })
  SUBJECT_KEYS_SCHEMA?: string;

  @Transform(emptyToUndefined) @IsOptional() @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'DATABASE_SCHEMA must be a lowercase SQL identifier' })
  DATABASE_SCHEMA?: string;

  /** Comma-separated `host:port` list (`[v6]:port` for IPv6 literals); set, events and projection changes go to Kafka. */
  @Transform(emptyToUndefined) @IsOptional() @Matches(KAFKA_BROKER_LIST, { message: 'KAFKA_BROKERS must be a comma-separated list of host:port' })
  KAFKA_BROKERS?: string;

  /** Client id the Kafka producer and admin client announce. */
  @IsString() @Matches(/^[A-Za-z0-9._-]{1,100}$/)
  KAFKA_CLIENT_ID = 'trading-account-platform';

  /** First segment of every topic name: `<prefix>.events.<module>`, `<prefix>.projections.<read-model>`, `<prefix>.audit.checkpoints`. */
  @IsString() @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'KAFKA_TOPIC_PREFIX must be 1-64 letters, digits, "_" or "-"' })
  KAFKA_TOPIC_PREFIX = 'platform';

  /** Partitions of the topics the platform creates (existing topics are left as they are). */
  @Transform(toInt) @IsInt() @Min(1) @Max(1000)
  KAFKA_TOPIC_PARTITIONS = 3;

  /** Replication factor of the topics the platform creates; -1 takes the broker's default.replication.factor. */
  @Transform(toIntSigned) @IsInt() @Min(-1) @Max(32)
  KAFKA_REPLICATION_FACTOR = -1;

  /** retention.ms of the event and checkpoint topics the platform creates; -1 keeps them forever, like the log. */
  @Transform(toIntSigned) @IsInt() @Min(-1)
  KAFKA_EVENTS_RETENTION_MS = -1;

  /** Whether this node runs the Kafka publisher and outbox relay (one node at a time holds each lease). */
  @Transform(toBool) @IsBoolean()
  KAFKA_PUBLISHER = true;

  /** Events (or outbox rows) the publisher sends per batch at most. */
  @Transform(toInt) @IsInt() @Min(1) @Max(10000)
  KAFKA_BATCH_SIZE = 500;

  /** How often the relay looks at the projection outboxes when they were empty (ms). */
  @Transform(toInt) @IsInt() @Min(10) @Max(60000)
  KAFKA_OUTBOX_POLL_MS = 200;

  @Transform(emptyToUndefined) @IsOptional() @IsString()
  SMTP_URL?: string;

  @Transform(emptyToUndefined) @IsOptional() @IsString()
  ADMIN_EMAIL?: string;

  @Transform(emptyToUndefined) @IsOptional() @IsString()
  ADMIN_PASSWORD?: string;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @Transform(toInt) @IsInt() @Min(0) @Max(60000)
  READ_YOUR_WRITES_TIMEOUT_MS = 2000;

  /** Answer a Server-Timing header with each request's stages (observability/server-timing.ts); off in production. */
  @Transform(toBool) @IsBoolean()
  SERVER_TIMING = false;

  @Transform(toInt) @IsInt() @Min(0) @Max(60000)
  MIN_POSITION_TIMEOUT_MS = 2000;

  @Transform(toInt) @IsInt() @Min(1024) @Max(64 * 1024 * 1024)
  BODY_LIMIT_BYTES = 1024 * 1024;

  /** The whole request line and headers must arrive within this (a client trickling headers is cut off: 408). */
  @Transform(toInt) @IsInt() @Min(100) @Max(600_000)
  HTTP_HEADERS_TIMEOUT_MS = 10_000;

  /** The whole request, body included, must arrive within this (a trickled body is cut off: 408). */
  @Transform(toInt) @IsInt() @Min(100) @Max(600_000)
  HTTP_REQUEST_TIMEOUT_MS = 30_000;

  /** Idle keep-alive connections close after this: above a load balancer's idle timeout (60 s on the common ones). */
  @Transform(toInt) @IsInt() @Min(100) @Max(600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 72_000;

  /** A socket with no traffic either way for this long is closed (a client that stopped reading its response). */
  @Transform(toInt) @IsInt() @Min(1000) @Max(3_600_000)
  HTTP_SOCKET_IDLE_TIMEOUT_MS = 120_000;

  /** Open connections this node accepts at once; more are closed on arrival. */
  @Transform(toInt) @IsInt() @Min(1) @Max(1_000_000)
  HTTP_MAX_CONNECTIONS = 4096;

  @Transform(toInt) @IsInt() @Min(60) @Max(30 * 24 * 3600)
  IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

  @Transform(toBool) @IsBoolean()
  PROJECTIONS_AUTOSTART = true;

  /** This node's stable identity for leases (a pod or host name); empty: DATA_DIR/node.id, made on first start. */
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'NODE_ID must be 1-64 of A-Z a-z 0-9 . _ - (e.g. the pod or host name)' })
  NODE_ID?: string;

  /** How long a job's lease outlives its holder's last heartbeat (ms): how long a paused node counts as alive. Same on all nodes. */
  @Transform(toInt) @IsInt() @Min(3000) @Max(600_000)
  LEASE_MS = 10_000;

  @Transform(toInt) @IsInt() @Min(1) @Max(10000)
  PROJECTION_BATCH_SIZE = 500;

  @Transform(toInt) @IsInt() @Min(60) @Max(30 * 24 * 3600)
  SESSION_TTL_SECONDS = 12 * 3600;

  /** How long a node reuses a bearer token's session row between reads (0: never); revocations hold at once (docs/identity.md). */
  @Transform(toInt) @IsInt() @Min(0) @Max(60_000)
  SESSION_CACHE_MS = 1000;

  @Transform(toInt) @IsInt() @Min(0) @Max(365 * 24 * 3600)
  ACCOUNT_CLOSURE_GRACE_SECONDS = 14 * 24 * 3600;

  @Transform(toInt) @IsInt() @Min(1000) @Max(24 * 3600 * 1000)
  CLOSURE_SWEEP_INTERVAL_MS = 60_000;

  /** Who may create tenants: any signed-in account (up to TENANT_CREATION_LIMIT each), or platform admins only. */
  @IsIn(['self-service', 'admin-only'], { message: 'TENANT_CREATION must be self-service or admin-only' })
  TENANT_CREATION: 'self-service' | 'admin-only' = 'self-service';

  /** Tenants one account may create under self-service (platform admins are not limited). */
  @Transform(toInt) @IsInt() @Min(0) @Max(1000)
  TENANT_CREATION_LIMIT = 5;

  /** Proxies whose X-Forwarded-For is believed (the client: the right-most address not one of them); empty: the peer. */
  @IsAddressList()
  TRUSTED_PROXIES = '';

  /** Browser origins allowed to call the API cross-origin (CORS), comma-separated, e.g. `https://app.example.com`; empty: off. */
  @Matches(/^\s*(https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?\s*(,\s*https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?\s*)*)?$/, {
    message: 'CORS_ALLOWED_ORIGINS must be a comma-separated list of origins (scheme://host[:port], no path), e.g. https://app.example.com',
  })
  CORS_ALLOWED_ORIGINS = '';

  /** Failed sign-ins from one source (client address) per 15 minutes before it is refused: a coarse ceiling. */
  @Transform(toInt) @IsInt() @Min(1) @Max(1_000_000)
  LOGIN_SOURCE_FAILURE_LIMIT = 100;

  /** Registrations and contact changes that mail one recipient address, per hour. */
  @Transform(toInt) @IsInt() @Min(1) @Max(1_000_000)
  MAIL_ADDRESS_LIMIT_PER_HOUR = 5;

  /** Registrations and contact changes one source (client address) may request per hour. */
  @Transform(toInt) @IsInt() @Min(1) @Max(1_000_000)
  MAIL_SOURCE_LIMIT_PER_HOUR = 20;

  /** log2 of scrypt's N; 17 is OWASP's recommendation (tests use less to stay fast). */
  @Transform(toInt) @IsInt() @Min(10) @Max(20)
  PASSWORD_HASH_COST = 17;

  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'IDENTITY_SECRET_KEY must be 32 bytes, base64' })
  IDENTITY_SECRET_KEY?: string;

  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'PLATFORM_SECRET_KEY must be 32 bytes, base64' })
  PLATFORM_SECRET_KEY?: string;

  /** Earlier or next PLATFORM_SECRET_KEYs (comma-separated): their idempotency fingerprints are recognised (rotation). */
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[A-Za-z0-9+/]{43}=(,[A-Za-z0-9+/]{43}=)*$/, { message: 'PLATFORM_TRUSTED_SECRET_KEYS must be 32-byte keys, base64, comma-separated' })
  PLATFORM_TRUSTED_SECRET_KEYS?: string;

  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'PRIVACY_MASTER_KEY must be 32 bytes, base64' })
  PRIVACY_MASTER_KEY?: string;

  @Transform(toBool) @IsBoolean()
  SEED_MARKETS = true;

  /** Whether this node runs matching engines (each market's engine runs on one node at a time, under a lease). */
  @Transform(toBool) @IsBoolean()
  MATCHING_ENGINES = true;

  /** Engine events between two snapshots of a market's engine (bounds the replay on start-up). */
  @Transform(toInt) @IsInt() @Min(10) @Max(1_000_000)
  ENGINE_SNAPSHOT_EVERY = 2000;

  /** `payload.environment_tag` of cancellation result entries. */
  @IsString() @Matches(/^[a-z0-9_]{1,64}$/)
  MTF_ENVIRONMENT_TAG = 'mtf_platform';

  /** How long a live AI-agent wallet intent waits for a person's approval before it expires (its reservation released). */
  @Transform(toInt) @IsInt() @Min(60) @Max(7 * 24 * 3600)
  AI_WALLET_APPROVAL_TTL_SECONDS = 900;

  /** How long an accepted intent holds its budget reservation without being settled. */
  @Transform(toInt) @IsInt() @Min(60) @Max(31 * 24 * 3600)
  AI_WALLET_INTENT_TTL_SECONDS = 86_400;

  /** How often a node looks for intents past their expiry to record the expiry (ms). */
  @Transform(toInt) @IsInt() @Min(100) @Max(3_600_000)
  AI_WALLET_EXPIRY_SWEEP_MS = 30_000;

  /** Travel-rule thresholds per asset (`ASSET=amount`, comma-separated): at least this amount needs an envelope. */
  @Matches(/^([A-Z]{2,10}=\d{1,15}(\.\d{1,18})?)(,[A-Z]{2,10}=\d{1,15}(\.\d{1,18})?)*$/, { message: 'TRANSFER_TRAVEL_RULE_THRESHOLDS must be ASSET=amount pairs, comma-separated' })
  TRANSFER_TRAVEL_RULE_THRESHOLDS = 'USDC=1000,USDT=1000,ETH=0.3,BTC=0.01,SOL=5,MATIC=1500';

  /** How often the node holding the commerce sweep's lease expires invoices and payments past their time (ms). */
  @Transform(toInt) @IsInt() @Min(100) @Max(3_600_000)
  COMMERCE_EXPIRY_SWEEP_MS = 15_000;

  /** Whether billable commands of a tenant whose credits ran out answer 402 CREDITS_REQUIRED (false: usage is still rated, nothing is refused). */
  @Transform(toBool) @IsBoolean()
  BILLING_ENFORCEMENT = true;

  /** Credits every billing account gets each period (the free allowance; a new tenant starts with it). */
  @Matches(/^\d{1,15}(\.\d{1,18})?$/, { message: 'BILLING_FREE_ALLOWANCE_CREDITS must be a decimal number of credits' })
  BILLING_FREE_ALLOWANCE_CREDITS = '1000';

  /** ISO 4217 currency of the billing catalogue's prices. */
  @Matches(/^[A-Z]{3}$/, { message: 'BILLING_CURRENCY must be an ISO 4217 code' })
  BILLING_CURRENCY = 'USD';

  /** How long the rater lets usage gather after reaching the log's head (one append for many orders); 0 rates each at once. */
  @Transform(toInt) @IsInt() @Min(0) @Max(10_000)
  BILLING_RATER_COALESCE_MS = 50;

  /** How often the node holding the billing period-close lease closes the periods that have ended (ms). */
  @Transform(toInt) @IsInt() @Min(100) @Max(3_600_000)
  BILLING_PERIOD_CLOSE_SWEEP_MS = 15_000;

  /** How often the node holding the news scheduler's lease publishes the articles whose publish_at has come (ms). */
  @Transform(toInt) @IsInt() @Min(100) @Max(3_600_000)
  NEWS_PUBLISH_SWEEP_MS = 5_000;

  /** How often the node holding the price-feed staleness lease recomputes feeds whose sources went stale (ms). */
  @Transform(toInt) @IsInt() @Min(100) @Max(3_600_000)
  PRICE_FEED_STALENESS_SWEEP_MS = 1_000;

  /** How often the node holding the arena clock's lease starts, settles and finalizes seasons that are due (ms). */
  @Transform(toInt) @IsInt() @Min(100) @Max(3_600_000)
  ARENA_CLOCK_SWEEP_MS = 5_000;

  /** Ed25519 private key (base64 of its 32-byte seed) signing agentic memory manifests; unset: manifests say UNSIGNED. */
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'MEMORY_SIGNING_KEY must be an Ed25519 private key: base64 of its 32-byte seed' })
  MEMORY_SIGNING_KEY?: string;

  /** Public keys (base64url, comma-separated) of earlier or next memory signing keys other nodes may hold (rotation). */
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[A-Za-z0-9_-]{43}(,[A-Za-z0-9_-]{43})*$/, { message: 'MEMORY_TRUSTED_KEYS must be Ed25519 public keys, base64url (43 characters), comma-separated' })
  MEMORY_TRUSTED_KEYS?: string;

  /** Ed25519 private key (base64 of its 32-byte seed) signing audit checkpoints; unset: generated once into DATA_DIR/audit-signing.key. */
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'AUDIT_SIGNING_KEY must be an Ed25519 private key: base64 of its 32-byte seed' })
  AUDIT_SIGNING_KEY?: string;

  /** Public keys (base64url, comma-separated) of earlier audit signing keys: checkpoints they signed are still trusted after a rotation. */
  @Transform(emptyToUndefined) @IsOptional() @Matches(/^[A-Za-z0-9_-]{43}(,[A-Za-z0-9_-]{43})*$/, { message: 'AUDIT_TRUSTED_KEYS must be Ed25519 public keys, base64url (43 characters), comma-separated' })
  AUDIT_TRUSTED_KEYS?: string;

  /** Whether this node runs the audit checkpointer (one node at a time holds its lease). */
  @Transform(toBool) @IsBoolean()
  AUDIT_CHECKPOINTS = true;

  /** A signed checkpoint after this many new events of the global log... */
  @Transform(toInt) @IsInt() @Min(1) @Max(1_000_000)
  AUDIT_CHECKPOINT_EVERY_EVENTS = 1000;

  /** ...or this long after the previous one when fewer arrived (ms; nothing new, no checkpoint). */
  @Transform(toInt) @IsInt() @Min(100) @Max(24 * 3600 * 1000)
  AUDIT_CHECKPOINT_INTERVAL_MS = 60_000;
}


export const PLATFORM_CONFIG = Symbol('PLATFORM_CONFIG');

/** Validates raw environment values; throws one error listing every bad variable. */
export function validateEnvironment(raw: Record<string, unknown>): EnvironmentVariables {
  const known = Object.keys(new EnvironmentVariables());
  const extra = ['NODE_ID', 'EVENTSTORE_CONNECTION_STRING', 'EVENT_STORE_URL', 'SUBJECT_KEYS_URL', 'DATABASE_URL', 'DATABASE_SCHEMA', 'KAFKA_BROKERS', 'SMTP_URL', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'IDENTITY_SECRET_KEY', 'PLATFORM_SECRET_KEY', 'PRIVACY_MASTER_KEY', 'MEMORY_SIGNING_KEY', 'AUDIT_SIGNING_KEY'];
  const picked = Object.fromEntries([...known, ...extra].filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));
  const env = plainToInstance(EnvironmentVariables, picked, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false });
  const lines = errors.map((e) => `${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`);
  if (env.EVENTSTORE_CONNECTION_STRING && env.EVENT_STORE_URL) {
    lines.push('EVENT_STORE_URL: set one event store, EVENTSTORE_CONNECTION_STRING (EventStoreDB) or EVENT_STORE_URL (PostgreSQL), not both');
  }
  if (errors.length === 0 && env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    lines.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)');
  }
  if (env.WORKER_THREADS !== 'auto' && Number(env.WORKER_THREADS) > 64) lines.push('WORKER_THREADS: at most 64');
  if (env.WORKER_THREADS !== 'auto' && Number(env.WORKER_THREADS) > 0 && (env.EVENTSTORE_CONNECTION_STRING || env.EVENT_STORE_URL || env.DATABASE_URL)) {
    lines.push('WORKER_THREADS: worker threads run on the embedded SQLite stores only so far; set 0 or auto with EVENT_STORE_URL, EVENTSTORE_CONNECTION_STRING or DATABASE_URL');
  }
  if (lines.length > 0) throw new Error(`Invalid environment:\n  ${lines.join('\n  ')}`);
  return env;
}

export function toPlatformConfig(env: EnvironmentVariables): PlatformConfig {
  return {
    nodeEnv: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    dataDir: resolve(env.DATA_DIR),
    sqliteWriterThread: env.SQLITE_WRITER_THREAD,
    workerThreads: workerThreadsOf(env),
    eventStoreConnectionString: env.EVENTSTORE_CONNECTION_STRING,
    eventStoreUrl: env.EVENT_STORE_URL,
    eventStoreSchema: env.EVENT_STORE_SCHEMA,
    subjectKeysUrl: env.SUBJECT_KEYS_URL ?? env.EVENT_STORE_URL,
    subjectKeysSchema: env.SUBJECT_KEYS_SCHEMA ?? env.EVENT_STORE_SCHEMA,
    databaseUrl: env.DATABASE_URL,
    databaseSchema: env.DATABASE_SCHEMA,
    kafkaBrokers: env.KAFKA_BROKERS?.split(',').map((b) => b.trim()).filter(Boolean),
    kafkaClientId: env.KAFKA_CLIENT_ID,
    kafkaTopicPrefix: env.KAFKA_TOPIC_PREFIX,
    kafkaTopicPartitions: env.KAFKA_TOPIC_PARTITIONS,
    kafkaReplicationFactor: env.KAFKA_REPLICATION_FACTOR,
    kafkaEventsRetentionMs: env.KAFKA_EVENTS_RETENTION_MS,
    kafkaPublisher: env.KAFKA_PUBLISHER,
    kafkaBatchSize: env.KAFKA_BATCH_SIZE,
    kafkaOutboxPollMs: env.KAFKA_OUTBOX_POLL_MS,
    smtpUrl: env.SMTP_URL,
    adminEmail: env.ADMIN_EMAIL,
    adminPassword: env.ADMIN_PASSWORD,
    logLevel: env.LOG_LEVEL,
    readYourWritesTimeoutMs: env.READ_YOUR_WRITES_TIMEOUT_MS,
    serverTiming: env.SERVER_TIMING,
    minPositionTimeoutMs: env.MIN_POSITION_TIMEOUT_MS,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    http: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      socketIdleTimeoutMs: env.HTTP_SOCKET_IDLE_TIMEOUT_MS,
      maxConnections: env.HTTP_MAX_CONNECTIONS,
    },
    idempotencyTtlSeconds: env.IDEMPOTENCY_TTL_SECONDS,
    projectionsAutostart: env.PROJECTIONS_AUTOSTART,
    leaseMs: env.LEASE_MS,
    nodeId: env.NODE_ID,
    projectionBatchSize: env.PROJECTION_BATCH_SIZE,
    sessionTtlSeconds: env.SESSION_TTL_SECONDS,
    sessionCacheMs: env.SESSION_CACHE_MS,
    accountClosureGraceSeconds: env.ACCOUNT_CLOSURE_GRACE_SECONDS,
    closureSweepIntervalMs: env.CLOSURE_SWEEP_INTERVAL_MS,
    tenantCreation: env.TENANT_CREATION,
    tenantCreationLimit: env.TENANT_CREATION_LIMIT,
    trustedProxies: addressList(env.TRUSTED_PROXIES),
    corsAllowedOrigins: addressList(env.CORS_ALLOWED_ORIGINS),
    loginSourceFailureLimit: env.LOGIN_SOURCE_FAILURE_LIMIT,
    mailAddressLimitPerHour: env.MAIL_ADDRESS_LIMIT_PER_HOUR,
    mailSourceLimitPerHour: env.MAIL_SOURCE_LIMIT_PER_HOUR,
    passwordHashCost: env.PASSWORD_HASH_COST,
    identitySecretKey: env.IDENTITY_SECRET_KEY,
    platformSecretKey: env.PLATFORM_SECRET_KEY,
    platformTrustedSecretKeys: env.PLATFORM_TRUSTED_SECRET_KEYS ? env.PLATFORM_TRUSTED_SECRET_KEYS.split(',') : [],
    privacyMasterKey: env.PRIVACY_MASTER_KEY,
    seedMarkets: env.SEED_MARKETS,
    matchingEngines: env.MATCHING_ENGINES,
    engineSnapshotEvery: env.ENGINE_SNAPSHOT_EVERY,
    mtfEnvironmentTag: env.MTF_ENVIRONMENT_TAG,
    aiWalletApprovalTtlSeconds: env.AI_WALLET_APPROVAL_TTL_SECONDS,
    aiWalletIntentTtlSeconds: env.AI_WALLET_INTENT_TTL_SECONDS,
    aiWalletExpirySweepMs: env.AI_WALLET_EXPIRY_SWEEP_MS,
    commerceExpirySweepMs: env.COMMERCE_EXPIRY_SWEEP_MS,
    transferTravelRuleThresholds: env.TRANSFER_TRAVEL_RULE_THRESHOLDS,
    billingEnforcement: env.BILLING_ENFORCEMENT,
    billingFreeAllowanceCredits: env.BILLING_FREE_ALLOWANCE_CREDITS,
    billingRaterCoalesceMs: env.BILLING_RATER_COALESCE_MS,
    billingCurrency: env.BILLING_CURRENCY,
    billingPeriodCloseSweepMs: env.BILLING_PERIOD_CLOSE_SWEEP_MS,
    newsPublishSweepMs: env.NEWS_PUBLISH_SWEEP_MS,
    priceFeedStalenessSweepMs: env.PRICE_FEED_STALENESS_SWEEP_MS,
    arenaClockSweepMs: env.ARENA_CLOCK_SWEEP_MS,
    memorySigningKey: env.MEMORY_SIGNING_KEY,
    memoryTrustedKeys: env.MEMORY_TRUSTED_KEYS ? env.MEMORY_TRUSTED_KEYS.split(',') : [],
    auditSigningKey: env.AUDIT_SIGNING_KEY,
    auditCheckpoints: env.AUDIT_CHECKPOINTS,
    auditCheckpointEveryEvents: env.AUDIT_CHECKPOINT_EVERY_EVENTS,
    auditCheckpointIntervalMs: env.AUDIT_CHECKPOINT_INTERVAL_MS,
    auditTrustedKeys: env.AUDIT_TRUSTED_KEYS ? env.AUDIT_TRUSTED_KEYS.split(',') : [],
  };
}

/**
 * `auto`: the background thread beside the request thread, and engine threads on machines with cores for them, and
 * none on shared stores (their connection budget per node, docs/operations.md 10.1.2, is planned for one thread).
 */
function workerThreadsOf(env: EnvironmentVariables): number {
  if (env.WORKER_THREADS !== 'auto') return Number(env.WORKER_THREADS);
  if (env.EVENTSTORE_CONNECTION_STRING || env.EVENT_STORE_URL || env.DATABASE_URL) return 0;
  // An API-only node (PROJECTIONS_AUTOSTART=false) has no background work to move.
  if (!env.PROJECTIONS_AUTOSTART) return 0;
  // The background thread; on 3 cores or more, engine threads beside it (each about 120 MB: at most 3).
  const cores = availableParallelism();
  return cores <= 2 ? 1 : Math.min(4, cores - 1);
}

export function loadPlatformConfig(raw: Record<string, unknown> = process.env): PlatformConfig {
  return toPlatformConfig(validateEnvironment(raw));
}
