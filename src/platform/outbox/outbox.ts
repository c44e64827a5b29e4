/**
 * The projection outbox: how a read model's row changes reach Kafka (`<prefix>.projections.<read-model>`) without a
 * second commit to get wrong. A projector that publishes owns a ProjectionOutbox; in `apply`, after it wrote a row,
 * it puts the row's new value (or a tombstone) into its outbox table *in the same transaction* — so the outbox holds
 * exactly the changes that committed, in commit order. The relay (src/platform/kafka/outbox-relay.ts) sends the rows
 * in id order and deletes them once the broker acknowledged them.
 *
 * One table per read model (`outbox_<table>`, created by that read model's migration with `createOutboxTable`), so a
 * read model's schema stays its own and any subset of read models migrates. Rows: an increasing id, the row key, the
 * value as the API shows the row (JSON text; NULL = deleted), and message headers (JSON object: `read_model`,
 * `position` and `event_id` of the event that made the change).
 *
 * Writing is switched on per process (`enabled`), by the platform when KAFKA_BROKERS is set: without Kafka the
 * projector writes nothing extra. So that a topic still ends up with every row when Kafka is switched on after the
 * read model holds data (or a node without Kafka ran the projector for a while), the runner calls `seedStep` under
 * the projector's lease before it applies anything: an outbox not recorded as kept is first seeded with every current
 * row, page by page (`outbox_seeds` records the progress and then that it is kept); a process with the outbox off,
 * and a rebuild, forget that record.
 */
import { Table, type EntityManager, type QueryRunner } from 'typeorm';
import { portableSql } from '../read-model/read-model.datasource';
import type { ProjectionContract } from '../kafka/projection-contracts';

/** A change as the projector states it. */
export interface OutboxChange {
  /** The row's id: the message key of the compacted topic. */
  key: string;
  /** The row as the API shows it; null when the row was deleted (a tombstone). */
  value: object | null;
  /** The event that made the change. */
  position: bigint;
  event_id: string;
  /** Extra headers (e.g. the row's owner), strings only. */
  headers?: Record<string, string>;
}

/** A row of an outbox table as the relay reads it. */
export interface OutboxRow {
  id: string | number;
  row_key: string;
  value: string | null;
  headers: string;
}

const IDENT = /^[a-z][a-z0-9_]{0,62}$/;

export class ProjectionOutbox {
  /** Off until the platform switches it on (KAFKA_BROKERS set); off, `put` writes nothing. */
  enabled = false;
  private readonly insert: string;

  constructor(
    /** The read model's name: the topic's last segment and the `read_model` header. */
    readonly readModel: string,
    /** The outbox table (see createOutboxTable). */
    readonly table: string,
    /** What the topic's values are: docs/schemas/projection-<readModel>.schema.json is made from it. */
    readonly contract: ProjectionContract,
  ) {
    if (!IDENT.test(table)) throw new Error(`outbox table ${table} is not a plain SQL identifier`);
    this.insert = `INSERT INTO ${table} (row_key, value, headers, created_at) VALUES (?, ?, ?, ?)`;
  }

  /**
   * One step of keeping the outbox, in a transaction of the projector's, under its lease, before it applies anything
   * (ProjectionRunner calls it until `done`). Outbox on and not kept: the next page of the published table's rows, in
   * key order, goes into the outbox as seed messages (header `snapshot: true`, `event_id` the seed's id, `position`
   * the read model's checkpoint), and `outbox_seeds` remembers how far the seed got; after the last page the outbox
   * counts as kept. Short transactions, so a large table does not hold the read-model database or outlive the lease,
   * and a seed cut short resumes where it stopped. Outbox off: whatever was recorded is forgotten, so the next
   * process with Kafka seeds again.
   */
  async seedStep(tx: EntityManager, published: PublishedTable, position: bigint, newSeedId: () => string, pageSize = SEED_PAGE): Promise<SeedStep> {
    const sql = (text: string) => portableSql(tx, text);
    const [seed] = (await tx.query(sql('SELECT state, last_key, seed_id, rows_seeded FROM outbox_seeds WHERE read_model = ?'), [this.readModel])) as Array<{
      state: 'seeding' | 'kept';
      last_key: string | null;
      seed_id: string;
      rows_seeded: string | number;
    }>;
    if (!this.enabled) {
      if (seed) await this.forget(tx);
      return { done: true, rows: 0 };
    }
    if (seed?.state === 'kept') return { done: true, rows: 0 };
    const keys = typeof published.key === 'string' ? [published.key] : [...published.key];
    if (!IDENT.test(published.table) || !keys.every((k) => IDENT.test(k))) throw new Error(`published table ${published.table}.${keys.join(',')} is not a plain SQL identifier`);
    const seedId = seed?.seed_id ?? newSeedId();
    const after = seed?.last_key ?? null;
    // A key of several columns pages by row value, (a, b) > (?, ?), and remembers the last one as a JSON array.
    const key = keys.length === 1 ? keys[0] : `(${keys.join(', ')})`;
    const afterValues = after === null ? [] : keys.length === 1 ? [after] : (JSON.parse(after) as unknown[]);
    const rows = (await tx.query(
      sql(`SELECT ${published.columns ?? '*'} FROM ${published.table} ${after === null ? '' : `WHERE ${key} > ${keys.length === 1 ? '?' : `(${keys.map(() => '?').join(', ')})`} `}ORDER BY ${keys.join(', ')} LIMIT ${pageSize}`),
      afterValues,
    )) as Array<Record<string, unknown>>;
    for (const row of rows) {
      const change = published.change(row);
      await this.put(tx, { ...change, position, event_id: seedId, headers: { ...(change.headers ?? {}), snapshot: 'true' } });
    }
    const done = rows.length < pageSize;
    const last = rows[rows.length - 1];
    const lastKey = last === undefined ? after : keys.length === 1 ? String(last[keys[0]]) : JSON.stringify(keys.map((k) => last[k]));
    const total = Number(seed?.rows_seeded ?? 0) + rows.length;
    const values = [done ? 'kept' : 'seeding', lastKey, seedId, position.toString(), total, new Date().toISOString(), this.readModel];
    if (seed) await tx.query(sql('UPDATE outbox_seeds SET state = ?, last_key = ?, seed_id = ?, position = ?, rows_seeded = ?, updated_at = ? WHERE read_model = ?'), values);
    else await tx.query(sql('INSERT INTO outbox_seeds (state, last_key, seed_id, position, rows_seeded, updated_at, read_model) VALUES (?, ?, ?, ?, ?, ?, ?)'), values);
    return { done, rows: rows.length };
  }

