/**
 * The SQLite adapter's subscription to the whole log (sqlite.event-store.ts): catch-up then live, a bounded batch
 * read ahead at a time. It needs of the store only what SubscribedLog says, so the two files depend one way.
 */
import type { EventSubscription, RecordedEvent } from '../event-store.port';

/** What a subscription reads from and waits on (the store). */
export interface SubscribedLog {
  readonly isClosed: boolean;
  readAllSync(after: bigint, maxCount: number): RecordedEvent[];
  waitForAppend(ms: number): { promise: Promise<void>; cancel(): void };
  forgetSubscription(sub: SqliteSubscription): void;
}

/** Catch-up then live: reads a bounded batch ahead, then waits for the next commit (or polls). */
export class SqliteSubscription implements EventSubscription {
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
        const batch = this.store.readAllSync(this.after, maxSize);
        if (batch.length === 0) {
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

