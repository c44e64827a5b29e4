/**
 * Runs the matching engines: one single writer per market. A worker takes the market's lease (the projection
 * checkpoint table, name `engine:<market_uuid>`), rebuilds its engine from the latest snapshot plus the engine
 * stream after it, then consumes the global log after the last input it decided: OrderAccepted and
 * OrderCancelRequested events of its market, its MarketPriceFeedBound, and the PriceFeedValueComputed events of the
 * feed bound to it (its index ticks, in the same log order as its orders: a replay decides the same triggers). Each batch of inputs is decided by the pure MarketEngine and appended
 * to `mtf-engine-<market_uuid>` in ONE append with the expected revision, so two writers can never both append a
 * decision (the loser's append fails; it drops its in-memory state and stands by). Inputs and decisions are
 * exactly-once: the engine stream records the position of every input it decided.
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { Gauge } from 'prom-client';
import { MetricsService } from '../../platform/observability/metrics.service';
import type { JsonObject } from '../../platform/commitments/json';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { newId, SYSTEM_ACTOR } from '../../platform/context/request-context';
import { VersionConflict } from '../../platform/errors';
import { EVENT_STORE, type EventMetadata, type EventStore, type EventSubscription, type NewEvent, type RecordedEvent } from '../../platform/event-store/event-store.port';
import { CheckpointStore, LeaseLost } from '../../platform/projections/checkpoint.store';
import { LeaseLoop, type LeaseState } from '../../platform/projections/lease-loop';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { engineSnapshotStream, engineStream, type EngineEvent } from './domain/engine-events';
import { MARKET_REGISTRY_STREAM, type MarketRegistryEvent } from './domain/market';
import type { OrderCancelRequest, OrderPlacement } from './domain/order';
import type { MarketEvent } from './domain/market';
import type { PriceFeedEvent } from './domain/price-feed';
import { MarketEngine, type EngineCapture, type EngineInput, type EngineSnapshot } from './engine/market-engine';
import { SnapshotBuilder, snapshotData } from './engine-snapshots';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../../platform/projections/node-identity';
import { ReadinessRegistry } from '../../platform/observability/readiness';

export const ENGINE_INPUT_TYPES = new Set(['OrderAccepted', 'OrderCancelRequested', 'MarketPriceFeedBound', 'PriceFeedValueComputed']);

/** What a caller waiting for the engine learns: the engine has decided every input up to `input_position`. */
export interface EngineProgress {
  /** Global position of the engine's last append (what read models must pass to show the decision). */
  appended_position: bigint | null;
  input_position: bigint;
}

type WorkerState = LeaseState;

class MarketWorker {
  engine: MarketEngine | null = null;
  revision: bigint | null = null;
  appendedPosition: bigint | null = null;
  /**
   * Inputs up to here are decided AND their decisions appended. The engine's own lastInputPosition runs ahead of it
   * while a batch's append is in flight, and a waiter answered from that would read the order list too early.
   */
  private committedInput = -1n;
  private snapshotRevision: bigint | null = null;
  /** Orders and stops the latest snapshot held: what writing the next one will cost, roughly. */
  private snapshotSize = 0;
  /** The revision of the latest snapshot taken or attempted: a failed one is tried again an interval later. */
  private snapshotAttempt: bigint | null = null;
  /** The snapshot being built and written (off the event loop, while the engine goes on deciding). */
  private snapshotting: Promise<boolean> | null = null;
  private subscription: EventSubscription | null = null;
  /** A batch's append under way: until it lands, the engine is ahead of `revision` (no snapshot may be taken). */
  private appending: Promise<unknown> | null = null;
  private readonly lease: LeaseLoop;
  private readonly waiters = new Set<{ position: bigint; resolve: (p: EngineProgress) => void }>();

