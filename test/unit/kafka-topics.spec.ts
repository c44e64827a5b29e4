/** The Kafka publisher's pure parts: topic names and settings, the event envelope and headers, cutting sends, config. */
import { CHECKPOINT_EVENT_TYPE, CHECKPOINT_STREAM } from '../../src/modules/audit/domain/checkpoint';
import { parseFrom } from '../../src/cli/kafka';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { byTopic, eventEnvelope, eventMessages, messageSize, outboxMessage, planSends, type OutgoingMessage } from '../../src/platform/kafka/messages';
import {
  AUDIT_CHECKPOINT_EVENT_TYPE, AUDIT_CHECKPOINT_STREAM, checkpointsTopic, eventsTopic, isLegalTopicName, moduleOfStream, platformTopics, projectionTopic, topicSpec, TOPIC_MAX_MESSAGE_BYTES,
} from '../../src/platform/kafka/topics';
import { outboxHeaders, ProjectionOutbox } from '../../src/platform/outbox/outbox';

const event = (over: Partial<RecordedEvent> = {}): RecordedEvent => ({
  event_id: 'a'.repeat(32),
  type: 'OrderAccepted',
  stream: 'mtf-order-' + 'b'.repeat(32),
  revision: 3n,
  position: 9007199254740993n, // past Number.MAX_SAFE_INTEGER: must stay exact
  occurred_at: '2026-01-02T03:04:05.000Z',
  data: { order_uuid: 'b'.repeat(32), order_size: '0.010000000000000000' },
  metadata: { tenant_uuid: null, workspace_uuid: null, actor: { type: 'user', reference: 'c'.repeat(32) }, correlation_id: 'd'.repeat(32), causation_id: null, request_id: null, schema_version: 1 },
  event_commitment: 'e'.repeat(64),
  previous_event_commitment: 'f'.repeat(64),
  ...over,
});

describe('Kafka topics', () => {
  it.each([
    ['identity-account-0123', 'identity'],
    ['identity-email-abc', 'identity'],
    ['mtf-order-1', 'trading'],
    ['mtf-engine-snapshot-1', 'trading'],
    ['mtf-market-1', 'trading'],
    ['ai-wallet-binding-1', 'ai-wallets'],
    ['ai-wallet-workload-1', 'ai-wallets'],
    ['agentic-memory-collection-1', 'agentic-memory'],
    ['agentic-memory-slug-1-x', 'agentic-memory'],
    ['commerce-invoice-1', 'commerce'],
    ['commerce-settlement-1-usdc', 'commerce'],
    ['notifications-account-1', 'notifications'],
    ['audit-checkpoints', 'audit'],
    ['audit-auditors', 'audit'],
    ['ledger-42', 'ledger'],
    ['Billing-7', 'billing'],
    ['$system', 'unknown'],
    ['-x', 'unknown'],
  ])('stream %s belongs to module %s', (stream, module) => {
    expect(moduleOfStream(stream)).toBe(module);
  });

  it('names the topics of PLATFORM.md section 8, all legal Kafka topic names', () => {
    expect(eventsTopic('platform', 'trading')).toBe('platform.events.trading');
    expect(projectionTopic('platform', 'trading-orders')).toBe('platform.projections.trading-orders');
    expect(checkpointsTopic('platform')).toBe('platform.audit.checkpoints');
    for (const t of ['platform.events.agentic-memory', 'platform.projections.notification-inbox', 'platform.audit.checkpoints']) expect(isLegalTopicName(t)).toBe(true);
    expect(isLegalTopicName('platform.events.$x')).toBe(false);
    expect(isLegalTopicName('..')).toBe(false);
    expect(isLegalTopicName('x'.repeat(250))).toBe(false);
  });

  it('knows the audit checkpoint stream and type the audit module writes', () => {
    expect(AUDIT_CHECKPOINT_STREAM).toBe(CHECKPOINT_STREAM);
    expect(AUDIT_CHECKPOINT_EVENT_TYPE).toBe(CHECKPOINT_EVENT_TYPE);
  });

  it('creates projection topics compacted, event and checkpoint topics with the configured retention', () => {
    const settings = { partitions: 6, replicationFactor: 3, eventsRetentionMs: -1 };
    const projection = topicSpec('p', 'p.projections.trading-orders', settings);
    expect(projection).toMatchObject({ numPartitions: 6, replicationFactor: 3 });
    expect(projection.configEntries).toEqual(expect.arrayContaining([{ name: 'cleanup.policy', value: 'compact' }, { name: 'max.message.bytes', value: String(TOPIC_MAX_MESSAGE_BYTES) }]));
    expect(projection.configEntries.find((c) => c.name === 'retention.ms')).toBeUndefined();
    const events = topicSpec('p', 'p.events.trading', settings);
    expect(events.numPartitions).toBe(6);
    expect(events.configEntries).toEqual(expect.arrayContaining([{ name: 'cleanup.policy', value: 'delete' }, { name: 'retention.ms', value: '-1' }]));
    const checkpoints = topicSpec('p', 'p.audit.checkpoints', { ...settings, eventsRetentionMs: 86_400_000 });
    expect(checkpoints.numPartitions).toBe(1);
    expect(checkpoints.configEntries).toEqual(expect.arrayContaining([{ name: 'retention.ms', value: '86400000' }]));
  });
});

