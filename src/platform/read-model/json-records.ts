/**
 * Read models that keep each row's API record as JSON beside a few indexed columns (the ones lists filter and order
 * by): inserting a record, and patching one (the change merged into the record, the indexed columns following it),
 * in the projector's transaction. Portable across SQLite and PostgreSQL.
 */
import type { EntityManager } from 'typeorm';
import { pageLimit, rawPage, rawPageAfter, type LimitRule } from '../http/pagination';
import { portableSql } from './read-model.datasource';

export interface JsonRecordTable<R> {
  table: string;
  key: keyof R & string;
  /** Columns copied from the record on every write (besides `record` and the key). */
  columns: ReadonlyArray<keyof R & string>;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;
function check(t: JsonRecordTable<unknown>): void {
  for (const name of [t.table, t.key, ...t.columns]) if (!IDENT.test(name)) throw new Error(`not an identifier: ${name}`);
}

/** Inserts the record (a row already there is left as it is: a replayed event changes nothing). */
export async function insertRecord<R extends object>(tx: EntityManager, t: JsonRecordTable<R>, record: R, extra: Record<string, string | number | null> = {}): Promise<void> {
  check(t as JsonRecordTable<unknown>);
  const r = record as Record<string, unknown>;
  const names = [t.key, ...t.columns, ...Object.keys(extra), 'record'];
  const values = [r[t.key], ...t.columns.map((c) => column(r[c])), ...Object.values(extra), JSON.stringify(record)];
  await tx.query(portableSql(tx, `INSERT INTO ${t.table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ON CONFLICT (${t.key}) DO NOTHING`), values);
}

/** The record, or null when the row does not exist. */
export async function readRecord<R>(tx: EntityManager, t: JsonRecordTable<R>, id: string): Promise<R | null> {
  check(t as JsonRecordTable<unknown>);
  const rows: Array<{ record: string }> = await tx.query(portableSql(tx, `SELECT record FROM ${t.table} WHERE ${t.key} = ?`), [id]);
  return rows.length ? (JSON.parse(rows[0].record) as R) : null;
}

/** Merges `change(record)` into the record and writes it back with its indexed columns: the record after, or null when there is no row. */
export async function patchRecord<R extends object>(tx: EntityManager, t: JsonRecordTable<R>, id: string, change: (record: R) => Partial<R>): Promise<R | null> {
  const before = await readRecord(tx, t, id);
  if (!before) return null;
  const after = { ...before, ...change(before) };
  await writeRow(tx, t, id, after);
  return after;
}

/**
 * Writes the whole record over its row (keyed by the record's own key field), with its indexed columns; no row:
 * nothing happens. For a projector that read the record already in this transaction and folded the event into it:
 * patchRecord would read it again.
 */
export async function replaceRecord<R extends object>(tx: EntityManager, t: JsonRecordTable<R>, record: R): Promise<void> {
  check(t as JsonRecordTable<unknown>);
  await writeRow(tx, t, (record as Record<string, unknown>)[t.key], record);
}

async function writeRow<R extends object>(tx: EntityManager, t: JsonRecordTable<R>, id: unknown, record: R): Promise<void> {
  const r = record as Record<string, unknown>;
  await tx.query(
    portableSql(tx, `UPDATE ${t.table} SET ${[...t.columns.map((c) => `${c} = ?`), 'record = ?'].join(', ')} WHERE ${t.key} = ?`),
    [...t.columns.map((c) => column(r[c])), JSON.stringify(record), id],
  );
}

const column = (v: unknown): string | number | null => (v === undefined || v === null ? null : typeof v === 'number' ? v : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * One keyset page of a JSON-record table (the platform's pagination, src/platform/http/pagination.ts): rows of
 * `where` (parameterized clauses), newest first by the `position` column (the creating event's, zero-padded). The
 * cursor's scope names the list and its filters; a cursor of another scope is a 400.
 */
export async function recordPage<R>(
  db: { reader: { query(sql: string, params: unknown[]): Promise<unknown> }; sql(text: string): string },
  table: string,
  where: Array<[string, unknown]>,
  query: { limit?: string; cursor?: string },
  rule: LimitRule,
  scope: string,
): Promise<{ records: R[]; limit: number; next_cursor?: string }> {
  if (!IDENT.test(table)) throw new Error(`not an identifier: ${table}`);
  const limit = pageLimit(query.limit, rule);
  const after = rawPageAfter(query.cursor, scope);
  const clauses = where.map(([c]) => c);
  const params = where.map(([, v]) => v);
  if (after) {
    clauses.push('position < ?');
    params.push(after);
  }
  const rows = (await db.reader.query(db.sql(`SELECT record, position FROM ${table} WHERE ${clauses.length ? clauses.join(' AND ') : '1 = 1'} ORDER BY position DESC LIMIT ?`), [...params, limit + 1])) as Array<{
    record: string;
    position: string;
  }>;
  const { rows: taken, next_cursor } = rawPage(rows, limit, (r) => r.position, scope);
  return { records: taken.map((r) => JSON.parse(r.record) as R), limit, ...(next_cursor ? { next_cursor } : {}) };
}

/**
 * The `LIKE` pattern of a case-insensitive "contains" search over a lower-cased search column, its wildcards escaped
 * (use with `ESCAPE '\'`). Lower-casing in JS, not in SQL, makes SQLite and PostgreSQL match the same rows.
 */
export const containsPattern = (q: string): string => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
