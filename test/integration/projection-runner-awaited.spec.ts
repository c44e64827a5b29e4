/**
 * The projection runner tells the store which projectors a read-your-writes wait is waiting for
 * (SubscribeOptions.awaited), so a commit wakes those first (CommitWaiters, one subscriber per turn of the event loop).
 * On the real SQLite event store and read models.
 */
import { join } from 'node:path';
import type { SubscribeOptions } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type TestDatabase } from '../support/databases';
import { hex32, newEvent } from '../support/events';
import { TestLedgerProjector, testLedgerReadModel } from '../support/test-ledger/ledger.read-model';
import { ledgerStream } from '../support/test-ledger/ledger.domain';

describe('ProjectionRunner: awaited projectors', () => {
  let testDb: TestDatabase;
  let store: SqliteEventStore;
  let db: ReadModelDatabase;
  let runner: ProjectionRunner;
  const subscribed: SubscribeOptions[] = [];

  beforeEach(async () => {
    testDb = makeTestDatabase('sqlite');
    store = new SqliteEventStore({ filename: join(testDb.dataDir, 'events.sqlite'), pollIntervalMs: 20 });
    db = await testDb.open([testLedgerReadModel]);
    const subscribeToAll = store.subscribeToAll.bind(store);
    store.subscribeToAll = (options?: SubscribeOptions) => {
      subscribed.push(options ?? {});
      return subscribeToAll(options);
    };
    runner = new ProjectionRunner(store, db, [new TestLedgerProjector()], { batchSize: 50, retryDelayMs: 20 });
  });

  afterEach(async () => {
    await runner.stop();
    await db.close();
    await store.close();
    await testDb.dispose();
    subscribed.splice(0);
  });

  it('says a projector is awaited while a wait names it and it has not passed the position, and not after', async () => {
    runner.start();
    const id = hex32();
    await store.append(ledgerStream(id), [newEvent('LedgerOpened', { ledger_id: id, owner: 'ada' })], 'no_stream');
    expect(await runner.waitFor(await store.headPosition(), undefined, 5000)).toBe(true);
    const awaited = subscribed.at(-1)!.awaited!;
    expect(awaited()).toBe(false);

    // A wait for a position the log has not reached yet: the projector is awaited until it times out.
    const beyond = (await store.headPosition()) + 10n;
    const waiting = runner.waitFor(beyond, ['test-ledger-balances'], 200);
    expect(awaited()).toBe(true);
    // A wait that names only another projector does not make this one awaited.
    const other = runner.waitFor(beyond, ['someone-else'], 50);
    expect(await waiting).toBe(false);
    expect(await other).toBe(true);
    expect(awaited()).toBe(false);

    // A wait that the projector's next batch fulfils ends with it.
    const head = await store.headPosition();
    const next = runner.waitFor(head + 1n, ['test-ledger-balances'], 5000);
    expect(awaited()).toBe(true);
    await store.append(ledgerStream(id), [newEvent('LedgerCredited', { ledger_id: id, amount: '5' })], 'any');
    expect(await next).toBe(true);
    expect(awaited()).toBe(false);
  });
});