describe('Kafka event messages', () => {
  it('carries the envelope of section 3 with revision and position as exact decimal strings', () => {
    const e = event();
    expect(eventEnvelope(e)).toEqual({
      event_id: e.event_id, type: e.type, stream: e.stream, revision: '3', position: '9007199254740993', occurred_at: e.occurred_at,
      data: e.data, metadata: e.metadata, event_commitment: e.event_commitment, previous_event_commitment: e.previous_event_commitment,
    });
    const [m, ...rest] = eventMessages(e, 'platform');
    expect(rest).toEqual([]);
    expect(m.topic).toBe('platform.events.trading');
    expect(m.key).toBe(e.stream);
    expect(JSON.parse(m.value!)).toEqual(eventEnvelope(e));
    expect(m.headers).toEqual({ event_id: e.event_id, type: 'OrderAccepted', position: '9007199254740993', event_commitment: e.event_commitment });
  });

  it('keeps a null previous commitment at revision 0', () => {
    const [m] = eventMessages(event({ revision: 0n, previous_event_commitment: null }), 'platform');
    expect(JSON.parse(m.value!)).toMatchObject({ revision: '0', previous_event_commitment: null });
  });

  it('sends an audit checkpoint to its module topic and, unchanged, to the checkpoints topic', () => {
    const signed = { alg: 'audit-checkpoint-v1', position: '10', event_count: '10', global_commitment: '0'.repeat(64), created_at: '2026-01-01T00:00:00.000Z', key_id: 'k', public_key: 'p', signature: 's' };
    const e = event({ stream: 'audit-checkpoints', type: 'AuditCheckpointRecorded', data: signed, position: 11n });
    const [envelope, checkpoint] = eventMessages(e, 'platform');
    expect(envelope.topic).toBe('platform.events.audit');
    expect(checkpoint).toEqual({ topic: 'platform.audit.checkpoints', key: 'audit-checkpoints', value: JSON.stringify(signed), headers: envelope.headers });
    // Another event type on that stream, or the type elsewhere, is an ordinary event.
    expect(eventMessages(event({ stream: 'audit-checkpoints', type: 'Other' }), 'platform')).toHaveLength(1);
    expect(eventMessages(event({ stream: 'audit-auditors', type: 'AuditCheckpointRecorded' }), 'platform')).toHaveLength(1);
  });
});

