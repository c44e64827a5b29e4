/**
 * Projection checkpoints and their lease. A projector runs in one process at a time: the owner renews its lease
 * with every batch, and a batch whose checkpoint update finds another owner rolls back (fencing), so two nodes
 * (or the rebuild CLI and a running server) never write the same read model.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager, QueryResult } from 'typeorm';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';
import { StateConflict } from '../errors';

export const LEASE_MS = 30_000;

export class LeaseLost extends StateConflict {
  constructor(name: string) {
    super(`Projection ${name} is run by another process.`, { retryable: true });
  }
}

interface CheckpointRow {
  name: string;
  position: string;
  owner: string | null;
  lease_until: string | number | null;
}

export class CheckpointStore {
  readonly owner = `${process.pid}-${randomBytes(6).toString('hex')}`;

  constructor(private readonly db: ReadModelDatabase) {}

  private sql(text: string): string {
    return this.db.sql(text);
  }

  async read(name: string, em: EntityManager = this.db.reader.manager): Promise<{ position: bigint; owner: string | null; leaseUntil: number } | null> {
    const rows: CheckpointRow[] = await em.query(this.sql('SELECT name, position, owner, lease_until FROM projection_checkpoints WHERE name = ?'), [name]);
    if (rows.length === 0) return null;
    return { position: BigInt(rows[0].position), owner: rows[0].owner, leaseUntil: Number(rows[0].lease_until ?? 0) };
  }

  /** Takes (or renews) the lease; throws LeaseLost when another live owner holds it. Returns the checkpoint. */
  async acquire(name: string): Promise<bigint> {
    return this.db.transaction(async (tx) => {
      const now = Date.now();
      const current = await this.read(name, tx);
      if (!current) {
        await tx.query(this.sql('INSERT INTO projection_checkpoints (name, position, owner, lease_until, updated_at) VALUES (?, ?, ?, ?, ?)'), [
          name, '0', this.owner, now + LEASE_MS, new Date(now).toISOString(),
        ]);
        return 0n;
      }
      if (current.owner && current.owner !== this.owner && current.leaseUntil > now) throw new LeaseLost(name);
      await tx.query(this.sql('UPDATE projection_checkpoints SET owner = ?, lease_until = ? WHERE name = ?'), [this.owner, now + LEASE_MS, name]);
      return current.position;
    });
  }

  /** Within the batch transaction: advance the checkpoint, renew the lease, and prove we still own it. */
  async advance(tx: EntityManager, name: string, position: bigint): Promise<void> {
    const now = Date.now();
    const affected = await this.update(
      tx,
      'UPDATE projection_checkpoints SET position = ?, lease_until = ?, updated_at = ? WHERE name = ? AND owner = ?',
      [position.toString(), now + LEASE_MS, new Date(now).toISOString(), name, this.owner],
    );
    if (affected !== 1) throw new LeaseLost(name);
  }

  async reset(tx: EntityManager, name: string): Promise<void> {
    const affected = await this.update(tx, 'UPDATE projection_checkpoints SET position = ?, updated_at = ? WHERE name = ? AND owner = ?', [
      '0', new Date().toISOString(), name, this.owner,
    ]);
    if (affected !== 1) throw new LeaseLost(name);
  }

  /** Runs an UPDATE in the transaction and returns the rows it changed (TypeORM's structured result, any driver). */
  private async update(tx: EntityManager, text: string, params: unknown[]): Promise<number> {
    if (!tx.queryRunner) throw new Error('checkpoint updates must run inside a transaction');
    const result = (await tx.queryRunner.query(this.sql(text), params, true)) as QueryResult;
    return result.affected ?? -1;
  }

  /** Keeps an idle projector's lease alive; false when another process took it. */
  async renew(name: string): Promise<boolean> {
    return this.db.transaction(async (tx) =>
      (await this.update(tx, 'UPDATE projection_checkpoints SET lease_until = ? WHERE name = ? AND owner = ?', [Date.now() + LEASE_MS, name, this.owner])) === 1,
    );
  }

  async release(name: string): Promise<void> {
    await this.db.transaction((tx) => this.update(tx, 'UPDATE projection_checkpoints SET owner = NULL, lease_until = NULL WHERE name = ? AND owner = ?', [name, this.owner]));
  }
}