  constructor(
    readonly market: { market_uuid: string; market_id: number },
    private readonly host: MatchingEngineHost,
  ) {
    const leaseName = this.leaseName;
    this.lease = new LeaseLoop(
      {
        leaseName,
        acquire: () => host.checkpoints.acquire(leaseName),
        prepare: () => this.restore(),
        work: () => this.consume(),
        interrupt: async () => {
          await this.subscription?.close();
        },
        // Another node appended to the engine's stream: it runs this market now.
        standsBy: (error) => error instanceof VersionConflict,
        renew: () => host.checkpoints.renew(leaseName),
        release: () => host.checkpoints.release(leaseName),
        // In-memory state may be ahead of the stream: always rebuild from the stream.
        reset: () => {
          this.engine = null;
        },
        failed: (error) => host.logger.error({ market_uuid: market.market_uuid, err: error }, 'matching engine failed; rebuilding from its stream'),
      },
      { retryDelayMs: 250, maxRetryDelayMs: 30_000, failingUntilRecovered: false, assignment: host.checkpoints.assignment },
    );
  }

  get state(): WorkerState {
    return this.lease.state;
  }

  get leaseName(): string {
    return `engine:${this.market.market_uuid}`;
  }

  start(): void {
    this.lease.start();
  }

  async stop(): Promise<void> {
    await this.lease.stop();
    await this.snapshotting;
  }

  /** Resolves once this (local, running) engine has decided every input up to `position`. */
  waitFor(position: bigint): Promise<EngineProgress> | null {
    const engine = this.engine;
    if (this.state !== 'running' || !engine) return null;
    if (this.committedInput >= position) return Promise.resolve({ appended_position: this.appendedPosition, input_position: this.committedInput });
    return new Promise((resolve) => this.waiters.add({ position, resolve }));
  }

  /** The subscription passed `seen` (inputs of other markets, too): waiters up to it are served. */
  private progress(seen: bigint): void {
    if (seen > this.committedInput) this.committedInput = seen;
    for (const w of this.waiters) {
      if (seen >= w.position) {
        this.waiters.delete(w);
        w.resolve({ appended_position: this.appendedPosition, input_position: seen });
      }
    }
  }

  /** Latest snapshot (if any), then every engine event after it. */
  private async restore(): Promise<void> {
    const store = this.host.store;
    const [snap] = await store.readStream(engineSnapshotStream(this.market.market_uuid), { direction: 'backwards', maxCount: 1 });
    let engine = new MarketEngine(this.market);
    let from = 0n;
    this.snapshotRevision = null;
    if (snap) {
      const data = snap.data as unknown as { engine_revision: string; snapshot: EngineSnapshot };
      engine = MarketEngine.restore(data.snapshot);
      this.snapshotRevision = BigInt(data.engine_revision);
      this.snapshotSize = snapshotSize(data.snapshot);
      from = this.snapshotRevision + 1n;
    }
    this.snapshotAttempt = this.snapshotRevision;
    let revision: bigint | null = this.snapshotRevision;
    let position: bigint | null = null;
    for (;;) {
      const page = await store.readStream(engineStream(this.market.market_uuid), { fromRevision: from, maxCount: 5000 });
      for (const e of page) engine.evolve({ type: e.type, data: e.data } as unknown as EngineEvent);
      if (page.length > 0) {
        revision = page[page.length - 1].revision;
        position = page[page.length - 1].position;
        from = revision + 1n;
      }
      if (page.length < 5000) break;
    }
    this.engine = engine;
    this.revision = revision;
    this.appendedPosition = position;
    this.committedInput = engine.lastInputPosition;
  }

  private async consume(): Promise<void> {
    const engine = this.engine!;
    // Commits with no engine input (its own output, projections' sources, other modules) pass by without a step.
    const subscription = this.host.store.subscribeToAll({
      after: engine.lastInputPosition,
      passOver: { types: ENGINE_INPUT_TYPES, passed: (position) => this.progress(position) },
      awaited: () => this.waiters.size > 0,
    });
    this.subscription = subscription;
    try {
      for await (const batch of subscription.batches(this.host.batchSize)) {
        if (this.lease.isStopping) break;
        await this.decideBatch(engine, batch);
        this.progress(batch[batch.length - 1].position);
        this.lease.recovered();
      }
    } finally {
      this.subscription = null;
      await subscription.close();
    }
    if (!this.lease.isStopping) throw new LeaseLost(this.leaseName);
  }

