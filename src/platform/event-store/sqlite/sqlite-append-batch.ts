/**
 * One group commit of the SQLite event store: the appends that arrived while the previous commit was pending, in one
 * IMMEDIATE transaction, each in its own savepoint so one writer's conflict never fails another's. The same code runs
 * on the store's own connection (in-memory stores) or on the writer thread's (sqlite-writer.worker.ts), so it takes
 * and returns only what a worker message can carry: the platform's refusals (VersionConflict, StateConflict) are
 * built by the store from an outcome's `replay`, not thrown here.
 */
import type Database from 'better-sqlite3';
import { SqliteDatabase } from '../../sqlite-driver';
import { eventCommitmentOf } from '../../commitments/commitment';
import { expectationHolds, type CanonicalTexts } from '../append-validation';
import type { AppendResult, ExpectedRevision } from '../event-store.port';

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

/** An append as the committer takes it: ids, types and times (set by the store), and the canonical texts. */
export interface AppendRequest {
  stream: string;
  expected: ExpectedRevision;
  events: Array<{ event_id: string; type: string; occurred_at: string }>;
  texts: CanonicalTexts[];
}

/** Where each of an append's ids is stored, if it is (a retry's original place, or a clash). */
export type StoredPlace = { stream: string; revision: bigint; position: bigint } | undefined;

export type AppendOutcome =
  | { ok: AppendResult; recorded: EventRow[] }
  /** Nothing written: the expectation did not hold or an id is stored already; `idempotentReplayOf` decides. */
  | { replay: { current: bigint | null; found: StoredPlace[] } };

export interface BatchOutcome {
  outcomes: AppendOutcome[];
  /**
   * Another connection committed to the file since this committer's previous commit (or this is its first): what the
   * store remembers of stream heads from before may be stale. Read under the write lock, so it cannot miss one.
   */
  foreign: boolean;
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

/** WAL + synchronous=FULL: a commit returns only once durable. Every connection to the log opens it this way. */
export function openLogConnection(filename: string): Database.Database {
  const db = new SqliteDatabase(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 10000');
  db.exec(EVENTS_SCHEMA);
  return db;
}

/** A statement answering positions and revisions as bigint (safe integers), as the log's readers take them. */
export const safe = <T extends Database.Statement<any, any>>(s: T): T => s.safeIntegers(true) as T;

/** Commits batches of appends on `db`: `commit(batch)` runs one transaction and answers each append's outcome. */
export function batchCommitter(db: Database.Database): (batch: AppendRequest[]) => BatchOutcome {
  const stmt = {
    tail: safe(db.prepare<[string], { revision: bigint; event_commitment: string }>('SELECT revision, event_commitment FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1')),
    byId: safe(db.prepare<[string], { stream: string; revision: bigint; position: bigint }>('SELECT stream, revision, position FROM events WHERE event_id = ?')),
    insert: safe(db.prepare(INSERT_EVENT)),
    head: safe(db.prepare<[], { head: bigint | null }>('SELECT MAX(position) AS head FROM events')),
    dataVersion: db.prepare<[], { data_version: number }>('PRAGMA data_version'),
  };
  let lastVersion: number | null = null;

  const replay = (req: AppendRequest, current: bigint | null): AppendOutcome => ({
    replay: { current, found: req.events.map((e) => stmt.byId.get(e.event_id)) },
  });

  const appendInTransaction = (req: AppendRequest): AppendOutcome => {
    const { stream, events, expected, texts } = req;
    // A new stream's first event needs no tail: were the stream there, UNIQUE(stream, revision) refuses revision 0
    // (caught below, then read), so the common path of a new order or session pays no index search for it.
    const tail = expected === 'no_stream' && events.length > 0 ? undefined : stmt.tail.get(stream);
    const current = tail ? tail.revision : null;
    // A stale expectation may be a retry of a write that succeeded; a fresh one that meets stored ids is caught by
    // the UNIQUE(event_id) constraint instead, so the common path pays no lookup.
    if (!expectationHolds(expected, current)) return replay(req, current);
    if (events.length === 0) return { ok: { next_revision: current ?? -1n, position: stmt.head.get()?.head ?? 0n }, recorded: [] };

    let previous = tail ? tail.event_commitment : null;
    let revision = current === null ? 0n : current + 1n;
    let position = 0n;
    const recorded: EventRow[] = [];
    events.forEach((e, i) => {
      const { data, committed, metadata } = texts[i];
      const commitment = eventCommitmentOf({ stream, revision, event_id: e.event_id, type: e.type, occurred_at: e.occurred_at, previous_event_commitment: previous }, committed, metadata);
      const info = stmt.insert.run(e.event_id, stream, revision, e.type, e.occurred_at, data, metadata, commitment, previous);
      position = BigInt(info.lastInsertRowid);
      recorded.push({ event_id: e.event_id, type: e.type, stream, revision, position, occurred_at: e.occurred_at, data, metadata, event_commitment: commitment, previous_event_commitment: previous });
      previous = commitment;
      revision += 1n;
    });
    return { ok: { next_revision: revision - 1n, position }, recorded };
  };

  // Nested better-sqlite3 transactions are savepoints: a failing append rolls back alone. A one-event append needs
  // none: its only write is one INSERT, which SQLite undoes by itself when it fails.
  const appendOne = db.transaction(appendInTransaction);
  const batch = db.transaction((appends: AppendRequest[]): BatchOutcome => {
    const version = stmt.dataVersion.get()!.data_version;
    const foreign = version !== lastVersion;
    lastVersion = version;
    const outcomes = appends.map((req): AppendOutcome => {
      try {
        return req.events.length === 1 ? appendInTransaction(req) : appendOne(req);
      } catch (error) {
        // A disk or I/O error can roll the whole transaction back: abort the batch rather than let the remaining
        // appends run outside any transaction. A stored id is a retry of a write that succeeded, or a real clash; a
        // stored revision 0 is a new stream's append to one that exists (its expectation, read now, did not hold).
        if (!db.inTransaction || !(isDuplicateEventId(error) || isTakenRevision(error))) throw error;
        return replay(req, stmt.tail.get(req.stream)?.revision ?? null);
      }
    });
    return { outcomes, foreign };
  });
  // IMMEDIATE takes the write lock up front: a deferred transaction that first reads could meet another process's
  // commit (SQLITE_BUSY_SNAPSHOT), which busy_timeout cannot wait out.
  return (appends) => batch.immediate(appends);
}

/** By code, not instanceof: the native addon keeps the SqliteError class of the first load in the process. */
function isDuplicateEventId(error: unknown): boolean {
  return isUniqueViolationOf(error, 'events.event_id');
}

/** UNIQUE(stream, revision): only an append that skipped its tail (a new stream's) can meet it. */
function isTakenRevision(error: unknown): boolean {
  return isUniqueViolationOf(error, 'events.stream, events.revision');
}

function isUniqueViolationOf(error: unknown, columns: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof e.message === 'string' && e.message.includes(columns);
}
