/**
 * Kafka topics exist before anything is published (issue 19, item 8): the node creates every platform topic at
 * start-up, idempotently, with its partitions and cleanup policy, and says so on /health/ready; a consumer can
 * subscribe to a module's topic before its first event. The test broker runs with auto.create.topics.enable=false.
 */
import { createServer } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { PROJECTION_OUTBOXES } from '../../src/platform/kafka/kafka-publisher.service';
import type { ProjectionOutbox } from '../../src/platform/outbox/outbox';
import { platformTopics } from '../../src/platform/kafka/topics';
import { startTestApp, type TestApp } from '../support/app';
import { until } from '../support/traders';
import { testBrokers, topicConfig, topicPrefix } from './kafka-support';

let brokers: string[] = [];
beforeAll(() => {
  brokers = testBrokers();
});

const ready = async (t: TestApp) => {
  const r = await t.app.inject({ method: 'GET', url: '/health/ready' });
  return { status: r.statusCode, body: r.json() };
};

describe('Kafka topics at start-up (real broker, auto-create off)', () => {
  let t: TestApp;
  let prefix: string;
  beforeAll(async () => {
    prefix = topicPrefix();
    t = await startTestApp({ KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: prefix, KAFKA_TOPIC_PARTITIONS: '2' });
  });
  afterAll(async () => t?.close());

  it('is ready once every platform topic exists, each with its partitions and cleanup policy, before any was published to', async () => {
    const r = await until(() => ready(t), (x) => x.status === 200, 60_000);
    const readModels = t.app.get<ProjectionOutbox[]>(PROJECTION_OUTBOXES).map((o) => o.readModel);
    const expected = platformTopics(prefix, readModels);
    expect(r.body.checks.kafka_topics).toEqual({ status: 'up', detail: `${expected.length} topics` });
    expect(expected).toEqual(
      expect.arrayContaining([`${prefix}.events.identity`, `${prefix}.events.trading`, `${prefix}.events.agentic-memory`, `${prefix}.projections.trading-orders`, `${prefix}.audit.checkpoints`]),
    );
    // The read models analysts ask for first (issue 49), each on its compacted topic from the start.
    const analysts = ['trading-orders', 'trading-trades', 'trading-markets', 'trading-positions', 'ai-wallet-budgets', 'ai-wallet-intents', 'notification-inbox', 'commerce-invoices', 'commerce-payments', 'commerce-settlements', 'commerce-transfers', 'billing-accounts', 'agentic-memory-requests', 'arena-seasons'];
    expect(expected).toEqual(expect.arrayContaining(analysts.map((m) => `${prefix}.projections.${m}`)));
    for (const topic of expected) {
      const { partitions, config } = await topicConfig(brokers, topic);
      const projection = topic.startsWith(`${prefix}.projections.`);
      expect([topic, partitions]).toEqual([topic, topic.endsWith('.audit.checkpoints') ? 1 : 2]);
      expect([topic, config['cleanup.policy']]).toEqual([topic, projection ? 'compact' : 'delete']);
    }
  }, 90_000);

  it('lets a consumer subscribe to a module topic nothing was published to yet', async () => {
    const kafka = new Kafka({ clientId: 'early-consumer', brokers, logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `early-${prefix}`, allowAutoTopicCreation: false });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: `${prefix}.events.agentic-memory`, fromBeginning: true });
      const admin = kafka.admin();
      await admin.connect();
      const offsets = await admin.fetchTopicOffsets(`${prefix}.events.agentic-memory`);
      await admin.disconnect();
      expect(offsets.every((o) => o.high === '0')).toBe(true);
    } finally {
      await consumer.disconnect();
    }
  }, 60_000);

  it('is idempotent: a second node on the same prefix finds the topics and is ready too', async () => {
    const second = await startTestApp({ KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: prefix, KAFKA_TOPIC_PARTITIONS: '4' });
    try {
      const r = await until(() => ready(second), (x) => x.status === 200, 60_000);
      expect(r.body.checks.kafka_topics.status).toBe('up');
      // Existing topics are left as they are (2 partitions), not changed to the second node's setting.
      expect((await topicConfig(brokers, `${prefix}.events.trading`)).partitions).toBe(2);
    } finally {
      await second.close();
    }
  }, 90_000);
});

describe('Kafka topics at start-up: broker unreachable', () => {
  it('is not ready while the topics cannot be checked, and says which check is down', async () => {
    // A port nothing listens on.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = server.address() as { port: number };
        server.close(() => resolve(p));
      });
    });
    const t = await startTestApp({ KAFKA_BROKERS: `127.0.0.1:${port}`, KAFKA_TOPIC_PREFIX: topicPrefix() });
    try {
      const r = await ready(t);
      expect(r.status).toBe(503);
      expect(r.body.checks.kafka_topics.status).toBe('down');
      expect(r.body.checks.event_store.status).toBe('up');
      expect(r.body.checks.read_models.status).toBe('up');
    } finally {
      await t.close();
    }
  }, 60_000);
});