  private async decideBatch(engine: MarketEngine, batch: RecordedEvent[]): Promise<void> {
    const events: NewEvent[] = [];
    const market_uuid = this.market.market_uuid;
    for (const e of batch) {
      if (!ENGINE_INPUT_TYPES.has(e.type) || e.position <= engine.lastInputPosition) continue;
      const input = toInput(e, market_uuid, engine.feed?.feed_id ?? null);
      if (!input) continue;
      const metadata: EventMetadata = {
        tenant_uuid: e.metadata.tenant_uuid,
        workspace_uuid: e.metadata.workspace_uuid,
        actor: { type: 'system', reference: `mtf-engine-${this.market.market_id}` },
        correlation_id: e.metadata.correlation_id,
        causation_id: e.event_id,
        request_id: e.metadata.request_id,
        schema_version: 1,
      };
      for (const decided of engine.decide(input)) events.push({ event_id: newId(), type: decided.type, data: decided.data as unknown as JsonObject, metadata });
    }
    if (events.length === 0) return;
    const appending = this.host.store.append(engineStream(market_uuid), events, this.revision === null ? 'no_stream' : this.revision);
    this.appending = appending;
    let result;
    try {
      result = await appending;
    } finally {
      this.appending = null;
    }
    this.revision = result.next_revision;
    this.appendedPosition = result.position;
    if (this.snapshotting === null && result.next_revision - (this.snapshotAttempt ?? -1n) >= snapshotInterval(this.host.snapshotEvery, this.snapshotSize)) {
      void this.takeSnapshot(engine);
    }
  }

  /** Takes a snapshot now, at the engine's last appended revision (the benchmark, tests); false when none was written. */
  async snapshotNow(): Promise<boolean> {
    for (;;) {
      if (this.snapshotting) await this.snapshotting;
      else if (this.appending) await this.appending.catch(() => undefined);
      else break;
    }
    const engine = this.engine;
    if (this.state !== 'running' || !engine || this.revision === null) return false;
    return this.takeSnapshot(engine);
  }

  /**
   * A cache of the engine state: losing one only lengthens the next start-up. The state is captured here, at once
   * (the engine's decisions are all appended, up to `revision`); the rest runs off the event loop (engine-snapshots.ts)
   * while the engine goes on deciding. A failure is logged and the snapshot skipped: the next is due an interval later.
   */
  private takeSnapshot(engine: MarketEngine): Promise<boolean> {
    const revision = this.revision!;
    this.snapshotAttempt = revision;
    const capture = engine.capture();
    const taking = this.writeSnapshot(engine, revision, capture).finally(() => (this.snapshotting = null));
    this.snapshotting = taking;
    return taking;
  }

  private async writeSnapshot(engine: MarketEngine, revision: bigint, capture: EngineCapture): Promise<boolean> {
    const { market_uuid } = this.market;
    const store = this.host.store;
    const event = { event_id: newId(), type: 'EngineSnapshotTaken' as const, metadata: snapshotMetadata() };
    try {
      if (store.appendPrepared) {
        const texts = await this.host.snapshots.build(capture, revision, event);
        // The lease was lost meanwhile (the engine is rebuilt from its stream, here or on another node): not written.
        if (this.engine !== engine) return false;
        await store.appendPrepared(engineSnapshotStream(market_uuid), [{ event_id: event.event_id, type: event.type, texts }], 'any');
      } else {
        // A store that takes no prepared event (EventStoreDB): imaged and canonicalized here, as it always was.
        await store.append(engineSnapshotStream(market_uuid), [{ ...event, data: snapshotData(revision, capture) }], 'any');
      }
      if (this.engine === engine) {
        this.snapshotRevision = revision;
        this.snapshotSize = capture.bids.length + capture.asks.length + capture.stops.length;
      }
      return true;
    } catch (error) {
      this.host.logger.warn({ market_uuid, engine_revision: revision.toString(), err: error }, 'engine snapshot not written; the next is due an interval later');
      return false;
    }
  }
}

