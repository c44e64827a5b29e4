/**
 * What every PostgreSQL part of the platform (the event store, the subject keys, the read models) does the same way:
 * pools that survive a server restart, schema names checked before they are quoted, and one advisory lock under which
 * schemas and tables are created. Nodes starting together on a fresh database take turns under it: two sessions
 * running CREATE SCHEMA IF NOT EXISTS at once can still collide (a duplicate key in pg_namespace).
 */
import { createHash } from 'node:crypto';
import { Client, Pool } from 'pg';

export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** pg_advisory_lock key of all schema and table creation ('evmig'). */
export const SCHEMA_LOCK = 0x65766d6967;

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name: ${schema}`);
}

/**
 * Statements run with parameters this often are prepared by name (as PgJDBC's prepareThreshold does): each connection
 * then parses them once instead of on every run (planned each run, PREPARED_PLANS). Bounded, so SQL that varies (IN
 * lists of every length) cannot prepare without end: past the limit statements run unnamed, as before.
 */
const PREPARE_THRESHOLD = 3;
const PREPARED_LIMIT = 1000;
const runs = new Map<string, number>();
const prepared = new Map<string, string>();
/** Bumped when a prepared statement went stale (forgetPrepared): names made after it are new. */
let generation = 0;

function statementName(text: string): string | undefined {
  const name = prepared.get(text);
  if (name !== undefined || prepared.size >= PREPARED_LIMIT) return name;
  const count = (runs.get(text) ?? 0) + 1;
  if (count < PREPARE_THRESHOLD) {
    if (runs.size >= 10 * PREPARED_LIMIT) runs.clear();
    runs.set(text, count);
    return undefined;
  }
  runs.delete(text);
  const named = `p_${createHash('sha1').update(text).digest('hex').slice(0, 24)}_${generation}`;
  prepared.set(text, named);
  return named;
}

/**
 * A prepared statement whose result columns changed under it (DDL by a migration): PostgreSQL refuses to run it
 * again (0A000). The error goes to the caller (a transaction is aborted by it anyway); the text is prepared afresh
 * under a new name the next time.
 */
function forgetPrepared(text: string): void {
  prepared.delete(text);
  generation += 1;
}

/**
 * The startup option every pooled session gets: a prepared statement is planned afresh for each run with its values
 * (it keeps only the parse), as an unprepared one is. PostgreSQL would otherwise settle on one generic plan after five
 * runs and keep it for the session; made while a table was still small (a fresh deployment's first minute, before
 * autovacuum analysed it), that plan scanned the whole table on every run as it grew (seen: the events table scanned
 * once per append). Measured: an UPDATE by key 66-80 µs of server CPU unprepared, 49-52 generic, 54-55 µs this way.
 */
export const PREPARED_PLANS = '-c plan_cache_mode=force_custom_plan';

/**
 * The longest a pooled session may sit inside an open transaction waiting for its node (ms): a node paused mid-
 * transaction (a long GC, a frozen VM) would otherwise keep its row locks, and another node taking its jobs over would
 * wait on them for as long as the pause lasts; the log's careful append, which holds the append lock across round
 * trips, would stop every node's appends. Past it PostgreSQL ends the session: the paused node's transaction rolls
 * back, and it finds its connection gone when it runs again (fenced, as its late writes are). Our transactions never
 * wait on their node longer than a few milliseconds.
 */
export const idleInTransaction = (ms: number): string => `-c idle_in_transaction_session_timeout=${ms}`;

/** The pg client of every pool here: statements with parameters prepared by name past PREPARE_THRESHOLD runs. */
export class PreparingClient extends Client {
  override query(...args: unknown[]): any {
    const [text, values, callback] = args;
    if (typeof text === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined) {
      const name = statementName(text);
      if (name !== undefined) {
        return (super.query({ name, text, values }) as Promise<unknown>).catch((error: { code?: string }) => {
          if (error?.code === '0A000') forgetPrepared(text);
          throw error;
        });
      }
    }
    return (super.query as (...a: unknown[]) => unknown)(...args);
  }
}

/**
 * A pool whose idle clients' errors (the server restarted) do not bring the process down; the next query reconnects.
 * `synchronousCommit` fixes the sessions' synchronous_commit (true: every commit waits for its WAL flush, whatever
 * the server's default), set as a startup parameter so it costs no round trip; `idleInTransactionMs` bounds how long a
 * session may wait inside a transaction on its node (idleInTransaction).
 */
export function openPool(connectionString: string, max: number, settings: { synchronousCommit?: boolean; idleInTransactionMs?: number } = {}): Pool {
  const sync = settings.synchronousCommit === undefined ? '' : ` -c synchronous_commit=${settings.synchronousCommit ? 'on' : 'off'}`;
  const idle = settings.idleInTransactionMs === undefined ? '' : ` ${idleInTransaction(settings.idleInTransactionMs)}`;
  const pool = new Pool({ connectionString, max, Client: PreparingClient, options: `${PREPARED_PLANS}${sync}${idle}` });
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

/**
 * A notification channel for `schema`'s `prefix` (a checked identifier, under PostgreSQL's 63 bytes: a long schema
 * name is hashed).
 */
export function channelName(prefix: string, schema: string): string {
  const plain = `${prefix}_${schema}`;
  return plain.length <= 63 ? plain : `${prefix}_${createHash('sha1').update(schema).digest('hex').slice(0, 40)}`;
}

/** A use of a shared listener (PgListener.shared). */
export interface SharedListener {
  listen(channel: string, handler: (payload: string) => void): () => void;
  readonly listening: boolean;
  close(): Promise<void>;
}

/**
 * One LISTEN connection of its own (a pooled one cannot keep a LISTEN): handlers by channel, every channel listened to
 * again after the connection drops (a server restart), tried again after `retryMs`. While it is down, notifications
 * are lost: whoever relies on them also polls, as a fallback.
 */
export class PgListener {
  private static readonly byDatabase = new Map<string, { listener: PgListener; users: number }>();

  /**
   * The process's one listener of a database, shared by whoever listens there (the event store's commits, the read
   * models' checkpoints): PostgreSQL wakes every listening session of the database at each NOTIFY, so each listener
   * more is a wake-up more per notification. `close` on the returned one lets go of this use.
   */
  static shared(connectionString: string): SharedListener {
    const entry = PgListener.byDatabase.get(connectionString) ?? { listener: new PgListener(connectionString), users: 0 };
    entry.users += 1;
    PgListener.byDatabase.set(connectionString, entry);
    const listener = entry.listener;
    let closed = false;
    return {
      listen: (channel, handler) => listener.listen(channel, handler),
      get listening() {
        return listener.listening;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        entry.users -= 1;
        if (entry.users > 0) return;
        PgListener.byDatabase.delete(connectionString);
        await listener.close();
      },
    };
  }

  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly connectionString: string,
    private readonly retryMs = 1000,
  ) {}

  /** Whether notifications arrive now (the connection is up and listening). */
  get listening(): boolean {
    return this.client !== null && this.connecting === null;
  }

  /** Calls `handler` with every notification's payload on `channel` (a checked identifier); returns the stop. */
  listen(channel: string, handler: (payload: string) => void): () => void {
    if (!SCHEMA_NAME.test(channel)) throw new Error(`not a channel name: ${channel}`);
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      if (this.client && !this.connecting) void this.client.query(`LISTEN "${channel}"`).catch(() => this.drop());
    }
    set.add(handler);
    void this.connect();
    return () => set!.delete(handler);
  }

  private connect(): Promise<void> {
    if (this.closed || this.client) return this.connecting ?? Promise.resolve();
    const client = new Client({ connectionString: this.connectionString });
    this.client = client;
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    client.on('error', () => this.drop(client));
    this.connecting = (async () => {
      try {
        await client.connect();
        for (const channel of this.handlers.keys()) await client.query(`LISTEN "${channel}"`);
      } catch {
        this.drop(client);
      } finally {
        this.connecting = null;
      }
    })();
    return this.connecting;
  }

  private drop(client: Client | null = this.client): void {
    if (client === null || this.client !== client) return;
    this.client = null;
    void client.end().catch(() => undefined);
    if (!this.closed && !this.retry) {
      this.retry = setTimeout(() => {
        this.retry = null;
        void this.connect();
      }, this.retryMs);
      this.retry.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.connecting;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}

