/**
 * The read-model database: SQLite under DATA_DIR by default, PostgreSQL when DATABASE_URL is set. Schemas come
 * from migrations (run on start), never from `synchronize`.
 */
import { join } from 'node:path';
import { DataSource, type DataSourceOptions, type EntityManager, type MixedList } from 'typeorm';
import { OutboxSeeds1764000009500 } from './migrations/1764000009500-OutboxSeeds';
import { PlatformTables1764000000000 } from './migrations/1764000000000-PlatformTables';
import { PlatformNodes1764000009600 } from './migrations/1764000009600-PlatformNodes';
import type { ReadModelDefinition } from './read-model.definition';
import { prepareDataDir, privateSqliteFiles } from '../security/data-dir';
import { idleInTransaction, PgListener, PREPARED_PLANS, PreparingClient, underSchemaLock, type SharedListener } from '../postgres-schema';
import { SqliteDatabase } from '../sqlite-driver';

/** What ReadModelDatabase needs of a bus between threads (workers/thread-bus.ts). */
export interface AnnouncementBus {
  listen(channel: string, handler: (payload: string) => void): { stop(): void; readonly listening: boolean };
  notify(channel: string, payload: string): void;
}

export interface ReadModelDatabaseOptions {
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema (created if missing); lets test runs and tenants of one server stay apart. */
  schema?: string;
  readModels: ReadModelDefinition[];
  /**
   * Bring the schema up to date on opening (default). False for a connection opened after another one of this process
   * migrated the database (a worker thread): several connections running the migrations at once race on their table.
   */
  migrate?: boolean;
}

export const PLATFORM_MIGRATIONS: Function[] = [PlatformTables1764000000000, OutboxSeeds1764000009500, PlatformNodes1764000009600];

export function readModelDataSourceOptions(options: ReadModelDatabaseOptions): DataSourceOptions {
  const entities: MixedList<Function> = options.readModels.flatMap((m) => m.entities as Function[]);
  const migrations: Function[] = [...PLATFORM_MIGRATIONS, ...options.readModels.flatMap((m) => m.migrations as Function[])];
  const common = { entities, migrations, migrationsRun: false, synchronize: false, logging: false } as const;
  if (options.databaseUrl) {
    // search_path makes raw SQL (checkpoints, idempotency) land in the same schema as the entities.
    // PreparingClient: statements with parameters prepared by name once they repeat (postgres-schema.ts).
    // pipeline: a query is written without waiting for the one before it (pipelinedTransaction uses it; code that awaits
    // each query in turn behaves as before).
    // A paused node's open transaction gives up its row locks after 5 s (idleInTransaction), well within a lease.
    const session = `${PREPARED_PLANS} ${idleInTransaction(5000)}${options.schema ? ` -c search_path="${options.schema}"` : ''}`;
    const extra = { Client: PreparingClient, pipeline: true, options: session };
    return { type: 'postgres', url: options.databaseUrl, schema: options.schema, poolSize: 10, extra, ...common };
  }
  prepareDataDir(options.dataDir);
  privateSqliteFiles(join(options.dataDir, 'read.sqlite'));
  return {
    type: 'better-sqlite3',
    driver: SqliteDatabase,
    database: join(options.dataDir, 'read.sqlite'),
    enableWAL: true,
    statementCacheSize: 200,
    // The read model is rebuildable from the log, so NORMAL durability (still crash-consistent under WAL) suffices.
    prepareDatabase: (db: { pragma(s: string): unknown }) => {
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 10000');
    },
    ...common,
  };
}

/**
 * Rewrites `?` placeholders to `$n` on PostgreSQL, so raw SQL (hot projector paths, checkpoints) is written once.
 * Fixed SQL through `tx.query` is the fast path for projectors: TypeORM's repositories rebuild their SQL text on
 * every call, which costs more than running it.
 */
