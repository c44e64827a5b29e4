/**
 * Helpers for the Kafka suites (jest only; not part of the build). They run against a real broker: KAFKA_BROKERS,
 * which jest's global setup (test/infra/kafka/global-setup.js) sets after starting one. A suite run without it
 * fails with this message instead of skipping.
 */
import { Kafka, logLevel, type IHeaders } from 'kafkajs';
import { hex32 } from '../support/events';
import { PROJECTORS } from '../../src/platform/projections/projector';
import { publicationsOf } from '../../src/platform/outbox/outbox';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { KafkaPublisherService } from '../../src/platform/kafka/kafka-publisher.service';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { until } from '../support/traders';

export function testBrokers(): string[] {
  const raw = process.env.KAFKA_BROKERS;
  if (!raw) {
    const why = process.env.KAFKA_TEST_BROKER_ERROR ? ` Reason: ${process.env.KAFKA_TEST_BROKER_ERROR}.` : '';
    throw new Error(
      `KAFKA_BROKERS is not set. The Kafka suites need a real broker: run them through jest (its global setup, test/infra/kafka/global-setup.js, starts one with test/infra/kafka/start.sh), or set KAFKA_BROKERS to a broker.${why}`,
    );
  }
  return raw.split(',').map((b) => b.trim()).filter(Boolean);
}

/** A topic prefix of its own per test: suites and runs sharing a broker never read each other's messages. */
export const topicPrefix = (): string => `t${hex32().slice(0, 12)}`;

export interface Consumed {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

function testKafka(brokers: string[]): Kafka {
  return new Kafka({ clientId: 'platform-tests', brokers, logLevel: logLevel.NOTHING, connectionTimeout: 3000, retry: { retries: 5 } });
}

function headerStrings(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k] = Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  return out;
}

/** Every message the topic holds now (up to its high watermarks), partition by partition in offset order. */
export async function readTopic(brokers: string[], topic: string, timeoutMs = 30_000): Promise<Consumed[]> {
  const kafka = testKafka(brokers);
  const admin = kafka.admin();
  await admin.connect();
  let offsets: Array<{ partition: number; high: string; low: string }>;
  try {
    const topics = await admin.listTopics();
    if (!topics.includes(topic)) return [];
    offsets = await admin.fetchTopicOffsets(topic);
  } finally {
    await admin.disconnect();
  }
  const pending = new Map(offsets.filter((o) => BigInt(o.high) > BigInt(o.low)).map((o) => [o.partition, BigInt(o.high)]));
  if (pending.size === 0) return [];
  const consumer = kafka.consumer({ groupId: `reader-${hex32()}`, sessionTimeout: 10_000, rebalanceTimeout: 10_000, heartbeatInterval: 500 });
  const messages: Consumed[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`reading ${topic}: not at its end after ${timeoutMs} ms (${messages.length} messages read)`)), timeoutMs);
      consumer
        .run({
          eachMessage: async ({ topic: t, partition, message }) => {
            messages.push({ topic: t, partition, offset: message.offset, key: message.key?.toString('utf8') ?? null, value: message.value?.toString('utf8') ?? null, headers: headerStrings(message.headers) });
            const high = pending.get(partition);
            if (high !== undefined && BigInt(message.offset) + 1n >= high) pending.delete(partition);
            if (pending.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return messages.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
}

/** Reads the topic again until `done` holds for what it holds (bounded: fails with what was last read). */
export async function readTopicUntil(brokers: string[], topic: string, done: (messages: Consumed[]) => boolean, timeoutMs = 30_000): Promise<Consumed[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A topic the platform has just created may have no partition leader yet (NOT_LEADER_FOR_PARTITION, retriable):
    // not yet readable is read again, as an empty topic is.
    const messages = await readTopic(brokers, topic, timeoutMs).catch((error: unknown) => {
      if ((error as { retriable?: unknown }).retriable === true && Date.now() < deadline) return [] as Consumed[];
      throw error;
    });
    if (done(messages)) return messages;
    if (Date.now() > deadline) throw new Error(`${topic}: condition not met within ${timeoutMs} ms; ${messages.length} messages`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The topic's configuration entries (as the broker reports them). */
export async function topicConfig(brokers: string[], topic: string): Promise<{ partitions: number; config: Record<string, string> }> {
  const admin = testKafka(brokers).admin();
  await admin.connect();
  try {
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    const described = await admin.describeConfigs({ resources: [{ type: 2 /* TOPIC */, name: topic }], includeSynonyms: false });
    const config = Object.fromEntries(described.resources[0].configEntries.map((c) => [c.configName, c.configValue]));
    return { partitions: meta.topics[0].partitions.length, config };
  } finally {
    await admin.disconnect();
  }
}

/** Per key, the events in the order the topic holds them: what "per-key order" is checked on. */
export function byKey(messages: Consumed[]): Map<string, Consumed[]> {
  const keys = new Map<string, Consumed[]>();
  for (const m of messages) {
    const k = m.key ?? '';
    let list = keys.get(k);
    if (!list) keys.set(k, (list = []));
    list.push(m);
  }
  return keys;
}

/**
 * Checks values against the JSON Schemas of docs/schemas (what docs/kafka.md promises consumers). Ajv 2020 comes
 * with Fastify; formats (date-time) through ajv-formats, beside it.
 */
export function schemaCheck(file: string): (value: unknown) => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Ajv2020 = require('ajv/dist/2020').default;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const addFormats = require('ajv-formats').default ?? require('ajv-formats');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const validate = ajv.compile(require(`../../docs/schemas/${file}`));
  return (value) => {
    if (!validate(value)) throw new Error(`${file}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value)}`);
  };
}

/**
 * What a consumer that reads a compacted projection topic from its beginning ends with (the newest value per key,
 * keys whose newest value is a tombstone dropped), next to what the read model holds (every row of the published
 * table as its outbox publishes it, `PublishedTable.change`): the two must be equal once the relay has caught up.
 * Values as JSON text, so member order counts too.
 */
export async function topicAndReadModel(
  app: { get<T>(token: unknown): T },
  brokers: string[],
  prefix: string,
  readModel: string,
): Promise<{ topic: Map<string, string>; rows: Map<string, string> }> {
  const publication = app
    .get<object[]>(PROJECTORS)
    .flatMap(publicationsOf)
    .find((p) => p.outbox.readModel === readModel);
  if (!publication) throw new Error(`no projector publishes ${readModel}`);
  const { table, columns } = publication.published;
  const db = app.get<ReadModelDatabase>(ReadModelDatabase);
  const rows = new Map<string, string>();
  for (const row of (await db.reader.query(`SELECT ${columns ?? '*'} FROM ${table}`)) as object[]) {
    const change = publication.published.change(row);
    if (change.value !== null) rows.set(change.key, JSON.stringify(change.value));
  }
  const topic = new Map<string, string>();
  for (const [key, list] of byKey(await readTopic(brokers, `${prefix}.projections.${readModel}`))) {
    const newest = list[list.length - 1].value;
    if (newest !== null) topic.set(key, newest);
  }
  return { topic, rows };
}

/** Every projector of a one-thread app has passed the log's head and the relay has emptied the outboxes. */
export async function settledOnKafka(app: { get<T>(token: unknown): T }): Promise<void> {
  const head = await app.get<EventStore>(EVENT_STORE).headPosition();
  expect(await app.get<ProjectionRunner>(ProjectionRunner).waitFor(head, undefined, 10_000)).toBe(true);
  const relay = app.get<KafkaPublisherService>(KafkaPublisherService).relay!;
  await until(() => relay.pending(), (n) => n === 0, 15_000);
}
