/**
 * What every PostgreSQL part of the platform (the event store, the subject keys, the read models) does the same way:
 * pools that survive a server restart, schema names checked before they are quoted, and one advisory lock under which
 * schemas and tables are created. Nodes starting together on a fresh database take turns under it: two sessions
 * running CREATE SCHEMA IF NOT EXISTS at once can still collide (a duplicate key in pg_namespace).
 */
import { Pool } from 'pg';

export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** pg_advisory_lock key of all schema and table creation ('evmig'). */
export const SCHEMA_LOCK = 0x65766d6967;

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name: ${schema}`);
}

/** A pool whose idle clients' errors (the server restarted) do not bring the process down; the next query reconnects. */
export function openPool(connectionString: string, max: number): Pool {
  const pool = new Pool({ connectionString, max });
  pool.on('error', () => undefined);
  return pool;
}

/** Runs `work` while one session (`query`) holds the schema lock. */
export async function underSchemaLock<T>(query: (sql: string, params: unknown[]) => Promise<unknown>, work: () => Promise<T>): Promise<T> {
  await query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
  try {
    return await work();
  } finally {
    await query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK]).catch(() => undefined);
  }
}

/** Creates the schema and runs the statements in order, under the schema lock, on one client of the pool. */
export async function migrateSchema(pool: Pool, schema: string, statements: string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await underSchemaLock(
      (sql, params) => client.query(sql, params),
      async () => {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
        for (const statement of statements) await client.query(statement);
      },
    );
  } finally {
    client.release();
  }
}
