/**
 * The matching engine behind the MTF endpoints: NEW → OPEN → FILLED / CANCELLED as the order list shows it, the
 * seeds' cancellation entries (variants A and B, failures), races driven in parallel, and a restart that rebuilds
 * the same book.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { MatchingEngineHost } from '../../src/modules/trading/engine-host';
import { MarketEngine, type EngineSnapshot } from '../../src/modules/trading/engine/market-engine';
import { verifyStreamChain } from '../../src/platform/commitments/commitment';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import { engineSnapshotStream, engineStream } from '../../src/modules/trading/domain/engine-events';
import { startTestApp, type TestApp } from '../support/app';
import { hex32, newEvent } from '../support/events';
import { ledgerStream } from '../support/test-ledger/ledger.domain';
import { registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';

type Order = Record<string, unknown> & { order_uuid: string; status: string; trades: string[] };

const ENTRY_A = ['exec_time_ms', 'message', 'payload', 'success', 'update'];
const ENTRY_B = ['event_manager_id', 'event_manager_timestamp', 'exec_time_ms', 'message', 'payload', 'success'];
const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function client(t: TestApp) {
  const place = async (h: Headers, over: Record<string, unknown> = {}): Promise<Order> => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api/v1/mtf/orders',
      headers: h,
      payload: { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '50000', external_ref: 'ZW5naW5l', ...over },
    });
    if (r.statusCode !== 201) throw new Error(`placement failed: ${r.statusCode} ${r.body}`);
    return r.json().response;
  };
  const orders = async (h: Headers, query = '?limit=1000'): Promise<Order[]> => (await t.app.inject({ method: 'GET', url: `/api/v1/api/v1/mtf/orders${query}`, headers: h })).json().response;
  const order = async (h: Headers, id: string): Promise<Order> => (await orders(h)).find((o) => o.order_uuid === id)!;
  const settled = (h: Headers, id: string, status: string | string[]) => until(() => order(h, id), (o) => [status].flat().includes(o?.status));
  const cancel = (h: Headers, order_ids: unknown) => t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/cancel', headers: h, payload: { order_ids } });
  const cancelAll = (h: Headers, payload: unknown = { cancel_all: true }) => t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/cancel_all', headers: h, payload: payload as object });
  return { place, orders, order, settled, cancel, cancelAll };
}

/** Both ways the SQLite event store commits (SQLITE_WRITER_THREAD): the engine's flow must not tell them apart. */
const COMMIT_MODES = [
  ['commits in place', 'false'],
  ['commits on the writer thread', 'true'],
] as const;

