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
import { CommitWaiters, LogSubscription, type CommittedEvent } from '../log-subscription';
import { assertSchemaName, migrateSchema, openPool } from '../../postgres-schema';
import { currentContext } from '../../context/request-context';

export interface PostgresEventStoreOptions {
  connectionString: string;
  /** The schema holding the `events` table (created if missing). */
  schema?: string;
  /** How often a live subscription looks for appends when no notification came (ms). */
  pollIntervalMs?: number;
  subscriptionBatchSize?: number;
  poolSize?: number;
}

/** A committed batch: each append's answer, and the rows written (positions numbered), in order. */
interface BatchOutcome {
  results: Array<AppendResult | { error: unknown }>;
  rows: EventRow[];
}

interface PendingAppend {
  stream: string;
  events: NewEvent[];
  texts: CanonicalTexts[];
  expected: ExpectedRevision;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/** Newest events kept for the subscriptions at the head (see PostgresEventStore.tail). */
const TAIL_CACHE_SIZE = 20_000;
/** Streams whose end this process knows (see PostgresEventStore.ends); the oldest learned is forgotten first. */
const KNOWN_ENDS = 20_000;
/** Rows one shared fetch of other nodes' commits reads at most. */
const FETCH_SIZE = 1000;

/**
 * Where a stream ends, as this process last saw it: what the one-round-trip append chains from (and checks), and,
 * while the tail has followed the log without a gap since it was learned (`epoch`), what a read of the stream's end
 * answers without a query (readStream, after the shared head check). `last` is the event itself where it was seen.
 */
interface StreamEnd {
  revision: bigint;
  commitment: string;
  last: EventRow | RecordedEvent | null;
  epoch: number;
}

/** What an append chains from: the stream's last revision and commitment. */
type ChainEnd = Pick<StreamEnd, 'revision' | 'commitment'>;

/** A row or an event as the tail and the stream ends keep them. */
type KeptEvent = EventRow | RecordedEvent;

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
  /**
   * The newest events of the log, with consecutive positions from `tailStart` (empty: nothing kept yet). Every
   * subscription at the head (each projector, engine and job) reads them from here, parsed by the first reader and
   * shared after. Consumers treat recorded events as immutable (they are shared), as with the SQLite store.
   */
  private tail: Array<EventRow | RecordedEvent> = [];
  private tailStart = 0n;
  /** The newest head this process has heard of: its commits, other nodes' notifications, its own reads. */
  private knownHead = 0n;
  /** When the database's head was last read (a shared fetch): the poll fallback reads again after pollIntervalMs. */
  private headReadAt = 0;
  private fetching: Promise<void> | null = null;
  /** Stream ends as this process last saw them (see StreamEnd). */
  private readonly ends = new Map<string, StreamEnd>();
  /** Counts the tail's restarts: an end learned in an earlier epoch may have missed events in the gap. */
  private epoch = 0;
  /** The shared head check under way, and the next one (for callers that arrived while it was sent). */
  private headCheck: Promise<bigint> | null = null;
  /** The head check each request in flight was answered with: its later reads see the log as of it (a snapshot). */
  private readonly checkedBy = new WeakMap<object, bigint>();
  private nextHeadCheck: Promise<bigint> | null = null;

