/**
 * A sweep one node runs at a time (LeasedSweep, src/platform/jobs/periodic-job.ts; the commerce expiry sweep uses
 * it), on SQLite and the real PostgreSQL: while one node holds the lease another node's ticks do nothing; once the
 * holder releases it (or it lapses) the other takes over.
 */
import { LeasedSweep } from '../../src/platform/jobs/periodic-job';
import { CheckpointStore } from '../../src/platform/projections/checkpoint.store';
import { identityOf as identity } from '../../src/platform/projections/node-identity';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';

describe.each<DatabaseKind>(['sqlite', 'postgres'])('leased sweep on %s', (kind) => {
  let testDb: TestDatabase;
  let db: ReadModelDatabase;

  beforeEach(async () => {
    testDb = makeTestDatabase(kind);
    db = await testDb.open([]);
  });
  afterEach(async () => {
    await db.close();
    await testDb.dispose();
  });

  it('runs on the node holding the lease only; the other takes over after a release', async () => {
    const runs: string[] = [];
    const sweep = (node: string) => new LeasedSweep(new CheckpointStore(db, identity(node, 1n)), 'commerce-expiry-sweep', async () => (runs.push(node), 7));
    const a = sweep('node-a');
    const b = sweep('node-b');
    expect(await a.tick()).toBe(7);
    expect(await b.tick()).toBeNull();
    expect(await a.tick()).toBe(7);
    expect(runs).toEqual(['node-a', 'node-a']);
    await a.release();
    expect(await b.tick()).toBe(7);
    expect(await a.tick()).toBeNull();
    expect(runs).toEqual(['node-a', 'node-a', 'node-b']);
  });

  it('a failing sweep keeps its error (the periodic job reports it) and still holds the lease', async () => {
    const failing = new LeasedSweep(new CheckpointStore(db, identity('node-a', 1n)), 'sweep', async () => {
      throw new Error('read model unreachable');
    });
    await expect(failing.tick()).rejects.toThrow('read model unreachable');
    expect(await new LeasedSweep(new CheckpointStore(db, identity('node-b', 1n)), 'sweep', async () => 1).tick()).toBeNull();
  });
});