describe.each(COMMIT_MODES)('MTF matching engine (%s)', (_mode, writerThread) => {
  let t: TestApp;
  let c: ReturnType<typeof client>;
  let alice: Headers;
  let bob: Headers;
  /** A fresh price band per test so resting orders of earlier tests never cross. */
  let band = 40000;
  const nextBand = () => (band += 1000);

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, SQLITE_WRITER_THREAD: writerThread });
    c = client(t);
    alice = await registerTrader(t);
    bob = await registerTrader(t);
  });
  afterAll(async () => t.close());

  it('takes a NEW order: OPEN with an engine id and order sequence, then FILLED by a crossing order with a shared trade id', async () => {
    const p = nextBand();
    const ask = await c.place(alice, { direction: 'SELL', limit_price: String(p) });
    expect(ask).toMatchObject({ status: 'NEW', engine_id: null, order_sequence: null });
    const open = await c.settled(alice, ask.order_uuid, 'OPEN');
    expect(open.engine_id).toMatch(/^GW-1-0-\d+$/);
    expect(open.order_sequence).toMatch(/^\d+_\d+$/);
    expect((open.order_sequence as string).split('_')[1]).toBe((open.engine_id as string).split('-')[3]);

    const bid = await c.place(bob, { direction: 'BUY', limit_price: String(p + 0.5) });
    const [filledAsk, filledBid] = [await c.settled(alice, ask.order_uuid, 'FILLED'), await c.settled(bob, bid.order_uuid, 'FILLED')];
    expect(filledAsk.trades).toHaveLength(1);
    expect(filledAsk.trades[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(filledBid.trades).toEqual(filledAsk.trades);
    expect(filledBid.cancel_reason).toBeNull();
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics.match(/^platform_matching_engine_up\{market_uuid="[0-9a-f]{32}",state="running"\} 1$/gm)).toHaveLength(3);
  });

  it('passes a commit with no engine input by without a step: the engine has decided up to it when the append returns', async () => {
    const market = (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: alice })).json().response['BTC-PERP'].market_uuid;
    const host = t.app.get(MatchingEngineHost);
    const store = t.app.get<EventStore>(EVENT_STORE);
    // The engine idle, waiting for the next commit.
    expect(await host.waitForEngine(market, await store.headPosition(), 5000)).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 50));

    // The tests' own ledger module's event: appended by no engine input, read by no engine.
    const ledger = hex32();
    const { position } = await store.append(ledgerStream(ledger), [newEvent('LedgerOpened', { ledger_id: ledger, owner: 'nobody' })], 'no_stream');
    // No wait at all (timeout 0): passed over as the commit settled (SubscribeOptions.passOver).
    expect((await host.waitForEngine(market, position, 0))?.input_position).toBe(position);
    // Inputs still reach it: a placement after that is decided.
    const bid = await c.place(alice, { limit_price: String(nextBand()) });
    expect((await c.settled(alice, bid.order_uuid, 'OPEN')).status).toBe('OPEN');
  });

  it('cancels a market order that finds no liquidity with 41_CancelReason_MarketOrderNoLiquidity', async () => {
    const m = await c.place(alice, { direction: 'BUY', market: 'SOL-PERP', order_size: '1', limit_price: null });
    const done = await c.settled(alice, m.order_uuid, 'CANCELLED');
    expect(done.cancel_reason).toBe('41_CancelReason_MarketOrderNoLiquidity');
    expect(done.trades).toEqual([]);
    expect(done.engine_id).toMatch(/^GW-3-0-\d+$/);
  });

  it('gives reasons for fill-or-kill, immediate-or-cancel and book-or-cancel outcomes', async () => {
    const p = nextBand();
    const ask = await c.place(bob, { direction: 'SELL', limit_price: String(p), order_size: '0.010' });
    await c.settled(bob, ask.order_uuid, 'OPEN');
    const fok = await c.place(alice, { limit_price: String(p), order_size: '0.020', fill_or_kill: 1 });
    const boc = await c.place(alice, { limit_price: String(p), order_size: '0.010', book_or_cancel: 1 });
    const ioc = await c.place(alice, { limit_price: String(p), order_size: '0.020', immediate_or_cancel: 1 });
    expect((await c.settled(alice, fok.order_uuid, 'CANCELLED')).cancel_reason).toBe('21_CancelReason_FillOrKillUnfillable');
    expect((await c.settled(alice, boc.order_uuid, 'CANCELLED')).cancel_reason).toBe('22_CancelReason_BookOrCancelWouldTrade');
    const iocDone = await c.settled(alice, ioc.order_uuid, 'CANCELLED');
    expect(iocDone.cancel_reason).toBe('20_CancelReason_ImmediateOrCancelRemainder');
    expect(iocDone.trades).toHaveLength(1);
  });

  it('prevents self-trades by cancelling the resting order', async () => {
    const p = nextBand();
    const mine = await c.place(alice, { direction: 'SELL', limit_price: String(p) });
    await c.settled(alice, mine.order_uuid, 'OPEN');
    const cross = await c.place(alice, { direction: 'BUY', limit_price: String(p) });
    expect((await c.settled(alice, mine.order_uuid, 'CANCELLED')).cancel_reason).toBe('30_CancelReason_SelfTradePrevention');
    expect((await c.settled(alice, cross.order_uuid, 'OPEN')).trades).toEqual([]);
    await c.cancel(alice, [cross.order_uuid]);
  });

  it('cancels an OPEN order with a variant A entry exactly as the seeds give it', async () => {
    const o = await c.place(alice, { limit_price: String(nextBand()) });
    const open = await c.settled(alice, o.order_uuid, 'OPEN');
    const r = await c.cancel(alice, [o.order_uuid]);
    expect(r.statusCode).toBe(200);
    expect(Object.keys(r.json())).toEqual(['response', 'success']);
    expect(r.json().success).toBe(true);
    const entry = r.json().response[o.order_uuid];
    expect(Object.keys(entry)).toEqual(ENTRY_A);
    const ids = { market_id: 1, matching_engine_client_id: Number((open.engine_id as string).split('-')[3]), pmx_id: open.engine_id };
    expect(entry).toEqual({
      exec_time_ms: expect.any(Number),
      message: 'The following update on model mtf.order has been completed',
      payload: { environment_tag: 'mtf_platform', model: 'mtf.order', operation: 'write', record: { cancellation_attempted: true, market_id: 1, matching_engine_client_id: ids.matching_engine_client_id, order_uuid: o.order_uuid, pmx_id: open.engine_id } },
      success: true,
      update: { cancellation_attempted: true, ...ids },
    });
    expect(Object.keys(entry.payload.record)).toEqual(['cancellation_attempted', 'market_id', 'matching_engine_client_id', 'order_uuid', 'pmx_id']);
    // The answer waited for the engine: the list already shows the cancellation.
    expect(await c.order(alice, o.order_uuid)).toMatchObject({ status: 'CANCELLED', cancel_reason: '10_CancelReason_UserRequest' });
  });

  it('answers unknown, foreign, final and repeated ids with success false entries, and the envelope with success false', async () => {
    const mine = await c.place(alice, { limit_price: String(nextBand()) });
    await c.settled(alice, mine.order_uuid, 'OPEN');
    const bobs = await c.place(bob, { limit_price: String(nextBand()) });
    const unknown = hex32();
    const r = await c.cancel(alice, [mine.order_uuid, bobs.order_uuid, unknown]);
    expect(r.json().success).toBe(false);
    const res = r.json().response;
    expect(Object.keys(res)).toEqual([mine.order_uuid, bobs.order_uuid, unknown]);
    expect(res[mine.order_uuid].success).toBe(true);
    for (const id of [bobs.order_uuid, unknown]) {
      expect(res[id]).toEqual({
        exec_time_ms: expect.any(Number),
        message: 'No such order.',
        payload: { environment_tag: 'mtf_platform', model: 'mtf.order', operation: 'write', record: { cancellation_attempted: false, market_id: 0, matching_engine_client_id: 0, order_uuid: id, pmx_id: '' } },
        success: false,
      });
    }
    const again = (await c.cancel(alice, [mine.order_uuid])).json();
    expect(again.success).toBe(false);
    expect(again.response[mine.order_uuid]).toMatchObject({ success: false, message: 'The order is already CANCELLED.' });
    expect((await c.order(bob, bobs.order_uuid)).status).not.toBe('CANCELLED');
    await c.cancel(bob, [bobs.order_uuid]);
  });

  it.each([
    ['an empty list', []],
    ['a malformed id', ['XYZ']],
    ['a number', [42]],
    ['501 ids', Array.from({ length: 501 }, () => hex32())],
    ['no list', undefined],
  ])('refuses %s with 400', async (_label, ids) => {
    const r = await c.cancel(alice, ids);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
  });

  it.each([[{ cancel_all: false }], [{}], [{ cancel_all: 'true' }]])('refuses cancel_all %j with 400', async (body) => {
    const r = await c.cancelAll(alice, body);
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('VALIDATION_FAILED');
  });

  it('cancel_all cancels every NEW and OPEN order of the caller and nobody else\'s', async () => {
    const carol = await registerTrader(t);
    const dave = await registerTrader(t);
    const p = nextBand();
    const mine = await Promise.all([0, 1, 2].map((i) => c.place(carol, { limit_price: String(p + i) })));
    const theirs = await c.place(dave, { limit_price: String(p) });
    const r = await c.cancelAll(carol);
    expect(r.statusCode).toBe(200);
    expect(r.json().success).toBe(true);
    expect(Object.keys(r.json().response).sort()).toEqual(mine.map((o) => o.order_uuid).sort());
    for (const entry of Object.values<Record<string, unknown>>(r.json().response)) expect([ENTRY_A, ENTRY_B]).toContainEqual(Object.keys(entry));
    for (const o of mine) expect(await c.order(carol, o.order_uuid)).toMatchObject({ status: 'CANCELLED', cancel_reason: '11_CancelReason_CancelAll' });
    expect((await c.settled(dave, theirs.order_uuid, 'OPEN')).cancel_reason).toBeNull();
    // Nothing left: an empty map, still a success.
    expect((await c.cancelAll(carol)).json()).toEqual({ response: {}, success: true });
  });

  describe('races (driven in parallel)', () => {
    it('two cancels of one order: exactly one succeeds and the engine cancels once', async () => {
      const store = t.app.get<EventStore>(EVENT_STORE);
      for (let round = 0; round < 5; round++) {
        const o = await c.place(alice, { limit_price: String(nextBand()) });
        const [r1, r2] = await Promise.all([c.cancel(alice, [o.order_uuid]), c.cancel(alice, [o.order_uuid])]);
        const wins = [r1, r2].filter((r) => r.json().response[o.order_uuid].success === true);
        expect(wins).toHaveLength(1);
        await c.settled(alice, o.order_uuid, 'CANCELLED');
        const market = (await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: alice })).json().response['BTC-PERP'].market_uuid;
        const decided = (await store.readStream(engineStream(market))).filter((e) => (e.data as { order_uuid?: string }).order_uuid === o.order_uuid);
        expect(decided.filter((e) => e.type === 'OrderCancelled')).toHaveLength(1);
      }
    });

    it('a cancel racing a fill: the order ends FILLED or CANCELLED, never both, never over-filled', async () => {
      const outcomes = new Set<string>();
      for (let round = 0; round < 12; round++) {
        const p = nextBand();
        const ask = await c.place(alice, { direction: 'SELL', limit_price: String(p), order_size: '0.010' });
        await c.settled(alice, ask.order_uuid, 'OPEN');
        const [, cancelled] = await Promise.all([c.place(bob, { direction: 'BUY', limit_price: String(p), order_size: '0.010', immediate_or_cancel: 1 }), c.cancel(alice, [ask.order_uuid])]);
        const final = await c.settled(alice, ask.order_uuid, ['FILLED', 'CANCELLED']);
        outcomes.add(final.status);
        const entry = cancelled.json().response[ask.order_uuid];
        if (final.status === 'FILLED') {
          expect(final.trades).toHaveLength(1);
          expect(entry.success).toBe(false);
        } else {
          expect(final.trades).toEqual([]);
          expect(final.cancel_reason).toBe('10_CancelReason_UserRequest');
          expect(entry.success).toBe(true);
        }
      }
      expect(outcomes.size).toBeGreaterThanOrEqual(1);
    });

    it('cancel_all racing new placements: each order is cancelled entirely or untouched, as the answer says', async () => {
      const erin = await registerTrader(t);
      const p = nextBand();
      const before = await Promise.all([0, 1, 2, 3].map((i) => c.place(erin, { limit_price: String(p + i) })));
      const [all] = await Promise.all([c.cancelAll(erin), ...[4, 5, 6, 7, 8, 9].map((i) => c.place(erin, { limit_price: String(p + i) }))]);
      const answered = all.json().response as Record<string, { success: boolean }>;
      for (const o of before) expect(answered[o.order_uuid]?.success).toBe(true);
      const list = await until(() => c.orders(erin), (os) => os.every((o) => o.status === 'OPEN' || o.status === 'CANCELLED'));
      expect(list).toHaveLength(10);
      for (const o of list) {
        if (answered[o.order_uuid]) expect(o).toMatchObject({ status: 'CANCELLED', cancel_reason: '11_CancelReason_CancelAll' });
        else expect(o.status).toBe('OPEN');
      }
      await c.cancelAll(erin);
    });
  });
});

