/**
 * Seeding a publishing projector's outbox (src/platform/outbox/outbox.ts, `seedStep`, run by the ProjectionRunner
 * before it applies anything) against real read-model databases, SQLite and the local PostgreSQL: pages in key order,
 * one transaction each, resumed where a cut-short seed stopped, not repeated once kept, forgotten by a process that
 * does not keep the outbox and by a rebuild. What reaches Kafka from there is tested in kafka-projection-seed.spec.ts.
 */
import { join } from 'node:path';
import type { EntityManager } from 'typeorm';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { createOutboxTable, ProjectionOutbox, type OutboxRow, type PublishedTable } from '../../src/platform/outbox/outbox';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';
import { hex32, newEvent } from '../support/events';
import { TestLedgerProjector, testLedgerReadModel, type TestLedgerBalance } from '../support/test-ledger/ledger.read-model';
import { ledgerStream } from '../support/test-ledger/ledger.domain';
import { until } from '../support/traders';

/** The test ledger as a publishing projector: its rows mirrored into `outbox_test_ledger`. */
class PublishingLedger extends TestLedgerProjector {
  readonly outbox = new ProjectionOutbox('test-ledger-balances', 'outbox_test_ledger', { title: 'test ledger balance', key: 'ledger_id', description: 'a balance of the test ledger' });
  readonly published: PublishedTable<TestLedgerBalance> = {
    table: 'test_ledger_balances',
    key: 'ledger_id',
    change: (row) => ({ key: row.ledger_id, value: { balance: row.balance }, headers: { owner: row.owner } }),
  };
  constructor(kafka: boolean) {
    super();
    this.outbox.enabled = kafka;
  }
}

