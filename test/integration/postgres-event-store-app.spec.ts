/**
 * The whole platform on the PostgreSQL event store (EVENT_STORE_URL) and PostgreSQL read models: a trader's orders
 * accepted, matched by the market's engine (which follows the log through the adapter's subscription), read back from
 * the projections; the log dense and chained; the configuration refusing two event stores at once.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import { verifyStreamChain } from '../../src/platform/commitments/commitment';
import { startTestApp, type TestApp } from '../support/app';
import { suiteSchema, TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';
import { registerTrader, until } from '../support/traders';

const readModels = suiteSchema();
const eventSchema = `es_${hex32().slice(0, 12)}`;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ ...readModels.env(), EVENT_STORE_URL: TEST_DATABASE_URL, EVENT_STORE_SCHEMA: eventSchema });
});
afterAll(async () => {
  await t?.close();
  await readModels.drop();
  const c = new Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${eventSchema}" CASCADE`);
  await c.end();
});

it('runs the platform on it: orders matched by the engine and projected, the log dense and chained', async () => {
  expect(t.app.get<EventStore>(RAW_EVENT_STORE).kind).toBe('postgres');
  const [maker, taker] = [await registerTrader(t), await registerTrader(t)];
  const order = { venue: 'MTF', market: 'ETH-PERP', order_type: 'LIMIT', time_in_force: 'GTC', external_reference: 'cGc=', leverage: 1, reduce_only: false, combos: [], quantity: '1', limit_price: '3000' };
  const sell = await t.app.inject({ method: 'POST', url: '/api/v1/trading/orders', headers: maker, payload: { ...order, side: 'SELL' } });
  expect(sell.statusCode).toBe(201);
  const buy = await t.app.inject({ method: 'POST', url: '/api/v1/trading/orders', headers: taker, payload: { ...order, side: 'BUY' } });
  expect(buy.statusCode).toBe(201);
  const filled = await until(
    async () => (await t.app.inject({ method: 'GET', url: `/api/v1/trading/orders/${buy.json().order_uuid}`, headers: taker })).json(),
    (o) => o.status === 'FILLED',
    15_000,
  );
  expect(filled.fills).toEqual([expect.objectContaining({ price: '3000.000000000000000000', size: '1.000000000000000000', role: 'TAKER' })]);

  const store = t.app.get<EventStore>(EVENT_STORE);
  const all = await store.readAll({ after: 0n, maxCount: 100_000 });
  expect(all.map((e) => e.position)).toEqual(all.map((_, i) => BigInt(i + 1)));
  expect(await store.headPosition()).toBe(BigInt(all.length));
  const engineStream = all.find((e) => e.type === 'TradeExecuted')!.stream;
  expect(verifyStreamChain(await t.app.get<EventStore>(RAW_EVENT_STORE).readStream(engineStream))).toBeNull();
});

it("keeps the data subjects' keys beside the log, where every node finds them: a trader's sealed email opens through them", async () => {
  await registerTrader(t);
  const registered = (await t.app.get<EventStore>(EVENT_STORE).readAll({ after: 0n, maxCount: 100_000 })).filter((e) => e.type === 'AccountRegistered').at(-1)!;
  const me = { profile_uuid: registered.stream.replace('identity-account-', ''), email: String(registered.data.email) };
  expect(me.email).toMatch(/^trader-[0-9a-f]{8}@example\.com$/); // opened on read
  const c = new Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    const keys = await c.query(`SELECT kid, subject, wrapped IS NOT NULL AS live FROM "${eventSchema}".subject_keys WHERE subject = $1`, [me.profile_uuid]);
    expect(keys.rows).toEqual([{ kid: expect.stringMatching(/^[0-9a-f]{32}$/), subject: me.profile_uuid, live: true }]);
    const stored = await c.query(`SELECT data FROM "${eventSchema}".events WHERE type = 'AccountRegistered' AND stream = $1`, [registered.stream]);
    expect(stored.rows[0].data).toContain(`"kid":"${keys.rows[0].kid}"`);
    expect(stored.rows[0].data).not.toContain(me.email);
    expect((await c.query(`SELECT value FROM "${eventSchema}".key_store_meta WHERE name = 'master_key_check'`)).rows).toHaveLength(1);
  } finally {
    await c.end();
  }
  expect(loadPlatformConfig({ NODE_ENV: 'test', EVENT_STORE_URL: TEST_DATABASE_URL, EVENT_STORE_SCHEMA: eventSchema })).toMatchObject({ subjectKeysUrl: TEST_DATABASE_URL, subjectKeysSchema: eventSchema });
  expect(loadPlatformConfig({ NODE_ENV: 'test', EVENT_STORE_URL: TEST_DATABASE_URL, SUBJECT_KEYS_SCHEMA: 'keys' })).toMatchObject({ subjectKeysSchema: 'keys' });
  expect(loadPlatformConfig({ NODE_ENV: 'test' }).subjectKeysUrl).toBeUndefined();
});

it('refuses a second node whose identity key differs from the one the log was written with', async () => {
  const keyOfFirst = (file: string) => readFileSync(join(t.config.dataDir, file), 'utf8').trim();
  // The first node's other keys, generated into its DATA_DIR: a second node with its own would be refused for them (node-keys.spec.ts).
  const env = {
    ...readModels.env(),
    EVENT_STORE_URL: TEST_DATABASE_URL,
    EVENT_STORE_SCHEMA: eventSchema,
    PRIVACY_MASTER_KEY: keyOfFirst('privacy-master.key'),
    PLATFORM_SECRET_KEY: keyOfFirst('platform.key'),
    AUDIT_SIGNING_KEY: keyOfFirst('audit-signing.key'),
  };
  await expect(startTestApp({ ...env, IDENTITY_SECRET_KEY: randomBytes(32).toString('base64') })).rejects.toThrow(/IDENTITY_SECRET_KEY is not the one this log was written with/);
  const identityKey = keyOfFirst('identity.key');
  const second = await startTestApp({ ...env, IDENTITY_SECRET_KEY: identityKey });
  await second.close();
});

it('refuses two event stores at once, naming the variable', () => {
  expect(() => loadPlatformConfig({ NODE_ENV: 'test', EVENTSTORE_CONNECTION_STRING: 'esdb://localhost:2113', EVENT_STORE_URL: TEST_DATABASE_URL })).toThrow(/EVENT_STORE_URL: set one event store/);
});
