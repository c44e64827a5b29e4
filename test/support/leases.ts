/**
 * Another node holding a job's lease, for tests of "runs on the lease holder only". A node holds the sweeps of its
 * share from its first heartbeat (the membership wakes them), so the lease is taken over from it, as it would be by
 * a node whose share it became.
 */
import { CheckpointStore, leaseDuration, LeaseLost } from '../../src/platform/projections/checkpoint.store';
import { identityOf } from '../../src/platform/projections/node-identity';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';

export async function leaseHeldElsewhere(db: ReadModelDatabase, name: string, node = 'node-b'): Promise<CheckpointStore> {
  const other = new CheckpointStore(db, identityOf(node, 1n));
  try {
    await other.acquire(name);
  } catch (error) {
    if (!(error instanceof LeaseLost)) throw error;
    await db.transaction((tx) => tx.query(db.sql('UPDATE projection_checkpoints SET owner = ?, lease_until = ? WHERE name = ?'), [other.owner, Date.now() + leaseDuration(), name]));
  }
  return other;
}
