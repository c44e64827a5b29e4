/**
 * Projection topics against a real Kafka broker, through the whole application (SQLite and PostgreSQL read models):
 * the order list, wallet budgets and notification inbox projectors write each change to their outbox in the same
 * transaction as the row; the relay publishes `<prefix>.projections.<read-model>` (compacted, key = row id, value =
 * the row as the API shows it) and deletes what the broker acknowledged. The newest value per key must equal what
 * the API answers; a deleted row is a tombstone.
 */
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { KafkaPublisherService, PROJECTION_OUTBOXES } from '../../src/platform/kafka/kafka-publisher.service';
import type { ProjectionOutbox } from '../../src/platform/outbox/outbox';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { budgetHoldView, type BudgetHoldRow } from '../../projections/ai-wallet-budgets/ai-wallet-budgets.read-model';
import { startTestApp, type TestApp } from '../support/app';
import { intentBody, policy, walletApi, workspaceOwner, type WalletSetup } from '../support/ai-wallets';
import { TEST_DATABASE_URL } from '../support/databases';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { adminHeaders, registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';
import { AuditCheckpointer } from '../../src/modules/audit/checkpointer';
import { checkSignature, type SignedCheckpoint } from '../../src/modules/audit/domain/checkpoint';
import { byKey, readTopicUntil, schemaCheck, testBrokers, topicAndReadModel, topicConfig, topicPrefix, type Consumed } from './kafka-support';

// A run without a broker fails every test here with the reason (never a silent skip).
let brokers: string[] = [];
beforeAll(() => {
  brokers = testBrokers();
});

/** The newest message per key (what a compacted topic keeps). */
const newest = (messages: Consumed[]): Map<string, Consumed> => new Map([...byKey(messages)].map(([k, list]) => [k, list[list.length - 1]]));

describe.each(['sqlite', 'postgres'] as const)('Kafka projection topics on %s read models (real broker)', (kind) => {
  let t: TestApp;
  let prefix: string;
  let schema: string | undefined;
  let setup: WalletSetup;
  const api = walletApi(() => setup);

  beforeAll(async () => {
    prefix = topicPrefix();
    schema = kind === 'postgres' ? `t_${randomBytes(8).toString('hex')}` : undefined;
    t = await startTestApp({
      // One thread (WORKER_THREADS=0): the suite waits on this thread's publisher object (docs/operations.md 10.4).
      WORKER_THREADS: '0',
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_OUTBOX_POLL_MS: '20',
      AUDIT_CHECKPOINT_EVERY_EVENTS: '25',
      ADMIN_EMAIL: TEST_ADMIN.email,
      ADMIN_PASSWORD: TEST_ADMIN.password,
      ...(schema ? { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
    });
    setup = { t, ...(await workspaceOwner(t)) };
  });

  afterAll(async () => {
    await t?.close();
    if (schema) {
      const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
      await ds.initialize();
      await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await ds.destroy();
    }
  });

  /** Every projector has passed the log's head and the relay has emptied the outboxes. */
  async function settled(): Promise<void> {
    const head = await t.app.get<EventStore>(EVENT_STORE).headPosition();
    expect(await t.app.get(ProjectionRunner).waitFor(head, undefined, 10_000)).toBe(true);
    const relay = t.app.get(KafkaPublisherService).relay!;
    await until(() => relay.pending(), (n) => n === 0, 15_000);
  }

  const topic = (readModel: string) => `${prefix}.projections.${readModel}`;

  it('publishes the order list: newest value per order = the Order record the list shows, owner in the headers', async () => {
    const alice: Headers = await registerTrader(t);
    const place = (over: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: alice, payload: { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '1000.5', book_or_cancel: 0, fill_or_kill: 0, immediate_or_cancel: 0, external_ref: 'cmVmLTE=', ...over } });
    const kept = (await place({})).json().response;
    const cancelled = (await place({ limit_price: '999' })).json().response;
    const list = async () => (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/orders', headers: alice })).json().response as Array<Record<string, unknown>>;
    await until(list, (orders) => orders.every((o) => o.status === 'OPEN'), 10_000);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/cancel', headers: alice, payload: { order_ids: [cancelled.order_uuid] } })).statusCode).toBe(200);
    await until(list, (orders) => orders.some((o) => o.order_uuid === cancelled.order_uuid && o.status === 'CANCELLED'), 10_000);
    await settled();

    const orders = await list();
    const messages = await readTopicUntil(brokers, topic('trading-orders'), (m) => orders.every((o) => newest(m).get(o.order_uuid as string)?.value === JSON.stringify(o)));
    const last = newest(messages);
    const valid = schemaCheck('projection-trading-orders.schema.json');
    for (const m of messages) valid(JSON.parse(m.value!));
    for (const o of orders) {
      expect(JSON.parse(last.get(o.order_uuid as string)!.value!)).toEqual(o);
      expect(last.get(o.order_uuid as string)!.headers).toMatchObject({ read_model: 'trading-orders', profile_uuid: expect.stringMatching(/^[0-9a-f]{32}$/) });
    }
    // Each change in order: NEW, then OPEN, then (for one) CANCELLED.
    const statuses = byKey(messages).get(cancelled.order_uuid)!.map((m) => JSON.parse(m.value!).status);
    expect(statuses[0]).toBe('NEW');
    expect(statuses[statuses.length - 1]).toBe('CANCELLED');
    expect(byKey(messages).get(kept.order_uuid)!.map((m) => JSON.parse(m.value!).status)).toEqual(expect.arrayContaining(['NEW', 'OPEN']));
    const positions = messages.map((m) => BigInt(m.headers.position));
    for (const [, list] of byKey(messages)) {
      const p = list.map((m) => BigInt(m.headers.position));
      expect(p).toEqual([...p].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    expect(positions.length).toBeGreaterThanOrEqual(4);
    expect((await topicConfig(brokers, topic('trading-orders'))).config['cleanup.policy']).toBe('compact');
  });

  it('publishes wallet budgets: one row per reservation, keyed by intent, following approval', async () => {
    const { binding, agent } = await api.newBinding(policy());
    const b = binding.binding_uuid;
    const small = await api.call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': `small-${b}` }, intentBody('0.05'));
    expect(small.status).toBe(201);
    const big = await api.call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': `big-${b}` }, intentBody('0.5'));
    expect(big.status).toBe(201);
    const approvals = await api.call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals`, setup.owner);
    const approval = approvals.json.items[0];
    expect((await api.call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, setup.owner, {})).status).toBe(200);
    await settled();

    const db = t.app.get(ReadModelDatabase);
    const rows: BudgetHoldRow[] = await db.reader.query(db.sql('SELECT * FROM ai_wallet_budget_holds WHERE binding_uuid = ?'), [b]);
    expect(rows).toHaveLength(2);
    const messages = await readTopicUntil(brokers, topic('ai-wallet-budgets'), (m) => rows.every((r) => newest(m).get(r.intent_uuid)?.value === JSON.stringify(budgetHoldView(r))));
    const last = newest(messages);
    const valid = schemaCheck('projection-ai-wallet-budgets.schema.json');
    for (const m of messages) valid(JSON.parse(m.value!));
    for (const r of rows) {
      expect(JSON.parse(last.get(r.intent_uuid)!.value!)).toEqual(budgetHoldView(r));
      expect(last.get(r.intent_uuid)!.headers).toMatchObject({ read_model: 'ai-wallet-budgets', binding_uuid: b });
    }
    expect(rows.find((r) => r.state === 'APPROVED')).toBeDefined();
    const approved = rows.find((r) => r.state === 'APPROVED')!;
    expect(byKey(messages).get(approved.intent_uuid)!.map((m) => JSON.parse(m.value!).state).slice(-1)).toEqual(['APPROVED']);
    expect(byKey(messages).get(approved.intent_uuid)!.length).toBeGreaterThanOrEqual(2);
  });

  it('publishes the notification inbox: the AccountNotification per id, including what a read-all changed', async () => {
    const owner = setup.owner;
    const inbox = async (): Promise<Array<Record<string, unknown>>> => {
      const items: Array<Record<string, unknown>> = [];
      for (const status of ['UNREAD', 'READ', 'ARCHIVED']) items.push(...(await t.app.inject({ method: 'GET', url: `/api/v1/notifications?status=${status}&limit=100`, headers: owner })).json().items);
      return items;
    };
    await settled();
    const before = await inbox();
    expect(before.length).toBeGreaterThan(0); // the binding and approval request of the budgets test, at least
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/notifications/read-all', headers: owner })).statusCode).toBeLessThan(300);
    await settled();
    const after = await inbox();
    expect(after.every((n) => n.status !== 'UNREAD')).toBe(true);

    const messages = await readTopicUntil(brokers, topic('notification-inbox'), (m) => after.every((n) => newest(m).get(n.notificationUuid as string)?.value === JSON.stringify(n)));
    const last = newest(messages);
    const valid = schemaCheck('projection-notification-inbox.schema.json');
    for (const m of messages) valid(JSON.parse(m.value!));
    for (const n of after) {
      expect(JSON.parse(last.get(n.notificationUuid as string)!.value!)).toEqual(n);
      expect(last.get(n.notificationUuid as string)!.headers.read_model).toBe('notification-inbox');
    }
    // A notification read by read-all was published twice: UNREAD, then READ.
    const read = before.find((n) => n.status === 'UNREAD');
    expect(read).toBeDefined();
    if (read) expect(byKey(messages).get(read.notificationUuid as string)!.map((m) => JSON.parse(m.value!).status)).toEqual(['UNREAD', 'READ']);
  });

  it('a deleted row is a tombstone (null value) on the compacted topic', async () => {
    const outbox = t.app.get<ProjectionOutbox[]>(PROJECTION_OUTBOXES).find((o) => o.readModel === 'trading-orders')!;
    expect(outbox.enabled).toBe(true);
    const key = randomBytes(16).toString('hex');
    await t.app.get(ReadModelDatabase).transaction(async (tx) => {
      await outbox.put(tx, { key, value: { order_uuid: key, status: 'NEW' }, position: 1n, event_id: 'a'.repeat(32) });
      await outbox.put(tx, { key, value: null, position: 2n, event_id: 'b'.repeat(32) });
    });
    await until(() => t.app.get(KafkaPublisherService).relay!.pending(), (n) => n === 0, 15_000);
    const messages = await readTopicUntil(brokers, topic('trading-orders'), (m) => (byKey(m).get(key)?.length ?? 0) >= 2);
    expect(byKey(messages).get(key)!.map((m) => m.value)).toEqual([JSON.stringify({ order_uuid: key, status: 'NEW' }), null]);
  });

  it('a consumer rebuilding from each topic from its beginning ends with exactly the read model', async () => {
    await settled();
    for (const readModel of ['trading-orders', 'ai-wallet-budgets', 'notification-inbox']) {
      const { topic, rows } = await topicAndReadModel(t.app, brokers, prefix, readModel);
      expect([readModel, rows.size > 0]).toEqual([readModel, true]);
      expect(topic).toEqual(rows);
    }
  });

  it('publishes the signed audit checkpoints: the newest on the topic is the one the API answers, and it verifies', async () => {
    await t.app.get(AuditCheckpointer).tick(); // writes what is due now (the suite wrote more than 25 events)
    const latest = (await t.app.inject({ method: 'GET', url: '/api/v1/audit/checkpoints/latest', headers: await adminHeaders(t) })).json() as SignedCheckpoint;
    expect(latest.position).toMatch(/^\d+$/);
    // v2: the Merkle tree head over the same events as the global chain.
    expect(latest).toMatchObject({ alg: 'audit-checkpoint-v2', tree_size: latest.event_count, root_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await t.app.get(KafkaPublisherService).events!.waitFor(await t.app.get<EventStore>(EVENT_STORE).headPosition(), 15_000)).toBe(true);
    const messages = await readTopicUntil(brokers, `${prefix}.audit.checkpoints`, (m) => m.some((x) => x.value === JSON.stringify(latest)));
    const valid = schemaCheck('audit-checkpoint.schema.json');
    for (const m of messages) {
      const cp = JSON.parse(m.value!) as SignedCheckpoint;
      valid(cp);
      expect(checkSignature(cp)).toBe('valid');
      expect(m.key).toBe('audit-checkpoints');
    }
    // The checkpointer may have signed another since the API answered: the one it answered is there, none newer is missing.
    expect(messages.map((m) => m.value)).toContain(JSON.stringify(latest));
    expect(BigInt((JSON.parse(messages[messages.length - 1].value!) as SignedCheckpoint).position)).toBeGreaterThanOrEqual(BigInt(latest.position));
  });
});
