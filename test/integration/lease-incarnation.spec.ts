/**
 * A node that restarts with the same identity takes its crashed incarnation's leases at once (issue 19, item 6), on
 * SQLite and on the real PostgreSQL; the earlier incarnation's writes are fenced off; other nodes still wait for the
 * lease to expire; a later incarnation is never displaced by an earlier one.
 */
import { CheckpointStore, LeaseLost } from '../../src/platform/projections/checkpoint.store';
import { identityOf as identity, transientIdentity } from '../../src/platform/projections/node-identity';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';


describe.each<DatabaseKind>(['sqlite', 'postgres'])('lease incarnations on %s', (kind) => {
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

  it('given a lease held by this node\'s crashed incarnation, when it restarts, then it takes the lease at once, from the stored position', async () => {
    const crashed = new CheckpointStore(db, identity('node-a', 1000n));
    await crashed.acquire('engine:m1');
    await db.transaction((tx) => crashed.advance(tx, 'engine:m1', 42n));
    // kill -9: no release; the lease has ~30 s left.
    const restarted = new CheckpointStore(db, identity('node-a', 2000n));
    expect(await restarted.acquire('engine:m1')).toBe(42n);
    expect((await restarted.read('engine:m1'))?.owner).toBe('node-a#0000000000002000');
    // The earlier incarnation, were it alive after all, is fenced off.
    await expect(db.transaction((tx) => crashed.advance(tx, 'engine:m1', 50n))).rejects.toThrow(LeaseLost);
    expect(await crashed.renew('engine:m1')).toBe(false);
    await expect(crashed.acquire('engine:m1')).rejects.toThrow(LeaseLost);
  });

  it('given a lease held by another node, then a restart of this node still waits for it', async () => {
    await new CheckpointStore(db, identity('node-b', 5000n)).acquire('projector:x');
    await expect(new CheckpointStore(db, identity('node-a', 9000n)).acquire('projector:x')).rejects.toThrow(LeaseLost);
    await expect(new CheckpointStore(db, transientIdentity()).acquire('projector:x')).rejects.toThrow(LeaseLost);
  });

  it('given a lease held by a later incarnation of this node, then an earlier one does not take it', async () => {
    await new CheckpointStore(db, identity('node-a', 3000n)).acquire('projector:y');
    await expect(new CheckpointStore(db, identity('node-a', 2999n)).acquire('projector:y')).rejects.toThrow(LeaseLost);
  });

  it('given a node id that merely starts like this one, then it is another node', async () => {
    await new CheckpointStore(db, identity('node-ab', 1n)).acquire('projector:z');
    await expect(new CheckpointStore(db, identity('node-a', 2n)).acquire('projector:z')).rejects.toThrow(LeaseLost);
  });
});