const snapshotSize = (s: EngineSnapshot): number => s.bids.length + s.asks.length + s.stops.length;

/**
 * Engine events between two snapshots: the configured interval, or as many as the last snapshot held orders if that is
 * more. A snapshot costs what the book holds (written, hashed, and read by every subscriber), so a deep book would
 * otherwise pay it over and over (30,000 resting orders every 2,000 events is 15 order copies per event); this way the
 * cost per event stays about one order, and a restart still reads at most one book's worth of events after a snapshot.
 */
export function snapshotInterval(every: number, lastSnapshotSize: number): bigint {
  return BigInt(Math.max(every, lastSnapshotSize));
}

function snapshotMetadata(): EventMetadata {
  return { tenant_uuid: null, workspace_uuid: null, actor: SYSTEM_ACTOR, correlation_id: newId(), causation_id: null, request_id: null, schema_version: 1 };
}

/** The engine's view of an input event of its market (or of its bound feed); null for others. */
function toInput(e: RecordedEvent, market_uuid: string, bound_feed_id: string | null): EngineInput | null {
  if (e.type === 'PriceFeedValueComputed') {
    const v = e.data as unknown as Extract<PriceFeedEvent, { type: 'PriceFeedValueComputed' }>['data'];
    if (v.feed_id !== bound_feed_id) return null;
    return { kind: 'INDEX_TICK', input_position: e.position, feed_id: v.feed_id, status: v.status, value: v.value, at: v.received_at };
  }
  if (e.type === 'MarketPriceFeedBound') {
    const b = e.data as unknown as Extract<MarketEvent, { type: 'MarketPriceFeedBound' }>['data'];
    if (b.market_uuid !== market_uuid) return null;
    return { kind: 'BIND_FEED', input_position: e.position, feed_id: b.feed_id, stop_trigger_source: b.stop_trigger_source, mark_basis_window_ms: b.mark_basis_window_ms };
  }
  if (e.type === 'OrderAccepted') {
    const p = e.data as unknown as OrderPlacement;
    if (p.market_uuid !== market_uuid) return null;
    return {
      kind: 'PLACE',
      input_position: e.position,
      order: {
        order_uuid: p.order_uuid,
        profile_uuid: p.profile_uuid,
        direction: p.direction,
        order_type: p.order_type,
        time_in_force: p.time_in_force,
        post_only: p.post_only,
        reduce_only: p.reduce_only ?? false,
        order_size: p.order_size,
        limit_price: p.limit_price,
        trigger_price: p.trigger_price ?? null,
        trigger_source: p.trigger_source ?? null,
      },
    };
  }
  const c = e.data as unknown as OrderCancelRequest;
  if (c.market_uuid !== market_uuid) return null;
  return { kind: 'CANCEL', input_position: e.position, order_uuid: c.order_uuid, profile_uuid: c.profile_uuid, reason: c.reason };
}