describe('cutting a batch into sends', () => {
  const msg = (topic: string, bytes: number): OutgoingMessage => ({ topic, key: 'k', value: 'x'.repeat(bytes), headers: {} });

  it('cuts by count and by bytes, on item boundaries, in order', () => {
    const items = Array.from({ length: 7 }, (_, i) => i);
    expect(planSends(items, (i) => [msg('t', 10)], { maxItems: 3, maxBytes: 1e9 }).map((s) => s.items)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    const size = messageSize(msg('t', 100));
    expect(planSends(items, (i) => [msg('t', 100)], { maxItems: 100, maxBytes: size * 2 }).map((s) => s.items)).toEqual([[0, 1], [2, 3], [4, 5], [6]]);
  });

  it('never splits one item\'s messages and sends an oversized item alone', () => {
    const sends = planSends([1, 2, 3], (i) => (i === 2 ? [msg('a', 5000), msg('b', 5000)] : [msg('a', 10)]), { maxItems: 10, maxBytes: 1000 });
    expect(sends.map((s) => s.items)).toEqual([[1], [2], [3]]);
    expect(sends[1].messages.map((m) => m.topic)).toEqual(['a', 'b']);
  });

  it('plans nothing for nothing', () => {
    expect(planSends([], () => [], { maxItems: 1, maxBytes: 1 })).toEqual([]);
  });

  it('groups by topic keeping each topic\'s order', () => {
    const grouped = byTopic([
      { topic: 'a', key: '1', value: 'x', headers: {} },
      { topic: 'b', key: '2', value: 'y', headers: {} },
      { topic: 'a', key: '3', value: null, headers: { h: 'v' } },
    ]);
    expect(grouped).toEqual([
      { topic: 'a', messages: [{ key: '1', value: 'x', headers: {} }, { key: '3', value: null, headers: { h: 'v' } }] },
      { topic: 'b', messages: [{ key: '2', value: 'y', headers: {} }] },
    ]);
  });
});

describe('projection outbox messages', () => {
  it('turns a row into a keyed message, a deleted row into a tombstone', () => {
    const headers = outboxHeaders('trading-orders', { position: 12n, event_id: 'e'.repeat(32), headers: { profile_uuid: 'p' } });
    expect(headers).toEqual({ profile_uuid: 'p', read_model: 'trading-orders', position: '12', event_id: 'e'.repeat(32) });
    expect(outboxMessage('t', { row_key: 'o1', value: '{"status":"NEW"}', headers: JSON.stringify(headers) })).toEqual({ topic: 't', key: 'o1', value: '{"status":"NEW"}', headers });
    expect(outboxMessage('t', { row_key: 'o1', value: null, headers: '{}' }).value).toBeNull();
  });

  it('the platform headers win over a projector\'s own of the same name', () => {
    expect(outboxHeaders('m', { position: 1n, event_id: 'x', headers: { position: 'forged' } }).position).toBe('1');
  });

  it('refuses an outbox table name that is not a plain identifier', () => {
    expect(() => new ProjectionOutbox('x', 'orders; DROP TABLE y', { title: 'x', key: 'x', description: 'x' })).toThrow(/identifier/);
    expect(new ProjectionOutbox('x', 'x_outbox', { title: 'x', key: 'x', description: 'x' }).enabled).toBe(false);
  });
});

describe('Kafka configuration', () => {
  it('parses KAFKA_BROKERS into a list and has defaults for the rest', () => {
    const c = loadPlatformConfig({ KAFKA_BROKERS: ' 127.0.0.1:9092, kafka-2.internal:19092 ,[::1]:9093' });
    expect(c.kafkaBrokers).toEqual(['127.0.0.1:9092', 'kafka-2.internal:19092', '[::1]:9093']);
    expect(c).toMatchObject({ kafkaTopicPrefix: 'platform', kafkaTopicPartitions: 3, kafkaReplicationFactor: -1, kafkaEventsRetentionMs: -1, kafkaPublisher: true, kafkaBatchSize: 500, kafkaOutboxPollMs: 200 });
    expect(loadPlatformConfig({}).kafkaBrokers).toBeUndefined();
    expect(loadPlatformConfig({ KAFKA_BROKERS: '' }).kafkaBrokers).toBeUndefined();
  });

  it('names each bad Kafka variable', () => {
    expect(() => loadPlatformConfig({ KAFKA_BROKERS: 'localhost' })).toThrow(/KAFKA_BROKERS/);
    expect(() => loadPlatformConfig({ KAFKA_BROKERS: 'a:1,,b:2' })).toThrow(/KAFKA_BROKERS/);
    expect(() => loadPlatformConfig({ KAFKA_TOPIC_PREFIX: 'a.b' })).toThrow(/KAFKA_TOPIC_PREFIX/);
    expect(() => loadPlatformConfig({ KAFKA_REPLICATION_FACTOR: '-2' })).toThrow(/KAFKA_REPLICATION_FACTOR/);
    expect(() => loadPlatformConfig({ KAFKA_TOPIC_PARTITIONS: '0' })).toThrow(/KAFKA_TOPIC_PARTITIONS/);
    expect(loadPlatformConfig({ KAFKA_REPLICATION_FACTOR: '3', KAFKA_EVENTS_RETENTION_MS: '604800000', KAFKA_PUBLISHER: 'false' })).toMatchObject({ kafkaReplicationFactor: 3, kafkaEventsRetentionMs: 604800000, kafkaPublisher: false });
  });

  it('reads replay\'s --from', () => {
    expect(parseFrom(['replay', '--from', '0'])).toBe(0n);
    expect(parseFrom(['replay', '--from=42'])).toBe(42n);
    expect(parseFrom(['replay'])).toBeNull();
    expect(parseFrom(['replay', '--from', '-1'])).toBeNull();
    expect(parseFrom(['replay', '--from', 'x'])).toBeNull();
  });
});

describe('platformTopics', () => {
  it('names one events topic per module, one compacted topic per read model with an outbox, and the checkpoints', () => {
    const topics = platformTopics('p', ['trading-orders', 'notification-inbox']);
    expect(topics).toEqual([
      'p.events.identity',
      'p.events.trading',
      'p.events.ai-wallets',
      'p.events.agentic-memory',
      'p.events.commerce',
      'p.events.billing',
      'p.events.news',
      'p.events.asset-collections',
      'p.events.arena',
      'p.events.notifications',
      'p.events.audit',
      'p.projections.trading-orders',
      'p.projections.notification-inbox',
      'p.audit.checkpoints',
    ]);
    const settings = { partitions: 3, replicationFactor: -1, eventsRetentionMs: -1 };
    expect(topicSpec('p', 'p.projections.trading-orders', settings).configEntries).toContainEqual({ name: 'cleanup.policy', value: 'compact' });
    expect(topicSpec('p', 'p.audit.checkpoints', settings).numPartitions).toBe(1);
  });
});
