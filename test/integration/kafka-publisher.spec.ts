/**
 * The event publisher against a real Kafka broker (KAFKA_BROKERS, started by jest's global setup): the global log
 * relayed to `<prefix>.events.<module>` (key = stream, value = the envelope, headers), the checkpoint stored after
 * the broker's acknowledgement, audit checkpoints on their own topic, the lease, and `npm run kafka -- replay`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKafkaCli } from '../../src/cli/kafka';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { EventPublisher, EVENTS_LEASE } from '../../src/platform/kafka/event-publisher';
import { openKafkaLink, silentKafkaLogger, type KafkaLink } from '../../src/platform/kafka/kafka-client';
import { eventEnvelope } from '../../src/platform/kafka/messages';
import { CheckpointStore } from '../../src/platform/projections/checkpoint.store';
import { openReadModelDatabase, type ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { hex32, newEvent } from '../support/events';
import { eventDataProblem } from '../support/event-schemas';
import { sealEventData } from '../../src/platform/privacy/sealing';
import type { JsonObject } from '../../src/platform/commitments/json';
import { randomBytes } from 'node:crypto';
import '../../src/modules/identity/domain/privacy';
import '../../src/modules/trading/domain/privacy';
import { until } from '../support/traders';
import { byKey, readTopic, readTopicUntil, schemaCheck, testBrokers, topicConfig, topicPrefix } from './kafka-support';

// A run without a broker fails every test here with the reason (never a silent skip).
let brokers: string[] = [];
beforeAll(() => {
  brokers = testBrokers();
});

describe('Kafka event publisher (real broker)', () => {
  let dir: string;
  let store: SqliteEventStore;
  let db: ReadModelDatabase;
  let prefix: string;
  let link: KafkaLink;
  const publishers: EventPublisher[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kafka-pub-'));
    store = new SqliteEventStore({ filename: join(dir, 'events.sqlite'), pollIntervalMs: 20 });
    db = await openReadModelDatabase({ dataDir: dir, readModels: [] });
    prefix = topicPrefix();
    link = openKafkaLink({ brokers, clientId: 'platform-test', prefix, settings: { partitions: 3, replicationFactor: -1, eventsRetentionMs: -1 } });
  });

  afterEach(async () => {
    await Promise.all(publishers.splice(0).map((p) => p.stop()));
    await link.topics.close();
    await db.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function publisher(batchSize = 100): EventPublisher {
    const p = new EventPublisher(store, db, link, { logger: silentKafkaLogger, batchSize, retryDelayMs: 50 });
    publishers.push(p);
    return p;
  }

  async function appendAll(streams: Record<string, number>): Promise<void> {
    for (const [stream, n] of Object.entries(streams)) {
      for (let i = 0; i < n; i++) await store.append(stream, [newEvent(`Test${i}`, { i: String(i), stream })], 'any');
    }
  }

  const stored = async (): Promise<RecordedEvent[]> => store.readAll({});

  it('stops at once when stopped while starting, on a quiet log (no event to wake the subscription)', async () => {
    const p = publisher();
    // The stop lands while the lease is being taken, before the producer connects and the subscription opens. Once the
    // subscription was iterated anyway and waited for the next event, and this test hit its timeout; now the lease loop
    // does not start work after a stop, and the publisher does not iterate after one that came while it connected.
    p.start();
    await p.stop();
    expect(p.state).toBe('stopped');
    expect((await new CheckpointStore(db).read(EVENTS_LEASE))?.owner).toBeNull();
  }, 15_000);

  it('relays every event to its module topic: key = stream, value = the envelope, headers; checkpoint = head', async () => {
    const order = `mtf-order-${hex32()}`;
    const account = `identity-account-${hex32()}`;
    const binding = `ai-wallet-binding-${hex32()}`;
    const ledger = `ledger-${hex32()}`;
    await appendAll({ [order]: 5, [account]: 3, [binding]: 2, [ledger]: 1 });
    await store.append(order, [newEvent('Batch1'), newEvent('Batch2')], 'any'); // one append, two events
    const p = publisher(4); // several sends
    p.start();
    const head = await store.headPosition();
    expect(await p.waitFor(head, 20_000)).toBe(true);
    expect((await new CheckpointStore(db).read(EVENTS_LEASE))?.position).toBe(head);

    const events = await stored();
    const expectTopic = async (module: string, streams: string[]) => {
      const messages = await readTopic(brokers, `${prefix}.events.${module}`);
      const mine = events.filter((e) => streams.includes(e.stream));
      expect(messages.map((m) => m.headers.event_id).sort()).toEqual(mine.map((e) => e.event_id).sort());
      const valid = schemaCheck('event-envelope.schema.json');
      for (const m of messages) {
        valid(JSON.parse(m.value!));
        const e = mine.find((x) => x.event_id === m.headers.event_id)!;
        expect(m.key).toBe(e.stream);
        expect(JSON.parse(m.value!)).toEqual(eventEnvelope(e));
        expect(m.headers).toEqual({ event_id: e.event_id, type: e.type, position: e.position.toString(), event_commitment: e.event_commitment });
      }
      for (const [, list] of byKey(messages)) {
        expect(new Set(list.map((m) => m.partition)).size).toBe(1); // one partition per key
        const revisions = list.map((m) => BigInt(JSON.parse(m.value!).revision));
        expect(revisions).toEqual([...revisions].sort((a, b) => (a < b ? -1 : 1))); // in stream order
      }
      return messages;
    };
    expect(await expectTopic('trading', [order])).toHaveLength(7);
    await expectTopic('identity', [account]);
    await expectTopic('ai-wallets', [binding]);
    await expectTopic('ledger', [ledger]);

    const config = await topicConfig(brokers, `${prefix}.events.trading`);
    expect(config.partitions).toBe(3);
    expect(config.config).toMatchObject({ 'cleanup.policy': 'delete', 'retention.ms': '-1' });
  });

  it('every event message\'s data validates against its type\'s definition in docs/schemas/events (committed form)', async () => {
    const account = `identity-account-${hex32()}`;
    const order = `mtf-order-${hex32()}`;
    const key = { kid: hex32(), key: randomBytes(32) };
    // As the platform stores it (sealing-event-store.ts): personal and secret fields sealed under the subject's key.
    const sealed = (type: string, stream: string, data: JsonObject) =>
      newEvent(type, sealEventData({ type, stream, data, metadata: { actor: { type: 'user', reference: 'p1' } } }, { keyFor: () => key, keyById: () => key.key }));
    await store.append(account, [
      sealed('AccountRegistered', account, {
        profile_uuid: 'p1', registration_id: 'r1', client_id: 'c1', tenant_uuid: 't1', account_type: 'personal', email: 'ann@example.com', first_name: 'Ann', middle_name: null,
        last_name: 'Lee', company_name: null, password_hash: 'scrypt$1', terms_version: '2024-01', platform_role: null,
      }),
      sealed('LoginFailed', account, { reason: 'BAD_PASSWORD', device: { name: 'Firefox', platform: 'Linux' }, authentication_method: 'PASSWORD' }),
    ], 'any');
    await store.append(order, [newEvent('OrderFilled', { market_uuid: 'm1', input_position: '7', order_uuid: 'o1', profile_uuid: 'p1' })], 'any');
    const p = publisher();
    p.start();
    expect(await p.waitFor(await store.headPosition(), 20_000)).toBe(true);
    const messages = [...(await readTopic(brokers, `${prefix}.events.identity`)), ...(await readTopic(brokers, `${prefix}.events.trading`))];
    expect(messages).toHaveLength(3);
    for (const m of messages) {
      const { type, data } = JSON.parse(m.value!) as { type: string; data: JsonObject };
      expect({ type, problem: eventDataProblem(type, data) }).toEqual({ type, problem: null });
      if (type === 'AccountRegistered') expect(data).toMatchObject({ email: { $sealed_field: 'email' }, middle_name: null, $sealed_values: { $sealed_digest: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    }
  });

  it('follows the log live after catching up', async () => {
    const stream = `mtf-order-${hex32()}`;
    await appendAll({ [stream]: 2 });
    const p = publisher();
    p.start();
    expect(await p.waitFor(await store.headPosition(), 20_000)).toBe(true);
    await appendAll({ [stream]: 3 });
    const head = await store.headPosition();
    expect(await p.waitFor(head, 20_000)).toBe(true);
    const messages = await readTopic(brokers, `${prefix}.events.trading`);
    expect(messages.map((m) => JSON.parse(m.value!).revision)).toEqual(['0', '1', '2', '3', '4']);
  });

  it('publishes an audit checkpoint event to the checkpoints topic as the signed checkpoint, unchanged', async () => {
    const signed = { alg: 'audit-checkpoint-v1', position: '1', event_count: '1', global_commitment: 'a'.repeat(64), created_at: '2026-01-01T00:00:00.000Z', key_id: 'kid', public_key: 'pk', signature: 'sig' };
    await appendAll({ [`identity-account-${hex32()}`]: 1 });
    await store.append('audit-checkpoints', [newEvent('AuditCheckpointRecorded', signed)], 'no_stream');
    const p = publisher();
    p.start();
    expect(await p.waitFor(await store.headPosition(), 20_000)).toBe(true);
    const [checkpoint] = (await stored()).filter((e) => e.stream === 'audit-checkpoints');
    const messages = await readTopic(brokers, `${prefix}.audit.checkpoints`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ key: 'audit-checkpoints', headers: { event_id: checkpoint.event_id, position: checkpoint.position.toString(), type: 'AuditCheckpointRecorded' } });
    expect(JSON.parse(messages[0].value!)).toEqual(signed);
    expect(() => schemaCheck('audit-checkpoint.schema.json')(signed)).toThrow(/public_key|signature/); // this test's fake one
    const audit = await readTopic(brokers, `${prefix}.events.audit`);
    expect(audit.map((m) => m.headers.event_id)).toEqual([checkpoint.event_id]);
    expect((await topicConfig(brokers, `${prefix}.audit.checkpoints`)).partitions).toBe(1);
  });

  it('runs on one process at a time: a second publisher stands by under the lease', async () => {
    await appendAll({ [`mtf-order-${hex32()}`]: 3 });
    const first = publisher();
    first.start();
    expect(await first.waitFor(await store.headPosition(), 20_000)).toBe(true);
    const second = publisher();
    second.start();
    await until(async () => second.state, (s) => s === 'standby', 10_000);
    expect(first.state).toBe('running');
  });

  it('npm run kafka -- replay --from 0 publishes the history again (same event ids) and never moves the checkpoint back', async () => {
    const stream = `mtf-order-${hex32()}`;
    await appendAll({ [stream]: 4 });
    const p = publisher();
    p.start();
    const head = await store.headPosition();
    expect(await p.waitFor(head, 20_000)).toBe(true);
    await p.stop(); // releases the lease

    const out: string[] = [];
    const errors: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => errors.push(l), interactive: false };
    const config = loadPlatformConfig({ DATA_DIR: dir, KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: prefix, KAFKA_BATCH_SIZE: '2' });
    expect(await runKafkaCli(['replay', '--from', '0'], config, [], io)).toBe(0);
    expect(errors).toEqual([]);
    expect(out.join('\n')).toMatch(new RegExp(`replayed 4 events from position 0 up to ${head}`));

    const messages = await readTopicUntil(brokers, `${prefix}.events.trading`, (m) => m.length >= 8);
    const ids = (await stored()).map((e) => e.event_id);
    expect(messages.map((m) => m.headers.event_id)).toEqual([...ids, ...ids]); // duplicates carry the same event_id
    expect((await new CheckpointStore(db).read(EVENTS_LEASE))?.position).toBe(head);

    // From the middle: only the tail again; the status command shows the checkpoint.
    expect(await runKafkaCli(['replay', '--from', String(head)], config, [], io)).toBe(0);
    expect((await readTopicUntil(brokers, `${prefix}.events.trading`, (m) => m.length >= 9)).length).toBe(9);
    out.length = 0;
    expect(await runKafkaCli(['status'], config, [], io)).toBe(0);
    expect(out).toEqual(expect.arrayContaining([`log head: ${head}`, expect.stringMatching(new RegExp(`^events\\tcheckpoint ${head}\\tlag 0\\t`))]));

    // Past the checkpoint, leaving unpublished events behind it: the replay sends, the checkpoint stays, so the live
    // publisher still publishes what lies between.
    await appendAll({ [stream]: 3 });
    const newHead = await store.headPosition();
    expect(await runKafkaCli(['replay', '--from', String(newHead)], config, [], io)).toBe(0);
    expect((await new CheckpointStore(db).read(EVENTS_LEASE))?.position).toBe(head);
  });

  it('the CLI refuses replay without --from, and any command without KAFKA_BROKERS', async () => {
    const errors: string[] = [];
    const io = { out: () => undefined, err: (l: string) => errors.push(l), interactive: false };
    expect(await runKafkaCli(['replay'], loadPlatformConfig({ DATA_DIR: dir, KAFKA_BROKERS: brokers.join(',') }), [], io)).toBe(2);
    expect(await runKafkaCli(['status'], loadPlatformConfig({ DATA_DIR: dir }), [], io)).toBe(2);
    expect(await runKafkaCli(['nope'], loadPlatformConfig({ DATA_DIR: dir }), [], io)).toBe(2);
    expect(errors.join('\n')).toMatch(/--from[\s\S]*KAFKA_BROKERS is not set[\s\S]*usage/);
  });
});
