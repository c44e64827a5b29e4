/**
 * The subject keys several nodes share (issue 29): two tables in PostgreSQL, created on start under an advisory lock.
 * An erasure sets the wrapped key to NULL and then vacuums the table, so the old row version's space is reclaimed
 * rather than kept until autovacuum; WAL archives and base backups still hold it for their retention (docs/privacy.md).
 */
import type { Pool } from 'pg';
import { assertSchemaName, migrateSchema, openPool } from '../postgres-schema';
import type { SubjectKeyRows, WrappedKeyRow } from './subject-key-rows';


export interface PostgresSubjectKeyOptions {
  connectionString: string;
  schema: string;
  poolSize?: number;
}

export class PostgresSubjectKeyRows implements SubjectKeyRows {
  readonly where: string;
  readonly shared = true;
  private readonly pool: Pool;
  private readonly keys: string;
  private readonly metaTable: string;
  private readonly ready: Promise<void>;

  constructor(private readonly options: PostgresSubjectKeyOptions) {
    assertSchemaName(options.schema);
    this.where = `PostgreSQL schema "${options.schema}"`;
    this.keys = `"${options.schema}".subject_keys`;
    this.metaTable = `"${options.schema}".key_store_meta`;
    this.pool = openPool(options.connectionString, options.poolSize ?? 4);
    this.ready = this.migrate();
    this.ready.catch(() => undefined);
  }

  private migrate(): Promise<void> {
    return migrateSchema(this.pool, this.options.schema, [
      `CREATE TABLE IF NOT EXISTS ${this.keys} (
        kid text PRIMARY KEY,
        subject text NOT NULL,
        wrapped bytea,
        created_at text NOT NULL,
        erased_at text
      )`,
      `CREATE INDEX IF NOT EXISTS subject_keys_subject ON ${this.keys} (subject)`,
      `CREATE TABLE IF NOT EXISTS ${this.metaTable} (name text PRIMARY KEY, value text NOT NULL)`,
    ]);
  }

  async currentOf(subjects: string[]): Promise<Map<string, { kid: string; wrapped: Buffer }>> {
    await this.ready;
    const { rows } = await this.pool.query<{ subject: string; kid: string; wrapped: Buffer }>(
      `SELECT DISTINCT ON (subject) subject, kid, wrapped FROM ${this.keys}
        WHERE subject = ANY($1::text[]) AND wrapped IS NOT NULL ORDER BY subject, created_at, kid`,
      [subjects],
    );
    return new Map(rows.map((r) => [r.subject, { kid: r.kid, wrapped: r.wrapped }]));
  }

  async byKids(kids: string[]): Promise<Map<string, Buffer | null>> {
    await this.ready;
    const { rows } = await this.pool.query<{ kid: string; wrapped: Buffer | null }>(`SELECT kid, wrapped FROM ${this.keys} WHERE kid = ANY($1::text[])`, [kids]);
    return new Map(rows.map((r) => [r.kid, r.wrapped]));
  }

  async insertFirst(rows: WrappedKeyRow[]): Promise<void> {
    await this.ready;
    // One statement, one transaction: a subject that has a current key by now (another node's) is skipped.
    await this.pool.query(
      `INSERT INTO ${this.keys} (kid, subject, wrapped, created_at)
       SELECT n.kid, n.subject, n.wrapped, n.created_at FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[]) AS n(kid, subject, wrapped, created_at)
        WHERE NOT EXISTS (SELECT 1 FROM ${this.keys} k WHERE k.subject = n.subject AND k.wrapped IS NOT NULL)`,
      [rows.map((r) => r.kid), rows.map((r) => r.subject), rows.map((r) => r.wrapped), rows.map((r) => r.created_at)],
    );
  }

  async erase(subject: string, at: string): Promise<{ kids: string[]; changes: number }> {
    await this.ready;
    const all = await this.pool.query<{ kid: string }>(`SELECT kid FROM ${this.keys} WHERE subject = $1`, [subject]);
    const erased = await this.pool.query(`UPDATE ${this.keys} SET wrapped = NULL, erased_at = $1 WHERE subject = $2 AND wrapped IS NOT NULL`, [at, subject]);
    const changes = erased.rowCount ?? 0;
    if (changes > 0) {
      // Best effort: a role that does not own the table cannot vacuum it, and autovacuum will reclaim the space later.
      await this.pool.query(`VACUUM ${this.keys}`).catch(() => undefined);
    }
    return { kids: all.rows.map((r) => r.kid), changes };
  }

  async anyKey(): Promise<{ kid: string; wrapped: Buffer } | null> {
    await this.ready;
    const { rows } = await this.pool.query<{ kid: string; wrapped: Buffer }>(`SELECT kid, wrapped FROM ${this.keys} WHERE wrapped IS NOT NULL LIMIT 1`);
    return rows[0] ?? null;
  }

  async meta(name: string): Promise<string | null> {
    await this.ready;
    const { rows } = await this.pool.query<{ value: string }>(`SELECT value FROM ${this.metaTable} WHERE name = $1`, [name]);
    return rows[0]?.value ?? null;
  }

  async metaStartingWith(prefix: string): Promise<Map<string, string>> {
    await this.ready;
    const { rows } = await this.pool.query<{ name: string; value: string }>(`SELECT name, value FROM ${this.metaTable} WHERE substr(name, 1, length($1)) = $1`, [prefix]);
    return new Map(rows.map((r) => [r.name.slice(prefix.length), r.value]));
  }

  async setMeta(name: string, value: string): Promise<void> {
    await this.ready;
    await this.pool.query(`INSERT INTO ${this.metaTable} (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [name, value]);
  }

  async close(): Promise<void> {
    await this.ready.catch(() => undefined);
    await this.pool.end();
  }
}
