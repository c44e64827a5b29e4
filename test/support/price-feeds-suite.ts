/**
 * Composite price feeds over HTTP on a running app, on SQLite read models (test/e2e/price-feeds.spec.ts) and on
 * PostgreSQL (test/integration/price-feeds-postgres.spec.ts): providers with push keys, the seeds'
 * CompositePriceFeedSource and CompositePriceFeedReceipt, quotes pushed and applied, the weighted median with an
 * outlier excluded, a future quote refused, staleness by the provider's publish time, and each value an event; a
 * market bound to a feed: index and mark on the market and its order book, a stop on the mark that a last-price spike
 * does not trigger while one on the last price does, the index moving the mark stop, STALE holding it, and the engine
 * stream alone rebuilding the live engine (what a restart does).
 */
import type { EngineEvent } from '../../src/modules/trading/domain/engine-events';
import { engineStream } from '../../src/modules/trading/domain/engine-events';
import { MatchingEngineHost } from '../../src/modules/trading/engine-host';
import { MarketEngine } from '../../src/modules/trading/engine/market-engine';
import { PriceFeedStalenessSweep } from '../../src/modules/trading/price-feed-staleness';
import { feedStream } from '../../src/modules/trading/domain/price-feed';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import { startTestApp, type TestApp } from './app';
import { adminHeaders, registerTrader, TEST_ADMIN, until, type Headers } from './traders';

const FEEDS = '/api/v1/trading/price-feeds';

interface Reply {
  status: number;
  json: any;
}

