/**
 * Projection checkpoints and their lease. A projector runs in one process at a time: the owner renews its lease
 * with every batch, and a batch whose checkpoint update finds another owner rolls back (fencing), so two nodes
 * (or the rebuild CLI and a running server) never write the same read model.
 */
import type { EntityManager, QueryResult } from 'typeorm';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';
import { StateConflict } from '../errors';
import { channelName } from '../postgres-schema';
import { isEarlierIncarnation, transientIdentity, type JobAssignment, type JobControl, type LeaseOwnerIdentity } from './node-identity';

export const DEFAULT_LEASE_MS = 10_000;
let leaseMs = DEFAULT_LEASE_MS;

/**
 * How long a lease outlives its holder's last renewal (LEASE_MS, 10 s by default): how long a stalled node (a long GC,
 * a frozen VM) may pause before another takes its jobs over, and the longest a job stands still after its node dies
 * where the node's death is not seen sooner (on PostgreSQL it is: its session lock goes with it, node-membership.ts).
 * A node's heartbeat renews all its leases every nodeHeartbeatMs; tools without one renew each every third.
 */
export const leaseDuration = (): number => leaseMs;

/**
 * How often a node's heartbeat renews its leases and looks at the other nodes (node-membership.ts): every second, or a
 * third of the lease when that is shorter, so a lease outlives two missed heartbeats.
 */
export const nodeHeartbeatMs = (): number => Math.min(1000, Math.floor(leaseMs / 3));

/** Set once at start from the configuration (PlatformModule.forRoot), before any lease is taken. */
export function setLeaseDuration(ms: number): void {
  if (!Number.isInteger(ms) || ms < 1000) throw new Error(`a lease must last at least 1000 ms, not ${ms}`);
  leaseMs = ms;
}

export class LeaseLost extends StateConflict {
  constructor(name: string) {
    super(`Projection ${name} is run by another process.`, { retryable: true });
  }
}

/** The advance that fails (division by zero) unless this owner holds the lease: nothing may commit behind it then. */
const FENCED_ADVANCE =
  'WITH advanced AS (UPDATE projection_checkpoints SET position = ?, lease_until = ?, updated_at = ? WHERE name = ? AND owner = ? RETURNING 1) SELECT 1 / (SELECT count(*)::int FROM advanced) AS held';
/** … and announced (delivered at commit) to the other nodes, which wait on it for read-your-writes. */
const ANNOUNCED_ADVANCE = `${FENCED_ADVANCE}, pg_notify(?, ?)`;

interface CheckpointRow {
  name: string;
  position: string;
  owner: string | null;
  lease_until: string | number | null;
}

export class CheckpointStore {
  readonly owner: string;

