/**
 * Topic names and settings (PLATFORM.md section 8), pure. With the default prefix `platform`:
 *
 *   platform.events.<module>             every event of the module's streams        key = stream
 *   platform.projections.<read-model>    log-compacted row changes of a read model   key = row id
 *   platform.audit.checkpoints           the signed audit checkpoints                key = audit-checkpoints
 *
 * The module of an event is decided by its stream's name (every stream of a module starts with the module's own
 * prefix, PLATFORM.md section 7): see STREAM_MODULES. A stream no rule names goes to the module named by its first
 * `-`-separated segment, so a module added later publishes under its own name until it is listed here.
 */

/** Stream-name prefixes, longest first where one contains another, and the module they belong to. */
export const STREAM_MODULES: ReadonlyArray<readonly [prefix: string, module: string]> = [
  ['identity-', 'identity'],
  ['mtf-', 'trading'],
  ['ai-wallet-', 'ai-wallets'],
  ['agentic-memory-', 'agentic-memory'],
  ['commerce-', 'commerce'],
  ['billing-', 'billing'],
  ['news-', 'news'],
  ['asset-collection-', 'asset-collections'],
  ['arena-', 'arena'],
  ['notifications-', 'notifications'],
  ['audit-', 'audit'],
];

/**
 * Topics that carry personal data in clear, on purpose, each with why and who may consume it (docs/privacy.md),
 * keyed by the name after the prefix. No other topic carries any: events are published with their personal and
 * secret fields as digests (committedData), and the other projections hold no personal field.
 */
export const PERSONAL_TOPICS: Readonly<Record<string, { why: string; consumers: string }>> = {
  'projections.notification-inbox': {
    why: "an AccountNotification's title and message are written to the person: they name a sign-in's device, a contact change's masked target, a workspace",
    consumers: 'the service that delivers notifications to that person (mail, push); nothing else should subscribe',
  },
};

/** Module of events whose stream name yields none (an empty first segment, characters a topic cannot carry). */
export const UNKNOWN_MODULE = 'unknown';

/** The stream whose events are the signed audit checkpoints (src/modules/audit/domain/checkpoint.ts). */
export const AUDIT_CHECKPOINT_STREAM = 'audit-checkpoints';
export const AUDIT_CHECKPOINT_EVENT_TYPE = 'AuditCheckpointRecorded';

const TOPIC_SEGMENT = /^[a-z0-9][a-z0-9_-]{0,100}$/;

export function moduleOfStream(stream: string): string {
  for (const [prefix, module] of STREAM_MODULES) if (stream.startsWith(prefix)) return module;
  const first = stream.split('-', 1)[0].toLowerCase();
  return TOPIC_SEGMENT.test(first) ? first : UNKNOWN_MODULE;
}

export function eventsTopic(prefix: string, module: string): string {
  return `${prefix}.events.${module}`;
}

export function projectionTopic(prefix: string, readModel: string): string {
  return `${prefix}.projections.${readModel}`;
}

export function checkpointsTopic(prefix: string): string {
  return `${prefix}.audit.checkpoints`;
}

/**
 * Every topic the platform publishes, known before the first event: one events topic per module (STREAM_MODULES),
 * one compacted topic per read model with an outbox, and the audit checkpoints. Created at start-up, so a consumer
 * may subscribe before anything was published (brokers run with auto-create off).
 */
export function platformTopics(prefix: string, projectionReadModels: readonly string[]): string[] {
  const modules = [...new Set(STREAM_MODULES.map(([, module]) => module))];
  return [...modules.map((m) => eventsTopic(prefix, m)), ...projectionReadModels.map((r) => projectionTopic(prefix, r)), checkpointsTopic(prefix)];
}

/** What Kafka accepts as a topic name (legal characters, at most 249 of them, not `.` or `..`). */
export function isLegalTopicName(name: string): boolean {
  return /^[A-Za-z0-9._-]{1,249}$/.test(name) && name !== '.' && name !== '..';
}

export type TopicKind = 'events' | 'projection' | 'checkpoints';

export function topicKind(prefix: string, topic: string): TopicKind {
  if (topic === checkpointsTopic(prefix)) return 'checkpoints';
  if (topic.startsWith(`${prefix}.projections.`)) return 'projection';
  return 'events';
}

export interface TopicSettings {
  partitions: number;
  /** -1: the broker's default.replication.factor. */
  replicationFactor: number;
  /** retention.ms of event and checkpoint topics (-1: forever). */
  eventsRetentionMs: number;
}

/** Largest record batch a platform topic accepts (an event may be as large as a request body, BODY_LIMIT_BYTES). */
export const TOPIC_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export interface TopicSpec {
  topic: string;
  numPartitions: number;
  replicationFactor: number;
  configEntries: Array<{ name: string; value: string }>;
}

/**
 * How the platform creates a topic it is missing. Projection topics are compacted (the newest value per key is kept,
 * a tombstone removes the key after delete.retention.ms); event and checkpoint topics are a copy of the log, kept
 * for eventsRetentionMs. The checkpoint topic has one partition: its one key is in one partition anyway.
 */
export function topicSpec(prefix: string, topic: string, settings: TopicSettings): TopicSpec {
  const kind = topicKind(prefix, topic);
  const common = [{ name: 'max.message.bytes', value: String(TOPIC_MAX_MESSAGE_BYTES) }];
  const configEntries =
    kind === 'projection'
      ? [...common, { name: 'cleanup.policy', value: 'compact' }]
      : [...common, { name: 'cleanup.policy', value: 'delete' }, { name: 'retention.ms', value: String(settings.eventsRetentionMs) }];
  return { topic, numPartitions: kind === 'checkpoints' ? 1 : settings.partitions, replicationFactor: settings.replicationFactor, configEntries };
}
