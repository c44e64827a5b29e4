/**
 * The event store on PostgreSQL (issue 29): the one EventStore port on a server several API nodes share.
 *
 * No subscriber may skip an event. A sequence hands out positions before commit, so a transaction holding position 10
 * can commit after one holding 11 and a reader at 11 would never see 10. Here every append transaction first takes one
 * transaction-scoped advisory lock (the append lock) and only then reads the head and numbers its events: appends
 * commit one after another in position order, and PostgreSQL makes a transaction visible before it releases its
 * locks, so the next writer (and every reader) sees all of it. Positions are therefore dense and commit-ordered.
 * The cost of serialising is paid back by group commit, as in the SQLite adapter: appends that arrive while a
 * transaction is in flight share the next one — their stream heads read in one query, their events numbered and
 * chained in memory and inserted in one statement — and one writer's conflict never fails another (a stale
 * expectation is answered alone; a stored event id sends the batch down the careful path, a savepoint per append).
 *
 * Live subscriptions wake on LISTEN/NOTIFY (the commit notifies, with the new head), and poll as a fallback.
 * The schema is created on start under a session advisory lock, so nodes starting together do not race.
 */
import { Client, Pool, type PoolClient } from 'pg';
import { eventCommitmentOf } from '../../commitments/commitment';
import { PlatformError, VersionConflict } from '../../errors';
import { canonicalTexts, expectationHolds, idempotentReplayOf, validateAppend, type CanonicalTexts } from '../append-validation';
import {
  describeExpected,
  type AppendResult,
  type EventStore,
  type EventSubscription,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../event-store.port';
import { CommitWaiters, LogSubscription } from '../log-subscription';
import { assertSchemaName, migrateSchema, openPool } from '../../postgres-schema';

export interface PostgresEventStoreOptions {
  connectionString: string;
  /** The schema holding the `events` table (created if missing). */
  schema?: string;
  /** How often a live subscription looks for appends when no notification came (ms). */
  pollIntervalMs?: number;
  subscriptionBatchSize?: number;
  poolSize?: number;
}

interface PendingAppend {
  stream: string;
  events: NewEvent[];
  texts: CanonicalTexts[];
  expected: ExpectedRevision;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

interface EventRow {
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
const APPEND_LOCK = 0x65766e7473; // 'evnts'

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly pool: Pool;
  private readonly schema: string;
  private readonly table: string;
  private readonly channel: string;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly ready: Promise<void>;
  private listener: Client | null = null;
  private pending: PendingAppend[] = [];
  private flushing = false;
  private closed = false;
  private readonly appendWaiters = new CommitWaiters();
  private readonly subscriptions = new Set<LogSubscription>();

  constructor(private readonly options: PostgresEventStoreOptions) {
    this.schema = options.schema ?? 'event_store';
    assertSchemaName(this.schema);
    this.table = `"${this.schema}".events`;
    this.channel = `events_${this.schema}`;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.batchSize = options.subscriptionBatchSize ?? 512;
    this.pool = openPool(options.connectionString, options.poolSize ?? 10);
    this.ready = this.migrate();
    this.ready.catch(() => undefined);
  }

  private migrate(): Promise<void> {
    return migrateSchema(this.pool, this.schema, [
      `CREATE TABLE IF NOT EXISTS ${this.table} (
        position bigint PRIMARY KEY,
        event_id text NOT NULL UNIQUE,
        stream text NOT NULL,
        revision bigint NOT NULL,
        type text NOT NULL,
        occurred_at text NOT NULL,
        data text NOT NULL,
        metadata text NOT NULL,
        event_commitment text NOT NULL,
        previous_event_commitment text,
        UNIQUE (stream, revision)
      )`,
    ]);
  }

  // ---------------------------------------------------------------------------------------------------- append

  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    let texts: CanonicalTexts[];
    try {
      validateAppend(stream, events, expected);
      texts = canonicalTexts(events);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.pending.push({ stream, events, texts, expected, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /** One transaction at a time per process; what arrives meanwhile waits for the next one (group commit). */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      // Let every append issued in this turn of the event loop join the first transaction too.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        await this.commit(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async commit(batch: PendingAppend[]): Promise<void> {
    let results: Array<AppendResult | { error: unknown }>;
    try {
      await this.ready;
      const client = await this.pool.connect();
      try {
        results = await this.commitBatch(client, batch);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(true);
        throw error;
      }
      client.release();
    } catch (error) {
      for (const req of batch) req.reject(error);
      return;
    }
    batch.forEach((req, i) => {
      const r = results[i];
      if ('error' in r) req.reject(r.error);
      else req.resolve(r);
    });
    this.wakeSubscribers();
  }

  private async commitBatch(client: PoolClient, batch: PendingAppend[]): Promise<Array<AppendResult | { error: unknown }>> {
    // One round trip: the transaction, the append lock (see the module comment: held until COMMIT, released only once
    // the commit is visible), the head and the batch's stream heads as they are under the lock, and a savepoint to
    // fall back to. A multi-statement query takes no parameters: the stream names go in as escaped literals.
    const streams = [...new Set(batch.map((r) => r.stream))].map((name) => client.escapeLiteral(name)).join(', ');
    const opened = (await client.query(
      `BEGIN; SELECT pg_advisory_xact_lock(${APPEND_LOCK}); SELECT max(position)::text AS head FROM ${this.table};
       SELECT DISTINCT ON (e.stream) e.stream, e.revision::text AS revision, e.event_commitment FROM ${this.table} e WHERE e.stream IN (${streams}) ORDER BY e.stream, e.revision DESC;
       SAVEPOINT batch`,
    )) as unknown as [unknown, unknown, { rows: Array<{ head: string | null }> }, { rows: Array<{ stream: string; revision: string; event_commitment: string }> }];
    const head = BigInt(opened[2].rows[0].head ?? '0');
    const tails = new Map(opened[3].rows.map((r) => [r.stream, { revision: BigInt(r.revision), commitment: r.event_commitment }]));
    let outcome: { results: Array<AppendResult | { error: unknown }>; head: bigint };
    try {
      outcome = await this.appendTogether(client, batch, head, tails);
    } catch (error) {
      // An event id already stored (a retry, or a clash): undo the batch and decide append by append.
      if (!isDuplicateEventId(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT batch');
      outcome = await this.appendOneByOne(client, batch, head);
    }
    // The notification is delivered at commit; the channel is a checked identifier and the head a number.
    const notify = outcome.results.some((r) => !('error' in r)) ? `SELECT pg_notify('${this.channel}', '${outcome.head.toString()}'); ` : '';
    await client.query(`${notify}COMMIT`);
    return outcome.results;
  }

  /**
   * The common path: with the batch's stream heads (read when the transaction opened), every event numbered and
   * chained in memory, one INSERT for all of them: three round trips per transaction however many appends share it.
   */
  private async appendTogether(
    client: PoolClient,
    batch: PendingAppend[],
    head: bigint,
    tails: Map<string, { revision: bigint; commitment: string }>,
  ): Promise<{ results: Array<AppendResult | { error: unknown }>; head: bigint }> {
    const results: Array<AppendResult | { error: unknown } | null> = [];
    const refused: Array<{ index: number; current: bigint | null }> = [];
    const values: unknown[] = [];
    let position = head;
    batch.forEach((req, index) => {
      const tail = tails.get(req.stream);
      const current = tail ? tail.revision : null;
      if (!expectationHolds(req.expected, current)) {
        refused.push({ index, current });
        results.push(null);
        return;
      }
      if (req.events.length === 0) {
        results.push({ next_revision: current ?? -1n, position });
        return;
      }
      let previous = tail ? tail.commitment : null;
      let revision = current === null ? 0n : current + 1n;
      req.events.forEach((e, i) => {
        position += 1n;
        const occurred_at = e.occurred_at ?? new Date().toISOString();
        const { data, committed, metadata } = req.texts[i];
        const commitment = eventCommitmentOf({ stream: req.stream, revision, event_id: e.event_id, type: e.type, occurred_at, previous_event_commitment: previous }, committed, metadata);
        values.push(position.toString(), e.event_id, req.stream, revision.toString(), e.type, occurred_at, data, metadata, commitment, previous);
        previous = commitment;
        revision += 1n;
      });
      tails.set(req.stream, { revision: revision - 1n, commitment: previous! });
      results.push({ next_revision: revision - 1n, position });
    });
    await this.insertRows(client, values);
    // Stale expectations: a retry of an append that succeeded (its ids are stored, perhaps by this very batch) or a conflict.
    for (const { index, current } of refused) {
      try {
        results[index] = await this.replay(client, batch[index], current);
      } catch (error) {
        results[index] = { error };
      }
    }
    return { results: results as Array<AppendResult | { error: unknown }>, head: position };
  }

  /**
   * Rows of ten values each, in one statement of ten arrays (unnest): one bind of ten parameters and one plan however
   * many rows, where a VALUES list would bind ten parameters per row.
   */
  private async insertRows(client: PoolClient, values: unknown[]): Promise<void> {
    if (values.length === 0) return;
    const columns: unknown[][] = Array.from({ length: 10 }, () => []);
    for (let i = 0; i < values.length; i++) columns[i % 10].push(values[i]);
    await client.query({
      name: `insert-events-${this.schema}`,
      text: `INSERT INTO ${this.table} (position, event_id, stream, revision, type, occurred_at, data, metadata, event_commitment, previous_event_commitment)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])`,
      values: columns,
    });
  }

  /** The careful path (some id of the batch is stored already): each append in its own savepoint. */
  private async appendOneByOne(client: PoolClient, batch: PendingAppend[], start: bigint): Promise<{ results: Array<AppendResult | { error: unknown }>; head: bigint }> {
    let head = start;
    const results: Array<AppendResult | { error: unknown }> = [];
    for (const req of batch) {
      await client.query('SAVEPOINT append');
      try {
        const result = await this.appendInTransaction(client, req, head);
        await client.query('RELEASE SAVEPOINT append');
        if (req.events.length > 0 && result.position > head) head = result.position;
        results.push(result);
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT append');
        if (!(error instanceof PlatformError) && !isDuplicateEventId(error)) throw error;
        if (!isDuplicateEventId(error)) {
          results.push({ error });
          continue;
        }
        try {
          // The ids are stored already: a retry of a write that succeeded, or a real clash.
          results.push(await this.replay(client, req, await this.currentRevision(client, req.stream)));
        } catch (replayError) {
          results.push({ error: replayError });
        }
      }
    }
    return { results, head };
  }

  private async currentRevision(client: PoolClient, stream: string): Promise<bigint | null> {
    const { rows } = await client.query<{ revision: string }>(`SELECT e.revision::text AS revision FROM ${this.table} e WHERE e.stream = $1 ORDER BY e.revision DESC LIMIT 1`, [stream]);
    return rows.length ? BigInt(rows[0].revision) : null;
  }

  private async appendInTransaction(client: PoolClient, req: PendingAppend, head: bigint): Promise<AppendResult> {
    const { stream, events, expected, texts } = req;
    const { rows } = await client.query<{ revision: string; event_commitment: string }>(
      `SELECT e.revision::text AS revision, e.event_commitment FROM ${this.table} e WHERE e.stream = $1 ORDER BY e.revision DESC LIMIT 1`,
      [stream],
    );
    const current = rows.length ? BigInt(rows[0].revision) : null;
    if (!expectationHolds(expected, current)) return this.replay(client, req, current);
    if (events.length === 0) return { next_revision: current ?? -1n, position: head };
    let previous = rows.length ? rows[0].event_commitment : null;
    let revision = current === null ? 0n : current + 1n;
    let position = head;
    const values: unknown[] = [];
    events.forEach((e, i) => {
      position += 1n;
      const occurred_at = e.occurred_at ?? new Date().toISOString();
      const { data, committed, metadata } = texts[i];
      const commitment = eventCommitmentOf({ stream, revision, event_id: e.event_id, type: e.type, occurred_at, previous_event_commitment: previous }, committed, metadata);
      values.push(position.toString(), e.event_id, stream, revision.toString(), e.type, occurred_at, data, metadata, commitment, previous);
      previous = commitment;
      revision += 1n;
    });
    await this.insertRows(client, values);
    return { next_revision: revision - 1n, position };
  }

  private async replay(client: PoolClient, req: PendingAppend, current: bigint | null): Promise<AppendResult> {
    const ids = req.events.map((e) => e.event_id);
    const { rows } = ids.length
      ? await client.query<{ event_id: string; stream: string; revision: string; position: string }>(
          `SELECT event_id, stream, revision::text, position::text FROM ${this.table} WHERE event_id = ANY($1)`,
          [ids],
        )
      : { rows: [] };
    const byId = new Map(rows.map((r) => [r.event_id, { stream: r.stream, revision: BigInt(r.revision), position: BigInt(r.position) }]));
    const replay = idempotentReplayOf(req.stream, req.events, req.expected, current, ids.map((id) => byId.get(id)));
    if (replay) return replay;
    throw new VersionConflict(req.stream, describeExpected(req.expected), current);
  }

  // ---------------------------------------------------------------------------------------------------- reads

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    await this.ready;
    const limit = options.maxCount ?? 1_000_000_000;
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? 9_223_372_036_854_775_807n : 0n);
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${this.table} e WHERE e.stream = $1 AND e.revision ${backwards ? '<=' : '>='} $2 ORDER BY e.revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
      [stream, from.toString(), limit],
    );
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    await this.ready;
    const { rows } = await this.pool.query<EventRow>(`SELECT ${COLUMNS} FROM ${this.table} e WHERE e.position > $1 ORDER BY e.position ASC LIMIT $2`, [
      (options.after ?? 0n).toString(),
      options.maxCount ?? 1000,
    ]);
    return rows.map(toRecorded);
  }

  async headPosition(): Promise<bigint> {
    await this.ready;
    const { rows } = await this.pool.query<{ head: string | null }>(`SELECT max(position)::text AS head FROM ${this.table}`);
    return BigInt(rows[0].head ?? '0');
  }

  // ---------------------------------------------------------------------------------------------------- subscriptions

  subscribeToAll(options: SubscribeOptions = {}): EventSubscription {
    void this.listen();
    const sub = new LogSubscription(this, options.after ?? 0n, this.batchSize, this.pollIntervalMs, undefined, options.awaited);
    this.subscriptions.add(sub);
    return sub;
  }

  /** One LISTEN connection per store, opened by the first subscription: other nodes' commits wake the subscribers. */
  private async listen(): Promise<void> {
    if (this.listener || this.closed) return;
    const client = new Client({ connectionString: this.options.connectionString });
    this.listener = client;
    client.on('notification', () => this.wakeSubscribers());
    // A lost listener only slows subscribers down to the poll interval; the next subscription listens again.
    client.on('error', () => {
      if (this.listener === client) this.listener = null;
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch {
      if (this.listener === client) this.listener = null;
      await client.end().catch(() => undefined);
    }
  }

  private wakeSubscribers(): void {
    this.appendWaiters.wake();
  }

  /** Resolves at the next commit seen (ours, or another node's notification), or after `ms`. */
  waitForAppend(ms: number, owner?: LogSubscription): { promise: Promise<void>; cancel(): void } {
    return this.appendWaiters.wait(ms, owner);
  }

  get commitGeneration(): number {
    return this.appendWaiters.generation;
  }

  readBatch(after: bigint, maxCount: number): Promise<RecordedEvent[]> {
    return this.readAll({ after, maxCount });
  }

  forgetSubscription(sub: LogSubscription): void {
    this.subscriptions.delete(sub);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Liveness probe for /health/ready. */
  async ping(): Promise<boolean> {
    const { rows } = await this.pool.query<{ ok: number }>('SELECT 1 AS ok');
    return rows.length === 1;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Appends already queued are committed (or refused) before the pool goes.
    while (this.flushing || this.pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.wakeSubscribers();
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.ready.catch(() => undefined);
    await this.pool.end();
  }
}

/**
 * Positions and revisions as text (exact bigints). Queries order by the table's columns, `e.position`/`e.revision`:
 * an unqualified ORDER BY would take these text aliases and sort '10' before '9'.
 */
const COLUMNS =
  'e.position::text AS position, e.event_id, e.stream, e.revision::text AS revision, e.type, e.occurred_at, e.data, e.metadata, e.event_commitment, e.previous_event_commitment';

function isDuplicateEventId(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && typeof e.constraint === 'string' && e.constraint.endsWith('event_id_key');
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    event_id: row.event_id,
    type: row.type,
    stream: row.stream,
    revision: BigInt(row.revision),
    position: BigInt(row.position),
    occurred_at: row.occurred_at,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    event_commitment: row.event_commitment,
    previous_event_commitment: row.previous_event_commitment,
  };
}
