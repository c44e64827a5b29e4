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
 * projector writes nothing extra. The rows written while it was off reach the topic only when they next change (a
 * snapshot of current rows into the outbox is not built yet: docs/kafka.md, "Not yet").
 */
import { Table, type EntityManager, type QueryRunner } from 'typeorm';
import { portableSql } from '../read-model/read-model.datasource';

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
  ) {
    if (!IDENT.test(table)) throw new Error(`outbox table ${table} is not a plain SQL identifier`);
    this.insert = `INSERT INTO ${table} (row_key, value, headers, created_at) VALUES (?, ?, ?, ?)`;
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

/** Projectors that publish their changes carry their outbox. */
export interface PublishingProjector {
  readonly outbox: ProjectionOutbox;
}

export function outboxOf(projector: object): ProjectionOutbox | null {
  const outbox = (projector as Partial<PublishingProjector>).outbox;
  return outbox instanceof ProjectionOutbox ? outbox : null;
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