export function priceFeedsSuite(name: string, env: () => Record<string, string>, cleanup: () => Promise<void> = async () => undefined): void {
  describe(name, () => {
    let now = new Date('2026-11-25T10:00:00.000Z');
    let t: TestApp;
    let admin: Headers;
    let person: Headers;

    async function call(method: 'GET' | 'POST', url: string, headers: Headers, payload?: unknown): Promise<Reply> {
      const r = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: r.statusCode, json: r.body ? r.json() : undefined };
    }
    const provider = async (label: string) => {
      const r = await call('POST', `${FEEDS}/providers`, admin, { name: label });
      expect(r.status).toBe(201);
      return r.json as { provider_uuid: string; push_key: string };
    };
    const push = (p: { provider_uuid: string; push_key: string }, quotes: Array<{ provider_symbol?: string; price: string; published_at?: string }>) =>
      call('POST', `${FEEDS}/providers/${p.provider_uuid}/quotes`, { 'x-provider-key': p.push_key }, { quotes: quotes.map((q) => ({ provider_symbol: 'BTCUSD', published_at: now.toISOString(), ...q })) });

    beforeAll(async () => {
      // The staleness sweep runs when the test says (it would otherwise recompute feeds between two steps).
      t = await startTestApp({ ...env(), ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, PRICE_FEED_STALENESS_SWEEP_MS: '3600000' }, { clock: () => now });
      admin = await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined');
      person = await registerTrader(t);
    });
    afterAll(async () => {
      await t?.close();
      await cleanup();
    });

    it('admins register providers and create feeds: the seeds\' CompositePriceFeedSource and CompositePriceFeedReceipt', async () => {
      expect((await call('POST', `${FEEDS}/providers`, person, { name: 'X' })).status).toBe(403);
      const [a, b] = [await provider('Venue A'), await provider('Venue B')];
      expect(a.push_key).toMatch(/^hcpk_[A-Za-z0-9_-]{43}$/);
      const body = { name: 'BTC index', instrument: 'BTC-USD', sources: [{ provider_uuid: a.provider_uuid, provider_symbol: 'BTCUSD' }, { provider_uuid: b.provider_uuid, provider_symbol: 'XBT/USD', weight: 2.5 }] };
      expect((await call('POST', FEEDS, person, body)).status).toBe(403);
      const created = await call('POST', FEEDS, admin, body);
      expect(created.status).toBe(201);
      expect(created.json).toEqual({ feed_id: expect.stringMatching(/^[0-9a-f]{32}$/), name: 'BTC index', instrument: 'BTC-USD', mode: 'WEIGHTED_MEDIAN', source_count: 2 });
      const [event] = await t.app.get<EventStore>(EVENT_STORE).readStream(feedStream(created.json.feed_id));
      expect((event.data.feed as any).sources.map((s: any) => s.weight)).toEqual(['1', '2.5']);
      const refuse = async (over: Record<string, unknown>) => (await call('POST', FEEDS, admin, { ...body, ...over })).json.error;
      expect((await refuse({ sources: [body.sources[0], body.sources[0]] })).details).toEqual([{ field: 'sources[1]', issue: 'repeated provider and symbol' }]);
      expect((await refuse({ sources: [{ ...body.sources[0], weight: 1001 }] })).details[0].field).toBe('sources[0].weight');
      expect((await refuse({ sources: [{ ...body.sources[0], extra: 1 }] })).details[0].field).toMatch(/extra/);
      expect((await refuse({ sources: [{ provider_uuid: 'f'.repeat(32), provider_symbol: 'X' }] })).code).toBe('NOT_FOUND');
      expect((await refuse({ min_sources: 3 })).details).toEqual([{ field: 'min_sources', issue: 'at most 2' }]);
      expect((await refuse({ sources: [] })).code).toBe('VALIDATION_FAILED');
      // The push key's hash is a secret: sealed in the log under the provider's own key.
      const raw = await t.app.get<EventStore>(RAW_EVENT_STORE).readStream(`mtf-price-provider-${a.provider_uuid}`);
      expect(JSON.stringify(raw[0].data)).toContain('$sealed');
    });

    it('quotes: the weighted median, an outlier excluded and reported, a future quote refused, STALE by publish time, each value an event', async () => {
      const ps = [await provider('P1'), await provider('P2'), await provider('P3'), await provider('P4')];
      const feed = (await call('POST', FEEDS, admin, {
        name: 'ETH index', instrument: 'ETH-USD', min_sources: 2, max_staleness_ms: 5000, max_deviation: '0.05',
        sources: ps.map((p, i) => ({ provider_uuid: p.provider_uuid, provider_symbol: 'BTCUSD', weight: i === 3 ? 2 : 1 })),
      })).json.feed_id;
      expect((await call('POST', `${FEEDS}/providers/${ps[0].provider_uuid}/quotes`, { 'x-provider-key': ps[1].push_key }, { quotes: [{ provider_symbol: 'BTCUSD', price: '1', published_at: now.toISOString() }] })).status).toBe(401);
      expect((await call('POST', `${FEEDS}/providers/${ps[0].provider_uuid}/quotes`, {}, { quotes: [{ provider_symbol: 'BTCUSD', price: '1', published_at: now.toISOString() }] })).status).toBe(401);
      expect((await push(ps[0], [{ price: '3000' }])).json).toEqual({ accepted: 1, values_computed: 1, refused: [] });
      expect((await call('GET', `${FEEDS}/${feed}`, person)).json).toMatchObject({ status: 'STALE', value: null });
      await push(ps[1], [{ price: '3010' }]);
      await push(ps[3], [{ price: '3015' }]);
      const manipulated = await push(ps[2], [{ price: '3500' }, { price: '3001', published_at: new Date(now.getTime() + 60_000).toISOString() }]);
      expect(manipulated.json).toEqual({ accepted: 1, values_computed: 1, refused: [{ index: 1, reason: 'FUTURE' }] });
      const view = (await call('GET', `${FEEDS}/${feed}`, person)).json;
      // 3000 (1), 3010 (1), 3015 (2): half of 4 reached at 3010 → (3010 + 3015) / 2.
      expect(view).toMatchObject({ status: 'LIVE', value: '3012.5', excluded: [{ provider_uuid: ps[2].provider_uuid, reason: 'OUTLIER' }] });
      expect(view.used.map((u: any) => u.price)).toEqual(['3000', '3010', '3015']);
      const events = await t.app.get<EventStore>(EVENT_STORE).readStream(feedStream(feed));
      expect(events.map((e) => e.type)).toEqual(['PriceFeedCreated', ...Array(4).fill('PriceFeedValueComputed')]);
      expect(events[4].data).toMatchObject({ quote: { price: '3500' }, value: '3012.5', excluded: [{ reason: 'OUTLIER' }] });
      // Later: the providers went quiet; by their publish time the quotes are stale now.
      now = new Date(now.getTime() + 6_000);
      expect((await call('GET', `${FEEDS}/${feed}`, person)).json).toMatchObject({ status: 'STALE', value: null, used: [] });
      const list = (await call('GET', `${FEEDS}?limit=1`, person)).json;
      expect([list.items.length, list.items[0].feed_id, typeof list.next_cursor]).toEqual([1, feed, 'string']);
      now = new Date('2026-11-25T10:00:00.000Z');
    });

    it('a market bound to a feed: index and mark shown, a stop on the mark not triggered by a last-price spike (one on the last price is), then by the index; STALE holds; the stream rebuilds the engine', async () => {
      now = new Date('2026-11-25T11:00:00.000Z');
      const MTF = '/api/v1/api/v1/mtf';
      const ORDERS = '/api/v1/trading/orders';
      const [mm, eve, alice, bob] = [await registerTrader(t), await registerTrader(t), await registerTrader(t), await registerTrader(t)];
      const created = await call('POST', `${MTF}/markets`, admin, {
        market_symbol: 'MARK-PERP', instrument_isin: 'XF0000MRK001', contract_size: '1', mininum_quantity: '1', minimum_execution_quantity: '1', tick_size: '0.5',
        operating_mic: 'XMTF', segment_mic: 'XMTS', price_currency: 'USD', quote_currency: 'USD', base_currency: 'MRK',
      });
      expect(created.status).toBe(201);
      const market = created.json.response['MARK-PERP'];
      expect(Object.keys(market).filter((k) => /price_feed|index_price|mark_|stop_trigger/.test(k))).toEqual([]); // no feed: the record as it was
      const p = await provider('MRK venue');
      const feed_id = (await call('POST', FEEDS, admin, { name: 'MRK index', instrument: 'MRK-USD', min_sources: 1, max_staleness_ms: 5000, sources: [{ provider_uuid: p.provider_uuid, provider_symbol: 'MRKUSD' }] })).json.feed_id;
      const base = { venue: 'MTF', market: 'MARK-PERP', time_in_force: 'GTC', external_reference: 'bWFyaw==', leverage: 1, reduce_only: false, combos: [], quantity: '1' };
      const stopSell = { ...base, side: 'SELL', order_type: 'STOP', trigger_price: '95' };

      // No feed yet: a stop on the mark is refused, naming the field.
      const early = await call('POST', ORDERS, alice, { ...stopSell, trigger_source: 'MARK_PRICE' });
      expect([early.status, early.json.error.details]).toEqual([422, [{ field: 'trigger_source', issue: expect.stringContaining('needs a price feed bound to the market') }]]);
      expect((await call('POST', ORDERS, alice, { ...base, side: 'BUY', order_type: 'LIMIT', limit_price: '90', trigger_source: 'LAST_PRICE' })).json.error.details).toEqual([{ field: 'trigger_source', issue: 'a LIMIT order has no trigger source' }]);
      expect((await call('POST', ORDERS, alice, { ...stopSell, trigger_source: 'MID' })).json.error.details[0].field).toBe('trigger_source');

      // Binding: platform admins, a known feed, the documented fields only.
      const bindUrl = `${MTF}/markets/${market.market_uuid}/price-feed`;
      expect((await call('POST', bindUrl, person, { feed_id })).status).toBe(403);
      expect((await call('POST', bindUrl, admin, { feed_id: 'f'.repeat(32) })).json.error).toMatchObject({ code: 'NOT_FOUND', details: [{ field: 'feed_id', issue: 'no such price feed' }] });
      expect((await call('POST', bindUrl, admin, { feed_id, colour: 'red' })).json.error.code).toBe('VALIDATION_FAILED');
      expect((await call('POST', bindUrl, admin, { feed_id, mark_basis_window_ms: 10 })).json.error.details[0].field).toBe('mark_basis_window_ms');
      const bound = await call('POST', bindUrl, admin, { feed_id, stop_trigger_source: 'MARK_PRICE', mark_basis_window_ms: 60_000 });
      expect(bound.status).toBe(200);
      expect(bound.json.response['MARK-PERP']).toMatchObject({ price_feed_id: feed_id, stop_trigger_source: 'MARK_PRICE', mark_basis_window_ms: 60_000, price_feed_status: 'STALE', index_price: null, mark_price: null });

      await push(p, [{ provider_symbol: 'MRKUSD', price: '100' }]);
      const listed = async () => (await call('GET', `${MTF}/markets`, person)).json.response['MARK-PERP'];
      expect(await until(listed, (m) => m.index_price !== null)).toMatchObject({ price_feed_status: 'LIVE', index_price: '100.000000000000000000', mark_price: '100.000000000000000000' });

      // A thin book (bids 99 and 90, ask 101); alice's stop takes the market's MARK_PRICE, bob's names LAST_PRICE.
      for (const [side, limit_price] of [['BUY', '99'], ['BUY', '90'], ['SELL', '101']]) expect((await call('POST', ORDERS, mm, { ...base, side, order_type: 'LIMIT', limit_price })).status).toBe(201);
      const onMark = (await call('POST', ORDERS, alice, stopSell)).json;
      const onLast = (await call('POST', ORDERS, bob, { ...stopSell, trigger_source: 'LAST_PRICE' })).json;
      expect([onMark.trigger_source, onLast.trigger_source]).toEqual([null, 'LAST_PRICE']);
      const state = async (h: Headers, id: string) => (await call('GET', `${ORDERS}/${id}`, h)).json;
      await until(() => state(alice, onMark.order_uuid), (o) => o.status === 'OPEN');
      await until(() => state(bob, onLast.order_uuid), (o) => o.status === 'OPEN');

      // eve sells 2 at market through the thin bids: trades at 99 and 90, the last price is 90.
      expect((await call('POST', ORDERS, eve, { ...base, side: 'SELL', order_type: 'MARKET', quantity: '2' })).status).toBe(201);
      expect(await until(() => state(bob, onLast.order_uuid), (o) => o.triggered_at !== null)).toMatchObject({ trigger_source: 'LAST_PRICE' });
      // mark = median(100, 100 + 0, median(ask 101, last 90) = 95.5) = 100: above 95, alice's stop holds.
      expect(await state(alice, onMark.order_uuid)).toMatchObject({ status: 'OPEN', triggered_at: null, trigger_source: null });
      const book = async () => (await call('GET', `${MTF}/orderbook?market=MARK-PERP`, person)).json.response;
      expect(await book()).toMatchObject({ index_price: '100.000000000000000000', mark_price: '100.000000000000000000', price_feed_status: 'LIVE' });

      // The index falls to 94 with no trade: mark = median(94, 94, median(98, 101, 90) = 98) = 94: alice's stop sells into 98.
      expect((await call('POST', ORDERS, mm, { ...base, side: 'BUY', order_type: 'LIMIT', limit_price: '98' })).status).toBe(201);
      now = new Date(now.getTime() + 1_000);
      await push(p, [{ provider_symbol: 'MRKUSD', price: '94' }]);
      const fired = await until(() => state(alice, onMark.order_uuid), (o) => o.status === 'FILLED');
      expect(fired.triggered_at).not.toBeNull();
      expect(fired.fills.map((f: any) => f.price)).toEqual(['98.000000000000000000']);
      expect(await until(book, (b) => b.index_price === '94.000000000000000000')).toMatchObject({ mark_price: '94.000000000000000000', price_feed_status: 'LIVE' });

      // The provider falls silent: past max_staleness_ms the sweep recomputes the feed STALE, and the market says so.
      now = new Date(now.getTime() + 10_000);
      expect(await t.app.get(PriceFeedStalenessSweep).reassess()).toBeGreaterThanOrEqual(1); // this feed (and the earlier test's)
      const [lastValue] = await t.app.get<EventStore>(EVENT_STORE).readStream(feedStream(feed_id), { direction: 'backwards', maxCount: 1 });
      expect(lastValue.data).toMatchObject({ quote: null, status: 'STALE', value: null, received_at: now.toISOString() });
      expect(await t.app.get(PriceFeedStalenessSweep).reassess()).toBe(0);
      expect(await until(listed, (m) => m.price_feed_status === 'STALE')).toMatchObject({ index_price: null, mark_price: null });
      // Stale: a stop on the index placed now holds even though the last price (98) is below its trigger.
      const held = (await call('POST', ORDERS, bob, { ...stopSell, trigger_price: '99', trigger_source: 'INDEX_PRICE' })).json;
      const onLastNow = (await call('POST', ORDERS, bob, { ...stopSell, trigger_price: '99', trigger_source: 'LAST_PRICE' })).json;
      await until(() => state(bob, onLastNow.order_uuid), (o) => o.triggered_at !== null);
      expect(await state(bob, held.order_uuid)).toMatchObject({ status: 'OPEN', triggered_at: null });

      // What a restart does: the engine stream alone rebuilds the engine, feed, index, mark and armed stops included.
      const live = t.app.get(MatchingEngineHost).engine(market.market_uuid)!;
      const stream = await t.app.get<EventStore>(EVENT_STORE).readStream(engineStream(market.market_uuid));
      const rebuilt = new MarketEngine({ market_uuid: market.market_uuid, market_id: market.market_id });
      for (const e of stream) rebuilt.evolve({ type: e.type, data: e.data } as unknown as EngineEvent);
      expect(rebuilt.snapshot()).toEqual(live.snapshot());
      expect(rebuilt.holds(held.order_uuid)).toBe(true);
      const triggers = stream.filter((e) => e.type === 'StopOrderTriggered').map((e) => [e.data.order_uuid, e.data.trigger_source, e.data.reference_price]);
      expect(triggers).toEqual([
        [onLast.order_uuid, 'LAST_PRICE', '90.000000000000000000'],
        [onMark.order_uuid, 'MARK_PRICE', '94.000000000000000000'],
        [onLastNow.order_uuid, 'LAST_PRICE', '98.000000000000000000'],
      ]);
      now = new Date('2026-11-25T10:00:00.000Z');
    });
  });
}
