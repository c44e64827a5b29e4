/**
 * What a PostgreSQL event store process knows of the log without asking the database (see the store's module comment):
 * the newest events (the tail every subscription at the head reads, fed by this process's commits and one shared fetch
 * of each other node's), and where streams end. Reads of a stream's end are answered from here behind one shared check
 * of the database's head, so they stay linearizable.
 */
import { currentContext } from '../../context/request-context';
import type { RecordedEvent } from '../event-store.port';
import { keptAfter, type CommittedEvent } from '../log-subscription';
import { committedOf, toRecorded, type EventRow } from './postgres-rows';

/** Newest events kept for the subscriptions at the head (see PostgresLogTail.tail). */
const TAIL_CACHE_SIZE = 20_000;
/** Streams whose end this process knows (see PostgresLogTail.ends); the oldest learned is forgotten first. */
const KNOWN_ENDS = 20_000;
/** Rows one shared fetch of other nodes' commits reads at most. */
const FETCH_SIZE = 1000;

/**
 * Where a stream ends, as this process last saw it: what the one-round-trip append chains from (and checks), and,
 * while the tail has followed the log without a gap since it was learned (`epoch`), what a read of the stream's end
 * answers without a query (readStream, after the shared head check). `last` is the event itself where it was seen.
 */
export interface StreamEnd {
  revision: bigint;
  commitment: string;
  last: EventRow | RecordedEvent | null;
  epoch: number;
}

/** A row or an event as the tail and the stream ends keep them. */
type KeptEvent = EventRow | RecordedEvent;

export interface LogTailSource {
  /** Rows after `after` in position order, at most `maxCount`. */
  selectAfter(after: bigint, maxCount: number): Promise<EventRow[]>;
  /** The log's head, read now. */
  readHead(): Promise<bigint>;
  /** New events have reached the tail: wake the subscribers (what they were, for those that pass them over). */
  wake(committed: CommittedEvent[]): void;
  /** How long a caught-up reader trusts that nothing new came without a notification (the poll fallback). */
  readonly pollIntervalMs: number;
}

export class PostgresLogTail {
  /**
   * The newest events of the log, with consecutive positions from `tailStart` (empty: nothing kept yet). Every
   * subscription at the head (each projector, engine and job) reads them from here, parsed by the first reader and
   * shared after. Consumers treat recorded events as immutable (they are shared), as with the SQLite store.
   */
  private tail: Array<EventRow | RecordedEvent> = [];
  private tailStart = 0n;
  /** The newest head this process has heard of: its commits, other nodes' notifications, its own reads. */
  private knownHead = 0n;
  /** When the database's head was last read (a shared fetch): the poll fallback reads again after pollIntervalMs. */
  private headReadAt = 0;
  private fetching: Promise<void> | null = null;
  /** Stream ends as this process last saw them (see StreamEnd). */
  private readonly ends = new Map<string, StreamEnd>();
  /** Counts the tail's restarts: an end learned in an earlier epoch may have missed events in the gap. */
  epoch = 0;
  /** The shared head check under way, and the next one (for callers that arrived while it was sent). */
  private headCheck: Promise<bigint> | null = null;
  /** The head check each request in flight was answered with: its later reads see the log as of it (a snapshot). */
  private readonly checkedBy = new WeakMap<object, bigint>();
  private nextHeadCheck: Promise<bigint> | null = null;

  constructor(private readonly source: LogTailSource) {}

  /** The end known for `stream` whatever its epoch (an append chains from it; append_events checks it). */
  endOf(stream: string): StreamEnd | undefined {
    return this.ends.get(stream);
  }

  /** What this process knew of the stream was stale (a conflict): its next read goes to the table. */
  forget(stream: string): void {
    this.ends.delete(stream);
  }

  /**
   * Another node announced a commit up to `head`, with its events where they fit the notification: those that follow
   * the tail go in at once (no read of the table) and wake the subscribers; otherwise true when the commit is news (the
   * subscribers should read it).
   */
  heard(head: bigint, rows: EventRow[] | null = null): boolean {
    if (head <= this.knownHead) return false;
    const tailEnd = this.tailStart + BigInt(this.tail.length) - 1n;
    if (rows !== null && rows.length > 0 && this.tailStart > 0n && BigInt(rows[0].position) === tailEnd + 1n && this.fetching === null) {
      for (const row of rows) this.learnEnd(row);
      this.extend(rows);
      this.knownHead = head;
      this.source.wake(rows.map(committedOf));
      return false;
    }
    this.knownHead = head;
    return true;
  }

  /** A fetch under way ends before the store's pool does. */
  async settle(): Promise<void> {
    await this.fetching?.catch(() => undefined);
  }

  /** This process's commit, just landed: into the tail when it follows it, and its streams' ends. */
  remember(rows: EventRow[]): void {
    if (rows.length === 0) return;
    for (const row of rows) this.learnEnd(row);
    const last = BigInt(rows[rows.length - 1].position);
    if (last > this.knownHead) this.knownHead = last;
    // A gap (another node committed in between) is filled by the next shared fetch, which reads this commit too.
    if (BigInt(rows[0].position) === this.tailStart + BigInt(this.tail.length) && (this.tail.length > 0 || this.tailStart > 0n)) this.extend(rows);
  }

  /** Appends rows that follow the tail (consecutive), dropping the oldest half once it grows past its size. */
  private extend(rows: Array<EventRow | RecordedEvent>): void {
    for (const row of rows) this.tail.push(row);
    if (this.tail.length > TAIL_CACHE_SIZE) {
      const drop = this.tail.length - TAIL_CACHE_SIZE / 2;
      this.tail = this.tail.slice(drop);
      this.tailStart += BigInt(drop);
    }
  }

