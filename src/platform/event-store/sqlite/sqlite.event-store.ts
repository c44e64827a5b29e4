/**
 * Embedded event store on SQLite (better-sqlite3). WAL + synchronous=FULL: an append is acknowledged only after
 * its transaction is durable. Appends that arrive while a commit is pending are committed together in one
 * transaction (group commit: at low load a write waits for no company, under load the next batch gathers while the
 * disk syncs); each append runs in its own savepoint so one writer's conflict never fails another's. Commits run in
 * place, or (SQLITE_WRITER_THREAD) on a writer thread with its own connection (sqlite-writer.worker.ts), so the fsync
 * does not stop the event loop that serves requests, projectors and engines; reads stay on this thread's connection.
 * A batch holding a large event (an engine snapshot: a megabyte to hash, write and sync) goes to the writer thread
 * either way, so that it never stops the event loop either.
 */
import type Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { VersionConflict } from '../../errors';
import {
  describeExpected,
  type AppendResult,
  type EventStore,
  type EventSubscription,
  type ExpectedRevision,
  type NewEvent,
  type PreparedEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../event-store.port';
import { canonicalTexts, idempotentReplayOf, validateAppend, type CanonicalTexts } from '../append-validation';
import { prepareDataDir, privateSqliteFiles } from '../../security/data-dir';
import { CommitWaiters, keptAfter, LogSubscription } from '../log-subscription';
import { LAZY_DATA_CHARS, withLazyData } from '../lazy-data';
import { batchCommitter, openLogConnection, safe, type AppendOutcome, type AppendRequest, type BatchOutcome, type EventRow } from './sqlite-append-batch';
import { WriterThread } from './sqlite-writer-thread';

export { EVENTS_SCHEMA, INSERT_EVENT, type EventRow } from './sqlite-append-batch';

interface PendingAppend extends AppendRequest {
  /** Over LARGE_EVENT: its batch commits on the writer thread. */
  large: boolean;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

export interface SqliteEventStoreOptions {
  /** File path, or ':memory:' for throwaway stores. */
  filename: string;
  /** How often a live subscription looks for appends made by other processes (ms). */
  pollIntervalMs?: number;
  /** Events a subscription reads ahead of its consumer. */
  subscriptionBatchSize?: number;
  /**
   * Commit on a writer thread (SQLITE_WRITER_THREAD) rather than in place on this thread's connection, the default.
   * Files only: an in-memory store has one connection.
   */
  writerThread?: boolean;
}

/** Characters of an event's data above which its batch commits on the writer thread even when commits run in place. */
const LARGE_EVENT = 64 * 1024;

/** Newest committed events kept parsed for subscriptions at the head (see SqliteEventStore.tail). */
const TAIL_CACHE_SIZE = 20_000;

/** Streams whose head this process knows (see SqliteEventStore.heads); the oldest learned is forgotten first. */
const KNOWN_HEADS = 20_000;

/** What this process knows of a stream's end: no event at `absentFrom` or after; `last` is the one before, if kept. */
interface StreamHead {
  absentFrom: bigint;
  last: EventRow | RecordedEvent | null;
}

export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly filename: string;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  /** The batch being committed (one at a time: the next gathers meanwhile), until its outcome is settled. */
  private inFlight: Promise<void> | null = null;
  /** The event ids of that batch: rows the file may hold before its outcome arrives, known to be this process's. */
  private inFlightIds = new Set<string>();
  private closed = false;
  private readonly appendWaiters = new CommitWaiters();
  /** Told of every commit of this store, as it lands (the main thread tells its worker threads: onCommitted). */
  private readonly committedListeners = new Set<(rows: EventRow[]) => void>();
  private readonly subscriptions = new Set<LogSubscription>();
  /**
   * The newest events this process committed, with consecutive positions from `tailStart`: every subscription at
   * the head (each projector, each market engine) reads them from here, parsed by the first reader and shared after,
   * instead of selecting and parsing the same rows again. A gap (another process appended to the file) restarts the
   * run; readers past it use SQL. Consumers must treat recorded events as immutable (they are shared).
   */
  private tail: Array<EventRow | RecordedEvent> = [];
  private tailStart = 0n;
  /** caughtUpThisTurn's reading of the log's head, and of whose events follow the tail, until the turn ends. */
  private turnHead: bigint | null = null;
  private turnOwnAfter: { position: bigint; own: boolean } | null = null;
  /**
   * Where streams end, as this process last saw them (its reads and its own commits). A command's reload of a stream
   * with nothing new, or a session's revocation check, then needs no query. They hold while the log ends at
   * `headsPosition` or with this process's commit under way: when `PRAGMA data_version` says another connection (the
   * writer thread, or another process) committed, the events after it are looked up (one indexed read), and any that
   * is not this process's own forgets them all, as does the writer's word that another connection committed first.
   */
  private readonly heads = new Map<string, StreamHead>();
  private headsVersion: number;
  private headsPosition: bigint;

  private readonly stmt: {
    forwards: Database.Statement<[string, bigint, number], EventRow>;
    backwards: Database.Statement<[string, bigint, number], EventRow>;
    all: Database.Statement<[bigint, number], EventRow>;
    head: Database.Statement<[], { head: bigint | null }>;
    idsAfter: Database.Statement<[bigint, number], { event_id: string }>;
    dataVersion: Database.Statement<[], { data_version: number }>;
  };
  /** Commits one batch on this thread's connection; null when the writer thread commits. */
  private readonly commitInPlace: ((batch: AppendRequest[]) => BatchOutcome) | null;
  private writer: WriterThread | null = null;

  constructor(options: SqliteEventStoreOptions) {
    if (options.filename !== ':memory:') {
      prepareDataDir(dirname(options.filename));
      privateSqliteFiles(options.filename);
    }
    this.filename = options.filename;
    this.db = openLogConnection(options.filename);
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.batchSize = options.subscriptionBatchSize ?? 512;

    this.stmt = {
      forwards: safe(this.db.prepare('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision ASC LIMIT ?')),
      backwards: safe(this.db.prepare('SELECT * FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?')),
      all: safe(this.db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position ASC LIMIT ?')),
      head: safe(this.db.prepare('SELECT MAX(position) AS head FROM events')),
      idsAfter: safe(this.db.prepare('SELECT event_id FROM events WHERE position > ? ORDER BY position ASC LIMIT ?')),
      dataVersion: this.db.prepare('PRAGMA data_version'),
    };
    this.headsVersion = this.stmt.dataVersion.get()!.data_version;
    this.headsPosition = this.readHead();
    if (options.writerThread && options.filename === ':memory:') throw new Error('an in-memory event store has no file for a writer thread to open');
    this.commitInPlace = options.writerThread ? null : batchCommitter(this.db);
  }

  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.enqueue(stream, events, expected, () => canonicalTexts(events));
  }

  appendPrepared(stream: string, events: PreparedEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.enqueue(stream, events, expected, () => events.map((e) => e.texts));
  }

  private enqueue(stream: string, events: Array<NewEvent | PreparedEvent>, expected: ExpectedRevision, textsOf: () => CanonicalTexts[]): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    let texts: CanonicalTexts[];
    try {
      validateAppend(stream, events, expected);
      texts = textsOf();
    } catch (error) {
      return Promise.reject(error);
    }
    // The append time, when the writer gave none, is taken here rather than in the transaction: what a worker
    // message carries is plain data.
    const now = events.some((e) => e.occurred_at === undefined) ? new Date().toISOString() : '';
    const wire = events.map((e) => ({ event_id: e.event_id, type: e.type, occurred_at: e.occurred_at ?? now }));
    return new Promise<AppendResult>((resolve, reject) => {
      this.pending.push({ stream, events: wire, texts, expected, large: texts.some((t) => t.data.length > LARGE_EVENT), resolve, reject });
      if (!this.flushScheduled && this.inFlight === null) {
        this.flushScheduled = true;
        // setImmediate lets every append issued in this turn of the event loop join the same commit.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits what is pending, if no commit is under way; a commit's end commits what gathered meanwhile. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.inFlight !== null || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    if (this.commitInPlace && (this.filename === ':memory:' || !batch.some((req) => req.large))) {
      let outcome: BatchOutcome;
      try {
        outcome = this.commitInPlace(batch);
      } catch (error) {
        for (const req of batch) req.reject(error);
        return;
      }
      this.settle(batch, outcome);
      return;
    }
    this.writer ??= new WriterThread(this.filename);
    for (const req of batch) for (const e of req.events) this.inFlightIds.add(e.event_id);
    this.inFlight = this.writer.commit(batch.map(({ stream, expected, events, texts }) => ({ stream, expected, events, texts }))).then(
      (outcome) => this.settle(batch, outcome),
      (error: unknown) => {
        this.inFlightIds.clear();
        for (const req of batch) req.reject(error);
      },
    ).finally(() => {
      this.inFlight = null;
      this.flush();
    });
  }

  private settle(batch: PendingAppend[], { outcomes, foreign }: BatchOutcome): void {
    this.inFlightIds.clear();
    if (foreign) {
      this.heads.clear();
      this.headsPosition = -1n;
    }
    let last: bigint | null = null;
    const committed: EventRow[] = [];
    for (const outcome of outcomes) {
      if ('ok' in outcome && outcome.recorded.length > 0) {
        last = outcome.recorded[outcome.recorded.length - 1].position;
        for (const e of outcome.recorded) committed.push(e);
      }
    }
    // The commit held the write lock: the log's head is its last event. Heads already checked against a later head
    // (another connection's commit, seen before this outcome arrived) learn nothing from this older commit.
    const learns = last !== null && last >= this.headsPosition;
    if (learns) this.headsPosition = last!;
    if (last !== null && this.turnHead !== null && last > this.turnHead) this.turnHead = last;
    batch.forEach((req, i) => this.settleOne(req, outcomes[i], learns));
    this.appendWaiters.wake(committed);
    if (committed.length > 0) for (const listener of this.committedListeners) listener(committed);
  }

  /**
   * Another thread committed up to `position` (its announcement carried no rows: serializing them cost the committing
   * thread more than reading them costs here): the rows after the tail are read once, for every subscription, and
   * join it as if heard. At most a tail's worth: beyond that the subscriptions read the file a batch at a time.
   */
  heardUpTo(position: bigint): void {
    if (this.closed) return;
    const end = this.tail.length > 0 ? this.tailStart + BigInt(this.tail.length) - 1n : this.headsPosition;
    if (position <= end) return;
    const count = position - end > BigInt(TAIL_CACHE_SIZE / 2) ? TAIL_CACHE_SIZE / 2 : Number(position - end);
    this.heard(this.stmt.all.all(end < 0n ? 0n : end, count));
  }

  /** Calls `listener` with the rows of each commit this store makes, once durable, until the returned stop. */
  onCommitted(listener: (rows: EventRow[]) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /**
   * Another thread's commit to this log, as it announced it (onCommitted there), or none (rows not sent): its rows join the tail, so the
   * subscriptions here read them without a query, and wake now rather than at their next poll. Rows that do not follow
   * the tail start it again (remember); any missed are read from the file as another process's appends are.
   */
  heard(rows: EventRow[]): void {
    if (this.closed) return;
    // Told only that the log moved on (the teller's queue to this thread was full): every subscription looks.
    if (rows.length === 0) return this.appendWaiters.wake();
    // What the tail holds already (this thread's own commit, heard back) is not news.
    const end = this.tailStart + BigInt(this.tail.length);
    const fresh = this.tail.length > 0 ? rows.filter((row) => row.position >= end) : rows;
    if (fresh.length === 0) return;
    this.remember(fresh);
    const last = fresh[fresh.length - 1].position;
    if (this.turnHead !== null && last > this.turnHead) this.turnHead = last;
    this.appendWaiters.wake(fresh);
  }

  private settleOne(req: PendingAppend, outcome: AppendOutcome, learns: boolean): void {
    if ('replay' in outcome) {
      try {
        // A retry of a write that succeeded answers its original result; anything else is a conflict.
        const replay = idempotentReplayOf(req.stream, req.events, req.expected, outcome.replay.current, outcome.replay.found);
        if (replay) req.resolve(replay);
        else req.reject(new VersionConflict(req.stream, describeExpected(req.expected), outcome.replay.current));
      } catch (error) {
        req.reject(error);
      }
      return;
    }
    const { recorded } = outcome;
    this.remember(recorded);
    if (learns && recorded.length > 0) this.learnAppended(req.stream, recorded[recorded.length - 1]);
    req.resolve(outcome.ok);
  }

  private remember(events: EventRow[]): void {
    if (events.length === 0) return;
    const first = events[0].position;
    if (this.tail.length === 0 || first !== this.tailStart + BigInt(this.tail.length)) {
      this.tail = [];
      this.tailStart = first;
    }
    for (const e of events) this.tail.push(e);
    if (this.tail.length > TAIL_CACHE_SIZE) {
      const drop = this.tail.length - TAIL_CACHE_SIZE / 2;
      this.tail = this.tail.slice(drop);
      this.tailStart += BigInt(drop);
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    const known = this.knownHeads().get(stream);
    if (options.direction === 'backwards') {
      const fromHead = options.fromRevision === undefined;
      if (known && fromHead && limit >= 1) {
        if (known.absentFrom === 0n) return [];
        if (known.last && limit === 1) return [this.parsedLast(known)];
      }
      const rows = this.stmt.backwards.all(stream, options.fromRevision ?? BigInt(Number.MAX_SAFE_INTEGER), limit);
      if (fromHead && limit >= 1) this.learn(stream, rows.length === 0 ? { absentFrom: 0n, last: null } : { absentFrom: rows[0].revision + 1n, last: keepable(rows[0]) });
      return rows.map(toRecorded);
    }
    const from = options.fromRevision ?? 0n;
    if (known && from >= known.absentFrom) return [];
    const recorded = this.stmt.forwards.all(stream, from, limit).map(toRecorded);
    // A read that stopped short of its limit has seen the stream's end.
    if (recorded.length < limit) {
      const end = recorded.length === 0 ? from : recorded[recorded.length - 1].revision + 1n;
      if (!known || end !== known.absentFrom) this.learn(stream, { absentFrom: end, last: null });
    }
    return recorded;
  }

  /**
   * The known heads, or none once a commit other than this process's own has landed since they were checked.
   * `PRAGMA data_version` tells for a few microseconds that some other connection committed; the writer thread is
   * one, so the events after the known head then tell whose it was.
   */
  private knownHeads(): Map<string, StreamHead> {
    const version = this.stmt.dataVersion.get()!.data_version;
    if (version !== this.headsVersion) {
      this.headsVersion = version;
      if (!this.onlyOwnAfter(this.headsPosition)) {
        this.heads.clear();
        this.headsPosition = this.readHead();
      }
    }
    return this.heads;
  }

  private readHead(): bigint {
    return this.stmt.head.get()?.head ?? 0n;
  }

  /** Whether every event after `position` is of this process's commit under way (its outcome is on its way). */
  private onlyOwnAfter(position: bigint): boolean {
    const after = this.stmt.idsAfter.all(position, this.inFlightIds.size + 1);
    return after.length <= this.inFlightIds.size && after.every((row) => this.inFlightIds.has(row.event_id));
  }

  private learn(stream: string, head: StreamHead): void {
    const known = this.heads.get(stream);
    // Never go back: a read can only see what was committed before it, and commits update the head as they land.
    if (known && known.absentFrom > head.absentFrom) return;
    this.heads.set(stream, head);
    if (this.heads.size > KNOWN_HEADS) this.heads.delete(this.heads.keys().next().value as string);
  }

  /** A commit of this process moves the stream's head (the last event is kept only for streams read from the head). */
  private learnAppended(stream: string, last: EventRow): void {
    const known = this.heads.get(stream);
    this.learn(stream, { absentFrom: last.revision + 1n, last: known?.last ? keepable(last) : null });
  }

  private parsedLast(head: StreamHead): RecordedEvent {
    const last = head.last!;
    return typeof last.data === 'string' ? (head.last = toRecorded(last as EventRow)) : (last as RecordedEvent);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllSync(options.after ?? 0n, options.maxCount ?? 1000);
  }

  readAllSync(after: bigint, maxCount: number): RecordedEvent[] {
    const kept = keptAfter<EventRow>(this.tail, this.tailStart, after, maxCount, toRecorded);
    if (kept) return kept;
    const from = after + 1n - this.tailStart;
    // Caught up with the tail, and the log ends there (as read once this turn): nothing to read, without a query each.
    // What lies beyond it in the file, if anything, is this process's commit under way: its outcome wakes the readers.
    if (this.tail.length > 0 && from === BigInt(this.tail.length) && this.caughtUpThisTurn(after)) return [];
    return this.stmt.all.all(after, maxCount).map(toRecorded);
  }

  /**
   * Whether the log ends at `after` as far as readers need to know, asked of the file once per turn of the event loop:
   * after a commit every subscription (each projector, engine and job) finds itself caught up in the same turn, and
   * one read serves them all (a query each was a tenth of an order placement's CPU). A commit landing later in that
   * turn is seen at the next commit's wake-up or the next poll, as any is.
   */
  private caughtUpThisTurn(after: bigint): boolean {
    if (this.turnHead === null) {
      this.turnHead = this.readHead();
      this.turnOwnAfter = null;
      setImmediate(() => (this.turnHead = null));
    }
    if (this.turnHead <= after) return true;
    if (this.inFlightIds.size === 0) return false;
    if (this.turnOwnAfter?.position !== after) this.turnOwnAfter = { position: after, own: this.onlyOwnAfter(after) };
    return this.turnOwnAfter.own;
  }

  subscribeToAll(options: SubscribeOptions = {}): EventSubscription {
    const sub = new LogSubscription(this, options.after ?? 0n, this.batchSize, this.pollIntervalMs, options.passOver, options.awaited);
    this.subscriptions.add(sub);
    return sub;
  }

  /** Resolves at the next commit in this process, or after `ms` (appends by other processes are polled). */
  waitForAppend(ms: number, owner?: LogSubscription): { promise: Promise<void>; cancel(): void } {
    return this.appendWaiters.wait(ms, owner);
  }

  nextCommit(timeoutMs: number): Promise<void> {
    return this.appendWaiters.wait(timeoutMs).promise;
  }

  get commitGeneration(): number {
    return this.appendWaiters.generation;
  }

  readBatch(after: bigint, maxCount: number): RecordedEvent[] {
    return this.readAllSync(after, maxCount);
  }

  forgetSubscription(sub: LogSubscription): void {
    this.subscriptions.delete(sub);
  }

  async headPosition(): Promise<bigint> {
    return this.readHead();
  }

  /** Liveness probe for /health/ready. */
  ping(): boolean {
    return this.db.prepare('SELECT 1 AS ok').get() !== undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // What was accepted is committed before the connections close.
    if (this.pending.length > 0) this.flush();
    while (this.inFlight !== null) await this.inFlight;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.writer?.close();
    this.db.close();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/**
 * A stream's last event is kept for the next read from its head only when small (a session's events, not an engine
 * snapshot): with KNOWN_HEADS streams that bounds the cache to about 40 MB of text.
 */
function keepable(row: EventRow): EventRow | null {
  return row.data.length + row.metadata.length <= 2048 ? row : null;
}

function toRecorded(row: EventRow): RecordedEvent {
  const lazy = row.data.length > LAZY_DATA_CHARS;
  const e = {
    event_id: row.event_id,
    type: row.type,
    stream: row.stream,
    revision: row.revision,
    position: row.position,
    occurred_at: row.occurred_at,
    data: lazy ? null : JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    event_commitment: row.event_commitment,
    previous_event_commitment: row.previous_event_commitment,
  };
  return lazy ? withLazyData(e, row.data) : e;
}
