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
 * The common append is ONE round trip: a server-side function (append_events) takes the append lock, checks that the
 * batch's streams still end where this process last saw them, numbers the events after the head, inserts them and
 * notifies, all in the statement's own (durable) transaction. The events are chained in memory first from those known
 * stream ends; a stream whose end is not known here, a check the function refuses, or an event id already stored
 * sends the batch down the careful path (the transaction opened, the heads read under the lock, then inserted).
 *
 * Subscriptions at the head read a shared in-memory tail of the log rather than a query each: this process's own
 * commits go in as they land, and another node's (announced by LISTEN/NOTIFY with the new head) are fetched once for
 * every subscriber. Live subscriptions poll as a fallback, one shared read per poll interval.
 * The schema is created on start under a session advisory lock, so nodes starting together do not race.
 */
import type { Pool } from 'pg';
import { VersionConflict } from '../../errors';
import { canonicalTexts, validateAppend, type CanonicalTexts } from '../append-validation';
import {
  type AppendResult,
  type EventStore,
  type EventSubscription,
  type ExpectedRevision,
  type NewEvent,
  type PreparedEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../event-store.port';
import { CommitWaiters, LogSubscription } from '../log-subscription';
import { assertSchemaName, channelName, migrateSchema, openPool, PgListener, type SharedListener } from '../../postgres-schema';
import { PostgresAppends, type BatchOutcome, type PendingAppend } from './postgres-appends';
import { PostgresLogTail } from './postgres-log-tail';
import { announced, COLUMNS, committedOf, toRecorded, type EventRow } from './postgres-rows';

export interface PostgresEventStoreOptions {
  connectionString: string;
  /** The schema holding the `events` table (created if missing). */
  schema?: string;
  /** How often a live subscription looks for appends when no notification came (ms). */
  pollIntervalMs?: number;
  subscriptionBatchSize?: number;
  poolSize?: number;
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly pool: Pool;
  private readonly schema: string;
  private readonly table: string;
  private readonly channel: string;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly ready: Promise<void>;
  private listener: SharedListener | null = null;
  private stopListening: (() => void) | null = null;
  private pending: PendingAppend[] = [];
  private flushing = false;
  private closed = false;
  private readonly appendWaiters = new CommitWaiters();
  private readonly subscriptions = new Set<LogSubscription>();
  private readonly appends: PostgresAppends;
  /** The newest events and where streams end, as this process knows them without a query (postgres-log-tail.ts). */
  private readonly tail: PostgresLogTail;

  constructor(private readonly options: PostgresEventStoreOptions) {
    this.schema = options.schema ?? 'event_store';
    assertSchemaName(this.schema);
    this.table = `"${this.schema}".events`;
    this.channel = channelName('events', this.schema);
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.batchSize = options.subscriptionBatchSize ?? 512;
    // The log's commits are durable whatever the server's default: an acknowledged append survives a server crash.
    // A node paused inside the careful path's transaction holds the append lock: released within 2 s whatever the pause.
    this.pool = openPool(options.connectionString, options.poolSize ?? 10, { synchronousCommit: true, idleInTransactionMs: 2000 });
    this.appends = new PostgresAppends(this.pool, this.schema, this.channel);
    this.tail = new PostgresLogTail({
      selectAfter: (after, maxCount) => this.selectAfter(after, maxCount),
      readHead: () => this.headPosition(),
      wake: (committed) => this.appendWaiters.wake(committed),
      pollIntervalMs: this.pollIntervalMs,
    });
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
      this.appends.functionDefinition(),
    ]);
  }

  // ---------------------------------------------------------------------------------------------------- append

  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.enqueue(stream, events, expected, () => canonicalTexts(events));
  }

  appendPrepared(stream: string, events: PreparedEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.enqueue(stream, events, expected, () => events.map((e) => e.texts));
  }

  private enqueue(stream: string, events: Array<NewEvent | PreparedEvent>, expected: ExpectedRevision, textsOf: () => CanonicalTexts[]): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    let texts: CanonicalTexts[];
    try {
      validateAppend(stream, events, expected);
      texts = textsOf();
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
    let outcome: BatchOutcome;
    try {
      await this.ready;
      outcome = (await this.appends.commitKnown(batch, this.tail)) ?? (await this.appends.commitCarefully(batch));
    } catch (error) {
      for (const req of batch) req.reject(error);
      return;
    }
    this.tail.remember(outcome.rows);
    batch.forEach((req, i) => {
      const r = outcome.results[i];
      if ('error' in r) {
        // What this process knew of the stream was stale: the writer's next read goes to the table.
        if (r.error instanceof VersionConflict) this.tail.forget(req.stream);
        req.reject(r.error);
      } else req.resolve(r);
    });
    this.appendWaiters.wake(outcome.rows.map(committedOf));
  }

  // ---------------------------------------------------------------------------------------------------- reads

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    await this.ready;
    const limit = options.maxCount ?? 1_000_000_000;
    const backwards = options.direction === 'backwards';
    // The common reads (a command's reload from its cached revision, a check of the stream's last event) are
    // answered from the known end when nothing follows it.
    if (limit >= 1 && (backwards ? options.fromRevision === undefined : options.fromRevision !== undefined)) {
      const end = await this.tail.currentEnd(stream);
      if (end !== undefined && end !== null) {
        if (!backwards && options.fromRevision! > end.revision) return [];
        if (backwards && limit === 1 && end.last !== null) return [this.tail.parsedLast(end)];
      }
    }
    const from = options.fromRevision ?? (backwards ? 9_223_372_036_854_775_807n : 0n);
    const epoch = this.tail.epoch;
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${this.table} e WHERE e.stream = $1 AND e.revision ${backwards ? '<=' : '>='} $2 ORDER BY e.revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
      [stream, from.toString(), limit],
    );
    // A read from the stream's end (backwards from the head, or forwards short of its limit) says where it ends now:
    // as of the epoch the read began in (it saw at least what the tail held then).
    const end = backwards ? (options.fromRevision === undefined ? rows[0] : undefined) : rows.length < limit ? rows[rows.length - 1] : undefined;
    const recorded = rows.map(toRecorded);
    if (end) this.tail.learnEnd(backwards ? recorded[0] : recorded[recorded.length - 1], epoch);
    return recorded;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    await this.ready;
    return (await this.selectAfter(options.after ?? 0n, options.maxCount ?? 1000)).map(toRecorded);
  }

  private async selectAfter(after: bigint, maxCount: number): Promise<EventRow[]> {
    const { rows } = await this.pool.query<EventRow>({
      name: `select-after-${this.schema}`,
      text: `SELECT ${COLUMNS} FROM ${this.table} e WHERE e.position > $1 ORDER BY e.position ASC LIMIT $2`,
      values: [after.toString(), maxCount],
    });
    return rows;
  }

  async headPosition(): Promise<bigint> {
    await this.ready;
    const { rows } = await this.pool.query<{ head: string | null }>({ name: `head-${this.schema}`, text: `SELECT max(position)::text AS head FROM ${this.table}` });
    return BigInt(rows[0].head ?? '0');
  }

  /** A subscription's next batch (the tail's, see PostgresLogTail.readBatch). */
  async readBatch(after: bigint, maxCount: number): Promise<RecordedEvent[]> {
    await this.ready;
    return this.tail.readBatch(after, maxCount);
  }

  // ---------------------------------------------------------------------------------------------------- subscriptions

  subscribeToAll(options: SubscribeOptions = {}): EventSubscription {
    this.listen();
    const sub = new LogSubscription(this, options.after ?? 0n, this.batchSize, this.pollIntervalMs, options.passOver, options.awaited);
    this.subscriptions.add(sub);
    return sub;
  }

  /** One LISTEN connection per store, opened by the first subscription: other nodes' commits wake the subscribers. */
  private listen(): void {
    if (this.listener || this.closed) return;
    this.listener = PgListener.shared(this.options.connectionString);
    // Another node's commit (this process's own are known already): its head, then the subscribers read it, shared.
    this.stopListening = this.listener.listen(this.channel, (payload) => {
      const commit = announced(payload);
      if (commit && this.tail.heard(commit.head, commit.rows)) this.wakeSubscribers();
    });
  }

  private wakeSubscribers(): void {
    this.appendWaiters.wake();
  }

  /** Resolves at the next commit seen (ours, or another node's notification), or after `ms`. */
  waitForAppend(ms: number, owner?: LogSubscription): { promise: Promise<void>; cancel(): void } {
    return this.appendWaiters.wait(ms, owner);
  }

  nextCommit(timeoutMs: number): Promise<void> {
    return this.appendWaiters.wait(timeoutMs).promise;
  }

  get commitGeneration(): number {
    return this.appendWaiters.generation;
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
    await this.tail.settle();
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.wakeSubscribers();
    const listener = this.listener;
    this.listener = null;
    this.stopListening?.();
    await listener?.close();
    await this.ready.catch(() => undefined);
    await this.pool.end();
  }
}
