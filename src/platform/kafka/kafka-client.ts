/**
 * The kafkajs side of the publisher: one client per process, idempotent producers, and the topics the platform
 * creates when they are missing (partitions, replication and cleanup policy from topicSpec).
 */
import { Kafka, logLevel, Partitioners, type Admin, type LogEntry, type Producer } from 'kafkajs';
import type { PlatformConfig } from '../config/platform-config';
import { topicSpec, type TopicSettings } from './topics';

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
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: 3000,
    requestTimeout: 30_000,
    // Client-level retries (metadata, connections); a send that still fails is retried by the publisher's own loop.
    retry: { initialRetryTime: 200, maxRetryTime: 5000, retries: 5 },
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...rest } = entry.log;
      // Bounded retries are deliberate: the guarantee is at-least-once, and the publisher resends from its checkpoint.
      if (/Limiting retries for the idempotent producer/.test(message)) return;
      const obj = { kafka: entry.namespace, ...rest };
      if (entry.level <= logLevel.ERROR) logger.error(obj, `kafka: ${message}`);
      else if (entry.level === logLevel.WARN) logger.warn(obj, `kafka: ${message}`);
      else logger.info(obj, `kafka: ${message}`);
    },
  });
  return { kafka, topics: new TopicManager(kafka, options.prefix, options.settings), prefix: options.prefix };
}

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
