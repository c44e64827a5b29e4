/**
 * The PostgreSQL adapter's subscription to the whole log (postgres.event-store.ts): catch-up then live, a bounded
 * batch read ahead at a time, woken by commits (its own process's and other nodes' NOTIFY) or by the poll interval.
 */
import type { EventSubscription, ReadAllOptions, RecordedEvent } from '../event-store.port';

/** What a subscription reads from and waits on (the store). */
export interface SubscribedPostgresLog {
  readonly isClosed: boolean;
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  waitForAppend(ms: number): { promise: Promise<void>; cancel(): void };
  forgetSubscription(sub: PostgresSubscription): void;
}

export class PostgresSubscription implements EventSubscription {
  private closed = false;
  private waiting: { cancel(): void } | null = null;

  constructor(
    private readonly store: SubscribedPostgresLog,
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

  async *batches(maxSize: number): AsyncIterable<RecordedEvent[]> {
    try {
      while (!this.closed && !this.store.isClosed) {
        // Register for the wake-up before reading: a commit landing between the read and the wait is not missed.
        const wait = this.store.waitForAppend(this.pollIntervalMs);
        let batch: RecordedEvent[];
        try {
          batch = await this.store.readAll({ after: this.after, maxCount: maxSize });
        } catch (error) {
          wait.cancel();
          if (this.closed || this.store.isClosed) return;
          throw error;
        }
        if (batch.length === 0) {
          this.waiting = wait;
          await wait.promise;
          this.waiting = null;
          continue;
        }
        wait.cancel();
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