describe.each<DatabaseKind>(['sqlite', 'postgres'])('seeding a projection outbox on %s', (kind) => {
  let testDb: TestDatabase;
  let store: SqliteEventStore;
  let db: ReadModelDatabase;
  const runners: ProjectionRunner[] = [];

  beforeEach(async () => {
    testDb = makeTestDatabase(kind);
    store = new SqliteEventStore({ filename: join(testDb.dataDir, 'events.sqlite'), pollIntervalMs: 20 });
    db = await testDb.open([testLedgerReadModel]);
    const q = db.writer.createQueryRunner();
    await createOutboxTable(q, 'outbox_test_ledger');
    await q.release();
  });

  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await db.close();
    await store.close();
    await testDb.dispose();
  });

  /** Runs a projector until it passed the head, then stops it. */
  async function runOnce(projector: PublishingLedger): Promise<ProjectionRunner> {
    const r = new ProjectionRunner(store, db, [projector], { batchSize: 50, retryDelayMs: 20, seedPageSize: 2 });
    runners.push(r);
    r.start();
    // Running: past its start (the seed, or forgetting it); a stored checkpoint at the head alone says nothing of that.
    await until(async () => r.status()[0].state, (state) => state === 'running');
    expect(await r.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    // The checkpoint is known before the seed runs: with Kafka, wait until the outbox counts as kept.
    if (projector.outbox.enabled) await until(async () => (await seedRecord())[0]?.state, (state) => state === 'kept');
    await r.stop();
    return r;
  }

  async function ledgers(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = hex32();
      await store.append(ledgerStream(id), [newEvent('LedgerOpened', { ledger_id: id, owner: `o${i}` }), newEvent('LedgerCredited', { ledger_id: id, amount: String(i + 1) })], 'no_stream');
      ids.push(id);
    }
    return ids.sort();
  }

  const outboxRows = async (): Promise<OutboxRow[]> => db.reader.query('SELECT id, row_key, value, headers FROM outbox_test_ledger ORDER BY id');
  const seedRecord = async (): Promise<Array<{ state: string; last_key: string | null; rows_seeded: string | number; position: string }>> =>
    db.reader.query(db.sql('SELECT state, last_key, rows_seeded, position FROM outbox_seeds WHERE read_model = ?'), ['test-ledger-balances']);

  it('seeds every row once, page by page in key order, before anything else; then counts the outbox as kept', async () => {
    const ids = await ledgers(5);
    await runOnce(new PublishingLedger(false)); // rows exist, nothing kept
    expect(await outboxRows()).toEqual([]);
    expect(await seedRecord()).toEqual([]);

    await runOnce(new PublishingLedger(true)); // 5 rows in pages of 2: three transactions
    const head = (await store.headPosition()).toString();
    const rows = await outboxRows();
    expect(rows.map((r) => r.row_key)).toEqual(ids);
    const headers = rows.map((r) => JSON.parse(r.headers) as Record<string, string>);
    expect(new Set(headers.map((h) => h.event_id)).size).toBe(1);
    for (const [i, h] of headers.entries()) {
      expect(h).toMatchObject({ snapshot: 'true', read_model: 'test-ledger-balances', position: head, owner: expect.stringMatching(/^o\d$/), event_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      expect(JSON.parse(rows[i].value!)).toEqual({ balance: expect.any(String) });
    }
    expect(await seedRecord()).toEqual([expect.objectContaining({ state: 'kept', last_key: ids[4], position: head })]);
    expect(Number((await seedRecord())[0].rows_seeded)).toBe(5);

    await runOnce(new PublishingLedger(true)); // kept: nothing again
    expect(await outboxRows()).toHaveLength(5);
  });

  it('resumes a seed cut short where it stopped, under the same seed id, each row once', async () => {
    const ids = await ledgers(5);
    await runOnce(new PublishingLedger(false));
    // One page, then the process goes away (as a stop between two pages would leave it).
    const publishing = new PublishingLedger(true);
    await db.transaction((tx: EntityManager) => publishing.outbox.seedStep(tx, publishing.published, 7n, () => 'a'.repeat(32), 2));
    expect(await seedRecord()).toEqual([expect.objectContaining({ state: 'seeding', last_key: ids[1] })]);

    await runOnce(new PublishingLedger(true));
    const rows = await outboxRows();
    expect(rows.map((r) => r.row_key)).toEqual(ids);
    expect(rows.map((r) => (JSON.parse(r.headers) as Record<string, string>).event_id)).toEqual(Array(5).fill('a'.repeat(32)));
    expect((await seedRecord())[0].state).toBe('kept');
  });

  it('pages a key of several columns by row value: every row once, even where the first column repeats across pages', async () => {
    // Five ledgers of two owners: paged by (owner, ledger_id), two rows a page, so an owner's rows span pages.
    const ids: Array<[string, string]> = [];
    for (let i = 0; i < 5; i++) {
      const id = hex32();
      const owner = i % 2 === 0 ? 'owner-a' : 'owner-b';
      await store.append(ledgerStream(id), [newEvent('LedgerOpened', { ledger_id: id, owner }), newEvent('LedgerCredited', { ledger_id: id, amount: '1' })], 'no_stream');
      ids.push([owner, id]);
    }
    await runOnce(new PublishingLedger(false));
    const publishing = new PublishingLedger(true);
    const published: PublishedTable<TestLedgerBalance> = { ...publishing.published, key: ['owner', 'ledger_id'] };
    const steps: boolean[] = [];
    for (let done = false; !done; ) {
      done = (await db.transaction((tx: EntityManager) => publishing.outbox.seedStep(tx, published, 7n, () => 'b'.repeat(32), 2))).done;
      steps.push(done);
    }
    expect(steps).toEqual([false, false, true]);
    const expected = [...ids].sort((x, y) => (x[0] + x[1] < y[0] + y[1] ? -1 : 1)).map(([, id]) => id);
    expect((await outboxRows()).map((r) => r.row_key)).toEqual(expected);
    expect(await seedRecord()).toEqual([expect.objectContaining({ state: 'kept', rows_seeded: expect.anything() })]);
    expect(Number((await seedRecord())[0].rows_seeded)).toBe(5);
  });

  it('is forgotten by a process without the outbox and by a rebuild, so the next process with Kafka seeds again', async () => {
    await ledgers(3);
    await runOnce(new PublishingLedger(false)); // the rows, before any Kafka
    await runOnce(new PublishingLedger(true));
    expect((await seedRecord())[0].state).toBe('kept');
    expect(await outboxRows()).toHaveLength(3);
    await runOnce(new PublishingLedger(false));
    expect(await seedRecord()).toEqual([]);

    await runOnce(new PublishingLedger(true));
    expect(await outboxRows()).toHaveLength(6); // seeded twice: 3 + 3
    const rebuilder = new ProjectionRunner(store, db, [new PublishingLedger(false)], { batchSize: 50 });
    await rebuilder.rebuild('test-ledger-balances');
    expect(await seedRecord()).toEqual([]);
  });
});
