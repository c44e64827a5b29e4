/**
 * Engine snapshots built on the snapshot thread (src/modules/trading/engine-snapshots.ts): given an engine's captured
 * state, the thread's event texts are byte for byte those of the snapshot built on the request thread (the same data,
 * the same commitment), the snapshot they hold restores an engine that decides like the original, a capture does not
 * follow the engine's later decisions, and a thread that fails or dies fails only the build in its hands.
 */
import { canonicalTexts } from '../../../src/platform/event-store/append-validation';
import { eventCommitment, eventCommitmentOf } from '../../../src/platform/commitments/commitment';
import type { JsonObject } from '../../../src/platform/commitments/json';
import type { EventMetadata } from '../../../src/platform/event-store/event-store.port';
import { SnapshotBuilder, type SnapshotEventHead } from '../../../src/modules/trading/engine-snapshots';
import { MarketEngine, type EngineInput, type EngineOrder, type EngineSnapshot } from '../../../src/modules/trading/engine/market-engine';
import { prng } from './helpers';

const MARKET = { market_uuid: 'b'.repeat(32), market_id: 3 };
const FEED = 'f'.repeat(32);
const METADATA: EventMetadata = { tenant_uuid: null, workspace_uuid: null, actor: { type: 'system', reference: 'test' }, correlation_id: 'c'.repeat(32), causation_id: null, request_id: null, schema_version: 1 };

let eventSeq = 0;
const head = (): SnapshotEventHead => ({ event_id: (++eventSeq).toString(16).padStart(32, '0'), type: 'EngineSnapshotTaken', metadata: METADATA });

/** A feed-bound market after `steps` random inputs: resting orders on both sides, trades (positions), armed stops, index ticks. */
function busyEngine(seed: number, steps: number): { engine: MarketEngine; next: () => EngineInput } {
  const rnd = prng(seed);
  const engine = new MarketEngine(MARKET);
  let position = 10n;
  let i = 0;
  const next = (): EngineInput => {
    i += 1;
    position += 2n;
    if (i % 25 === 0) return { kind: 'INDEX_TICK', input_position: position, feed_id: FEED, status: 'LIVE', value: (98 + Math.floor(rnd() * 50) / 10).toFixed(1), at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString() };
    const side = rnd() < 0.5 ? 'BUY' : 'SELL';
    // The sides overlap a little: most orders rest, some trade.
    const price = ((side === 'BUY' ? 90 : 99.25) + Math.floor(rnd() * 44) / 4).toFixed(2);
    const t = rnd();
    // Stops far from the market stay armed.
    const trigger = (side === 'BUY' ? 150 : 50).toFixed(2);
    const extra: Partial<EngineOrder> = t < 0.06 ? { order_type: 'STOP', limit_price: null, trigger_price: trigger } : t < 0.1 ? { order_type: 'STOP_LIMIT', limit_price: trigger, trigger_price: trigger } : {};
    const order: EngineOrder = {
      order_uuid: `o${seed}-${i}`,
      profile_uuid: `p${Math.floor(rnd() * 40)}`,
      direction: side,
      order_type: 'LIMIT',
      time_in_force: 'GTC',
      post_only: false,
      reduce_only: false,
      order_size: ((1 + Math.floor(rnd() * 300)) / 100).toFixed(2),
      limit_price: price,
      trigger_price: null,
      ...extra,
    };
    return { kind: 'PLACE', input_position: position, order };
  };
  engine.decide({ kind: 'BIND_FEED', input_position: 10n, feed_id: FEED, stop_trigger_source: 'MARK_PRICE', mark_basis_window_ms: 60_000 });
  for (let k = 0; k < steps; k++) engine.decide(next());
  return { engine, next };
}

/** The texts the request thread made before snapshots moved: the snapshot object, canonicalized by the store's own function. */
function onRequestThread(snapshot: EngineSnapshot, revision: bigint, event: SnapshotEventHead) {
  return canonicalTexts([{ ...event, data: { engine_revision: revision.toString(), snapshot: snapshot as unknown as JsonObject } }])[0];
}

