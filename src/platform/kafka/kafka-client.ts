/**
 * The kafkajs side of the publisher: one client per process, idempotent producers, and the topics the platform
 * creates when they are missing (partitions, replication and cleanup policy from topicSpec).
 */
import { Kafka, logLevel, Partitioners, type Admin, type LogEntry, type Producer } from 'kafkajs';
import type { PlatformConfig } from '../config/platform-config';
import { topicSpec, type TopicSettings } from './topics';
import { MENDED_KAFKAJS_VERSION, mendKafkajsRequestQueue } from './kafkajs-request-queue';

export interface KafkaLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentKafkaLogger: KafkaLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Everything the publisher and the relay need to reach Kafka. */
export interface KafkaLink {
  kafka: Kafka;
  topics: TopicManager;
  prefix: string;
}

export interface KafkaLinkOptions {
  brokers: string[];
  clientId: string;
  prefix: string;
  settings: TopicSettings;
  logger?: KafkaLogger;
}

export function kafkaLinkOptions(config: PlatformConfig, logger?: KafkaLogger): KafkaLinkOptions {
  if (!config.kafkaBrokers || config.kafkaBrokers.length === 0) throw new Error('KAFKA_BROKERS is not set');
  return {
    brokers: config.kafkaBrokers,
    clientId: config.kafkaClientId,
    prefix: config.kafkaTopicPrefix,
    settings: { partitions: config.kafkaTopicPartitions, replicationFactor: config.kafkaReplicationFactor, eventsRetentionMs: config.kafkaEventsRetentionMs },
    logger,
  };
}

export function openKafkaLink(options: KafkaLinkOptions): KafkaLink {
  const logger = options.logger ?? silentKafkaLogger;
  if (!mendKafkajsRequestQueue()) logger.warn({ mended: MENDED_KAFKAJS_VERSION }, 'kafkajs is not the version its request-queue mend fits: its connections may wake the event loop every millisecond');
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: 3000,
    requestTimeout: 30_000,
    // Client-level retries (metadata, connections); a send that still fails is retried by the publisher's own loop.
    retry: { initialRetryTime: 200, maxRetryTime: 5000, retries: 5 },
    logLevel: logLevel.WARN,
    logCreator: () => {
      const lines = new KafkaClientLog();
      return (entry: LogEntry) => {
        const line = lines.line(entry);
        if (line) logger[line.level](line.obj, line.msg);
      };
    },
  });
  return { kafka, topics: new TopicManager(kafka, options.prefix, options.settings), prefix: options.prefix };
}

/** kafkajs namespaces whose errors are about reaching a broker: the client reconnects and the job retries. */
const CONNECTION_NAMESPACES = new Set(['Connection', 'BrokerPool', 'Cluster', 'Broker', 'SocketRequest', 'RequestQueue']);
const REPEAT_WINDOW_MS = 30_000;

/**
 * The Kafka client's own log lines, through the platform's logger: every line has a `msg` ("kafka: …") and the
 * client's fields beside it; a broker that cannot be reached (refused, reset, timed out, a leader election) is a
 * warning, since the client reconnects and the publisher retries from its checkpoint, and is logged once per 30 s
 * with a count of the repeats held back, instead of an error on every reconnect. The publisher's own failure (one
 * line per back-off, leased-worker.ts) stays an error.
 */
export class KafkaClientLog {
  private readonly recent = new Map<string, { at: number; held: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  line(entry: LogEntry): { level: 'info' | 'warn' | 'error'; obj: Record<string, unknown>; msg: string } | null {
    const { message, timestamp: _timestamp, logger: _logger, ...rest } = entry.log as LogEntry['log'] & { logger?: string };
    // Bounded retries are deliberate: the guarantee is at-least-once, and the publisher resends from its checkpoint.
    if (/Limiting retries for the idempotent producer/.test(message ?? '')) return null;
    const text = message && message.trim() !== '' ? message : `${entry.namespace || 'client'} event`;
    const transient = CONNECTION_NAMESPACES.has(entry.namespace) || rest.retriable === true || TRANSIENT.test(`${text} ${String(rest.error ?? '')}`);
    const level = entry.level <= logLevel.ERROR && !transient ? 'error' : entry.level <= logLevel.WARN ? 'warn' : 'info';
    const key = `${entry.namespace}|${text}|${String(rest.broker ?? '')}`;
    const seen = this.recent.get(key);
    const at = this.now();
    if (level !== 'error' && seen && at - seen.at < REPEAT_WINDOW_MS) {
      seen.held += 1;
      return null;
    }
    this.recent.set(key, { at, held: 0 });
    if (this.recent.size > 1000) this.recent.clear(); // bounded: brokers and messages are few, but never grow
    const repeats = seen && seen.held > 0 ? { repeats_held_back: seen.held } : {};
    return { level, obj: { kafka: entry.namespace, ...rest, ...repeats }, msg: `kafka: ${text}` };
  }
}

const TRANSIENT = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|Connection (error|timeout|closed)|Failed to connect|disconnected|leadership election|not the leader|no leader|NOT_LEADER|LEADER_NOT_AVAILABLE|Request timed out|The group coordinator is not available|Broker not connected/i;

/**
 * An idempotent producer (PLATFORM.md section 8): acks from all in-sync replicas, one request in flight, so the
 * broker drops a retried batch it already has and keeps each partition in send order. Keys are partitioned with
 * Java's murmur2 (the default partitioner of every other Kafka client), so a key lands where they expect it.
 */
export function idempotentProducer(link: KafkaLink): Producer {
  return link.kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { initialRetryTime: 200, maxRetryTime: 5000, retries: 5 },
  });
}

/** Creates the platform's topics that do not exist yet (remembering the ones seen, so a send costs no admin call). */
export class TopicManager {
  private readonly known = new Set<string>();
  private admin: Promise<Admin> | null = null;
  private closed = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly prefix: string,
    private readonly settings: TopicSettings,
  ) {}

  async ensure(topics: Iterable<string>): Promise<void> {
    const wanted = [...new Set(topics)].filter((t) => !this.known.has(t));
    if (wanted.length === 0) return;
    const admin = await this.connected();
    const existing = new Set(await admin.listTopics());
    const missing = wanted.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({ topics: missing.map((t) => topicSpec(this.prefix, t, this.settings)), waitForLeaders: true });
      // Until the metadata of a new topic has reached the producer's broker, a send may answer UNKNOWN_TOPIC: wait.
      await admin.fetchTopicMetadata({ topics: missing });
    }
    for (const t of wanted) this.known.add(t);
  }

  /** After a failure the broker may have lost a topic (a test broker wiped): look again next time. */
  forget(): void {
    this.known.clear();
  }

  /** Disconnects the admin client, also one still connecting (it kept a socket open after a stop: a leaked handle). */
  async close(): Promise<void> {
    this.closed = true;
    const admin = this.admin;
    this.admin = null;
    await admin?.then((a) => a.disconnect()).catch(() => undefined);
  }

  private connected(): Promise<Admin> {
    if (this.closed) return Promise.reject(new Error('the Kafka topic manager is closed'));
    if (!this.admin) {
      const admin = this.kafka.admin();
      const connecting = admin.connect().then(() => admin);
      // A failed connect is not kept: the next ensure() tries again.
      connecting.catch(() => {
        if (this.admin === connecting) this.admin = null;
      });
      this.admin = connecting;
    }
    return this.admin;
  }
}
