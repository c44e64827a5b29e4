/**
 * The trades and positions topics against a real Kafka broker, on SQLite and PostgreSQL read models: real orders
 * trade, then `<prefix>.projections.trading-trades` holds each trade once (party-neutral: both orders, the parties
 * in the headers; the fill each party sees through trade_meta agrees with it) and `trading-positions` holds each
 * account's position per market as GET /api/v1/trading/positions shows it, without the market's symbol, and
 * `trading-markets` each market as GET …/mtf/markets lists it (the trades' market_uuid joins there for the symbol).
 * A consumer reading any of these topics from its beginning ends with exactly the read model's rows.
 */
import { startTestApp, type TestApp } from '../support/app';
import { suiteSchema } from '../support/databases';
import { registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';
import { byKey, readTopic, schemaCheck, testBrokers, topicAndReadModel, topicConfig, topicPrefix, settledOnKafka } from './kafka-support';

let brokers: string[] = [];
beforeAll(() => {
  brokers = testBrokers();
});

describe.each(['sqlite', 'postgres'] as const)('Kafka trading topics on %s read models (real broker)', (kind) => {
  let t: TestApp;
  let prefix: string;
  let schema: ReturnType<typeof suiteSchema> | undefined;
  let maker: Headers;
  let taker: Headers;
  const ids: Record<string, string> = {};

  const get = (h: Headers, url: string) => t.app.inject({ method: 'GET', url, headers: h });
  const place = async (h: Headers, body: Record<string, unknown>): Promise<string> => {
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: h, payload: { market: 'ETH-PERP', external_ref: 'a2Fma2E=', ...body } });
    expect(r.statusCode).toBe(201);
    return r.json().response.order_uuid;
  };
  const status = async (h: Headers, id: string) => (await get(h, `/api/v1/api/v1/mtf/order_meta?order_uuid=${id}`)).json().response.order.status as string;

  beforeAll(async () => {
    prefix = topicPrefix();
    schema = kind === 'postgres' ? suiteSchema() : undefined;
    t = await startTestApp({
      // One thread: the suite waits on this thread's relay object (docs/operations.md 10.4).
      WORKER_THREADS: '0',
      KAFKA_BROKERS: brokers.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_OUTBOX_POLL_MS: '20',
      ADMIN_EMAIL: TEST_ADMIN.email,
      ADMIN_PASSWORD: TEST_ADMIN.password,
      ...(schema?.env() ?? {}),
    });
    [maker, taker] = [await registerTrader(t), await registerTrader(t)];
    ids.ask1 = await place(maker, { direction: 'SELL', order_size: '1', limit_price: '3000' });
    ids.ask2 = await place(maker, { direction: 'SELL', order_size: '2', limit_price: '3005.5' });
    await until(() => status(maker, ids.ask2), (s) => s === 'OPEN', 10_000);
    ids.take = await place(taker, { direction: 'BUY', order_size: '1.5', limit_price: null });
    await until(() => status(taker, ids.take), (s) => s === 'FILLED', 10_000);
    // The taker sells half back into a bid of the maker's: the taker's position shrinks, realizing PnL.
    ids.bid = await place(maker, { direction: 'BUY', order_size: '0.5', limit_price: '2990' });
    await until(() => status(maker, ids.bid), (s) => s === 'OPEN', 10_000);
    ids.sell = await place(taker, { direction: 'SELL', order_size: '0.5', limit_price: null });
    await until(() => status(taker, ids.sell), (s) => s === 'FILLED', 10_000);
    await settledOnKafka(t.app);
  });

  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  it('publishes each trade once, party-neutral, agreeing with the fill each party sees', async () => {
    const messages = await readTopic(brokers, `${prefix}.projections.trading-trades`);
    const valid = schemaCheck('projection-trading-trades.schema.json');
    for (const m of messages) valid(JSON.parse(m.value!));
    const trades = [...byKey(messages)].map(([key, list]) => {
      expect(list.map((m) => m.value)).toEqual(list.map(() => list[0].value)); // never changed
      return { key, value: JSON.parse(list[0].value!) as Record<string, string>, headers: list[0].headers };
    });
    expect(trades).toHaveLength(3); // 1 + 0.5 against the two asks, then 0.5 against the bid
    const marketUuid = trades[0].value.market_uuid;
    for (const trade of trades) {
      expect(trade.key).toBe(trade.value.trade_uuid);
      expect(trade.value.market_uuid).toBe(marketUuid);
      expect(trade.headers).toMatchObject({ read_model: 'trading-trades', position: trade.value.position, event_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      const takerIsTaker = trade.value.taker_order_uuid === ids.take || trade.value.taker_order_uuid === ids.sell;
      expect(takerIsTaker).toBe(true);
      // What each party sees of the trade (trade_meta) is this record from its side.
      const takerView = (await get(taker, `/api/v1/api/v1/mtf/trade_meta?trade_uuid=${trade.key}`)).json().response;
      const makerView = (await get(maker, `/api/v1/api/v1/mtf/trade_meta?trade_uuid=${trade.key}`)).json().response;
      expect(takerView).toMatchObject({ role: 'TAKER', side: trade.value.taker_side, order_uuid: trade.value.taker_order_uuid, price: trade.value.price, size: trade.value.size, executed_at: trade.value.executed_at });
      expect(makerView).toMatchObject({ role: 'MAKER', order_uuid: trade.value.maker_order_uuid, price: trade.value.price });
      expect(trade.headers.taker_profile_uuid).not.toBe(trade.headers.maker_profile_uuid);
    }
    expect(trades.map((x) => `${x.value.taker_side} ${x.value.size} @ ${x.value.price}`).sort()).toEqual([
      'BUY 0.500000000000000000 @ 3005.500000000000000000',
      'BUY 1.000000000000000000 @ 3000.000000000000000000',
      'SELL 0.500000000000000000 @ 2990.000000000000000000',
    ]);
    expect((await topicConfig(brokers, `${prefix}.projections.trading-trades`)).config['cleanup.policy']).toBe('compact');
  });

  it('publishes positions: the newest value per account and market is what GET positions shows, less the symbol', async () => {
    const messages = await readTopic(brokers, `${prefix}.projections.trading-positions`);
    const valid = schemaCheck('projection-trading-positions.schema.json');
    for (const m of messages) valid(JSON.parse(m.value!));
    const newest = new Map([...byKey(messages)].map(([k, list]) => [k, list[list.length - 1]]));
    expect(newest.size).toBe(2);
    for (const h of [maker, taker]) {
      const [position] = (await get(h, '/api/v1/trading/positions')).json().items as Array<Record<string, unknown>>;
      const profile = [...newest.values()].find((m) => (JSON.parse(m.value!) as { signed_quantity: string }).signed_quantity === position.signed_quantity)!.headers.profile_uuid;
      const message = newest.get(`${profile}:${position.market_uuid as string}`)!;
      const { market, ...rest } = position;
      expect(market).toBe('ETH-PERP');
      expect(message.value).toBe(JSON.stringify(rest));
      expect(message.headers).toMatchObject({ read_model: 'trading-positions', profile_uuid: profile });
    }
    // Per key in log order: the taker's position went 1, 1.5 long, then 1 long after selling half back.
    const takerKey = [...newest].find(([, m]) => (JSON.parse(m.value!) as { side: string }).side === 'LONG')![0];
    expect(byKey(messages).get(takerKey)!.map((m) => (JSON.parse(m.value!) as { signed_quantity: string }).signed_quantity)).toEqual([
      '1.000000000000000000',
      '1.500000000000000000',
      '1.000000000000000000',
    ]);
  });

  it('publishes markets: the newest value per market is its entry in GET markets, and the trades join it for the symbol', async () => {
    const messages = await readTopic(brokers, `${prefix}.projections.trading-markets`);
    const valid = schemaCheck('projection-trading-markets.schema.json');
    for (const m of messages) valid(JSON.parse(m.value!));
    const newest = new Map([...byKey(messages)].map(([k, list]) => [k, list[list.length - 1]]));
    const listed = (await get(maker, '/api/v1/api/v1/mtf/markets')).json().response as Record<string, Record<string, unknown>>;
    expect(Object.keys(listed)).toEqual(expect.arrayContaining(['BTC-PERP', 'ETH-PERP']));
    expect(newest.size).toBe(Object.keys(listed).length);
    for (const [symbol, market] of Object.entries(listed)) {
      const message = newest.get(market.market_uuid as string)!;
      expect(message).toBeDefined();
      expect(JSON.parse(message.value!)).toEqual(market);
      expect(market.market_symbol).toBe(symbol);
      expect(message.headers).toMatchObject({ read_model: 'trading-markets', position: expect.stringMatching(/^[0-9]+$/), event_id: expect.any(String) });
    }
    // The trades (all in ETH-PERP) name their market by market_uuid: it is ETH-PERP's key here.
    const trades = (await readTopic(brokers, `${prefix}.projections.trading-trades`)).map((m) => JSON.parse(m.value!) as { market_uuid: string });
    expect(new Set(trades.map((x) => (JSON.parse(newest.get(x.market_uuid)!.value!) as { market_symbol: string }).market_symbol))).toEqual(new Set(['ETH-PERP']));
    expect((await topicConfig(brokers, `${prefix}.projections.trading-markets`)).config['cleanup.policy']).toBe('compact');
  });

  it('a consumer rebuilding from any of the topics ends with exactly the read model', async () => {
    for (const readModel of ['trading-trades', 'trading-positions', 'trading-markets']) {
      const { topic, rows } = await topicAndReadModel(t.app, brokers, prefix, readModel);
      expect(rows.size).toBeGreaterThan(0);
      expect(topic).toEqual(rows);
    }
  });
});