@Injectable()
export class MatchingEngineHost implements OnApplicationBootstrap, OnModuleDestroy {
  readonly checkpoints: CheckpointStore;
  readonly batchSize: number;
  readonly snapshotEvery: number;
  /** Builds every market's snapshots on one thread of their own. */
  readonly snapshots = new SnapshotBuilder();
  private readonly workers = new Map<string, MarketWorker>();
  private discoverTimer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(EVENT_STORE) readonly store: EventStore,
    db: ReadModelDatabase,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    readonly logger: Logger,
    metrics: MetricsService,
    @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity,
    readiness: ReadinessRegistry,
  ) {
    this.checkpoints = new CheckpointStore(db, identity);
    // Ready once every market's engine this node holds is running (rebuilt from its stream) and the others stand
    // by for another node: a node that took its engines back after a restart says so only when it can match.
    if (config.matchingEngines) {
      readiness.register('matching_engines', () => {
        const states = this.status().map((s) => s.state);
        const notReady = states.filter((s) => s !== 'running' && s !== 'standby').length;
        return notReady === 0 ? { status: 'up', detail: `${states.length} markets` } : { status: 'down', detail: `${notReady} of ${states.length} not running` };
      });
    }
    this.batchSize = config.projectionBatchSize;
    this.snapshotEvery = config.engineSnapshotEvery;
    const host = this;
    new Gauge({
      name: 'platform_matching_engine_up',
      help: "1 when this node runs the market's engine or stands by for another node's, 0 when starting or failing.",
      labelNames: ['market_uuid', 'state'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const s of host.status()) this.set({ market_uuid: s.market_uuid, state: s.state }, s.state === 'running' || s.state === 'standby' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'platform_matching_engine_input_position',
      help: 'Global position of the last input each engine run here has decided.',
      labelNames: ['market_uuid'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const s of host.status()) if (s.input_position !== null) this.set({ market_uuid: s.market_uuid }, Number(s.input_position));
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.matchingEngines) return;
    await this.discover();
    // Markets created on any node are picked up here; standby workers keep trying their lease on their own.
    this.discoverTimer = setInterval(() => void this.discover().catch(() => undefined), 2000);
    this.discoverTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.discoverTimer) clearInterval(this.discoverTimer);
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
    await this.snapshots.close();
  }

  /** Starts a worker for every listed market (idempotent). */
  async discover(): Promise<void> {
    const listed = await this.store.readStream(MARKET_REGISTRY_STREAM);
    for (const e of listed) {
      const d = (e as unknown as MarketRegistryEvent).data;
      if (this.workers.has(d.market_uuid)) continue;
      const worker = new MarketWorker({ market_uuid: d.market_uuid, market_id: d.market_id }, this);
      this.workers.set(d.market_uuid, worker);
      worker.start();
    }
  }

  status(): Array<{ market_uuid: string; state: WorkerState; input_position: string | null; revision: string | null }> {
    return [...this.workers.values()].map((w) => ({
      market_uuid: w.market.market_uuid,
      state: w.state,
      input_position: w.engine?.lastInputPosition.toString() ?? null,
      revision: w.revision?.toString() ?? null,
    }));
  }

  /** The local engine, when this node runs the market (read-only use: depth, positions in tests). */
  engine(market_uuid: string): MarketEngine | null {
    const w = this.workers.get(market_uuid);
    return w?.state === 'running' ? w.engine : null;
  }

  /**
   * Takes a snapshot of the market's engine now, when this node runs it (at its last appended revision, after a batch
   * under way lands): for the benchmark and tests. True when one was written.
   */
  async snapshotNow(market_uuid: string): Promise<boolean> {
    const w = this.workers.get(market_uuid);
    return w?.state === 'running' ? w.snapshotNow() : false;
  }

  /**
   * Waits until the market's engine has decided every input up to `position` (local engine: in memory; another
   * node's: its stream tail). Null after `timeoutMs`.
   */
  async waitForEngine(market_uuid: string, position: bigint, timeoutMs: number): Promise<EngineProgress | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const local = this.workers.get(market_uuid)?.waitFor(position);
      if (local) return withTimeout(local, deadline - Date.now());
      const [last] = await this.store.readStream(engineStream(market_uuid), { direction: 'backwards', maxCount: 1 });
      if (last && BigInt((last.data as { input_position: string }).input_position) >= position) {
        return { appended_position: last.position, input_position: BigInt((last.data as { input_position: string }).input_position) };
      }
      if (Date.now() >= deadline) return null;
      // The engine's decision is a commit: wait for the next one (at most the old 15 ms poll), not a fixed pause.
      const pause = Math.min(15, deadline - Date.now());
      await (this.store.nextCommit ? this.store.nextCommit(pause) : new Promise((resolve) => setTimeout(resolve, pause)));
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  if (ms <= 0) return Promise.race([promise, Promise.resolve(null)]);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    void promise.then((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}