  /** The outbox is not kept (a process without Kafka, a rebuild that may have changed rows): seed the topic again. */
  async forget(tx: EntityManager): Promise<void> {
    await tx.query(portableSql(tx, 'DELETE FROM outbox_seeds WHERE read_model = ?'), [this.readModel]);
  }

  /** Inside the projector's transaction: records one change of one row. */
  async put(tx: EntityManager, change: OutboxChange): Promise<void> {
    if (!this.enabled) return;
    await tx.query(portableSql(tx, this.insert), [change.key, change.value === null ? null : JSON.stringify(change.value), JSON.stringify(outboxHeaders(this.readModel, change)), new Date().toISOString()]);
  }
}

export function outboxHeaders(readModel: string, change: Pick<OutboxChange, 'position' | 'event_id' | 'headers'>): Record<string, string> {
  return { ...(change.headers ?? {}), read_model: readModel, position: change.position.toString(), event_id: change.event_id };
}

/** A published table's row as its outbox change, without the event that made it (a seed has none). */
export type PublishedRow = Pick<OutboxChange, 'key' | 'value' | 'headers'>;

/** What a publishing projector's topic holds: one message per row of `table`, keyed by `key`. */
export interface PublishedTable<Row extends object = object> {
  table: string;
  /** The primary key column(s), in the order seeding pages by (the message key is `change`'s). */
  key: string | readonly string[];
  /** Columns `change` needs (default `*`). */
  columns?: string;
  change(row: Row): PublishedRow;
}

/** One published table of a projector: its outbox and what the table's rows are on the topic. */
export interface Publication {
  readonly outbox: ProjectionOutbox;
  readonly published: PublishedTable;
}

/**
 * Projectors that publish their changes carry their outbox, and say which table it mirrors (for seeding). A projector
 * whose read model has more than one table worth a topic (invoices and their payments) lists the others in
 * `morePublications`: each has its own outbox, topic and seed record.
 */
export interface PublishingProjector extends Publication {
  readonly morePublications?: readonly Publication[];
}

/** Rows per transaction while seeding a topic from a table. */
const SEED_PAGE = 500;

/** What one seed step did: rows put into the outbox; done when the outbox counts as kept (or is off). */
export interface SeedStep {
  done: boolean;
  rows: number;
}

/** Every table a projector publishes (none when it publishes nothing), the main one first. */
export function publicationsOf(projector: object): Publication[] {
  const p = projector as Partial<PublishingProjector>;
  if (!(p.outbox instanceof ProjectionOutbox) || !p.published) return [];
  return [{ outbox: p.outbox, published: p.published }, ...(p.morePublications ?? [])];
}

/** The outboxes of a projector (one per published table). */
export function outboxesOf(projector: object): ProjectionOutbox[] {
  return publicationsOf(projector).map((p) => p.outbox);
}

/** For a read model's migration: its outbox table (id increasing in commit order: one projector writes it). */
export async function createOutboxTable(q: QueryRunner, table: string): Promise<void> {
  if (!IDENT.test(table)) throw new Error(`outbox table ${table} is not a plain SQL identifier`);
  const postgres = q.connection.options.type === 'postgres';
  await q.createTable(
    new Table({
      name: table,
      columns: [
        { name: 'id', type: postgres ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        { name: 'row_key', type: 'varchar', length: '200' },
        { name: 'value', type: 'text', isNullable: true },
        { name: 'headers', type: 'text' },
        { name: 'created_at', type: 'varchar', length: '40' },
      ],
    }),
  );
}

export async function dropOutboxTable(q: QueryRunner, table: string): Promise<void> {
  await q.dropTable(table);
}

/**
 * Runs a statement ending in `RETURNING …` (SQLite ≥ 3.35 and PostgreSQL) in the projector's transaction and gives
 * the rows it changed, the same shape on both drivers: how a projector learns which rows a set-wise UPDATE touched.
 */
export async function changedRows<T>(tx: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  if (!tx.queryRunner) throw new Error('changedRows must run inside a transaction');
  const result = (await tx.queryRunner.query(portableSql(tx, sql), params, true)) as { records?: unknown };
  return Array.isArray(result.records) ? (result.records as T[]) : [];
}