export function portableSql(type: DataSourceOptions['type'] | EntityManager, text: string): string {
  const dialect = typeof type === 'string' ? type : type.connection.options.type;
  if (dialect !== 'postgres') return text;
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/**
 * The read-model database as the platform uses it. On SQLite TypeORM drives one connection, so transactions are
 * serialized here (two overlapping ones would share it) and queries read through a second connection, which under
 * WAL sees only committed data. On PostgreSQL both are the same pooled DataSource.
 */
export class ReadModelDatabase {
  private tail: Promise<unknown> = Promise.resolve();
  private dataVersion: { get(): unknown } | null | undefined;

  private listener: SharedListener | null = null;
  /** SQLite with worker threads: where the threads of this process announce to each other (ThreadBus). */
  private bus: AnnouncementBus | null = null;
  private writeLock: { acquire(): Promise<void>; release(): void } | null = null;

  constructor(
    readonly writer: DataSource,
    readonly reader: DataSource,
    /** PostgreSQL: where a connection of its own listens for notifications (listen). */
    private readonly notifications?: { connectionString: string },
  ) {}

  /** The PostgreSQL schema of the read models (null: the default one, or SQLite). */
  get schemaName(): string | null {
    return this.isPostgres ? ((this.writer.options as { schema?: string }).schema ?? null) : null;
  }

  /**
   * PostgreSQL: calls `handler` with the payload of every notification on `channel` (NOTIFY by any node), until the
   * returned stop. Null where nothing can be listened to (SQLite): the caller polls.
   */
  listen(channel: string, handler: (payload: string) => void): { stop(): void; readonly listening: boolean } | null {
    if (!this.notifications) return this.bus?.listen(channel, handler) ?? null;
    this.listener ??= PgListener.shared(this.notifications.connectionString);
    const listener = this.listener;
    const stop = listener.listen(channel, handler);
    return {
      stop,
      get listening() {
        return listener.listening;
      },
    };
  }

  /** SQLite with worker threads: the process's write lock, taken before each transaction (process-write-lock.ts). */
  useWriteLock(lock: { acquire(): Promise<void>; release(): void }): void {
    this.writeLock = lock;
  }

  /** SQLite: the threads of this process announce through `bus` (listen hears them; announce tells them). */
  useBus(bus: AnnouncementBus): void {
    this.bus = bus;
  }

  /**
   * SQLite: tells this process's other threads, after a commit (PostgreSQL announces inside its transaction, NOTIFY).
   * Nothing where no other thread listens.
   */
  announce(channel: string, payload: string): void {
    this.bus?.notify(channel, payload);
  }

  /** Whether `announce` reaches anyone (SQLite with worker threads). */
  get announces(): boolean {
    return this.bus !== null;
  }

  get isPostgres(): boolean {
    return this.writer.options.type === 'postgres';
  }

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    if (this.isPostgres) return this.writer.transaction(work);
    const run = this.tail.then(() => this.immediateTransaction(work));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /**
   * SQLite: BEGIN IMMEDIATE instead of TypeORM's deferred BEGIN. A deferred transaction that read before another
   * connection committed can no longer write (SQLITE_BUSY_SNAPSHOT, which busy_timeout does not wait out); taking the
   * write lock up front makes a second writer on the same file (another thread, another process) wait its turn.
   */
  private async immediateTransaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    // With worker threads, the process's turn first: waited for as a promise, not in SQLite's sleeping busy handler.
    await this.writeLock?.acquire();
    const runner = this.writer.createQueryRunner();
    // TypeORM's own state (read-only in its types), as its startTransaction leaves it: a save() inside adds no
    // transaction of its own, and a nested manager.transaction() takes a SAVEPOINT rather than a second BEGIN.
    const flagged = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
    try {
      await runner.query('BEGIN IMMEDIATE');
      flagged.isTransactionActive = true;
      flagged.transactionDepth = 1;
      const result = await work(runner.manager);
      await runner.query('COMMIT');
      return result;
    } catch (error) {
      // Also after a failed COMMIT, which can leave the transaction open; where SQLite already rolled back, nothing to do.
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      flagged.isTransactionActive = false;
      flagged.transactionDepth = 0;
      await runner.release();
      this.writeLock?.release();
    }
  }

  /**
   * A projector's batch on PostgreSQL in as few round trips as its own statements allow: BEGIN is written with the
   * first of them (the connection pipelines), and `close` (the checkpoint's advance) with COMMIT. `close` must fail,
   * not merely change nothing, when the batch may not commit: a COMMIT behind a failed statement rolls back.
   * `refused` names that failure for the caller. The commit does not wait for its WAL flush (synchronous_commit off):
   * a read model is rebuilt from the log, and its checkpoint is in the same transaction, so a server crash can only
   * lose the last batches together with the checkpoint that vouched for them; they are applied again. PostgreSQL only.
   */
  async pipelinedTransaction<T>(work: (tx: EntityManager) => Promise<T>, close: { text: string; params: unknown[] }, refused: (error: unknown) => unknown): Promise<T> {
    const runner = this.writer.createQueryRunner();
    const client = (await runner.connect()) as { query(text: string, params?: unknown[]): Promise<unknown> };
    const begun = client.query('BEGIN; SET LOCAL synchronous_commit TO off');
    begun.catch(() => undefined); // awaited below; a failure there must not also be an unhandled rejection
    // TypeORM's own flag (read-only in its types): the runner is inside a transaction, as its startTransaction says.
    const flagged = runner as { isTransactionActive: boolean };
    flagged.isTransactionActive = true;
    let ended = false;
    try {
      const result = await work(runner.manager);
      await begun;
      const closing = client.query(close.text, close.params);
      const committed = client.query('COMMIT');
      committed.catch(() => undefined);
      try {
        await closing;
      } catch (error) {
        // The COMMIT written behind it answers as a ROLLBACK: the transaction is over either way.
        ended = await committed.then(() => true, () => false);
        throw refused(error);
      }
      await committed;
      ended = true;
      return result;
    } finally {
      if (!ended) await client.query('ROLLBACK').catch(() => undefined);
      flagged.isTransactionActive = false;
      await runner.release();
    }
  }

  /**
   * A number that stays the same while nothing is committed to the read models, for memos of what a read returned
   * (the order list's last pages): SQLite's `PRAGMA data_version` of the reader connection, which only ever reads, so
   * every commit is another connection's and moves it (this process's writer, another node's, a CLI's). Null where
   * no such number exists (PostgreSQL): such memos then check by reading. Take it before the read it vouches for, so
   * a commit landing in between makes the next request read again, never the reverse.
   */
  readerVersion(): number | null {
    if (this.dataVersion === undefined) {
      const driver = this.reader.driver as unknown as { databaseConnection?: { prepare(sql: string): { pluck(): { get(): unknown } } } };
      this.dataVersion = this.isPostgres || this.reader === this.writer || !driver.databaseConnection ? null : driver.databaseConnection.prepare('PRAGMA data_version').pluck();
    }
    return this.dataVersion === null ? null : (this.dataVersion.get() as number);
  }

  sql(text: string): string {
    return portableSql(this.writer.options.type, text);
  }

  async ping(): Promise<void> {
    await this.reader.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.tail.catch(() => undefined);
    await this.listener?.close();
    if (this.reader !== this.writer && this.reader.isInitialized) await this.reader.destroy();
    if (this.writer.isInitialized) await this.writer.destroy();
  }
}