  /** The stream ends at `row` (as of the tail's epoch `epoch`, default the current one); never moves back. */
  learnEnd(row: KeptEvent, epoch = this.epoch): void {
    const revision = BigInt(row.revision);
    const known = this.ends.get(row.stream);
    if (known && (known.revision > revision || (known.revision === revision && known.epoch >= epoch))) return;
    this.ends.delete(row.stream);
    this.ends.set(row.stream, { revision, commitment: row.event_commitment, last: row, epoch });
    if (this.ends.size > KNOWN_ENDS) this.ends.delete(this.ends.keys().next().value as string);
  }

  /** The tail starts again at `start` (a gap from what it held, or its first start): ends learned before may be stale. */
  private restartTail(start: bigint): void {
    this.tail = [];
    this.tailStart = start;
    this.epoch += 1;
  }

  /**
   * The end of `stream` as the log has it now, from memory, or undefined when this process cannot tell without reading
   * the stream. "Now" is linearizable: the database's head is read after the call (one read shared by every caller
   * waiting at the time), the tail brought up to it, and the end answered only if learned while the tail followed the
   * log without a gap since. Null: the stream has no event.
   */
  async currentEnd(stream: string): Promise<StreamEnd | null | undefined> {
    if (this.tailStart === 0n || this.ends.get(stream)?.epoch !== this.epoch) return undefined;
    // A check sent after the request arrived serves its every read: one round trip per request at most.
    const request = currentContext();
    let head = request ? this.checkedBy.get(request) : undefined;
    if (head === undefined) {
      head = await this.checkHead();
      if (request) this.checkedBy.set(request, head);
    }
    for (let rounds = 0; this.tailStart + BigInt(this.tail.length) - 1n < head; rounds++) {
      if (rounds >= 3) return undefined; // far behind: a read of the stream is cheaper than catching up here
      const epoch = this.epoch;
      await this.fetchShared();
      if (epoch !== this.epoch) return undefined;
    }
    const end = this.ends.get(stream);
    return end?.epoch === this.epoch ? end : undefined;
  }

  /**
   * The log's head, read by a query sent after this call: callers that arrive while one is in flight share the next.
   * One round trip for every caller of a turn, in place of a read of each stream.
   */
  private checkHead(): Promise<bigint> {
    if (this.headCheck === null) {
      this.headCheck = this.readHead().finally(() => {
        this.headCheck = null;
      });
      return this.headCheck;
    }
    this.nextHeadCheck ??= this.headCheck.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      this.nextHeadCheck = null;
      return this.checkHead();
    });
    return this.nextHeadCheck;
  }

  private async readHead(): Promise<bigint> {
    const head = await this.source.readHead();
    if (head > this.knownHead) this.knownHead = head;
    return head;
  }

  parsedLast(end: StreamEnd): RecordedEvent {
    const last = end.last!;
    return typeof last.data === 'string' ? (end.last = toRecorded(last as EventRow)) : (last as RecordedEvent);
  }

  /**
   * A subscription's next batch: from the tail while it holds the position; once caught up with it, nothing without
   * a query while no commit is known beyond it (the poll fallback reads once per poll interval, shared); behind it
   * (a catch-up), straight from the table, and a read that reaches the head starts the tail where none is kept.
   */
  async readBatch(after: bigint, maxCount: number): Promise<RecordedEvent[]> {
        const kept = this.fromTail(after, maxCount);
    if (kept) return kept;
    const tailEnd = this.tailStart + BigInt(this.tail.length) - 1n;
    if (this.tailStart > 0n && after === tailEnd) {
      if (this.knownHead <= tailEnd && Date.now() - this.headReadAt < this.source.pollIntervalMs) return [];
      await this.fetchShared();
      return this.fromTail(after, maxCount) ?? [];
    }
    const rows = await this.source.selectAfter(after, maxCount);
    const last = rows.length > 0 ? BigInt(rows[rows.length - 1].position) : after;
    if (last > this.knownHead) this.knownHead = last;
    // Short of the limit: the read saw the log's end. Nothing kept yet, or what is kept ends before: keep from here.
    if (rows.length < maxCount && (this.tailStart === 0n || last > this.tailStart + BigInt(this.tail.length) - 1n)) {
      this.restartTail(after + 1n);
      this.headReadAt = Date.now();
      for (const row of rows) this.learnEnd(row);
      this.extend(rows);
    }
    return rows.map(toRecorded);
  }

  private fromTail(after: bigint, maxCount: number): RecordedEvent[] | null {
    return this.tailStart === 0n ? null : keptAfter<EventRow>(this.tail, this.tailStart, after, maxCount, toRecorded);
  }

  /** Reads what follows the tail, once for every subscriber waiting on it; new events wake the others too. */
  private fetchShared(): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const after = this.tailStart + BigInt(this.tail.length) - 1n;
        const rows = await this.source.selectAfter(after, FETCH_SIZE);
        if (rows.length < FETCH_SIZE) this.headReadAt = Date.now();
        // Own commits may have followed the tail meanwhile: keep only what comes after it now.
        const tailEnd = this.tailStart + BigInt(this.tail.length) - 1n;
        const fresh = rows.filter((r) => BigInt(r.position) > tailEnd);
        if (fresh.length === 0 || BigInt(fresh[0].position) !== tailEnd + 1n) return;
        for (const row of fresh) this.learnEnd(row);
        this.extend(fresh);
        const last = BigInt(fresh[fresh.length - 1].position);
        if (last > this.knownHead) this.knownHead = last;
        this.source.wake(fresh.map(committedOf));
      } finally {
        this.fetching = null;
      }
    })();
    return this.fetching;
  }
}
