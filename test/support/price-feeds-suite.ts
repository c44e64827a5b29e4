/**
 * Composite price feeds over HTTP on a running app, on SQLite read models (test/e2e/price-feeds.spec.ts) and on
 * PostgreSQL (test/integration/price-feeds-postgres.spec.ts): providers with push keys, the seeds'
 * CompositePriceFeedSource and CompositePriceFeedReceipt, quotes pushed and applied, the weighted median with an
 * outlier excluded, a future quote refused, staleness by the provider's publish time, and each value an event.
 */
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
      t = await startTestApp({ ...env(), ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password }, { clock: () => now });
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
  });
}