describe.each(COMMIT_MODES)('MTF engine lifecycle (%s)', (_mode, writerThread) => {
  const env = { ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, SQLITE_WRITER_THREAD: writerThread };
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'engine-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a NEW order cancelled while no engine runs gets a variant B entry; the engine started later cancels it', async () => {
    const first = await startTestApp({ ...env, DATA_DIR: dir, MATCHING_ENGINES: 'false', READ_YOUR_WRITES_TIMEOUT_MS: '300' });
    let trader: Headers;
    let id: string;
    try {
      const c = client(first);
      trader = await registerTrader(first);
      id = (await c.place(trader, { limit_price: '1000' })).order_uuid;
      const r = await c.cancel(trader, [id]);
      expect(r.json().success).toBe(true);
      const entry = r.json().response[id];
      expect(Object.keys(entry)).toEqual(ENTRY_B);
      expect(entry.event_manager_id).toMatch(HYPHENATED);
      expect(entry.event_manager_timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
      expect(entry.message).toBe(`A new instance of model mtf.event.manager has been created with id ${entry.event_manager_id}`);
      expect(entry.payload).toMatchObject({ model: 'mtf.order', operation: 'create', record: { cancellation_attempted: true, market_id: 1, order_uuid: id } });
      expect((await c.order(trader, id)).status).toBe('NEW');
    } finally {
      await first.close();
    }
    const second = await startTestApp({ ...env, DATA_DIR: dir });
    try {
      const done = await client(second).settled(trader!, id!, 'CANCELLED');
      expect(done.engine_id).toMatch(/^GW-1-0-\d+$/);
      expect(done.cancel_reason).toBe('10_CancelReason_UserRequest');
    } finally {
      await second.close();
    }
  });

  it('rebuilds the same book after a restart (from snapshots plus the stream) and keeps matching by time priority', async () => {
    const first = await startTestApp({ ...env, DATA_DIR: dir, ENGINE_SNAPSHOT_EVERY: '10' });
    let a: Headers;
    let b: Headers;
    let market = '';
    let image: unknown;
    let oldest = '';
    try {
      const c = client(first);
      a = await registerTrader(first);
      b = await registerTrader(first);
      market = (await first.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: a })).json().response['BTC-PERP'].market_uuid;
      const placed: Order[] = [];
      for (let i = 0; i < 15; i++) placed.push(await c.place(i % 2 ? a : b, { direction: 'SELL', limit_price: String(60000 + (i % 3)) }));
      oldest = placed[0].order_uuid;
      await c.settled(a, placed[13].order_uuid, 'OPEN');
      await c.settled(b, placed[14].order_uuid, 'OPEN');
      const host = first.app.get(MatchingEngineHost);
      image = host.engine(market)!.snapshot();
      // Snapshots are written off the request thread: the one the tenth order made is awaited, not assumed done.
      let snaps = await first.app.get<EventStore>(EVENT_STORE).readStream(engineSnapshotStream(market));
      for (const deadline = Date.now() + 10_000; snaps.length === 0 && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 50));
        snaps = await first.app.get<EventStore>(EVENT_STORE).readStream(engineSnapshotStream(market));
      }
      expect(snaps.length).toBeGreaterThanOrEqual(1);
    } finally {
      await first.close();
    }
    const second = await startTestApp({ ...env, DATA_DIR: dir, ENGINE_SNAPSHOT_EVERY: '10' });
    try {
      const host = second.app.get(MatchingEngineHost);
      await until(async () => host.engine(market), (e) => e !== null);
      expect(host.engine(market)!.snapshot()).toEqual(image);
      // The oldest order at the best price (60000) is the first to fill after the restart.
      const buyer = await registerTrader(second);
      const c = client(second);
      const take = await c.place(buyer, { direction: 'BUY', limit_price: '60000' });
      await c.settled(buyer, take.order_uuid, 'FILLED');
      expect((await c.order(b!, oldest)).status).toBe('FILLED');
    } finally {
      await second.close();
    }
  });

  it('snapshots a deep book no more often than it holds orders (ENGINE_SNAPSHOT_EVERY or the last snapshot\'s size)', async () => {
    const node = await startTestApp({ ...env, DATA_DIR: dir, ENGINE_SNAPSHOT_EVERY: '10' });
    try {
      const c = client(node);
      const a = await registerTrader(node);
      const market = (await node.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: a })).json().response['BTC-PERP'].market_uuid;
      let last: Order | null = null;
      for (let i = 0; i < 80; i++) last = await c.place(a, { direction: 'SELL', limit_price: String(70000 + i) });
      await c.settled(a, last!.order_uuid, 'OPEN');
      const snaps = (await node.app.get<EventStore>(EVENT_STORE).readStream(engineSnapshotStream(market))).map((e) => {
        const data = e.data as unknown as { engine_revision: string; snapshot: { bids: unknown[]; asks: unknown[]; stops: unknown[] } };
        return { revision: Number(data.engine_revision), size: data.snapshot.bids.length + data.snapshot.asks.length + data.snapshot.stops.length };
      });
      // 80 resting orders, one engine event each: every 10 events would be 8 snapshots; growing with the book, 3 or 4.
      expect(snaps.length).toBeGreaterThanOrEqual(3);
      expect(snaps.length).toBeLessThan(8);
      expect(snaps[0].revision).toBeGreaterThanOrEqual(9);
      for (let i = 1; i < snaps.length; i++) expect(snaps[i].revision - snaps[i - 1].revision).toBeGreaterThanOrEqual(Math.max(10, snaps[i - 1].size));
      expect(snaps[snaps.length - 1].size).toBeGreaterThan(snaps[0].size);
    } finally {
      await node.close();
    }
  });

  it('a snapshot failing on its thread is skipped and logged; the engine goes on matching, and the next snapshot restores its book', async () => {
    // One thread (WORKER_THREADS=0): the snapshot must still be on its way when its thread is closed, which a main
    // thread with nothing else to do does not leave time for.
    const node = await startTestApp({ ...env, DATA_DIR: dir, WORKER_THREADS: '0' });
    try {
      const c = client(node);
      const [a, b] = [await registerTrader(node), await registerTrader(node)];
      const market = (await node.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: a })).json().response['BTC-PERP'].market_uuid;
      const ask = await c.place(a, { direction: 'SELL', limit_price: '61000' });
      await c.settled(a, ask.order_uuid, 'OPEN');
      const host = node.app.get(MatchingEngineHost);
      const snapshots = () => node.app.get<EventStore>(RAW_EVENT_STORE).readStream(engineSnapshotStream(market));
      const written = (await snapshots()).length;
      const warn = jest.spyOn(host.logger, 'warn');
      // The engine's state is on its way to the snapshot thread when the thread dies.
      const failing = host.snapshotNow(market);
      await host.snapshots.close();
      expect(await failing).toBe(false);
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ market_uuid: market }), expect.stringContaining('engine snapshot not written'));
      expect(await snapshots()).toHaveLength(written);
      // Nothing held the engine up: it matches the next order.
      const bid = await c.place(b, { direction: 'BUY', limit_price: '61000' });
      await c.settled(b, bid.order_uuid, 'FILLED');
      // The next snapshot is built on a new thread: the engine's state, in a chain that verifies.
      expect(await host.snapshotNow(market)).toBe(true);
      const all = await snapshots();
      expect(all).toHaveLength(written + 1);
      expect(verifyStreamChain(all)).toBeNull();
      const last = all[all.length - 1].data as unknown as { engine_revision: string; snapshot: EngineSnapshot };
      expect(MarketEngine.restore(last.snapshot).snapshot()).toEqual(host.engine(market)!.snapshot());
      expect(host.status().find((s) => s.market_uuid === market)?.revision).toBe(last.engine_revision);
    } finally {
      await node.close();
    }
  });

  it('two nodes on one store: one engine per market, every order decided once', async () => {
    const n1 = await startTestApp({ ...env, DATA_DIR: dir });
    const n2 = await startTestApp({ ...env, DATA_DIR: dir, SEED_MARKETS: 'false' });
    try {
      const h1 = n1.app.get(MatchingEngineHost);
      const h2 = n2.app.get(MatchingEngineHost);
      await until(async () => [...h1.status(), ...h2.status()].filter((s) => s.state === 'running').length, (n) => n === 3);
      const running = (h: MatchingEngineHost) => new Set(h.status().filter((s) => s.state === 'running').map((s) => s.market_uuid));
      const r1 = running(h1);
      for (const m of running(h2)) expect(r1.has(m)).toBe(false);

      const trader = await registerTrader(n1);
      const [c1, c2] = [client(n1), client(n2)];
      const placed = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? c1 : c2).place(trader, { limit_price: String(30000 + i) })));
      await until(() => c1.orders(trader), (os) => os.length === 10 && os.every((o) => o.status === 'OPEN'));
      const market = (await n1.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: trader })).json().response['BTC-PERP'].market_uuid;
      const opened = (await n1.app.get<EventStore>(EVENT_STORE).readStream(engineStream(market))).filter((e) => e.type === 'OrderOpened');
      for (const o of placed) expect(opened.filter((e) => (e.data as { order_uuid: string }).order_uuid === o.order_uuid)).toHaveLength(1);
    } finally {
      await n2.close();
      await n1.close();
    }
  });
});