/** Opens the database, brings its schema up to date (migrations, unless `migrate: false`) and returns writer and reader. */
export async function openReadModelDatabase(options: ReadModelDatabaseOptions): Promise<ReadModelDatabase> {
  const writer = await openMigratedDataSource(options);
  if (options.databaseUrl) return new ReadModelDatabase(writer, writer, { connectionString: options.databaseUrl });
  const reader = new DataSource(readModelDataSourceOptions(options));
  await reader.initialize();
  return new ReadModelDatabase(writer, reader);
}

async function openMigratedDataSource(options: ReadModelDatabaseOptions): Promise<DataSource> {
  const ds = new DataSource(readModelDataSourceOptions(options));
  if (options.migrate === false) return ds.initialize();
  if (options.databaseUrl && options.schema) {
    // The schema must exist before TypeORM looks for its migrations table in it.
    // Under the schema lock: nodes starting together on a fresh database would otherwise collide on creating it.
    const bootstrap = new DataSource({ type: 'postgres', url: options.databaseUrl, extra: { max: 1 } });
    await bootstrap.initialize();
    try {
      const schema = options.schema;
      await underSchemaLock((sql, params) => bootstrap.query(sql, params), () => bootstrap.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`));
    } finally {
      await bootstrap.destroy();
    }
  }
  await ds.initialize();
  if (ds.options.type !== 'postgres') {
    await ds.runMigrations({ transaction: 'each' });
    return ds;
  }
  // Nodes starting together take turns: the schema lock (held by one session) around the migrations.
  const lock = ds.createQueryRunner();
  await lock.connect();
  try {
    await underSchemaLock((sql, params) => lock.query(sql, params), () => ds.runMigrations({ transaction: 'each' }));
  } finally {
    await lock.release();
  }
  return ds;
}
