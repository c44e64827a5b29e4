/**
 * The EventStoreDB adapter's subscription to $all (catch-up, then live), resumed after a drop: its own file, depending
 * on the adapter only through the client and the pure mapping.
 */
import { END, EventStoreDBClient, ErrorType, START, excludeSystemEvents, type AllStreamSubscription, type Position } from '@eventstore/db-client';
import { availableBatches } from '../available-batches';
import type { EventSubscription, RecordedEvent } from '../event-store.port';
import { comparePositions, errorType, toPlatformError, toReadPosition, toRecordedEvent } from './eventstoredb.mapping';

const RESUBSCRIBE_BASE_MS = 100;
const RESUBSCRIBE_MAX_MS = 5000;

/** Errors that resubscribing cannot fix: surfaced to the consumer instead of retried forever. */
const FATAL_SUBSCRIPTION_ERRORS: ReadonlySet<unknown> = new Set([ErrorType.ACCESS_DENIED, ErrorType.INVALID_ARGUMENT, ErrorType.UNSUPPORTED]);

/**
 * Catch-up then live over $all. Pulled with for-await, so the client's bounded stream buffer (and gRPC flow control
 * behind it) is the only read-ahead. A dropped subscription is resumed from the last position seen, with backoff;
 * positions at or before it are skipped, so nothing is delivered twice and nothing is skipped.
 */
export class EventStoreDbSubscription implements EventSubscription {
  private closed = false;
  private started = false;
  private live: AllStreamSubscription | undefined;
  private wake: (() => void) | undefined;
  /** Last position seen (delivered, or filtered out as not ours). Undefined: from the start. */
  private last: Position | undefined;

  constructor(
    private readonly client: EventStoreDBClient,
    after: bigint | undefined,
    private readonly onClosed: (sub: EventStoreDbSubscription) => void,
    private readonly onDrop?: (error: unknown, failures: number) => void,
  ) {
    const start = toReadPosition(after);
    this.last = start === START || start === END ? undefined : start;
  }

  /** gRPC delivers one event at a time: grouped here into what has arrived. */
  batches(maxSize: number): AsyncIterable<RecordedEvent[]> {
    return availableBatches(this, maxSize);
  }

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    if (this.started) throw new Error('an event subscription can be iterated only once');
    this.started = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<RecordedEvent> {
    let failures = 0;
    try {
      while (!this.closed) {
        let sub: AllStreamSubscription | undefined;
        try {
          sub = this.client.subscribeToAll({ fromPosition: this.last ?? START, filter: excludeSystemEvents() });
          this.live = sub;
          sub.once('confirmation', () => (failures = 0));
          // A late error (after the loop has left) must not become an uncaught 'error' event.
          sub.on('error', () => undefined);
          for await (const resolved of sub) {
            if (this.closed) return;
            const pos = resolved.event?.position;
            if (!pos) continue; // no event (checkpoint-like message): nothing to deliver
            if (this.last && comparePositions(pos, this.last) <= 0) continue; // replayed after a resubscribe
            this.last = pos;
            const recorded = toRecordedEvent(resolved);
            if (recorded) yield recorded;
          }
          // The server ended a subscription we did not close: treat it like a drop.
          if (!this.closed) this.reportDrop(new Error('subscription ended by the server'), failures);
        } catch (err) {
          if (this.closed) return;
          if (FATAL_SUBSCRIPTION_ERRORS.has(errorType(err))) throw toPlatformError(err, '$all');
          this.reportDrop(err, failures);
        } finally {
          if (this.live === sub) this.live = undefined;
          await sub?.unsubscribe().catch(() => undefined);
        }
        if (this.closed) return;
        await this.backoff(failures++);
      }
    } finally {
      this.closed = true;
      this.onClosed(this);
    }
  }

  private reportDrop(error: unknown, failures: number): void {
    try {
      this.onDrop?.(error, failures);
    } catch {
      // A failing log hook must not end the subscription.
    }
  }

  /** 100 ms doubling to 5 s, with jitter; cut short by close(). */
  private backoff(failures: number): Promise<void> {
    const ceiling = Math.min(RESUBSCRIBE_MAX_MS, RESUBSCRIBE_BASE_MS * 2 ** failures);
    const ms = ceiling / 2 + Math.random() * (ceiling / 2);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).then(() => {
      this.wake = undefined;
    });
  }

  async close(): Promise<void> {
    if (this.closed && !this.live) return;
    this.closed = true;
    this.wake?.();
    const live = this.live;
    this.live = undefined;
    // Cancelling the gRPC call ends the for-await in run() cleanly (cancellation is not surfaced as an error).
    await live?.unsubscribe().catch(() => undefined);
    this.onClosed(this);
  }
}
