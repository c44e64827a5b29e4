/**
 * Where the verifier and the export read events from, as stored: the SQLite file itself (opened read-only, one
 * snapshot for the whole run, rows parsed here rather than by the adapter, so a row the adapter could not read is
 * reported rather than fatal), the EventStore port (EventStoreDB), or an export file. The I/O side of the audit;
 * the decisions are in domain/.
 */
import type Database from 'better-sqlite3';
import { SqliteDatabase } from '../../platform/sqlite-driver';
import { createReadStream, statSync } from 'node:fs';
import type { EventMetadata, EventStore, RecordedEvent } from '../../platform/event-store/event-store.port';
import type { EventRow } from '../../platform/event-store/sqlite/sqlite.event-store';
import type { JsonObject } from '../../platform/commitments/json';
import { CHECKPOINT_STREAM } from './domain/checkpoint';
import { parseLine, type ExportRecord } from './domain/export-format';
import type { AuditEvent, Scope } from './domain/log-verifier';

export interface AuditSource {
  readonly store: 'sqlite' | 'eventstoredb' | 'postgres';
  /** Positions are 1, 2, 3… without gaps when nothing was removed (SQLite). */
  readonly densePositions: boolean;
  readonly description: string;
  /** The newest position (progress of a whole-log run). */
  head(): Promise<bigint>;
  /** How many events a stream has (progress of a one-stream run). */
  streamLength(stream: string): Promise<bigint>;
  /** The scope's events in commit (position) order, in pages. */
  events(scope: Scope): AsyncIterable<AuditEvent[]>;
  /** Every event of the checkpoint stream, in commit order. */
  checkpointEvents(): Promise<AuditEvent[]>;
  close(): Promise<void>;
}

const PAGE = 2000;


function parseObject(text: unknown): { value: Record<string, unknown> | null; raw?: string } {
  if (typeof text !== 'string') return { value: null, raw: String(text) };
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { value: value as Record<string, unknown> };
  } catch {
    // reported as unreadable
  }
  return { value: null, raw: text };
}

function rowToAuditEvent(row: EventRow): AuditEvent {
  const data = parseObject(row.data);
  const metadata = parseObject(row.metadata);
  const unreadable = data.raw !== undefined || metadata.raw !== undefined ? { ...(data.raw !== undefined ? { data: data.raw } : {}), ...(metadata.raw !== undefined ? { metadata: metadata.raw } : {}) } : undefined;
  return {
    position: BigInt(row.position),
    stream: String(row.stream),
    revision: BigInt(row.revision),
    event_id: String(row.event_id),
    type: String(row.type),
    occurred_at: String(row.occurred_at),
    data: data.value as JsonObject | null,
    metadata: metadata.value as EventMetadata | null,
    event_commitment: String(row.event_commitment),
    previous_event_commitment: row.previous_event_commitment === null ? null : String(row.previous_event_commitment),
    ...(unreadable ? { unreadable } : {}),
  };
}

/** The SQLite event store file, read-only. The whole run reads one snapshot (a read transaction). */
export class SqliteAuditSource implements AuditSource {
  readonly store = 'sqlite' as const;
  readonly densePositions = true;
  readonly description: string;
  private readonly db: Database.Database;
  private inSnapshot = false;

  constructor(filename: string) {
    this.description = `SQLite ${filename}`;
    this.db = new SqliteDatabase(filename, { readonly: true, fileMustExist: true });
    this.db.pragma('busy_timeout = 10000');
    const tables = this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'events'").all();
    if (tables.length === 0) {
      this.db.close();
      throw new Error(`${filename} has no events table: not a platform event store`);
    }
  }

  /** Starts the read transaction on first use: every later read sees the same snapshot. */
  private snapshot(): Database.Database {
    if (!this.inSnapshot) {
      this.db.exec('BEGIN');
      this.db.prepare('SELECT 1 FROM events LIMIT 1').all();
      this.inSnapshot = true;
    }
    return this.db;
  }

  async head(): Promise<bigint> {
    const row = this.snapshot().prepare('SELECT MAX(position) AS head FROM events').safeIntegers(true).get() as { head: bigint | null };
    return row.head ?? 0n;
  }

  async streamLength(stream: string): Promise<bigint> {
    const row = this.snapshot().prepare('SELECT COUNT(*) AS n FROM events WHERE stream = ?').safeIntegers(true).get(stream) as { n: bigint };
    return row.n;
  }

