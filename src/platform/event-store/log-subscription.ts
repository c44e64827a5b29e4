/**
 * The subscription to the whole log the SQLite and PostgreSQL adapters share: catch-up then live, a bounded batch read
 * ahead at a time, woken by the next commit the store sees (its own process's, or another node's notification) or by
 * the poll interval. It needs of a store only what SubscribedLog says, so the files depend one way.
 */
import { unparsedData } from './lazy-data';
import type { EventSubscription, PassOver, RecordedEvent } from './event-store.port';

/**
 * Waiters for the next commit a store sees, each with a poll timeout; `generation` counts the commits seen. After a
 * commit every live subscription (each projector, engine and job) waits again, so the timeouts share one timer, armed
 * for the earliest: a timer each was a large part of what a commit allocated, and the young generation's collections
 * that follow pause the event loop.
 */
export class CommitWaiters {
  private readonly waiters = new Map<() => void, { deadline: number; owner: LogSubscription | undefined }>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  generation = 0;

  get size(): number {
    return this.waiters.size;
  }

  /** Resolves at the next `wake()` (unless its owner passes the commit over), or after `ms`. */
  wait(ms: number, owner?: LogSubscription): { promise: Promise<void>; cancel(): void } {
    let done!: () => void;
    const promise = new Promise<void>((resolve) => (done = resolve));
    const deadline = Date.now() + ms;
    this.waiters.set(done, { deadline, owner });
    if (deadline < this.timerAt) this.arm(deadline);
    return {
      promise,
      cancel: () => {
        this.waiters.delete(done);
        if (this.waiters.size === 0) this.disarm();
        done();
      },
    };
  }

  /**
   * Wakes the waiters, but for subscriptions that pass over what was committed (`committed`: this process's commit,
   * in position order): they keep waiting, already past it, at no cost of a step each.
   *
   * One waiter per turn of the event loop: a subscriber's step (a projector's transaction, an engine's decision) runs
   * on promises alone, so woken together they all ran before the loop looked at its sockets again, and a request
   * that arrived meanwhile waited for every one of them. In turns, it waits for one at most; and the commit's
   * appenders and the requests served between the turns join the next steps' batches. The subscribers something
   * waits for (SubscribeOptions.awaited: a request's read-your-writes) take the first turns: behind the others', a
   * placement answered about 10% later. Measured on 2026-11-28 (test/bench/README.md): the profiler's placements at
   * 32 connections 2,483-2,515 → 2,888-3,181 a second; the liveness probe's p99 while orders flow 3.9-4.3 → 3.2 ms.
   */
  wake(committed: readonly CommittedEvent[] = []): void {
    this.generation += 1;
    const passable = committed.length > 0;
    const woken: Woken[] = [];
    // Resolving only queues the waiters' continuations: none waits again before the wake is over.
    for (const [wake, { owner }] of this.waiters) {
      if (passable && owner?.passesOver(committed)) continue;
      this.waiters.delete(wake);
      woken.push({ wake, owner });
    }
    if (woken.length > 0) wakeInTurns(woken);
    // Nobody waits now: no timer left to hold a closing process (the next waits arm one).
    if (this.waiters.size === 0) this.disarm();
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.expire(), Math.max(0, at - Date.now()));
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  /** Ends the waits that are due, and arms the timer for the next (none if nobody waits: a wake emptied the set). */
  private expire(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const [done, { deadline }] of this.waiters) {
      if (deadline <= now) {
        this.waiters.delete(done);
        done();
      } else if (deadline < next) next = deadline;
    }
    if (next !== Infinity) this.arm(next);
  }
}

interface Woken {
  wake: () => void;
  owner: LogSubscription | undefined;
}

/**
 * Wakes one subscription in this turn, one that something waits for if any (else the first), and the rest in the next
 * turns of the event loop (setImmediate: after the sockets' poll), the same way. Asked anew each turn: a request's wait
 * for the projectors starts after the commit that woke them (its append resolves first), so it shows from the second.
 */
function wakeInTurns(woken: Woken[]): void {
  const next = woken.find((w) => w.owner?.isAwaited() === true) ?? woken[0];
  next.wake();
  if (woken.length > 1) setImmediate(() => wakeInTurns(woken.filter((w) => w !== next)));
}

/**
 * The events after `after` out of a run kept in memory (consecutive positions from `start`), at most `maxCount`, or
 * null when `after` is not within it. A row still holding its JSON text is parsed once, for every reader after this
 * one too (the SQLite and PostgreSQL stores' tails: readers treat recorded events as immutable, they are shared).
 */