describe('engine snapshots on the snapshot thread', () => {
  const builder = new SnapshotBuilder();
  afterAll(() => builder.close());

  it('makes byte for byte the texts of the snapshot built on the request thread: the same data, the same commitment', async () => {
    const { engine } = busyEngine(1, 3000);
    const image = engine.snapshot();
    expect(image.bids.length + image.asks.length).toBeGreaterThan(1000); // more than one slice of each side
    expect(image.stops.length).toBeGreaterThan(0);
    expect(image.positions.length).toBeGreaterThan(10);
    expect(image.index?.samples.length).toBeGreaterThan(0);
    const event = head();
    const texts = await builder.build(engine.capture(), 4242n, event);
    const expected = onRequestThread(image, 4242n, event);
    expect(texts.data).toBe(expected.data);
    expect(texts.committed).toBe(expected.committed);
    expect(texts.metadata).toBe(expected.metadata);
    // The commitment the store makes of these texts is the one a verifier recomputes from the data as stored.
    const fields = { stream: `mtf-engine-snapshot-${MARKET.market_uuid}`, revision: 5n, event_id: event.event_id, type: event.type, occurred_at: '2026-01-01T00:00:00.000Z', previous_event_commitment: 'd'.repeat(64) };
    expect(eventCommitmentOf(fields, texts.committed, texts.metadata)).toBe(eventCommitment({ ...fields, data: JSON.parse(texts.data), metadata: JSON.parse(texts.metadata) }));
  });

  it('holds a snapshot that restores an engine equal to the original, which decides what the original decides', async () => {
    const { engine, next } = busyEngine(2, 2000);
    const texts = await builder.build(engine.capture(), 1n, head());
    const { engine_revision, snapshot } = JSON.parse(texts.data) as { engine_revision: string; snapshot: EngineSnapshot };
    expect(engine_revision).toBe('1');
    const restored = MarketEngine.restore(snapshot);
    expect(restored.snapshot()).toEqual(engine.snapshot());
    for (let k = 0; k < 300; k++) {
      const input = next();
      expect(restored.decide(input)).toEqual(engine.decide(input));
    }
    expect(restored.snapshot()).toEqual(engine.snapshot());
  });

  it('images the state as captured, whatever the engine decides while the thread works', async () => {
    const { engine, next } = busyEngine(3, 1500);
    const before = engine.snapshot();
    const event = head();
    const building = builder.build(engine.capture(), 7n, event);
    for (let k = 0; k < 200; k++) engine.decide(next());
    expect(engine.snapshot()).not.toEqual(before);
    expect((await building).data).toBe(onRequestThread(before, 7n, event).data);
  });

  it('fails the build in hands of a thread that dies, and the next build runs on a new thread', async () => {
    const { engine } = busyEngine(4, 1500);
    const dying = builder.build(engine.capture(), 9n, head());
    await builder.close();
    await expect(dying).rejects.toThrow(/exited/);
    const event = head();
    const texts = await builder.build(engine.capture(), 9n, event);
    expect(texts.data).toBe(onRequestThread(engine.snapshot(), 9n, event).data);
  });

  it('fails a build whose state has no canonical form, and the thread serves the next one', async () => {
    const { engine } = busyEngine(5, 300);
    const capture = engine.capture();
    // A lone UTF-16 surrogate in an owner id: refused by canonical JSON (RFC 8785) on the thread, as the store would.
    const broken = { ...capture, positions: [...capture.positions, ['p\uD800', 10n ** 18n] as [string, bigint]] };
    await expect(builder.build(broken, 2n, head())).rejects.toThrow(/engine snapshot failed on its thread/);
    const event = head();
    expect((await builder.build(capture, 2n, event)).data).toBe(onRequestThread(engine.snapshot(), 2n, event).data);
  });
});
