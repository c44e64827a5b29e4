/**
 * Embedded event store on SQLite (better-sqlite3). WAL + synchronous=FULL: an append is acknowledged only after
 * its transaction is durable. Appends that arrive while a commit is pending are committed together in one
 * transaction (group commit); each append runs in its own savepoint so one writer's conflict never fails another's.
 */
import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { eventCommitmentOf } from '../../commitments/commitment';
import { PlatformError, VersionConflict } from '../../errors';
import {
  describeExpected,
  type AppendResult,
  type EventStore,
  type EventSubscription,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../event-store.port';
import { canonicalTexts, expectationHolds, idempotentReplayOf, validateAppend } from '../append-validation';
import { prepareDataDir, privateSqliteFiles } from '../../security/data-dir';
import { CommitWaiters, LogSubscription } from '../log-subscription';

interface PendingAppend {
  stream: string;
  events: NewEvent[];
  /** Canonical (RFC 8785) text of each event's data and metadata: hashed into the commitment and stored as is. */
  texts: Array<{ data: string; committed: string; metadata: string }>;
  expected: ExpectedRevision;
  /** The rows as stored, once the append's savepoint holds (fed to the tail cache after the commit). */
  recorded?: EventRow[];
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/** A row of the `events` table as SQLite returns it (safe integers; data and metadata as JSON text). */
export interface EventRow {
  position: bigint;
  event_id: string;
  stream: string;
  revision: bigint;
  type: string;
  occurred_at: string;
  data: string;
  metadata: string;
  event_commitment: string;
  previous_event_commitment: string | null;
}

export interface SqliteEventStoreOptions {
  /** File path, or ':memory:' for throwaway stores. */
  filename: string;
  /** How often a live subscription looks for appends made by other processes (ms). */
  pollIntervalMs?: number;
  /** Events a subscription reads ahead of its consumer. */
  subscriptionBatchSize?: number;
}

/** The log's table; exported so the benchmark's raw baseline inserts into exactly the same one. */
export const EVENTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  stream TEXT NOT NULL,
  revision INTEGER NOT NULL,
  type TEXT NOT NULL,
  occurred_at TEXT NOT NULL,
  data TEXT NOT NULL,
  metadata TEXT NOT NULL,
  event_commitment TEXT NOT NULL,
  previous_event_commitment TEXT,
  UNIQUE (stream, revision)
);
`;

export const INSERT_EVENT = `INSERT INTO events (event_id, stream, revision, type, occurred_at, data, metadata, event_commitment, previous_event_commitment)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

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
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly appendWaiters = new CommitWaiters();
  private readonly subscriptions = new Set<LogSubscription>();
  /**
   * The newest events this process committed, with consecutive positions from `tailStart`: every subscription at
   * the head (each projector, each market engine) reads them from here, parsed by the first reader and shared after,
   * instead of selecting and parsing the same rows again. A gap (another process appended to the file) restarts the
   * run; readers past it use SQL. Consumers must treat recorded events as immutable (they are shared).
   */
  private tail: Array<EventRow | RecordedEvent> = [];
  private tailStart = 0n;
  /**
   * `PRAGMA data_version` as read inside this process's last commit (under the write lock, so no other connection
   * committed between it and the commit): while it still reads the same, the tail ends at the log's head and a
   * subscriber caught up with it has nothing to read, without a query.
   */
  private tailVersion: number | null = null;
  private commitVersion: number | null = null;
  /** dataVersionThisTurn's reading, until the turn ends. */
  private turnVersion: number | null = null;
  /**
   * Where streams end, as this process last saw them (its reads and its own commits). Valid while no other
   * connection has committed to the file, which `PRAGMA data_version` tells for a few microseconds (a point read of
   * the events table costs ten times that under load): a command's reload of a stream with nothing new, or a
   * session's revocation check, then needs no query. Any commit by another connection forgets them all.
   */
  private readonly heads = new Map<string, StreamHead>();
  private headsVersion: number | null = null;

  private readonly stmt: {
    tail: Database.Statement<[string], { revision: bigint; event_commitment: string }>;
    byId: Database.Statement<[string], { stream: string; revision: bigint; position: bigint }>;
    insert: Database.Statement<unknown[]>;
    forwards: Database.Statement<[string, bigint, number], EventRow>;
    backwards: Database.Statement<[string, bigint, number], EventRow>;
    all: Database.Statement<[bigint, number], EventRow>;
    head: Database.Statement<[], { head: bigint | null }>;
    dataVersion: Database.Statement<[], { data_version: number }>;
  };
  private readonly commitBatch: (batch: PendingAppend[]) => Array<AppendResult | { error: unknown }>;

  constructor(options: SqliteEventStoreOptions) {
    if (options.filename !== ':memory:') {
      prepareDataDir(dirname(options.filename));
      privateSqliteFiles(options.filename);
    }
    this.db = new Database(options.filename);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(EVENTS_SCHEMA);
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.batchSize = options.subscriptionBatchSize ?? 512;

    const safe = <T extends Database.Statement<any, any>>(s: T): T => s.safeIntegers(true) as T;
    this.stmt = {
      tail: safe(this.db.prepare('SELECT revision, event_commitment FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1')),
      byId: safe(this.db.prepare('SELECT stream, revision, position FROM events WHERE event_id = ?')),
      insert: this.db.prepare(INSERT_EVENT),
      forwards: safe(this.db.prepare('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision ASC LIMIT ?')),
      backwards: safe(this.db.prepare('SELECT * FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?')),
      all: safe(this.db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position ASC LIMIT ?')),
      head: safe(this.db.prepare('SELECT MAX(position) AS head FROM events')),
      dataVersion: this.db.prepare('PRAGMA data_version'),
    };
    this.headsVersion = this.stmt.dataVersion.get()!.data_version;

    // Nested better-sqlite3 transactions are savepoints: a failing append rolls back alone. A one-event append
    // needs none: its only write is one INSERT, which SQLite undoes by itself when it fails.
    const appendOne = this.db.transaction((req: PendingAppend): AppendResult => this.appendInTransaction(req));
    const batch = this.db.transaction((appends: PendingAppend[]) => {
      this.commitVersion = this.stmt.dataVersion.get()!.data_version;
      return appends.map((req) => {
        try {
          return req.events.length === 1 ? this.appendInTransaction(req) : appendOne(req);
        } catch (error) {
          // A disk or I/O error can roll the whole transaction back: abort the batch rather than let the
          // remaining appends run outside any transaction. Only the platform's own refusals stay per append.
          if (!this.db.inTransaction || !(error instanceof PlatformError || isDuplicateEventId(error))) throw error;
          if (!isDuplicateEventId(error)) return { error };
          try {
            // The ids are stored already: a retry of a write that succeeded, or a real clash.
            return this.idempotentReplay(req, this.stmt.tail.get(req.stream)?.revision ?? null);
          } catch (replayError) {
            return { error: replayError };
          }
        }
      });
    });
    // IMMEDIATE takes the write lock up front: a deferred transaction that first reads could meet another process's
    // commit (SQLITE_BUSY_SNAPSHOT), which busy_timeout cannot wait out.
    this.commitBatch = (appends) => batch.immediate(appends);
  }

  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    let texts: PendingAppend['texts'];
    try {
      validateAppend(stream, events, expected);
      texts = canonicalTexts(events);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.pending.push({ stream, events, texts, expected, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // setImmediate lets every append issued in this turn of the event loop join the same commit.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    let results: Array<AppendResult | { error: unknown }>;
    try {
      results = this.commitBatch(batch);
    } catch (error) {
      for (const req of batch) req.reject(error);
      return;
    }
    // A commit that stored events leaves the tail ending at the log's head (they were the newest when it took the
    // write lock); one that stored none says nothing about what others committed after the tail.
    if (batch.some((req, i) => !('error' in results[i]) && (req.recorded?.length ?? 0) > 0)) this.tailVersion = this.commitVersion;
    batch.forEach((req, i) => {
      const r = results[i];
      if ('error' in r) req.reject(r.error);
      else {
        if (req.recorded) this.remember(req.recorded);
        if (req.recorded && req.recorded.length > 0) this.learnAppended(req.stream, req.recorded[req.recorded.length - 1]);
        req.resolve(r);
      }
    });
    this.appendWaiters.wake();
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

  private appendInTransaction(req: PendingAppend): AppendResult {
    const { stream, events, expected, texts } = req;
    const tail = this.stmt.tail.get(stream);
    const current = tail ? tail.revision : null;

    // A stale expectation may be a retry of a write that succeeded; a fresh one that meets stored ids is caught by
    // the UNIQUE(event_id) constraint instead, so the common path pays no lookup.
    if (!expectationHolds(expected, current)) return this.idempotentReplay(req, current);
    if (events.length === 0) {
      return { next_revision: current ?? -1n, position: this.stmt.head.get()?.head ?? 0n };
    }

    let previous = tail ? tail.event_commitment : null;
    let revision = current === null ? 0n : current + 1n;
    let position = 0n;
    const recorded: EventRow[] = [];
    events.forEach((e, i) => {
      const occurred_at = e.occurred_at ?? new Date().toISOString();
      const { data, committed, metadata } = texts[i];
      const commitment = eventCommitmentOf({ stream, revision, event_id: e.event_id, type: e.type, occurred_at, previous_event_commitment: previous }, committed, metadata);
      const info = this.stmt.insert.run(e.event_id, stream, revision, e.type, occurred_at, data, metadata, commitment, previous);
      position = BigInt(info.lastInsertRowid);
      recorded.push({ event_id: e.event_id, type: e.type, stream, revision, position, occurred_at, data, metadata, event_commitment: commitment, previous_event_commitment: previous });
      previous = commitment;
      revision += 1n;
    });
    req.recorded = recorded;
    return { next_revision: revision - 1n, position };
  }

  private idempotentReplay(req: PendingAppend, current: bigint | null): AppendResult {
    const replay = this.findIdempotentReplay(req.stream, req.events, req.expected, current);
    if (replay) return replay;
    throw new VersionConflict(req.stream, describeExpected(req.expected), current);
  }

  /** A retry of a write that succeeded answers its original result (idempotentReplayOf). */
  private findIdempotentReplay(stream: string, events: NewEvent[], expected: ExpectedRevision, current: bigint | null): AppendResult | null {
    if (events.length === 0) return null;
    return idempotentReplayOf(stream, events, expected, current, events.map((e) => this.stmt.byId.get(e.event_id)));
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

  /** The known heads, or none once another connection has committed since they were learned. */
  private knownHeads(): Map<string, StreamHead> {
    const version = this.stmt.dataVersion.get()!.data_version;
    if (version !== this.headsVersion) {
      this.heads.clear();
      this.headsVersion = version;
    }
    return this.heads;
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
    const from = after + 1n - this.tailStart;
    if (this.tail.length > 0 && from >= 0n && from < BigInt(this.tail.length)) {
      const start = Number(from);
      const end = Math.min(this.tail.length, start + maxCount);
      const out: RecordedEvent[] = [];
      for (let i = start; i < end; i++) {
        const slot = this.tail[i];
        // A row still holds its JSON text: parse it once, for every reader after this one too.
        out.push(typeof slot.data === 'string' ? (this.tail[i] = toRecorded(slot as EventRow)) : (slot as RecordedEvent));
      }
      return out;
    }
    // Caught up with this process's last commit, and no other connection has committed since: nothing to read.
    if (this.tail.length > 0 && from === BigInt(this.tail.length) && this.tailVersion !== null && this.dataVersionThisTurn() === this.tailVersion) return [];
    return this.stmt.all.all(after, maxCount).map(toRecorded);
  }

  /**
   * `PRAGMA data_version`, read once per turn of the event loop for the subscriptions: after a commit every
   * subscription (each projector, engine and job) finds itself caught up in the same turn, and one read serves them
   * all (it was a tenth of an order placement's CPU, one query per subscriber). Another process's commit landing in
   * that turn is seen at the next commit or poll, as any is. Command reads (knownHeads) still ask every time.
   */
  private dataVersionThisTurn(): number {
    if (this.turnVersion === null) {
      this.turnVersion = this.stmt.dataVersion.get()!.data_version;
      setImmediate(() => (this.turnVersion = null));
    }
    return this.turnVersion;
  }

  subscribeToAll(options: SubscribeOptions = {}): EventSubscription {
    const sub = new LogSubscription(this, options.after ?? 0n, this.batchSize, this.pollIntervalMs);
    this.subscriptions.add(sub);
    return sub;
  }

  /** Resolves at the next commit in this process, or after `ms` (appends by other processes are polled). */
  waitForAppend(ms: number): { promise: Promise<void>; cancel(): void } {
    return this.appendWaiters.wait(ms);
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
    return this.stmt.head.get()?.head ?? 0n;
  }

  /** Liveness probe for /health/ready. */
  ping(): boolean {
    return this.db.prepare('SELECT 1 AS ok').get() !== undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pending.length > 0) this.flush();
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.db.close();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/** By code, not instanceof: the native addon keeps the SqliteError class of the first load in the process. */
function isDuplicateEventId(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof e.message === 'string' && e.message.includes('events.event_id');
}

/**
 * A stream's last event is kept for the next read from its head only when small (a session's events, not an engine
 * snapshot): with KNOWN_HEADS streams that bounds the cache to about 40 MB of text.
 */
function keepable(row: EventRow): EventRow | null {
  return row.data.length + row.metadata.length <= 2048 ? row : null;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    event_id: row.event_id,
    type: row.type,
    stream: row.stream,
    revision: row.revision,
    position: row.position,
    occurred_at: row.occurred_at,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    event_commitment: row.event_commitment,
    previous_event_commitment: row.previous_event_commitment,
  };
}