export function keptAfter<R extends { data: unknown }>(kept: Array<R | RecordedEvent>, start: bigint, after: bigint, maxCount: number, parse: (row: R) => RecordedEvent): RecordedEvent[] | null {
  const from = after + 1n - start;
  if (kept.length === 0 || from < 0n || from >= BigInt(kept.length)) return null;
  const first = Number(from);
  const end = Math.min(kept.length, first + maxCount);
  const out: RecordedEvent[] = [];
  for (let i = first; i < end; i++) {
    const slot = kept[i];
    // A large event parsed already keeps its data text aside (lazy-data.ts): asking it would parse it.
    out.push(unparsedData(slot) === undefined && typeof slot.data === 'string' ? (kept[i] = parse(slot as R)) : (slot as RecordedEvent));
  }
  return out;
}

/** What a commit wake-up says of each event it committed. */
export interface CommittedEvent {
  readonly type: string;
  readonly position: bigint;
  readonly occurred_at: string;
}

/** What a subscription reads from and waits on (the store). */
export interface SubscribedLog {
  readonly isClosed: boolean;
  /** Commits seen so far (CommitWaiters.generation): one landing during a read is not waited past. */
  readonly commitGeneration: number;
  readBatch(after: bigint, maxCount: number): RecordedEvent[] | Promise<RecordedEvent[]>;
  waitForAppend(ms: number, owner?: LogSubscription): { promise: Promise<void>; cancel(): void };
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
    private readonly passOver?: PassOver,
    private readonly awaited?: () => boolean,
  ) {}

  /** Whether something waits for this subscription's consumer to take the next commit (SubscribeOptions.awaited). */
  isAwaited(): boolean {
    return this.awaited?.() === true;
  }

  /**
   * While waiting: whether a commit that starts right after this subscription's position holds nothing its consumer
   * acts on, and so moves it past without a step (the consumer is told how far). After each commit most of the
   * projectors wait for other event types; a step each, through the promises of the subscription, the sealing layer
   * and the runner, was a large share of a placement's CPU.
   */
  passesOver(committed: readonly CommittedEvent[]): boolean {
    const pass = this.passOver;
    if (!pass || this.closed || this.waiting === null || committed[0].position !== this.after + 1n) return false;
    for (const e of committed) if (pass.types.has(e.type)) return false;
    const last = committed[committed.length - 1];
    try {
      pass.passed(last.position, last.occurred_at);
    } catch {
      return false; // the consumer could not take it: it reads the events as usual
    }
    this.after = last.position;
    return true;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    for await (const batch of this.batches(this.batchSize)) {
      for (const event of batch) {
        if (this.closed) return;
        yield event;
      }
    }
  }

  /**
   * What one read returns is exactly what is available: handed over as it is, no per-event hand-off. A plain iterator
   * rather than an async generator: after each commit every subscription takes a step, and a generator's step costs
   * several promises where this costs one when the log already holds the batch.
   */
  batches(maxSize: number): AsyncIterable<RecordedEvent[]> {
    const iterator: AsyncIterator<RecordedEvent[]> = {
      next: () => this.nextBatch(maxSize),
      return: async () => {
        this.finish();
        return { done: true, value: undefined };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  private async nextBatch(maxSize: number): Promise<IteratorResult<RecordedEvent[]>> {
    try {
      while (!this.closed && !this.store.isClosed) {
        const seen = this.store.commitGeneration;
        let batch: RecordedEvent[];
        try {
          // The SQLite store reads synchronously: no await (a promise, and its hooks) when there is nothing to wait for.
          const read = this.store.readBatch(this.after, maxSize);
          batch = read instanceof Promise ? await read : read;
        } catch (error) {
          if (this.closed || this.store.isClosed) break;
          throw error;
        }
        if (batch.length === 0) {
          // A commit seen while the read ran may hold what it missed: read again rather than wait.
          if (this.store.commitGeneration !== seen) continue;
          const wait = this.store.waitForAppend(this.pollIntervalMs, this);
          this.waiting = wait;
          await wait.promise;
          this.waiting = null;
          continue;
        }
        this.after = batch[batch.length - 1].position;
        return { done: false, value: batch };
      }
    } catch (error) {
      this.finish();
      throw error;
    }
    this.finish();
    return { done: true, value: undefined };
  }

  /** Ended: by its consumer, by a failed read, or with the store. */
  private finish(): void {
    this.closed = true;
    this.store.forgetSubscription(this);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiting?.cancel();
    this.store.forgetSubscription(this);
  }
}