  /** `identity`: the node's (NodeIdentity) for the server's jobs; a random one of its own otherwise (tools, tests). */
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly identity: LeaseOwnerIdentity = transientIdentity(),
  ) {
    this.owner = identity.owner;
  }

  private readonly passedPending = new Map<string, bigint>();

  private sql(text: string): string {
    return this.db.sql(text);
  }

  /** Where checkpoint advances are announced (PostgreSQL; SQLite between threads): one channel per read-model schema. */
  private get channel(): string {
    return channelName('checkpoints', this.db.schemaName ?? 'public');
  }

  /**
   * Calls `advanced` with each projector checkpoint any node commits (PostgreSQL: announced with the batch), until
   * the returned stop. Null on SQLite: the caller reads the checkpoints.
   */
  onAdvance(advanced: (name: string, position: bigint) => void): { stop(): void; readonly listening: boolean } | null {
    return this.db.listen(this.channel, (payload) => {
      // One advance per line: passed checkpoints of a turn travel together (announcePassed).
      for (const line of payload.split('\n')) {
        const at = line.lastIndexOf(':');
        if (at > 0 && /^\d+$/.test(line.slice(at + 1))) advanced(line.slice(0, at), BigInt(line.slice(at + 1)));
      }
    });
  }

  /**
   * SQLite with worker threads: a checkpoint moved in memory over commits with nothing for the projector (stored
   * lazily, ProjectionRunner.saveIdleCheckpointSoon) is announced at once, so the main thread's X-Min-Position waits
   * on no timer. Safe: a read model is past such events as it is. Gathered per turn of the event loop, one message.
   */
  announcePassed(name: string, position: bigint): void {
    if (!this.db.announces) return;
    if (this.passedPending.size === 0) {
      setImmediate(() => {
        const lines = [...this.passedPending].map(([n, p]) => `${n}:${p}`);
        this.passedPending.clear();
        this.db.announce(this.channel, lines.join('\n'));
      });
    }
    this.passedPending.set(name, position);
  }

  /** The node's share of the jobs (null for tools and tests without one: every lease is tried as it comes). */
  get assignment(): JobAssignment | null {
    return this.identity.jobs ?? null;
  }

  /**
   * A job this node can run, declared before its first lease (sweeps, which take their lease on each tick), with the
   * control the node's assignment starts and stops it by. Returns the detach.
   */
  declare(name: string, control?: JobControl): () => void {
    return this.identity.jobs?.attach(name, control) ?? (() => undefined);
  }

  /** Whether this node holds the job's lease, as its last heartbeat renewed it (false without a membership). */
  holds(name: string): boolean {
    return this.identity.jobs?.holds(name) ?? false;
  }

  /** The lease clock: the database's where the node has a membership (leases outlive hosts' clock differences). */
  private now(): number {
    return this.identity.jobs?.now() ?? Date.now();
  }

  async read(name: string, em: EntityManager = this.db.reader.manager): Promise<{ position: bigint; owner: string | null; leaseUntil: number } | null> {
    const rows: CheckpointRow[] = await em.query(this.sql('SELECT name, position, owner, lease_until FROM projection_checkpoints WHERE name = ?'), [name]);
    if (rows.length === 0) return null;
    return { position: BigInt(rows[0].position), owner: rows[0].owner, leaseUntil: Number(rows[0].lease_until ?? 0) };
  }

  /**
   * Takes (or renews) the lease; throws LeaseLost when another live owner holds it. Free, expired, ours, or held by
   * an earlier incarnation of this node (it crashed: take it back at once, node-identity.ts). Returns the checkpoint as
   * the takeover saw it: the conditional UPDATE re-checks the owner under the row lock (compare-and-set on the owner
   * read just before) and RETURNING gives the position at that moment, so a node that was slow to let go cannot
   * commit a batch between our read and our takeover.
   */
  async acquire(name: string): Promise<bigint> {
    const jobs = this.identity.jobs;
    if (jobs && !(await jobs.mayTake(name))) {
      // Another live node's share now: a lease still held here is let go (a sweep's, between its ticks).
      if (jobs.holds(name)) await this.release(name);
      throw new LeaseLost(name);
    }
    // A crashed node's leases are taken at once (the membership saw it gone), not when they run out.
    const gone = jobs?.goneOwners().slice(0, 100) ?? [];
    const taken = await this.db.transaction(async (tx) => {
      const now = this.now();
      await this.run(tx, 'INSERT INTO projection_checkpoints (name, position, owner, lease_until, updated_at) VALUES (?, ?, NULL, NULL, ?) ON CONFLICT (name) DO NOTHING', [
        name, '0', new Date(now).toISOString(),
      ]);
      const current = (await this.run(tx, 'SELECT owner FROM projection_checkpoints WHERE name = ?', [name])).records?.[0] as { owner: string | null } | undefined;
      const displaced = isEarlierIncarnation(current?.owner ?? null, this.identity) ? (current?.owner as string) : this.owner;
      const goneClause = gone.length > 0 ? ` OR owner IN (${gone.map(() => '?').join(', ')})` : '';
      const taken = await this.run(
        tx,
        `UPDATE projection_checkpoints SET owner = ?, lease_until = ? WHERE name = ? AND (owner IS NULL OR owner = ? OR owner = ? OR lease_until <= ?${goneClause}) RETURNING position`,
        [this.owner, now + leaseDuration(), name, this.owner, displaced, now, ...gone],
      );
      const row = taken.records?.[0] as { position: string } | undefined;
      if (!row) throw new LeaseLost(name);
      return BigInt(row.position);
    });
    jobs?.tookLease(name);
    return taken;
  }

  /** Within the batch transaction: advance the checkpoint, renew the lease, and prove we still own it. */
  async advance(tx: EntityManager, name: string, position: bigint): Promise<void> {
    const now = this.now();
    const affected = await this.update(
      tx,
      'UPDATE projection_checkpoints SET position = ?, lease_until = ?, updated_at = ? WHERE name = ? AND owner = ?',
      [position.toString(), now + leaseDuration(), new Date(now).toISOString(), name, this.owner],
    );
    if (affected !== 1) throw new LeaseLost(name);
  }

  /**
   * `work` and the checkpoint's advance to `position` in one transaction, which commits only while this process owns
   * the lease (LeaseLost otherwise). On PostgreSQL in a pipelined transaction (ReadModelDatabase.pipelinedTransaction):
   * the advance fails with a division by zero when it finds another owner, so the COMMIT behind it rolls back.
   */
  async commitBatch<T>(name: string, position: bigint, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    if (!this.db.isPostgres) {
      const result = await this.db.transaction(async (tx) => {
        const result = await work(tx);
        await this.advance(tx, name, position);
        return result;
      });
      // Committed: the process's other threads (worker threads, issue 48) may read the rows it vouches for.
      this.db.announce(this.channel, `${name}:${position}`);
      return result;
    }
    const now = this.now();
    return this.db.pipelinedTransaction(
      work,
      // A node alone has nobody to tell: each notification wakes every listening session of the database.
      this.identity.jobs?.alone() === true
        ? { text: this.sql(FENCED_ADVANCE), params: [position.toString(), now + leaseDuration(), new Date(now).toISOString(), name, this.owner] }
        : { text: this.sql(ANNOUNCED_ADVANCE), params: [position.toString(), now + leaseDuration(), new Date(now).toISOString(), name, this.owner, this.channel, `${name}:${position}`] },
      (error) => ((error as { code?: unknown })?.code === '22012' ? new LeaseLost(name) : error),
    );
  }

  async reset(tx: EntityManager, name: string): Promise<void> {
    const affected = await this.update(tx, 'UPDATE projection_checkpoints SET position = ?, updated_at = ? WHERE name = ? AND owner = ?', [
      '0', new Date().toISOString(), name, this.owner,
    ]);
    if (affected !== 1) throw new LeaseLost(name);
  }

  /** Runs a statement in the transaction; TypeORM's structured result reports rows and counts alike on every driver. */
  private async run(tx: EntityManager, text: string, params: unknown[]): Promise<QueryResult> {
    if (!tx.queryRunner) throw new Error('checkpoint statements must run inside a transaction');
    return (await tx.queryRunner.query(this.sql(text), params, true)) as QueryResult;
  }

  private async update(tx: EntityManager, text: string, params: unknown[]): Promise<number> {
    return (await this.run(tx, text, params)).affected ?? -1;
  }

  /** Checkpoints of projectors this process does not run (other nodes'), for read-your-writes and lag. */
  async positions(names: string[]): Promise<Map<string, bigint>> {
    if (names.length === 0) return new Map();
    const rows: Array<{ name: string; position: string }> = await this.db.reader.query(
      this.sql(`SELECT name, position FROM projection_checkpoints WHERE name IN (${names.map(() => '?').join(', ')})`),
      names,
    );
    return new Map(rows.map((r) => [r.name, BigInt(r.position)]));
  }

  /**
   * Keeps an idle job's lease alive; false when another process took it. With a membership the node's heartbeat
   * renews all its leases in one statement, and this answers from what that renewal found.
   */
  async renew(name: string): Promise<boolean> {
    if (this.identity.jobs) return this.identity.jobs.holds(name);
    return this.db.transaction(async (tx) =>
      (await this.update(tx, 'UPDATE projection_checkpoints SET lease_until = ? WHERE name = ? AND owner = ?', [this.now() + leaseDuration(), name, this.owner])) === 1,
    );
  }

  async release(name: string): Promise<void> {
    this.identity.jobs?.letGo(name);
    await this.db.transaction((tx) => this.update(tx, 'UPDATE projection_checkpoints SET owner = NULL, lease_until = NULL WHERE name = ? AND owner = ?', [name, this.owner]));
  }
}

