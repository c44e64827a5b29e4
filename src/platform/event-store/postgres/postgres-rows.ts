/** The events table's rows as the PostgreSQL event store reads and writes them, and what it makes of them. */
import type { RecordedEvent } from '../event-store.port';
import type { CommittedEvent } from '../log-subscription';
import { LAZY_DATA_CHARS, withLazyData } from '../lazy-data';

export interface EventRow {
  position: string;
  event_id: string;
  stream: string;
  revision: string;
  type: string;
  occurred_at: string;
  data: string;
  metadata: string;
  event_commitment: string;
  previous_event_commitment: string | null;
}

/** Advisory lock key of appends (one 64-bit key space per database; schema creation has its own, postgres-schema.ts). */
export const APPEND_LOCK = 0x65766e7473; // 'evnts'

/**
 * Positions and revisions as text (exact bigints). Queries order by the table's columns, `e.position`/`e.revision`:
 * an unqualified ORDER BY would take these text aliases and sort '10' before '9'.
 */
export const COLUMNS =
  'e.position::text AS position, e.event_id, e.stream, e.revision::text AS revision, e.type, e.occurred_at, e.data, e.metadata, e.event_commitment, e.previous_event_commitment';

export function isDuplicateEventId(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && typeof e.constraint === 'string' && e.constraint.endsWith('event_id_key');
}

/** What a commit wake-up says of an event (for the subscriptions that pass it over). */
export function committedOf(row: EventRow): CommittedEvent {
  return { type: row.type, position: BigInt(row.position), occurred_at: row.occurred_at };
}

export function toRecorded(row: EventRow): RecordedEvent {
  const lazy = row.data.length > LAZY_DATA_CHARS;
  const e = {
    event_id: row.event_id,
    type: row.type,
    stream: row.stream,
    revision: BigInt(row.revision),
    position: BigInt(row.position),
    occurred_at: row.occurred_at,
    data: lazy ? null : JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    event_commitment: row.event_commitment,
    previous_event_commitment: row.previous_event_commitment,
  };
  return lazy ? withLazyData(e, row.data) : e;
}

/**
 * NOTIFY carries at most 8000 bytes: a commit whose events fit is announced with them (the other nodes put them in
 * their tails without reading the table), a larger one by its head alone (they read it, once each).
 */
const ANNOUNCED_BYTES = 7900;

/** What a commit's notification carries after its head: `|` and its events' columns, or nothing when too large. */
export function announcementOf(rows: readonly EventRow[]): string {
  // Too large in any case (an engine snapshot): not serialized only to be measured.
  if (rows.reduce((n, r) => n + r.data.length + r.metadata.length, 0) > ANNOUNCED_BYTES) return '';
  const text = `|${JSON.stringify(rows.map((r) => [r.event_id, r.stream, r.revision, r.type, r.occurred_at, r.data, r.metadata, r.event_commitment, r.previous_event_commitment]))}`;
  return Buffer.byteLength(text) <= ANNOUNCED_BYTES ? text : '';
}

/** A commit notification: the head it ends at, and its events where they came with it (positions up to the head). */
export function announced(payload: string): { head: bigint; rows: EventRow[] | null } | null {
  const bar = payload.indexOf('|');
  const digits = bar < 0 ? payload : payload.slice(0, bar);
  if (!/^\d+$/.test(digits)) return null;
  const head = BigInt(digits);
  if (bar < 0) return { head, rows: null };
  try {
    const columns = JSON.parse(payload.slice(bar + 1)) as string[][];
    const first = head - BigInt(columns.length) + 1n;
    const rows = columns.map(([event_id, stream, revision, type, occurred_at, data, metadata, event_commitment, previous], i) => ({
      position: (first + BigInt(i)).toString(), event_id, stream, revision, type, occurred_at, data, metadata, event_commitment, previous_event_commitment: previous ?? null,
    }));
    return { head, rows };
  } catch {
    return { head, rows: null };
  }
}

