/**
 * The subscription to the whole log the SQLite and PostgreSQL adapters share: catch-up then live, a bounded batch read
 * ahead at a time, woken by the next commit the store sees (its own process's, or another node's notification) or by
 * the poll interval. It needs of a store only what SubscribedLog says, so the files depend one way.
 */
import type { EventSubscription, RecordedEvent } from './event-store.port';

/** Waiters for the next commit a store sees, each with a poll timeout; `generation` counts the commits seen. */
export class CommitWaiters {
  private readonly waiters = new Set<() => void>();
  generation = 0;

  get size(): number {
    return this.waiters.size;
  }

  /** Resolves at the next `wake()`, or after `ms`. */
  wait(ms: number): { promise: Promise<void>; cancel(): void } {
    let done!: () => void;
    const promise = new Promise<void>((resolve) => (done = resolve));
    const timer = setTimeout(() => {
      this.waiters.delete(onCommit);
      done();
    }, ms);
    const onCommit = (): void => {
      clearTimeout(timer);
      done();
    };
    this.waiters.add(onCommit);
    return {
      promise,
      cancel: () => {
        clearTimeout(timer);
        this.waiters.delete(onCommit);
        done();
      },
    };
  }

  wake(): void {
    this.generation += 1;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }
}

/** What a subscription reads from and waits on (the store). */
export interface SubscribedLog {
  readonly isClosed: boolean;
  /** Commits seen so far (CommitWaiters.generation): one landing during a read is not waited past. */
  readonly commitGeneration: number;
  readBatch(after: bigint, maxCount: number): RecordedEvent[] | Promise<RecordedEvent[]>;
  waitForAppend(ms: number): { promise: Promise<void>; cancel(): void };
  forgetSubscription(sub: LogSubscription): void;
}

export class LogSubscription implements EventSubscription {
  private closed = false;
  private waiting: { cancel(): void } | null = null;

  constructor(
    private readonly store: SubscribedLog,
    private after: bigint,
    private readonly batchSize: number,
    private readonly pollIntervalMs: number,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    for await (const batch of this.batches(this.batchSize)) {
      for (const event of batch) {
        if (this.closed) return;
        yield event;
      }
    }
  }

  /** What one read returns is exactly what is available: handed over as it is, no per-event hand-off. */
  async *batches(maxSize: number): AsyncIterable<RecordedEvent[]> {
    try {
      while (!this.closed && !this.store.isClosed) {
        const seen = this.store.commitGeneration;
        let batch: RecordedEvent[];
        try {
          batch = await this.store.readBatch(this.after, maxSize);
        } catch (error) {
          if (this.closed || this.store.isClosed) return;
          throw error;
        }
        if (batch.length === 0) {
          // A commit seen while the read ran may hold what it missed: read again rather than wait.
          if (this.store.commitGeneration !== seen) continue;
          const wait = this.store.waitForAppend(this.pollIntervalMs);
          this.waiting = wait;
          await wait.promise;
          this.waiting = null;
          continue;
        }
        this.after = batch[batch.length - 1].position;
        yield batch;
      }
    } finally {
      this.closed = true;
      this.store.forgetSubscription(this);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiting?.cancel();
    this.store.forgetSubscription(this);
  }
}
