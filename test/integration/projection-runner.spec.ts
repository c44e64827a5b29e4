/**
 * The projection runner against real read-model databases: SQLite and the local PostgreSQL.
 */
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { ProjectionOutbox, type PublishedTable } from '../../src/platform/outbox/outbox';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';
import { hex32, newEvent } from '../support/events';
import { TestLedgerBalance, TestLedgerProjector, testLedgerReadModel } from '../support/test-ledger/ledger.read-model';
import { ledgerStream } from '../support/test-ledger/ledger.domain';


/** The read-model transaction a projector's batch runs in: pipelined on PostgreSQL, a plain one on SQLite. */
const batchTransaction = (db: ReadModelDatabase): 'transaction' | 'pipelinedTransaction' => (db.isPostgres ? 'pipelinedTransaction' : 'transaction');
describe.each<DatabaseKind>(['sqlite', 'postgres'])('ProjectionRunner on %s', (kind) => {
  let testDb: TestDatabase;
  let store: SqliteEventStore;
  let db: ReadModelDatabase;
  const runners: ProjectionRunner[] = [];

  beforeEach(async () => {
    testDb = makeTestDatabase(kind);
    store = new SqliteEventStore({ filename: join(testDb.dataDir, 'events.sqlite'), pollIntervalMs: 20 });
    db = await testDb.open([testLedgerReadModel]);
  });

  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await db.close();
    await store.close();
    await testDb.dispose();
  });

  function runner(projector = new TestLedgerProjector(), database = db): ProjectionRunner {
    const r = new ProjectionRunner(store, database, [projector], { batchSize: 50, retryDelayMs: 20 });
    runners.push(r);
    return r;
  }

  async function openLedger(owner: string, amounts: string[]): Promise<string> {
    const id = hex32();
    await store.append(ledgerStream(id), [newEvent('LedgerOpened', { ledger_id: id, owner })], 'no_stream');
    for (const amount of amounts) await store.append(ledgerStream(id), [newEvent('LedgerCredited', { ledger_id: id, amount })], 'any');
    return id;
  }

  const rows = async (): Promise<TestLedgerBalance[]> => db.reader.getRepository(TestLedgerBalance).find({ order: { ledger_id: 'ASC' } });
  const checkpoint = async (name = 'test-ledger-balances'): Promise<bigint | undefined> => (await new ProjectionRunner(store, db, []).checkpoints.read(name))?.position;

  it('projects the log in order and stores the checkpoint with the rows', async () => {
    const a = await openLedger('ada', ['100', '250']);
    await store.append('unrelated-1', [newEvent('SomethingElse')], 'no_stream');
    const b = await openLedger('bob', ['7']);
    const r = runner();
    r.start();
    const head = await store.headPosition();
    expect(await r.waitFor(head, undefined, 5000)).toBe(true);

    const byId = Object.fromEntries((await rows()).map((x) => [x.ledger_id, x]));
    expect(byId[a]).toMatchObject({ owner: 'ada', balance: '350', entries: 2, version: 2 });
    expect(byId[b]).toMatchObject({ owner: 'bob', balance: '7', entries: 1, version: 1 });
    expect(await checkpoint()).toBe(head);
    expect(r.status()[0]).toMatchObject({ name: 'test-ledger-balances', state: 'running', checkpoint: head });
  });

  it('projects on when its topic cannot be seeded (the read model matters more), and says so', async () => {
    // A publishing projector with Kafka on whose published table is missing: the seed fails, the projection must not.
    class PublishingLedger extends TestLedgerProjector {
      readonly outbox = Object.assign(new ProjectionOutbox('test-ledger-balances', 'outbox_test_ledger', { title: 'test ledger balance', key: 'ledger_id', description: 'a balance of the test ledger' }), { enabled: true });
      readonly published: PublishedTable = { table: 'no_such_table', key: 'id', change: () => ({ key: 'x', value: {} }) };
    }
    const errors: string[] = [];
    const logger = { info: () => undefined, warn: () => undefined, error: (_: object, msg: string) => void errors.push(msg) };
    const a = await openLedger('ada', ['5']);
    const r = new ProjectionRunner(store, db, [new PublishingLedger()], { batchSize: 50, retryDelayMs: 20, logger });
    runners.push(r);
    r.start();
    expect(await r.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    expect((await rows()).find((x) => x.ledger_id === a)).toMatchObject({ balance: '5' });
    expect(r.status()[0].state).toBe('running');
    expect(errors).toEqual(['projection topic not seeded; projecting on, the seed is tried again at the next start']);
  });

  it('resumes from its checkpoint after a restart without applying anything twice', async () => {
    const a = await openLedger('ada', ['10']);
    const first = runner();
    first.start();
    expect(await first.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    await first.stop();

    await store.append(ledgerStream(a), [newEvent('LedgerCredited', { ledger_id: a, amount: '5' })], 'any');
    const projector = new TestLedgerProjector();
    const applied = jest.spyOn(projector, 'apply');
    const second = runner(projector);
    second.start();
    expect(await second.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    expect(applied).toHaveBeenCalledTimes(1);
    expect((await rows())[0]).toMatchObject({ balance: '15', entries: 2 });
  });

  it('is past a commit of this process with nothing for it when the append returns, without reading it; a commit with its events is applied', async () => {
    // A poll interval no test step reaches: every read the subscription makes here follows a commit's wake-up.
    const log = new SqliteEventStore({ filename: join(testDb.dataDir, 'quiet-events.sqlite'), pollIntervalMs: 60_000 });
    const projector = new TestLedgerProjector();
    const r = new ProjectionRunner(log, db, [projector], { batchSize: 50, retryDelayMs: 20 });
    try {
      const id = hex32();
      await log.append(ledgerStream(id), [newEvent('LedgerOpened', { ledger_id: id, owner: 'ada' })], 'no_stream');
      r.start();
      expect(await r.waitFor(await log.headPosition(), undefined, 5000)).toBe(true);
      const reads = jest.spyOn(log, 'readBatch');
      const applied = jest.spyOn(projector, 'apply');

      const { position } = await log.append(`unrelated-${hex32()}`, [newEvent('SomethingElse'), newEvent('SomethingElse')], 'no_stream');
      // Passed over as the commit settled (SubscribeOptions.passOver), before the append's caller goes on.
      expect(r.status()[0].checkpoint).toBe(position);
      await new Promise((resolve) => setImmediate(resolve));
      expect(reads).not.toHaveBeenCalled();
      expect(applied).not.toHaveBeenCalled();

      // A commit holding one of its events is read, from just after the passed position, and applied.
      const credited = await log.append(ledgerStream(id), [newEvent('LedgerCredited', { ledger_id: id, amount: '5' })], 'any');
      expect(await r.waitFor(credited.position, undefined, 5000)).toBe(true);
      expect(reads).toHaveBeenCalledWith(position, expect.any(Number));
      expect(applied).toHaveBeenCalledTimes(1);
      expect((await rows()).find((x) => x.ledger_id === id)).toMatchObject({ balance: '5', entries: 1 });
    } finally {
      await r.stop();
      await log.close();
    }
  });

  it('passes events it ignores without a transaction, stores that checkpoint soon after, and restarts from it unchanged', async () => {
    const a = await openLedger('ada', ['10']);
    const r = runner();
    r.start();
    expect(await r.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    const stored = await checkpoint();
    const transactions = jest.spyOn(db, batchTransaction(db));

    for (let i = 0; i < 3; i++) await store.append(`unrelated-${hex32()}`, [newEvent('SomethingElse')], 'no_stream');
    const head = await store.headPosition();
    expect(await r.waitFor(head, undefined, 5000)).toBe(true);
    // Read-your-writes saw the position at once; no transaction was needed for it.
    expect(transactions).not.toHaveBeenCalled();
    expect(await checkpoint()).toBe(stored);

    // The checkpoint-only write follows (other nodes wait on the stored checkpoint).
    const deadline = Date.now() + 5000;
    while ((await checkpoint()) !== head && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await checkpoint()).toBe(head);
    expect(transactions).toHaveBeenCalledTimes(1);

    // An ignored event, then a stop: the stop stores it; a restart applies nothing again.
    await store.append(`unrelated-${hex32()}`, [newEvent('SomethingElse')], 'no_stream');
    const last = await store.headPosition();
    expect(await r.waitFor(last, undefined, 5000)).toBe(true);
    await r.stop();
    expect(await checkpoint()).toBe(last);
    transactions.mockRestore();

    const projector = new TestLedgerProjector();
    const applied = jest.spyOn(projector, 'apply');
    const again = runner(projector);
    again.start();
    expect(await again.waitFor(last, undefined, 5000)).toBe(true);
    expect(applied).not.toHaveBeenCalled();
    expect((await rows()).find((x) => x.ledger_id === a)).toMatchObject({ balance: '10', entries: 1 });
  });

  it('tries a failed checkpoint-only write again, so a quiet log does not leave the stored checkpoint behind', async () => {
    await openLedger('ada', ['1']);
    const r = runner();
    r.start();
    expect(await r.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    // One transient failure of the read-model database, exactly when the idle checkpoint is written.
    const transactions = jest.spyOn(db, batchTransaction(db)).mockImplementationOnce(async () => {
      throw new Error('SQLITE_BUSY (transient)');
    });
    await store.append(`unrelated-${hex32()}`, [newEvent('SomethingElse')], 'no_stream');
    const head = await store.headPosition();
    expect(await r.waitFor(head, undefined, 5000)).toBe(true);
    // Another node (no projector of its own) waits on the stored checkpoint; nothing else is appended meanwhile.
    const other = runner();
    expect(await other.waitFor(head, undefined, 5000)).toBe(true);
    expect(transactions.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(await checkpoint()).toBe(head);
  });

  it('follows live appends and lets writers wait for their position (read-your-writes)', async () => {
    const r = runner();
    r.start();
    const id = await openLedger('live', []);
    const { position } = await store.append(ledgerStream(id), [newEvent('LedgerCredited', { ledger_id: id, amount: '42' })], 'any');
    expect(await r.waitFor(position, r.projectorsFor(['LedgerCredited']), 5000)).toBe(true);
    expect((await rows())[0]).toMatchObject({ balance: '42' });
    // A position nobody has reached times out rather than hanging.
    expect(await r.waitFor(position + 1000n, undefined, 50)).toBe(false);
  });

  it('never leaves rows ahead of or behind the checkpoint when a batch fails', async () => {
    const a = await openLedger('ada', ['1', '2']);
    const failing = new TestLedgerProjector();
    const bad = newEvent('LedgerCredited', { ledger_id: a, amount: '4' });
    const before = await store.headPosition();
    await store.append(ledgerStream(a), [newEvent('LedgerCredited', { ledger_id: a, amount: '3' }), bad], 'any');
    failing.failOn = bad.event_id;
    const r = runner(failing);
    r.start();
    await waitUntil(() => r.status()[0].state === 'failing');
    // The batch holding the bad event rolled back whole: the row and checkpoint agree, both before the batch.
    const cp = await checkpoint();
    const row = (await rows())[0];
    if (cp === undefined || cp === 0n) expect(row).toBeUndefined();
    else {
      expect(cp).toBe(before);
      expect(row).toMatchObject({ balance: '3', entries: 2 });
    }
    expect(r.status()[0].last_error).toMatch(/projector failure/);

    failing.failOn = null;
    expect(await r.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    expect((await rows())[0]).toMatchObject({ balance: '10', entries: 4 });

  });

  it('rebuilds a read model from zero to the same rows', async () => {
    for (let i = 0; i < 5; i++) await openLedger(`owner-${i}`, ['1', '20', '300']);
    const live = runner();
    live.start();
    expect(await live.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    const built = (await rows()).map(({ updated_at: _u, ...rest }) => rest);
    await live.stop();

    const progress: bigint[] = [];
    const rebuilder = runner();
    const result = await rebuilder.rebuild('test-ledger-balances', (p) => progress.push(p));
    expect(result.events).toBe(20);
    expect(progress[progress.length - 1]).toBe(await store.headPosition());
    expect((await rows()).map(({ updated_at: _u, ...rest }) => rest)).toEqual(built);
    expect(await checkpoint()).toBe(await store.headPosition());
  });

  it('runs a projector in one process at a time (lease); the rebuild CLI path respects it', async () => {
    await openLedger('ada', ['5']);
    const otherDb = await testDb.open([testLedgerReadModel]);
    try {
      const one = runner();
      one.start();
      expect(await one.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
      const two = runner(new TestLedgerProjector(), otherDb);
      two.start();
      await waitUntil(() => two.status()[0].state === 'standby');
      // A standby node still sees the projection advance, through the shared checkpoint.
      const id = await openLedger('bob', []);
      const { position } = await store.append(ledgerStream(id), [newEvent('LedgerCredited', { ledger_id: id, amount: '9' })], 'any');
      expect(await two.waitFor(position, undefined, 5000)).toBe(true);
      await two.stop();
      const three = runner(new TestLedgerProjector(), otherDb);
      await expect(three.rebuild('test-ledger-balances')).rejects.toThrow(/run by another process/);
      expect((await rows()).map((r) => r.balance).sort()).toEqual(['5', '9']);
    } finally {
      await otherDb.close();
    }
  });

  it('follows the stored checkpoint on a node that is only trying the lease (starting), not its own idle one', async () => {
    await openLedger('ada', ['5']);
    const otherDb = await testDb.open([testLedgerReadModel]);
    try {
      const one = runner();
      one.start();
      expect(await one.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
      // The other node's attempt at the lease hangs, so it stays 'starting' while the wait runs (every standby node
      // passes through 'starting' at each attempt; a wait begun then must not follow its in-memory checkpoint).
      const two = runner(new TestLedgerProjector(), otherDb);
      let letGo: () => void = () => undefined;
      const attempt = new Promise<void>((resolve) => (letGo = resolve));
      const acquire = two.checkpoints.acquire.bind(two.checkpoints);
      jest.spyOn(two.checkpoints, 'acquire').mockImplementation(async (name: string) => {
        await attempt;
        return acquire(name);
      });
      two.start();
      await waitUntil(() => two.status()[0].state === 'starting');
      const id = await openLedger('bob', []);
      const { position } = await store.append(ledgerStream(id), [newEvent('LedgerCredited', { ledger_id: id, amount: '9' })], 'any');
      expect(await two.waitFor(position, undefined, 5000)).toBe(true);
      expect(two.status()[0].state).toBe('starting');
      letGo();
      await waitUntil(() => two.status()[0].state === 'standby');
      await two.stop();
    } finally {
      jest.restoreAllMocks();
      await otherDb.close();
    }
  });

  it('rolls back a batch whose lease was taken over (fencing) and stands by', async () => {
    await openLedger('ada', ['1']);
    const r = runner();
    r.start();
    expect(await r.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    // Another node takes the projection over (as after a lease expiry).
    await db.transaction((tx) => tx.query(db.sql('UPDATE projection_checkpoints SET owner = ?, lease_until = ? WHERE name = ?'), ['other-node', Date.now() + 60_000, 'test-ledger-balances']));
    const id = await openLedger('late', ['100']);
    await waitUntil(() => r.status()[0].state === 'standby');
    expect((await rows()).find((x) => x.ledger_id === id)).toBeUndefined();
    expect((await new ProjectionRunner(store, db, []).checkpoints.read('test-ledger-balances'))?.owner).toBe('other-node');
  });

  it('takes a lease over only as it stands when taken, never from a stale read', async () => {
    await openLedger('ada', ['1']);
    const a = runner();
    a.start();
    expect(await a.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    const cp = new ProjectionRunner(store, db, []).checkpoints;
    // Lease still valid: a second owner is refused.
    await expect(cp.acquire('test-ledger-balances')).rejects.toThrow(/another process/);
    // Lease lapsed: the taker gets the checkpoint as it is at the takeover.
    await db.transaction((tx) => tx.query(db.sql('UPDATE projection_checkpoints SET lease_until = ? WHERE name = ?'), [Date.now() - 1, 'test-ledger-balances']));
    expect(await cp.acquire('test-ledger-balances')).toBe(await store.headPosition());
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
