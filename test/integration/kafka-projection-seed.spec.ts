/**
 * Projection topics for a deployment that switches Kafka on after its read models hold data (real broker, SQLite and
 * PostgreSQL read models): the first start with Kafka seeds each publishing read model's topic with every current row
 * (header `snapshot: true`) before any later change; a restart with Kafka on does not seed again; a start without
 * Kafka forgets that the outbox was kept, so the next start with Kafka seeds again, with the rows as they are then.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { KafkaPublisherService } from '../../src/platform/kafka/kafka-publisher.service';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { startTestApp, type TestApp } from '../support/app';
import { BillingJobs } from '../../src/modules/billing/billing-jobs';
import { TEST_DATABASE_URL } from '../support/databases';
import { registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';
import { byKey, readTopicUntil, testBrokers, topicPrefix, type Consumed } from './kafka-support';

let brokers: string[] = [];
beforeAll(() => {
  brokers = testBrokers();
});

type Order = Record<string, unknown> & { order_uuid: string; status: string };

jest.setTimeout(120_000);

describe.each(['sqlite', 'postgres'] as const)('seeding projection topics when Kafka comes late, %s read models (real broker)', (kind) => {
  let dir: string;
  let schema: string | undefined;
  let prefix: string;
  const apps: TestApp[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-'));
    schema = kind === 'postgres' ? `t_${randomBytes(8).toString('hex')}` : undefined;
    prefix = topicPrefix();
  });

  afterAll(async () => {
    for (const a of apps) await a.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    if (schema) {
      const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
      await ds.initialize();
      await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await ds.destroy();
    }
  });

  async function start(kafka: boolean): Promise<TestApp> {
    const t = await startTestApp({
      DATA_DIR: dir,
      ADMIN_EMAIL: TEST_ADMIN.email,
      ADMIN_PASSWORD: TEST_ADMIN.password,
      ...(kafka ? { KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: prefix, KAFKA_OUTBOX_POLL_MS: '20' } : {}),
      ...(schema ? { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
    });
    apps.push(t);
    return t;
  }

  async function stop(t: TestApp): Promise<void> {
    await t.close();
    apps.splice(apps.indexOf(t), 1);
  }

  /** The rater and the projectors past the head (the rater's usage is the last thing an order appends); with Kafka, the outboxes drained to the broker. */
  async function settled(t: TestApp): Promise<void> {
    expect(await t.app.get(BillingJobs).raterReached(await t.app.get<EventStore>(EVENT_STORE).headPosition(), 10_000)).toBe(true);
    const head = await t.app.get<EventStore>(EVENT_STORE).headPosition();
    expect(await t.app.get(ProjectionRunner).waitFor(head, undefined, 10_000)).toBe(true);
    const relay = t.app.get(KafkaPublisherService).relay;
    if (relay) await until(() => relay.pending(), (n) => n === 0, 15_000);
  }

  const topic = (readModel: string) => `${prefix}.projections.${readModel}`;
  const orders = async (t: TestApp, h: Headers): Promise<Order[]> =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/orders', headers: h })).json().response;
  const place = async (t: TestApp, h: Headers, price: string): Promise<Order> => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: h,
      payload: { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: price, book_or_cancel: 0, fill_or_kill: 0, immediate_or_cancel: 0, external_ref: 'c2VlZA==' },
    });
    expect(res.statusCode).toBe(201);
    const id = res.json().response.order_uuid as string;
    return until(async () => (await orders(t, h)).find((o) => o.order_uuid === id)!, (o) => o?.status === 'OPEN');
  };
  const cancel = async (t: TestApp, h: Headers, id: string): Promise<void> => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/cancel', headers: h, payload: { order_ids: [id] } });
    expect(res.json().success).toBe(true);
    await until(async () => (await orders(t, h)).find((o) => o.order_uuid === id)!, (o) => o.status === 'CANCELLED');
  };
  const newest = (messages: Consumed[], key: string): Consumed | undefined => byKey(messages).get(key)?.at(-1);
  const seeds = (messages: Consumed[], key: string): Consumed[] => (byKey(messages).get(key) ?? []).filter((m) => m.headers.snapshot === 'true');

  it('seeds on the first start with Kafka, not again on the next, and again after a start without Kafka', async () => {
    // 1. Without Kafka: two resting orders, one cancelled; a market order with nothing to buy, which the platform
    // cancels with a notification.
    let t = await start(false);
    const trader = await registerTrader(t);
    const kept = await place(t, trader, '1000.5');
    const changed = await place(t, trader, '1001');
    const cancelledLater = await place(t, trader, '999.5');
    await cancel(t, trader, kept.order_uuid);
    const market = await t.app.inject({
      method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: trader,
      payload: { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: null, book_or_cancel: 0, fill_or_kill: 0, immediate_or_cancel: 0, external_ref: 'bWt0' },
    });
    expect(market.statusCode).toBe(201);
    const inbox = await until(
      async () => (await t.app.inject({ method: 'GET', url: '/api/v1/notifications', headers: trader })).json().items as Array<{ notificationUuid: string }>,
      (items) => items.length > 0,
    );
    await settled(t);
    const before = await orders(t, trader);
    const seedPosition = (await t.app.get<EventStore>(EVENT_STORE).headPosition()).toString();
    await stop(t);

    // 2. Kafka on: every current row reaches its topic, marked as the seed; a later change follows it.
    t = await start(true);
    await settled(t);
    const later = await place(t, trader, '1002');
    await cancel(t, trader, cancelledLater.order_uuid);
    await settled(t);
    const now = await orders(t, trader);
    let messages = await readTopicUntil(brokers, topic('trading-orders'), (m) => now.every((o) => newest(m, o.order_uuid)?.value === JSON.stringify(o)));
    for (const o of before) {
      const [seed] = seeds(messages, o.order_uuid);
      expect(JSON.parse(seed.value!)).toEqual(o);
      expect(seed.headers).toMatchObject({ read_model: 'trading-orders', snapshot: 'true', position: seedPosition, profile_uuid: expect.stringMatching(/^[0-9a-f]{32}$/), event_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      expect(seeds(messages, o.order_uuid)).toHaveLength(1);
    }
    // The order placed with Kafka on came as changes only; an order cancelled with Kafka on: its seed (OPEN), then the
    // change (one key, one partition: offsets say the order).
    expect(seeds(messages, later.order_uuid)).toHaveLength(0);
    const history = byKey(messages).get(cancelledLater.order_uuid)!;
    expect(history[0].headers.snapshot).toBe('true');
    expect(JSON.parse(history[0].value!)).toMatchObject({ status: 'OPEN' });
    expect(history.at(-1)!.headers.snapshot).toBeUndefined();
    expect(JSON.parse(history.at(-1)!.value!)).toMatchObject({ status: 'CANCELLED' });
    expect(BigInt(history.at(-1)!.offset)).toBeGreaterThan(BigInt(history[0].offset));
    const notes = await readTopicUntil(brokers, topic('notification-inbox'), (m) => inbox.every((n) => seeds(m, n.notificationUuid).length === 1));
    for (const n of inbox) {
      expect(JSON.parse(newest(notes, n.notificationUuid)!.value!)).toEqual(n);
      expect(newest(notes, n.notificationUuid)!.headers).toMatchObject({ read_model: 'notification-inbox', snapshot: 'true' });
    }
    await stop(t);

    // 3. Kafka on again: nothing seeded twice. A seed precedes, in the outbox, every change the projector writes after
    // it: once a new order is projected and the outbox drained (acknowledged), any seed of this start is on the topic.
    t = await start(true);
    const probe3 = await place(t, trader, '1003');
    await settled(t);
    messages = await readTopicUntil(brokers, topic('trading-orders'), () => true);
    expect(newest(messages, probe3.order_uuid)).toBeDefined();
    for (const o of before) expect(seeds(messages, o.order_uuid)).toHaveLength(1);
    await stop(t);

    // 4. A node without Kafka changes a row the topic holds; 5. the next start with Kafka seeds again, as it is now.
    t = await start(false);
    await cancel(t, trader, changed.order_uuid);
    await settled(t);
    const cancelled = (await orders(t, trader)).find((o) => o.order_uuid === changed.order_uuid)!;
    await stop(t);
    t = await start(true);
    const probe5 = await place(t, trader, '1004');
    await settled(t);
    messages = await readTopicUntil(brokers, topic('trading-orders'), () => true);
    expect(newest(messages, probe5.order_uuid)).toBeDefined();
    expect(newest(messages, changed.order_uuid)!.headers.snapshot).toBe('true');
    expect(JSON.parse(newest(messages, changed.order_uuid)!.value!)).toMatchObject({ status: 'CANCELLED' });
    expect(seeds(messages, changed.order_uuid)).toHaveLength(2);
    expect(seeds(messages, later.order_uuid)).toHaveLength(1);
    expect(seeds(messages, probe3.order_uuid)).toHaveLength(1);
    expect(seeds(messages, cancelledLater.order_uuid)).toHaveLength(2);
    expect(seeds(messages, probe5.order_uuid)).toHaveLength(0);
    await stop(t);
  });
});