  constructor(private readonly options: PostgresEventStoreOptions) {
    this.schema = options.schema ?? 'event_store';
    assertSchemaName(this.schema);
    this.table = `"${this.schema}".events`;
    this.channel = `events_${this.schema}`;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.batchSize = options.subscriptionBatchSize ?? 512;
    // The log's commits are durable whatever the server's default: an acknowledged append survives a server crash.
    this.pool = openPool(options.connectionString, options.poolSize ?? 10, { synchronousCommit: true });
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
      this.appendFunction(),
    ]);
  }

  /**
   * The one-round-trip append: under the append lock, each checked stream must still end where the caller chained
   * from (revision -1: no event yet), else nothing is written and the answer is -1; otherwise the events are numbered
   * after the head (dense, commit-ordered, as every append here), inserted and announced, and the answer is the head
   * they follow. Called as a single statement, so its transaction commits before the answer: durable when it answers.
   */
  private appendFunction(): string {
    const t = this.table;
    return `CREATE OR REPLACE FUNCTION "${this.schema}".append_events(
        check_stream text[], check_revision bigint[], check_commitment text[],
        ev_id text[], ev_stream text[], ev_revision bigint[], ev_type text[], ev_occurred_at text[], ev_data text[], ev_metadata text[], ev_commitment text[], ev_previous text[])
      RETURNS bigint LANGUAGE plpgsql AS $fn$
      DECLARE head bigint;
      BEGIN
        PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
        IF EXISTS (
          SELECT 1 FROM unnest(check_stream, check_revision, check_commitment) AS c(stream, revision, commitment)
          WHERE CASE WHEN c.revision < 0 THEN EXISTS (SELECT 1 FROM ${t} e WHERE e.stream = c.stream)
            ELSE NOT EXISTS (SELECT 1 FROM ${t} e WHERE e.stream = c.stream AND e.revision = c.revision AND e.event_commitment = c.commitment)
              OR EXISTS (SELECT 1 FROM ${t} e WHERE e.stream = c.stream AND e.revision > c.revision) END
        ) THEN RETURN -1; END IF;
        SELECT coalesce(max(position), 0) INTO head FROM ${t};
        INSERT INTO ${t} (position, event_id, stream, revision, type, occurred_at, data, metadata, event_commitment, previous_event_commitment)
          SELECT head + u.n, u.id, u.stream, u.revision, u.type, u.occurred_at, u.data, u.metadata, u.commitment, u.previous
          FROM unnest(ev_id, ev_stream, ev_revision, ev_type, ev_occurred_at, ev_data, ev_metadata, ev_commitment, ev_previous)
            WITH ORDINALITY AS u(id, stream, revision, type, occurred_at, data, metadata, commitment, previous, n);
        PERFORM pg_notify('${this.channel}', (head + cardinality(ev_id))::text);
        RETURN head;
      END $fn$`;
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
    let outcome: BatchOutcome;
    try {
      await this.ready;
      outcome = (await this.commitKnown(batch)) ?? (await this.commitCarefully(batch));
    } catch (error) {
      for (const req of batch) req.reject(error);
      return;
    }
    this.remember(outcome.rows);
    batch.forEach((req, i) => {
      const r = outcome.results[i];
      if ('error' in r) {
        // What this process knew of the stream was stale: the writer's next read goes to the table.
        if (r.error instanceof VersionConflict) this.ends.delete(req.stream);
        req.reject(r.error);
      } else req.resolve(r);
    });
    this.appendWaiters.wake(outcome.rows.map(committedOf));
  }

  /**
   * The common path, one round trip (append_events): every append chained from where this process knows its stream
   * ends, or from nothing for a stream expected not to exist. Null when that cannot be planned here (an end not known,
   * an expectation the known end does not meet: a retry or a conflict) or when the function finds an end moved or an
   * event id already stored: the careful path decides then.
   */
  private async commitKnown(batch: PendingAppend[]): Promise<BatchOutcome | null> {
    const ends = new Map<string, ChainEnd | null>();
    const checks = new Map<string, ChainEnd | null>();
    const planned: Array<{ req: PendingAppend; rows: EventRow[]; next: bigint }> = [];
    for (const req of batch) {
      if (req.events.length === 0) return null;
      let end: ChainEnd | null | undefined = ends.has(req.stream) ? ends.get(req.stream)! : this.ends.get(req.stream);
      if (end === undefined) {
        if (req.expected !== 'no_stream') return null;
        end = null;
      }
      if (!ends.has(req.stream)) checks.set(req.stream, end);
      if (!expectationHolds(req.expected, end ? end.revision : null)) return null;
      const rows = this.chain(req, end, 0n);
      const last = rows[rows.length - 1];
      ends.set(req.stream, { revision: BigInt(last.revision), commitment: last.event_commitment });
      planned.push({ req, rows, next: BigInt(last.revision) });
    }
    const rows = planned.flatMap((p) => p.rows);
    const column = <K extends keyof EventRow>(key: K) => rows.map((r) => r[key]);
    let head: bigint;
    try {
      const { rows: answer } = await this.pool.query<{ head: string }>({
        name: `append-events-${this.schema}`,
        text: `SELECT "${this.schema}".append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)::text AS head`,
        values: [
          [...checks.keys()],
          [...checks.values()].map((end) => (end ? end.revision.toString() : '-1')),
          [...checks.values()].map((end) => (end ? end.commitment : '')),
          column('event_id'), column('stream'), column('revision'), column('type'), column('occurred_at'),
          column('data'), column('metadata'), column('event_commitment'), column('previous_event_commitment'),
        ],
      });
      head = BigInt(answer[0].head);
    } catch (error) {
      if (isDuplicateEventId(error)) return null;
      throw error;
    }
    if (head < 0n) {
      // Some stream moved on elsewhere (another node): what this process knew of the batch's streams is stale.
      for (const stream of checks.keys()) this.ends.delete(stream);
      return null;
    }
    let position = head;
    for (const row of rows) row.position = (position += 1n).toString();
    const results: AppendResult[] = [];
    let at = head;
    for (const p of planned) {
      at += BigInt(p.rows.length);
      results.push({ next_revision: p.next, position: at });
    }
    return { results, rows };
  }

  /** The careful path: the transaction opened, the batch's stream heads read under the append lock, then inserted. */
  private async commitCarefully(batch: PendingAppend[]): Promise<BatchOutcome> {
    const client = await this.pool.connect();
    try {
      const outcome = await this.commitBatch(client, batch);
      client.release();
      return outcome;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw error;
    }
  }

  private async commitBatch(client: PoolClient, batch: PendingAppend[]): Promise<BatchOutcome> {
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
    let outcome: BatchOutcome & { head: bigint };
    try {
      outcome = await this.appendTogether(client, batch, head, tails);
    } catch (error) {
      // An event id already stored (a retry, or a clash): undo the batch and decide append by append.
      if (!isDuplicateEventId(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT batch');
      outcome = await this.appendOneByOne(client, batch, head);
    }
    // The notification is delivered at commit; the channel is a checked identifier and the head a number.
    const notify = outcome.rows.length > 0 ? `SELECT pg_notify('${this.channel}', '${outcome.head.toString()}'); ` : '';
    await client.query(`${notify}COMMIT`);
    return outcome;
  }

  /**
   * Rows for one append's events after the stream's end (`end`, null: a new stream), positions numbered from `head`
   * (0n: numbered later, by append_events), each chained to the one before.
   */
  private chain(req: PendingAppend, end: ChainEnd | null, head: bigint): EventRow[] {
    let previous = end ? end.commitment : null;
    let revision = end ? end.revision + 1n : 0n;
    let position = head;
    return req.events.map((e, i) => {
      position += 1n;
      const occurred_at = e.occurred_at ?? new Date().toISOString();
      const { data, committed, metadata } = req.texts[i];
      const commitment = eventCommitmentOf({ stream: req.stream, revision, event_id: e.event_id, type: e.type, occurred_at, previous_event_commitment: previous }, committed, metadata);
      const row: EventRow = {
        position: position.toString(), event_id: e.event_id, stream: req.stream, revision: revision.toString(), type: e.type, occurred_at,
        data, metadata, event_commitment: commitment, previous_event_commitment: previous,
      };
      previous = commitment;
      revision += 1n;
      return row;
    });
  }

  /**
   * With the batch's stream heads (read when the transaction opened), every event numbered and chained in memory,
   * one INSERT for all of them.
   */
  private async appendTogether(
    client: PoolClient,
    batch: PendingAppend[],
    head: bigint,
    tails: Map<string, ChainEnd>,
  ): Promise<BatchOutcome & { head: bigint }> {
    const results: Array<AppendResult | { error: unknown } | null> = [];
    const refused: Array<{ index: number; current: bigint | null }> = [];
    const rows: EventRow[] = [];
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
      const chained = this.chain(req, tail ?? null, position);
      for (const row of chained) rows.push(row);
      const last = chained[chained.length - 1];
      position = BigInt(last.position);
      tails.set(req.stream, { revision: BigInt(last.revision), commitment: last.event_commitment });
      results.push({ next_revision: BigInt(last.revision), position });
    });
    await this.insertRows(client, rows);
    // Stale expectations: a retry of an append that succeeded (its ids are stored, perhaps by this very batch) or a conflict.
    for (const { index, current } of refused) {
      try {
        results[index] = await this.replay(client, batch[index], current);
      } catch (error) {
        results[index] = { error };
      }
    }
    return { results: results as Array<AppendResult | { error: unknown }>, rows, head: position };
  }

  /**
   * Rows in one statement of ten arrays (unnest): one bind of ten parameters and one plan however many rows, where a
   * VALUES list would bind ten parameters per row.
   */
  private async insertRows(client: PoolClient, rows: EventRow[]): Promise<void> {
    if (rows.length === 0) return;
    const column = <K extends keyof EventRow>(key: K) => rows.map((r) => r[key]);
    await client.query({
      name: `insert-events-${this.schema}`,
      text: `INSERT INTO ${this.table} (position, event_id, stream, revision, type, occurred_at, data, metadata, event_commitment, previous_event_commitment)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])`,
      values: [
        column('position'), column('event_id'), column('stream'), column('revision'), column('type'), column('occurred_at'),
        column('data'), column('metadata'), column('event_commitment'), column('previous_event_commitment'),
      ],
    });
  }

  /** The careful path's fallback (some id of the batch is stored already): each append in its own savepoint. */
  private async appendOneByOne(client: PoolClient, batch: PendingAppend[], start: bigint): Promise<BatchOutcome & { head: bigint }> {
    let head = start;
    const results: Array<AppendResult | { error: unknown }> = [];
    const rows: EventRow[] = [];
    for (const req of batch) {
      await client.query('SAVEPOINT append');
      try {
        const { result, rows: appended } = await this.appendInTransaction(client, req, head);
        await client.query('RELEASE SAVEPOINT append');
        if (appended.length > 0) {
          head = result.position;
          for (const row of appended) rows.push(row);
        }
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
    return { results, rows, head };
  }

  private async currentRevision(client: PoolClient, stream: string): Promise<bigint | null> {
    const { rows } = await client.query<{ revision: string }>(`SELECT e.revision::text AS revision FROM ${this.table} e WHERE e.stream = $1 ORDER BY e.revision DESC LIMIT 1`, [stream]);
    return rows.length ? BigInt(rows[0].revision) : null;
  }

  private async appendInTransaction(client: PoolClient, req: PendingAppend, head: bigint): Promise<{ result: AppendResult; rows: EventRow[] }> {
    const { stream, events, expected } = req;
    const { rows: found } = await client.query<{ revision: string; event_commitment: string }>(
      `SELECT e.revision::text AS revision, e.event_commitment FROM ${this.table} e WHERE e.stream = $1 ORDER BY e.revision DESC LIMIT 1`,
      [stream],
    );
    const end = found.length ? { revision: BigInt(found[0].revision), commitment: found[0].event_commitment } : null;
    const current = end ? end.revision : null;
    if (!expectationHolds(expected, current)) return { result: await this.replay(client, req, current), rows: [] };
    if (events.length === 0) return { result: { next_revision: current ?? -1n, position: head }, rows: [] };
    const rows = this.chain(req, end, head);
    await this.insertRows(client, rows);
    const last = rows[rows.length - 1];
    return { result: { next_revision: BigInt(last.revision), position: BigInt(last.position) }, rows };
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

  // ---------------------------------------------------------------------------------------------------- what this process knows

  /** This process's commit, just landed: into the tail when it follows it, and its streams' ends. */
  private remember(rows: EventRow[]): void {
    if (rows.length === 0) return;
    for (const row of rows) this.learnEnd(row);
    const last = BigInt(rows[rows.length - 1].position);
    if (last > this.knownHead) this.knownHead = last;
    // A gap (another node committed in between) is filled by the next shared fetch, which reads this commit too.
    if (BigInt(rows[0].position) === this.tailStart + BigInt(this.tail.length) && (this.tail.length > 0 || this.tailStart > 0n)) this.extend(rows);
  }

  /** Appends rows that follow the tail (consecutive), dropping the oldest half once it grows past its size. */
  private extend(rows: Array<EventRow | RecordedEvent>): void {
    for (const row of rows) this.tail.push(row);
    if (this.tail.length > TAIL_CACHE_SIZE) {
      const drop = this.tail.length - TAIL_CACHE_SIZE / 2;
      this.tail = this.tail.slice(drop);
      this.tailStart += BigInt(drop);
    }
  }

  /** The stream ends at `row` (as of the tail's epoch `epoch`, default the current one); never moves back. */
  private learnEnd(row: KeptEvent, epoch = this.epoch): void {
    const revision = BigInt(row.revision);
    const known = this.ends.get(row.stream);
    if (known && (known.revision > revision || (known.revision === revision && known.epoch >= epoch))) return;
    this.ends.delete(row.stream);
    this.ends.set(row.stream, { revision, commitment: row.event_commitment, last: row, epoch });
    if (this.ends.size > KNOWN_ENDS) this.ends.delete(this.ends.keys().next().value as string);
  }

  /** The tail starts again at `start` (a gap from what it held, or its first start): ends learned before may be stale. */
  private restartTail(start: bigint): void {
    this.tail = [];
    this.tailStart = start;
    this.epoch += 1;
  }

  /**
   * The end of `stream` as the log has it now, from memory, or undefined when this process cannot tell without reading
   * the stream. "Now" is linearizable: the database's head is read after the call (one read shared by every caller
   * waiting at the time), the tail brought up to it, and the end answered only if learned while the tail followed the
   * log without a gap since. Null: the stream has no event.
   */
  private async currentEnd(stream: string): Promise<StreamEnd | null | undefined> {
    if (this.tailStart === 0n || this.ends.get(stream)?.epoch !== this.epoch) return undefined;
    // A check sent after the request arrived serves its every read: one round trip per request at most.
    const request = currentContext();
    let head = request ? this.checkedBy.get(request) : undefined;
    if (head === undefined) {
      head = await this.checkHead();
      if (request) this.checkedBy.set(request, head);
    }
    for (let rounds = 0; this.tailStart + BigInt(this.tail.length) - 1n < head; rounds++) {
      if (rounds >= 3) return undefined; // far behind: a read of the stream is cheaper than catching up here
      const epoch = this.epoch;
      await this.fetchShared();
      if (epoch !== this.epoch) return undefined;
    }
    const end = this.ends.get(stream);
    return end?.epoch === this.epoch ? end : undefined;
  }

  /**
   * The log's head, read by a query sent after this call: callers that arrive while one is in flight share the next.
   * One round trip for every caller of a turn, in place of a read of each stream.
   */
  private checkHead(): Promise<bigint> {
    if (this.headCheck === null) {
      this.headCheck = this.readHead().finally(() => {
        this.headCheck = null;
      });
      return this.headCheck;
    }
    this.nextHeadCheck ??= this.headCheck.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      this.nextHeadCheck = null;
      return this.checkHead();
    });
    return this.nextHeadCheck;
  }

  private async readHead(): Promise<bigint> {
    const { rows } = await this.pool.query<{ head: string | null }>({ name: `head-${this.schema}`, text: `SELECT max(position)::text AS head FROM ${this.table}` });
    const head = BigInt(rows[0].head ?? '0');
    if (head > this.knownHead) this.knownHead = head;
    return head;
  }

  // ---------------------------------------------------------------------------------------------------- reads

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    await this.ready;
    const limit = options.maxCount ?? 1_000_000_000;
    const backwards = options.direction === 'backwards';
    // The common reads (a command's reload from its cached revision, a check of the stream's last event) are
    // answered from the known end when nothing follows it.
    if (limit >= 1 && (backwards ? options.fromRevision === undefined : options.fromRevision !== undefined)) {
      const end = await this.currentEnd(stream);
      if (end !== undefined && end !== null) {
        if (!backwards && options.fromRevision! > end.revision) return [];
        if (backwards && limit === 1 && end.last !== null) return [this.parsedLast(end)];
      }
    }
    const from = options.fromRevision ?? (backwards ? 9_223_372_036_854_775_807n : 0n);
    const epoch = this.epoch;
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${this.table} e WHERE e.stream = $1 AND e.revision ${backwards ? '<=' : '>='} $2 ORDER BY e.revision ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
      [stream, from.toString(), limit],
    );
    // A read from the stream's end (backwards from the head, or forwards short of its limit) says where it ends now:
    // as of the epoch the read began in (it saw at least what the tail held then).
    const end = backwards ? (options.fromRevision === undefined ? rows[0] : undefined) : rows.length < limit ? rows[rows.length - 1] : undefined;
    const recorded = rows.map(toRecorded);
    if (end) this.learnEnd(backwards ? recorded[0] : recorded[recorded.length - 1], epoch);
    return recorded;
  }

  private parsedLast(end: StreamEnd): RecordedEvent {
    const last = end.last!;
    return typeof last.data === 'string' ? (end.last = toRecorded(last as EventRow)) : (last as RecordedEvent);
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
    const { rows } = await this.pool.query<{ head: string | null }>(`SELECT max(position)::text AS head FROM ${this.table}`);
    return BigInt(rows[0].head ?? '0');
  }

  /**
   * A subscription's next batch: from the tail while it holds the position; once caught up with it, nothing without
   * a query while no commit is known beyond it (the poll fallback reads once per poll interval, shared); behind it
   * (a catch-up), straight from the table, and a read that reaches the head starts the tail where none is kept.
   */
  async readBatch(after: bigint, maxCount: number): Promise<RecordedEvent[]> {
    await this.ready;
    const kept = this.fromTail(after, maxCount);
    if (kept) return kept;
    const tailEnd = this.tailStart + BigInt(this.tail.length) - 1n;
    if (this.tailStart > 0n && after === tailEnd) {
      if (this.knownHead <= tailEnd && Date.now() - this.headReadAt < this.pollIntervalMs) return [];
      await this.fetchShared();
      return this.fromTail(after, maxCount) ?? [];
    }
    const rows = await this.selectAfter(after, maxCount);
    const last = rows.length > 0 ? BigInt(rows[rows.length - 1].position) : after;
    if (last > this.knownHead) this.knownHead = last;
    // Short of the limit: the read saw the log's end. Nothing kept yet, or what is kept ends before: keep from here.
    if (rows.length < maxCount && (this.tailStart === 0n || last > this.tailStart + BigInt(this.tail.length) - 1n)) {
      this.restartTail(after + 1n);
      this.headReadAt = Date.now();
      for (const row of rows) this.learnEnd(row);
      this.extend(rows);
    }
    return rows.map(toRecorded);
  }

  private fromTail(after: bigint, maxCount: number): RecordedEvent[] | null {
    const from = after + 1n - this.tailStart;
    if (this.tail.length === 0 || this.tailStart === 0n || from < 0n || from >= BigInt(this.tail.length)) return null;
    const start = Number(from);
    const end = Math.min(this.tail.length, start + maxCount);
    const out: RecordedEvent[] = [];
    for (let i = start; i < end; i++) {
      const slot = this.tail[i];
      // A row still holds its JSON text: parse it once, for every reader after this one too.
      out.push(typeof slot.data === 'string' ? (this.tail[i] = toRecorded(slot as EventRow)) : (slot as RecordedEvent));
    }
    return out;
  }

  /** Reads what follows the tail, once for every subscriber waiting on it; new events wake the others too. */
  private fetchShared(): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const after = this.tailStart + BigInt(this.tail.length) - 1n;
        const rows = await this.selectAfter(after, FETCH_SIZE);
        if (rows.length < FETCH_SIZE) this.headReadAt = Date.now();
        // Own commits may have followed the tail meanwhile: keep only what comes after it now.
        const tailEnd = this.tailStart + BigInt(this.tail.length) - 1n;
        const fresh = rows.filter((r) => BigInt(r.position) > tailEnd);
        if (fresh.length === 0 || BigInt(fresh[0].position) !== tailEnd + 1n) return;
        for (const row of fresh) this.learnEnd(row);
        this.extend(fresh);
        const last = BigInt(fresh[fresh.length - 1].position);
        if (last > this.knownHead) this.knownHead = last;
        this.appendWaiters.wake(fresh.map(committedOf));
      } finally {
        this.fetching = null;
      }
    })();
    return this.fetching;
  }

  // ---------------------------------------------------------------------------------------------------- subscriptions

  subscribeToAll(options: SubscribeOptions = {}): EventSubscription {
    void this.listen();
    const sub = new LogSubscription(this, options.after ?? 0n, this.batchSize, this.pollIntervalMs, options.passOver, options.awaited);
    this.subscriptions.add(sub);
    return sub;
  }

  /** One LISTEN connection per store, opened by the first subscription: other nodes' commits wake the subscribers. */
  private async listen(): Promise<void> {
    if (this.listener || this.closed) return;
    const client = new Client({ connectionString: this.options.connectionString });
    this.listener = client;
    // Another node's commit (this process's own are known already): its head, then the subscribers read it, shared.
    client.on('notification', (message) => {
      const head = message.payload ? BigInt(message.payload) : 0n;
      if (head <= this.knownHead) return;
      this.knownHead = head;
      this.wakeSubscribers();
    });
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
    await this.fetching?.catch(() => undefined);
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

/** What a commit wake-up says of an event (for the subscriptions that pass it over). */
function committedOf(row: EventRow): CommittedEvent {
  return { type: row.type, position: BigInt(row.position), occurred_at: row.occurred_at };
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