  async *events(scope: Scope): AsyncIterable<AuditEvent[]> {
    const db = this.snapshot();
    const page =
      scope.kind === 'all'
        ? db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position ASC LIMIT ?').safeIntegers(true)
        : db.prepare('SELECT * FROM events WHERE stream = ? AND position > ? ORDER BY position ASC LIMIT ?').safeIntegers(true);
    let after = 0n;
    for (;;) {
      const rows = (scope.kind === 'all' ? page.all(after, PAGE) : page.all(scope.stream, after, PAGE)) as EventRow[];
      if (rows.length === 0) return;
      after = BigInt(rows[rows.length - 1].position);
      yield rows.map(rowToAuditEvent);
      // Let the progress bar draw between pages.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async checkpointEvents(): Promise<AuditEvent[]> {
    const rows = this.snapshot().prepare('SELECT * FROM events WHERE stream = ? ORDER BY position ASC').safeIntegers(true).all(CHECKPOINT_STREAM) as EventRow[];
    return rows.map(rowToAuditEvent);
  }

  async close(): Promise<void> {
    if (this.inSnapshot) this.db.exec('COMMIT');
    this.db.close();
  }
}

export function recordedToAuditEvent(e: RecordedEvent): AuditEvent {
  return {
    position: e.position,
    stream: e.stream,
    revision: e.revision,
    event_id: e.event_id,
    type: e.type,
    occurred_at: e.occurred_at,
    data: e.data,
    metadata: e.metadata,
    event_commitment: e.event_commitment,
    previous_event_commitment: e.previous_event_commitment,
  };
}

/** Any EventStore adapter (the CLI uses it for EventStoreDB): events as the adapter maps them. */
export class PortAuditSource implements AuditSource {
  readonly densePositions: boolean;
  readonly store: 'sqlite' | 'eventstoredb' | 'postgres';
  readonly description: string;

  constructor(private readonly eventStore: EventStore, description: string) {
    this.store = eventStore.kind;
    // SQLite and PostgreSQL number the log 1, 2, 3… in commit order (the PostgreSQL adapter under its append lock);
    // EventStoreDB's commit positions are byte offsets.
    this.densePositions = eventStore.kind === 'sqlite' || eventStore.kind === 'postgres';
    this.description = description;
  }

  head(): Promise<bigint> {
    return this.eventStore.headPosition();
  }

  async streamLength(stream: string): Promise<bigint> {
    const [last] = await this.eventStore.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return last ? last.revision + 1n : 0n;
  }

  async *events(scope: Scope): AsyncIterable<AuditEvent[]> {
    if (scope.kind === 'all') {
      let after: bigint | undefined;
      for (;;) {
        const page = await this.eventStore.readAll({ after, maxCount: PAGE });
        if (page.length === 0) return;
        after = page[page.length - 1].position;
        yield page.map(recordedToAuditEvent);
      }
    }
    let from = 0n;
    for (;;) {
      const page = await this.eventStore.readStream(scope.stream, { fromRevision: from, maxCount: PAGE });
      if (page.length === 0) return;
      from = page[page.length - 1].revision + 1n;
      // A stream reads in revision order; the verifier wants commit order (equal for an intact stream).
      yield [...page].sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0)).map(recordedToAuditEvent);
      if (page.length < PAGE) return;
    }
  }

  async checkpointEvents(): Promise<AuditEvent[]> {
    const out: AuditEvent[] = [];
    for await (const page of this.events({ kind: 'stream', stream: CHECKPOINT_STREAM })) out.push(...page);
    return out;
  }

  close(): Promise<void> {
    return this.eventStore.close();
  }
}

/** The records of an export file, in order, with how many bytes have been read (progress). */
export async function* exportRecords(path: string): AsyncIterable<{ record: ExportRecord; line: number; bytes: number }> {
  const input = createReadStream(path, { encoding: 'utf8' });
  let line = 0;
  let bytes = 0;
  try {
    for await (const text of ndjsonLines(input)) {
      line++;
      bytes += Buffer.byteLength(text, 'utf8') + 1;
      if (text.trim() === '') continue;
      yield { record: parseLine(text, line), line, bytes };
    }
  } finally {
    input.destroy();
  }
}

/**
 * The lines of NDJSON text: split at "\n" only, a "\r" before it dropped. Not node:readline, which since Node.js 24
 * also ends a line at U+2028 and U+2029: JSON strings may hold those raw (JCS does not escape them), so an export
 * would be cut inside an event.
 */
export async function* ndjsonLines(chunks: AsyncIterable<string>): AsyncIterable<string> {
  let pending: string[] = [];
  const done = (last: string): string => {
    const text = pending.length ? pending.join('') + last : last;
    pending = [];
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
      yield done(chunk.slice(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.slice(start));
  }
  if (pending.length) yield done('');
}

export function fileSize(path: string): number {
  return statSync(path).size;
}
