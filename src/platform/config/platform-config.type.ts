/** The platform's configuration as modules read it (platform-config.ts builds it from the environment). */

/**
 * What a worker thread of this process is (issue 48): its role, and the channel name its thread bus shares with the
 * main thread. The main thread's own config has none.
 */
export interface WorkerThreadRole {
  /** `background` (every job but the engines) or `engines-<n>` (a share of the matching engines). */
  role: 'background' | `engines-${number}`;
  busId: string;
  /** How many worker threads the process runs (the main thread's WORKER_THREADS, resolved). */
  threads: number;
  /** The read models' write lock every thread of the process shares (workers/process-write-lock.ts). */
  writeLock?: SharedArrayBuffer;
}

export interface PlatformConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  sqliteWriterThread: boolean;
  /** WORKER_THREADS, resolved: how many worker threads run the background jobs beside the request thread (0: none). */
  workerThreads: number;
  /** Set by the main thread for a worker thread it starts (never from the environment): what the thread runs. */
  thread?: WorkerThreadRole;
  eventStoreConnectionString?: string;
  /** The PostgreSQL event store (EVENT_STORE_URL) and its schema. */
  eventStoreUrl?: string;
  eventStoreSchema: string;
  /** SUBJECT_KEYS_URL (else EVENT_STORE_URL) and its schema; unset: DATA_DIR/subject-keys.sqlite. */
  subjectKeysUrl?: string;
  subjectKeysSchema: string;
  databaseUrl?: string;
  databaseSchema?: string;
  kafkaBrokers?: string[];
  kafkaClientId: string;
  kafkaTopicPrefix: string;
  kafkaTopicPartitions: number;
  kafkaReplicationFactor: number;
  kafkaEventsRetentionMs: number;
  kafkaPublisher: boolean;
  kafkaBatchSize: number;
  kafkaOutboxPollMs: number;
  smtpUrl?: string;
  adminEmail?: string;
  adminPassword?: string;
  logLevel: string;
  readYourWritesTimeoutMs: number;
  serverTiming: boolean;
  minPositionTimeoutMs: number;
  bodyLimitBytes: number;
  /** Slow-client limits and the connection cap (HTTP_* variables). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; socketIdleTimeoutMs: number; maxConnections: number };
  idempotencyTtlSeconds: number;
  projectionsAutostart: boolean;
  leaseMs: number;
  /** NODE_ID; undefined: DATA_DIR/node.id. */
  nodeId?: string;
  projectionBatchSize: number;
  sessionTtlSeconds: number;
  sessionCacheMs: number;
  accountClosureGraceSeconds: number;
  closureSweepIntervalMs: number;
  tenantCreation: 'self-service' | 'admin-only';
  tenantCreationLimit: number;
  /** TRUSTED_PROXIES, parsed: addresses and CIDR ranges. */
  trustedProxies: string[];
  /** CORS_ALLOWED_ORIGINS, parsed; empty: CORS off. */
  corsAllowedOrigins: string[];
  loginSourceFailureLimit: number;
  mailAddressLimitPerHour: number;
  mailSourceLimitPerHour: number;
  passwordHashCost: number;
  identitySecretKey?: string;
  platformSecretKey?: string;
  platformTrustedSecretKeys: string[];
  /** Wraps the data subjects' keys (docs/privacy.md); unset: DATA_DIR/privacy-master.key. */
  privacyMasterKey?: string;
  seedMarkets: boolean;
  matchingEngines: boolean;
  engineSnapshotEvery: number;
  mtfEnvironmentTag: string;
  aiWalletApprovalTtlSeconds: number;
  aiWalletIntentTtlSeconds: number;
  aiWalletExpirySweepMs: number;
  commerceExpirySweepMs: number;
  transferTravelRuleThresholds: string;
  billingEnforcement: boolean;
  billingFreeAllowanceCredits: string;
  billingRaterCoalesceMs: number;
  billingCurrency: string;
  billingPeriodCloseSweepMs: number;
  newsPublishSweepMs: number;
  priceFeedStalenessSweepMs: number;
  arenaClockSweepMs: number;
  memorySigningKey?: string;
  memoryTrustedKeys: string[];
  auditSigningKey?: string;
  auditCheckpoints: boolean;
  auditCheckpointEveryEvents: number;
  auditCheckpointIntervalMs: number;
  /** Earlier audit signing keys' public keys (AUDIT_TRUSTED_KEYS). */
  auditTrustedKeys: string[];
}
