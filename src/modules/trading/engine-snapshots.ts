/**
 * Engine snapshots off the request thread. Writing a 6,000-order book's snapshot on the event loop stopped every
 * request of the node for 50-100 ms: imaging the book (decimal strings) about 5 ms, its canonical JSON (a megabyte)
 * 15-40 ms, the commitment's hash 2 ms, then the insert and the sync. Here the host only captures the engine's state
 * (a copy of the book, about a millisecond) and sends it to the snapshot thread (engine-snapshot.worker.ts) in slices
 * of SLICE items, one per turn of the event loop (half a millisecond each); the thread images it and makes the event's
 * canonical texts, and the host appends those as they are (EventStore.appendPrepared). The SQLite store commits an
 * event that large on its writer thread, hash and sync included.
 */
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import type { JsonObject } from '../../platform/commitments/json';
import { canonicalTexts } from '../../platform/event-store/append-validation';
import type { CanonicalTexts, EventMetadata } from '../../platform/event-store/event-store.port';
import { startModuleWorker } from '../../platform/workers/module-worker';
import { snapshotImage, type EngineCapture } from './engine/market-engine';

/** The parts of a capture that grow with the market, sent in slices (the rest comes with `begin`). */
export const SLICED_PARTS = ['bids', 'asks', 'stops', 'positions'] as const;
export type SlicedPart = (typeof SLICED_PARTS)[number];

/** Items per message: a quarter to half a millisecond of the event loop's time for 500 orders (their structured clone). */
const SLICE = 500;

/** A build not answered by then is given up, and its thread ended (a fresh one takes the next). */
const BUILD_TIMEOUT_MS = 60_000;

export interface SnapshotEventHead {
  event_id: string;
  type: 'EngineSnapshotTaken';
  metadata: EventMetadata;
}

export interface SnapshotBegin {
  id: number;
  kind: 'begin';
  engine_revision: string;
  event: SnapshotEventHead;
  head: Omit<EngineCapture, SlicedPart>;
}

export type SnapshotRequest = SnapshotBegin | { id: number; kind: 'slice'; part: SlicedPart; items: unknown[] } | { id: number; kind: 'end' } | { id: number; kind: 'drop' };

/** `committed` is left out when it is the data's text itself (no sealed value): the megabyte crosses once. */
export type SnapshotAnswer = { id: number; texts: Omit<CanonicalTexts, 'committed'> & { committed?: string } } | { id: number; failure: string };

/** The EngineSnapshotTaken event's data. */
export function snapshotData(engine_revision: bigint | string, capture: EngineCapture): JsonObject {
  return { engine_revision: engine_revision.toString(), snapshot: snapshotImage(capture) as unknown as JsonObject };
}

/** The event's canonical texts, as the event store would make them of it (on the snapshot thread). */
export function snapshotTexts(begin: SnapshotBegin, capture: EngineCapture): CanonicalTexts {
  return canonicalTexts([{ ...begin.event, data: snapshotData(begin.engine_revision, capture) }])[0];
}

interface Waiting {
  worker: Worker;
  resolve(texts: CanonicalTexts): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
}

/**
 * The host's side of the snapshot thread: one thread for every market of the node, started at the first snapshot, not
 * keeping the process alive while idle. A thread that fails or dies fails the builds in its hands; the next build
 * starts a new one.
 */
export class SnapshotBuilder {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;

  constructor(private readonly modulePath = join(__dirname, 'engine-snapshot.worker')) {}

  /**
   * The snapshot event's canonical texts, made on the snapshot thread from `capture` (which the caller must not
   * change meanwhile: `MarketEngine.capture()` is detached). Rejects when the thread fails, dies or times out.
   */
  async build(capture: EngineCapture, engine_revision: bigint, event: SnapshotEventHead): Promise<CanonicalTexts> {
    const worker = this.thread();
    const id = ++this.next;
    const answer = new Promise<CanonicalTexts>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(id)?.reject(new Error(`engine snapshot not built within ${BUILD_TIMEOUT_MS} ms`));
        if (this.worker === worker) void this.close();
      }, BUILD_TIMEOUT_MS);
      timer.unref();
      this.waiting.set(id, { worker, resolve, reject, timer });
    });
    // A thread dying while slices are still being sent rejects it before it is awaited: not an unhandled rejection.
    answer.catch(() => undefined);
    worker.ref();
    const { bids: _b, asks: _a, stops: _s, positions: _p, ...head } = capture;
    worker.postMessage({ id, kind: 'begin', engine_revision: engine_revision.toString(), event, head } satisfies SnapshotRequest);
    for (const part of SLICED_PARTS) {
      const items = capture[part] as unknown[];
      for (let i = 0; i < items.length; i += SLICE) {
        await nextTurn();
        if (!this.waiting.has(id)) return answer;
        worker.postMessage({ id, kind: 'slice', part, items: items.slice(i, i + SLICE) } satisfies SnapshotRequest);
      }
    }
    worker.postMessage({ id, kind: 'end' } satisfies SnapshotRequest);
    return answer;
  }

  /** Ends the thread (builds under way fail); a later build starts another. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    await worker.terminate();
  }

  private settle(id: number): Waiting | undefined {
    const w = this.waiting.get(id);
    if (!w) return undefined;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    if (![...this.waiting.values()].some((o) => o.worker === w.worker)) w.worker.unref();
    return w;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(this.modulePath, {});
    worker.unref();
    worker.on('message', (a: SnapshotAnswer) => {
      const w = this.settle(a.id);
      if (!w) return;
      if ('texts' in a) w.resolve({ data: a.texts.data, committed: a.texts.committed ?? a.texts.data, metadata: a.texts.metadata });
      else w.reject(new Error(`engine snapshot failed on its thread: ${a.failure}`));
    });
    const died = (error: Error): void => {
      if (this.worker === worker) this.worker = null;
      for (const [id, w] of this.waiting) if (w.worker === worker) this.settle(id)?.reject(error);
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`the engine snapshot thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
