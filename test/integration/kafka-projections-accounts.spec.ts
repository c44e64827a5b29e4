/**
 * Projection topics of agentic memory requests, AI-wallet intents, arena seasons and billing accounts against a real
 * Kafka broker, through the whole application (SQLite and PostgreSQL read models): each projector writes every change
 * of a row to its outbox in the same transaction as the row; the relay publishes `<prefix>.projections.<read-model>`
 * (compacted, key = the record's id, value = the record as the API shows it, less what the contract leaves out). The
 * newest value per key must equal what the API answers, every message must match the topic's schema
 * (docs/schemas/projection-<read-model>.schema.json), and a consumer reading the topic from its beginning must end
 * with exactly the read model's rows.
 */
import { ArenaClock } from '../../src/modules/arena/arena-clock';
import { SESSIONS_OUTLAST_THE_CLOCK_MOVES, startTestApp, type TestApp } from '../support/app';
import { intentBody, policy, walletApi, workspaceOwner, type WalletSetup } from '../support/ai-wallets';
import { memoryApi, M } from '../support/agentic-memory';
import { suiteSchema } from '../support/databases';
import { adminHeaders, openTenant, registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';
import { byKey, readTopicUntil, schemaCheck, testBrokers, topicAndReadModel, topicConfig, topicPrefix, type Consumed, settledOnKafka } from './kafka-support';

// A run without a broker fails every test here with the reason (never a silent skip).
let brokers: string[] = [];
beforeAll(() => {
  brokers = testBrokers();
});

const GLOBAL = '0'.repeat(32);
const MTF = '/api/v1/api/v1/mtf';
const ARENA = '/api/v1/admin/arena';

/** The newest message per key (what a compacted topic keeps). */
const newest = (messages: Consumed[]): Map<string, Consumed> => new Map([...byKey(messages)].map(([k, list]) => [k, list[list.length - 1]]));
const without = (record: Record<string, unknown>, ...members: string[]): Record<string, unknown> => Object.fromEntries(Object.entries(record).filter(([k]) => !members.includes(k)));

describe.each(['sqlite', 'postgres'] as const)('Kafka projection topics of requests, intents, seasons and billing accounts on %s read models (real broker)', (kind) => {
  let now = new Date();
  let t: TestApp;
  let prefix: string;
  let schema: ReturnType<typeof suiteSchema> | undefined;
  let setup: WalletSetup;
  const wallets = walletApi(() => setup);
  const memory = memoryApi(() => t);
  const call = memory.call;
  /** Billing accounts to check at the end: who reads them, and how. */
  const accounts: Array<{ headers: Headers; usage: number }> = [];

  beforeAll(async () => {
    prefix = topicPrefix();
    schema = kind === 'postgres' ? suiteSchema() : undefined;
    t = await startTestApp(
      {
        WORKER_THREADS: '0',
        KAFKA_BROKERS: brokers.join(','),
        KAFKA_TOPIC_PREFIX: prefix,
        KAFKA_OUTBOX_POLL_MS: '20',
        ADMIN_EMAIL: TEST_ADMIN.email,
        ADMIN_PASSWORD: TEST_ADMIN.password,
        // The arena clock and the period close run only when the test says.
        ARENA_CLOCK_SWEEP_MS: '3600000',
        BILLING_PERIOD_CLOSE_SWEEP_MS: '3600000',
        SESSION_TTL_SECONDS: SESSIONS_OUTLAST_THE_CLOCK_MOVES,
        ...(schema?.env() ?? {}),
      },
      { clock: () => now },
    );
    setup = { t, ...(await workspaceOwner(t)) };
  });

  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  const settled = () => settledOnKafka(t.app);

  /**
   * The topic of `readModel` holds, as the newest value of each expected key, exactly the expected record (JSON text,
   * member order included) with the expected headers; every message validates against the topic's schema; per key the
   * positions never decrease; the topic is compacted; and it ends with exactly the read model's rows.
   */
  async function expectTopic(readModel: string, expected: Map<string, { value: object; headers: Record<string, string> }>): Promise<Consumed[]> {
    await settled();
    const topic = `${prefix}.projections.${readModel}`;
    const messages = await readTopicUntil(brokers, topic, (m) => [...expected].every(([k, e]) => newest(m).get(k)?.value === JSON.stringify(e.value)));
    const last = newest(messages);
    const valid = schemaCheck(`projection-${readModel}.schema.json`);
    for (const m of messages) if (m.value !== null) valid(JSON.parse(m.value));
    for (const [k, e] of expected) {
      expect(JSON.parse(last.get(k)!.value!)).toEqual(e.value);
      expect(last.get(k)!.headers).toEqual({ ...e.headers, read_model: readModel, position: expect.stringMatching(/^\d+$/), event_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    }
    for (const [, list] of byKey(messages)) {
      const p = list.map((m) => BigInt(m.headers.position));
      expect(p).toEqual([...p].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    expect((await topicConfig(brokers, topic)).config['cleanup.policy']).toBe('compact');
    const { topic: onTopic, rows } = await topicAndReadModel(t.app, brokers, prefix, readModel);
    expect(rows.size).toBeGreaterThan(0);
    expect(onTopic).toEqual(rows);
    return messages;
  }

  it('publishes agentic memory requests: the status the requester polls, without the question and the response', async () => {
    const publisher = await memory.person();
    const asker = await memory.person(undefined, 'Questions');
    const collection = await memory.createCollection(publisher);
    const question = 'Is the EU settlement window still at noon?';
    const answer = 'Yes, noon UTC since the March change.';
    const filed: string[] = [];
    for (const q of [question, 'Which rail failed last week?']) {
      const receipt = await call('POST', `${M}/collections/${collection.collection_uuid}/requests`, asker.headers, { request_type: 'QUERY', question: q });
      expect(receipt.status).toBe(202);
      filed.push(receipt.json.response.request_uuid);
    }
    await settled();
    expect((await call('POST', `${M}/requests/${filed[0]}/resolve`, publisher.headers, { state: 'ANSWERED', response: answer })).status).toBe(200);
    await settled();

    const expected = new Map<string, { value: object; headers: Record<string, string> }>();
    for (const id of filed) {
      const status = (await call('GET', `${M}/requests/${id}`, asker.headers)).json.response;
      expected.set(id, {
        value: without(status, 'question', 'response'),
        headers: { collection_uuid: collection.collection_uuid, requester_type: 'profile', requester_reference: asker.profile_uuid },
      });
    }
    expect((expected.get(filed[0])!.value as { state: string }).state).toBe('ANSWERED');
    const messages = await expectTopic('agentic-memory-requests', expected);
    // Accepted, then answered; the words people wrote are on no message.
    expect(byKey(messages).get(filed[0])!.map((m) => JSON.parse(m.value!).state)).toEqual(['OPEN', 'ANSWERED']);
    const text = messages.map((m) => m.value).join('\n');
    for (const words of [question, answer]) expect(text).not.toContain(words);
  });

  it('publishes AI-wallet intents: the AiWalletIntent record, following approval', async () => {
    const { binding, agent } = await wallets.newBinding(policy());
    const b = binding.binding_uuid;
    const small = await wallets.call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': `small-${b}` }, intentBody('0.05'));
    expect(small.status).toBe(201);
    const big = await wallets.call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': `big-${b}` }, intentBody('0.5'));
    expect(big.status).toBe(201);
    const approval = (await wallets.call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals`, setup.owner)).json.items[0];
    expect((await wallets.call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, setup.owner, {})).status).toBe(200);
    await settled();

    const intents = (await wallets.call('GET', `/api/v1/ai-wallets/bindings/${b}/intents`, setup.owner)).json.items as Array<Record<string, string>>;
    expect(intents).toHaveLength(2);
    const expected = new Map(intents.map((i) => [i.intent_uuid, { value: i, headers: { workspace_uuid: setup.workspace, binding_uuid: b } }]));
    for (const i of intents) expect((await wallets.call('GET', `/api/v1/ai-wallets/intents/${i.intent_uuid}`, setup.owner)).json).toEqual(i);
    const messages = await expectTopic('ai-wallet-intents', expected);
    const approved = intents.find((i) => i.intent_uuid === approval.intent_uuid)!;
    expect(approved.state).toBe('APPROVED');
    expect(byKey(messages).get(approved.intent_uuid)!.map((m) => JSON.parse(m.value!).state)).toEqual(['PENDING_APPROVAL', 'APPROVED']);
  });

  it('publishes arena seasons with their leaderboard, again whenever a standing changes; no disqualification reason', async () => {
    const founder = await registerTrader(t);
    const tenant = (await call('POST', '/api/v1/tenants', founder, { name: 'Topic League' })).json.tenant_uuid;
    await openTenant(t, founder, tenant);
    const member = async () => {
      const p = await memory.person(tenant, 'Desk');
      return p;
    };
    const admin = await member();
    expect((await call('POST', `/api/v1/tenants/${tenant}/authorities`, founder, { profile_uuid: admin.profile_uuid, role_code: 'TENANT_ADMIN', reason: 'Runs the trading league' })).status).toBe(201);
    const [a, b, c] = [await member(), await member(), await member()];
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000).toISOString();
    const starts = at(10);
    const season = (await call('POST', `${ARENA}/seasons`, admin.headers, { name: 'Topic sprint', starts_at: starts, ends_at: at(60), markets: ['BTC-PERP'] })).json.data;
    for (const p of [a, b, c]) expect((await call('POST', `${ARENA}/seasons/${season.season_uuid}/participants`, admin.headers, { profile_uuid: p.profile_uuid })).status).toBe(200);
    expect((await call('POST', `${ARENA}/seasons/${season.season_uuid}/schedule`, admin.headers, { expected_version: 3 })).json.data.status).toBe('SCHEDULED');
    now = new Date(starts);
    expect(await t.app.get(ArenaClock).run()).toBe(1);
    await settled();

    const order = (who: Headers, direction: 'BUY' | 'SELL', limit_price: string) =>
      call('POST', `${MTF}/orders`, who, { direction, market: 'BTC-PERP', order_size: '0.010', limit_price, external_ref: 'dG9waWM' });
    const cross = async (buyer: Headers, seller: Headers, price: string) => {
      expect((await order(buyer, 'BUY', price)).status).toBe(201);
      const sell = await order(seller, 'SELL', price);
      expect(sell.status).toBe(201);
      await until(async () => (await call('GET', `${MTF}/order_meta?order_uuid=${sell.json.response.order_uuid}`, seller)).json?.response?.order?.status, (s) => s === 'FILLED', 10_000);
      await settled();
    };
    await cross(a.headers, b.headers, '50000');
    await cross(b.headers, a.headers, '51000');
    const reason = 'Wash trading with a partner, says the desk';
    expect((await call('POST', `${ARENA}/seasons/${season.season_uuid}/participants/${c.profile_uuid}/disqualify`, admin.headers, { reason })).status).toBe(200);
    await settled();

    const shown = (await call('GET', `${ARENA}/seasons/${season.season_uuid}`, admin.headers)).json.data;
    expect(shown.leaderboard.map((s: any) => [s.rank, s.profile_uuid, s.realized_pnl, s.trades])).toEqual([
      [1, a.profile_uuid, '10', 2],
      [2, b.profile_uuid, '-10', 2],
      [null, c.profile_uuid, '0', 0],
    ]);
    const value = { ...shown, leaderboard: shown.leaderboard.map((s: Record<string, unknown>) => without(s, 'disqualification_reason')) };
    const messages = await expectTopic('arena-seasons', new Map([[season.season_uuid, { value, headers: { tenant_uuid: tenant } }]]));
    // Each trade moved the board (both its sides in one change): a value per change, A's and B's trades counted 1/1, then 2/2.
    const tradesOf = (board: Array<{ profile_uuid: string; trades: number }>, p: { profile_uuid: string }) => board.find((s) => s.profile_uuid === p.profile_uuid)?.trades;
    const counted = byKey(messages).get(season.season_uuid)!.map((m) => JSON.parse(m.value!).leaderboard).map((board) => `${tradesOf(board, a)}/${tradesOf(board, b)}`);
    expect(counted.filter((x, i) => x !== counted[i - 1])).toEqual(['undefined/undefined', '0/undefined', '0/0', '1/1', '2/2']);
    expect(messages.map((m) => m.value).join('\n')).not.toContain(reason);
    // The tenant pays for its members' orders: the four of the two trades.
    accounts.push({ headers: admin.headers, usage: 4 });
  });

  it('publishes billing accounts: the BillingAccount with its usage of the period, without the rater\'s pending count', async () => {
    const alice = await registerTrader(t);
    for (const price of ['1000.5', '999']) {
      const placed = await t.app.inject({ method: 'POST', url: `${MTF}/orders`, headers: alice, payload: { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: price, external_ref: 'cmVmLTE=' } });
      expect(placed.statusCode).toBe(201);
    }
    const account = async (headers: Headers) => (await call('GET', '/api/v1/billing/account', headers)).json;
    await until(() => account(alice), (a) => a.usage_events === 2 && a.pending_usage_events === 0, 15_000, 'usage rated');
    // A CREDIT adjustment by a platform admin: a grant on the account; its reason (personal) stays off the topic.
    const admin = await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined');
    const profile = (await call('GET', '/api/v1/identity/contact', alice)).json.profile_uuid;
    const reason = 'Welcome credit for the topic test';
    expect((await call('POST', '/api/v1/billing/adjustments', admin, { tenant_uuid: GLOBAL, profile_uuid: profile, direction: 'CREDIT', credits: '2', reason })).status).toBe(201);
    accounts.push({ headers: alice, usage: 2 });
    await settled();

    const expected = new Map<string, { value: object; headers: Record<string, string> }>();
    for (const who of accounts) {
      const shown = await until(() => account(who.headers), (a) => a.usage_events === who.usage && a.pending_usage_events === 0, 15_000, 'usage rated');
      expected.set(shown.account_id, { value: without(shown, 'pending_usage_events'), headers: { tenant_uuid: shown.tenant_uuid, account_key: shown.account_key } });
    }
    const mine = [...expected.values()].map((e) => e.value as Record<string, any>).find((a) => a.profile_uuid === profile)!;
    expect(mine).toMatchObject({ tenant_uuid: GLOBAL, rated_usage_credits: '0.2', usage_events: 2, credit_pools: { adjustments: { remaining_credits: '2' } } });
    expect([...expected.values()].filter((e) => (e.value as Record<string, unknown>).profile_uuid === null)).toHaveLength(1);
    const messages = await expectTopic('billing-accounts', expected);
    // Usage rated in order: the consumed credits per account only grow within the period.
    const used = byKey(messages).get(mine.account_id as string)!.map((m) => JSON.parse(m.value!).rated_usage_credits as string);
    expect(used[used.length - 1]).toBe('0.2');
    expect(messages.map((m) => m.value).join('\n')).not.toContain(reason);
  });

  it('publishes billing usage by source: per account, period and source type (product), as GET /billing/usage by_source shows it', async () => {
    // A person who consumes two products: two orders of their own, and a memory request.
    const publisher = await memory.person();
    const p = await memory.person(undefined, 'Products');
    const collection = await memory.createCollection(publisher);
    for (const price of ['1000', '999']) {
      expect((await call('POST', `${MTF}/orders`, p.headers, { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: price, external_ref: 'cHJvZHVjdA' })).status).toBe(201);
    }
    expect((await call('POST', `${M}/collections/${collection.collection_uuid}/requests`, p.headers, { request_type: 'QUERY', question: 'What did the desk trade today?' })).status).toBe(202);
    await settled();

    const account = async (headers: Headers) => (await call('GET', '/api/v1/billing/account', headers)).json;
    const expected = new Map<string, { value: object; headers: Record<string, string> }>();
    const bySource = new Map<Headers, unknown[]>();
    for (const who of [...accounts.map((a) => a.headers), p.headers]) {
      const shown = await until(() => account(who), (a) => a.usage_events > 0 && a.pending_usage_events === 0, 15_000, 'usage rated');
      const usage = (await call('GET', '/api/v1/billing/usage', who)).json;
      expect(usage.by_source.map((s: { source_type: string }) => s.source_type)).toEqual([...usage.by_source.map((s: { source_type: string }) => s.source_type)].sort());
      bySource.set(who, usage.by_source);
      for (const s of usage.by_source as Array<{ source_type: string; credits: string; usage_events: number }>) {
        expected.set(`${shown.account_key}:${usage.period.started_at}:${s.source_type}`, {
          value: { account_key: shown.account_key, tenant_uuid: shown.tenant_uuid, period_started_at: usage.period.started_at, source_type: s.source_type, credits: s.credits, usage_events: s.usage_events },
          headers: { tenant_uuid: shown.tenant_uuid, account_key: shown.account_key },
        });
      }
    }
    expect(bySource.get(p.headers)).toEqual([
      { source_type: 'AgenticMemoryRequestAccepted', credits: '0.5', usage_events: 1 },
      { source_type: 'OrderAccepted', credits: '0.2', usage_events: 2 },
    ]);
    expect(expected.size).toBeGreaterThanOrEqual(accounts.length + 2);
    await expectTopic('billing-usage', expected);
  });
});
