/**
 * The PostgreSQL event store's appends, one group-commit batch at a time (see the store's module comment): the common
 * path in one round trip through the append_events function, chained from the stream ends the store knows, and the
 * careful path (the transaction opened, the heads read under the append lock, then inserted) for everything else.
 */
import type { Pool, PoolClient } from 'pg';
import { eventCommitmentOf } from '../../commitments/commitment';
import { PlatformError, VersionConflict } from '../../errors';
import { expectationHolds, idempotentReplayOf, type CanonicalTexts } from '../append-validation';
import { describeExpected, type AppendResult, type ExpectedRevision, type NewEvent } from '../event-store.port';
import { announcementOf, APPEND_LOCK, isDuplicateEventId, type EventRow } from './postgres-rows';

/** A committed batch: each append's answer, and the rows written (positions numbered), in order. */
export interface BatchOutcome {
  results: Array<AppendResult | { error: unknown }>;
  rows: EventRow[];
}

export interface PendingAppend {
  stream: string;
  events: Array<Pick<NewEvent, 'event_id' | 'type' | 'occurred_at'>>;
  texts: CanonicalTexts[];
  expected: ExpectedRevision;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/** What an append chains from: the stream's last revision and commitment. */
export interface ChainEnd {
  revision: bigint;
  commitment: string;
}

export class PostgresAppends {
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly channel: string,
  ) {
    this.table = `"${schema}".events`;
  }

  /**
   * The one-round-trip append: under the append lock, each checked stream must still end where the caller chained
   * from (revision -1: no event yet), else nothing is written and the answer is -1; otherwise the events are numbered
   * after the head (dense, commit-ordered, as every append here), inserted and announced, and the answer is the head
   * they follow. Called as a single statement, so its transaction commits before the answer: durable when it answers.
   * The notification carries the new head, then `ev_announce` (the events themselves, announcementOf).
   */
  functionDefinition(): string {
    const t = this.table;
    return `CREATE OR REPLACE FUNCTION "${this.schema}".append_events(
        check_stream text[], check_revision bigint[], check_commitment text[],
        ev_id text[], ev_stream text[], ev_revision bigint[], ev_type text[], ev_occurred_at text[], ev_data text[], ev_metadata text[], ev_commitment text[], ev_previous text[], ev_announce text)
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
        PERFORM pg_notify('${this.channel}', (head + cardinality(ev_id))::text || ev_announce);
        RETURN head;
      END $fn$`;
  }

  /**
   * The common path, one round trip (append_events): every append chained from where this process knows its stream
   * ends, or from nothing for a stream expected not to exist. Null when that cannot be planned here (an end not known,
   * an expectation the known end does not meet: a retry or a conflict) or when the function finds an end moved or an
   * event id already stored: the careful path decides then.
   */
  async commitKnown(batch: PendingAppend[], ends: { endOf(stream: string): ChainEnd | undefined; forget(stream: string): void }): Promise<BatchOutcome | null> {
    const planning = new Map<string, ChainEnd | null>();
    const checks = new Map<string, ChainEnd | null>();
    const planned: Array<{ req: PendingAppend; rows: EventRow[]; next: bigint }> = [];
    for (const req of batch) {
      if (req.events.length === 0) return null;
      let end: ChainEnd | null | undefined = planning.has(req.stream) ? planning.get(req.stream)! : ends.endOf(req.stream);
      if (end === undefined) {
        if (req.expected !== 'no_stream') return null;
        end = null;
      }
      if (!planning.has(req.stream)) checks.set(req.stream, end);
      if (!expectationHolds(req.expected, end ? end.revision : null)) return null;
      const rows = this.chain(req, end, 0n);
      const last = rows[rows.length - 1];
      planning.set(req.stream, { revision: BigInt(last.revision), commitment: last.event_commitment });
      planned.push({ req, rows, next: BigInt(last.revision) });
    }
    const rows = planned.flatMap((p) => p.rows);
    const column = <K extends keyof EventRow>(key: K) => rows.map((r) => r[key]);
    let head: bigint;
    try {
      const { rows: answer } = await this.pool.query<{ head: string }>({
        name: `append-events-${this.schema}`,
        text: `SELECT "${this.schema}".append_events($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)::text AS head`,
        values: [
          [...checks.keys()],
          [...checks.values()].map((end) => (end ? end.revision.toString() : '-1')),
          [...checks.values()].map((end) => (end ? end.commitment : '')),
          column('event_id'), column('stream'), column('revision'), column('type'), column('occurred_at'),
          column('data'), column('metadata'), column('event_commitment'), column('previous_event_commitment'),
          announcementOf(rows),
        ],
      });
      head = BigInt(answer[0].head);
    } catch (error) {
      if (isDuplicateEventId(error)) return null;
      throw error;
    }
    if (head < 0n) {
      // Some stream moved on elsewhere (another node): what this process knew of the batch's streams is stale.
      for (const stream of checks.keys()) ends.forget(stream);
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
  async commitCarefully(batch: PendingAppend[]): Promise<BatchOutcome> {
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
}
