/**
 * The live nodes and the share of the single-writer jobs each runs (issue 46). Every node keeps a row in
 * `platform_nodes` (the jobs it can run, alive until one lease length past its last heartbeat) and, on PostgreSQL, a
 * session advisory lock on a connection of its own. Each heartbeat (NODE_HEARTBEAT_MS: a second by default) is one
 * read-model transaction: the row renewed, every lease this node holds renewed in one statement (so no job renews
 * its own), and the rows and leases read back. From them every node computes the same assignment (job-assignment.ts)
 * and acts on its part: it hands off what is now another node's (the job stops, its lease released) and takes what is
 * now its own (the job's lease tried at once).
 *
 * Why both a row and a lock: the row says what a node can run and bounds how long a paused node (a long GC, a frozen
 * VM) counts as alive, the lease length; the lock goes with the connection when a process dies, so a crashed node is
 * seen gone at the survivors' next heartbeat and its leases are taken at once instead of when they run out. A node that
 * is gone by its lock but in fact alive (its lock connection broke) is fenced as any late holder is: its next write
 * names an owner that no longer holds the lease row, or an engine's expected revision that moved on.
 *
 * Lease times are on the database's clock where nodes share one (PostgreSQL): hosts whose clocks differ do not
 * stretch or cut each other's leases.
 */
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import type { EntityManager, QueryResult } from 'typeorm';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';
import { leaseDuration } from '../projections/checkpoint.store';
import type { JobAssignment, JobControl, LeaseLoss, LeaseOwnerIdentity } from '../projections/node-identity';
import { assignJobs, type Member } from './job-assignment';

export interface NodeMembershipOptions {
  heartbeatMs: number;
  /**
   * The jobs this member runs (default: every job); acceptingJobs (job-assignment.ts) builds one from patterns. A
   * worker thread's member takes only its kind (`engine:*` on an engine thread, the rest on the background thread, none
   * on the HTTP thread): a job it does not accept is not listed in its row, so the assignment gives it to a member that
   * accepts it, or to none, and the member never takes its lease.
   */
  accepts?: (job: string) => boolean;
  /** PostgreSQL read models: where this node holds its session lock (the read models' database and schema). */
  lockDatabase?: { connectionString: string; schema?: string };
  logger?: { warn(obj: object, msg: string): void };
}

interface NodeRow {
  owner: string;
  node_id: string;
  jobs: string;
  lock_key: string | null;
  alive_until: string | number;
}

/** What one heartbeat saw. */
interface Snapshot {
  now: number;
  renewed: string[];
  nodes: NodeRow[];
  /** Advisory lock keys held in the database now (PostgreSQL), or null where there are none (SQLite). */
  locks: Set<string> | null;
  leases: Array<{ name: string; owner: string }>;
}

/** Rows of nodes gone for this many lease lengths are deleted (a crashed node leaves its row behind). */
const FORGET_AFTER_LEASES = 10;

export class NodeMembership implements JobAssignment {
  private readonly controls = new Map<string, JobControl | null>();
  private assignment: Map<string, string> | null = null;
  private gone: string[] = [];
  private held = new Set<string>();
  /** Leases taken since a heartbeat began (it may not have seen them), by the heartbeat count when taken. */
  private readonly taken = new Map<string, number>();
  private beats = 0;
  private liveOwners: string[] = [];
  /** The database's clock minus this machine's (ms), as the last heartbeat read it. */
  private offset = 0;
  private started: Promise<void> | null = null;
  private beating: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lock: Client | null = null;
  private lockKey: string | null = null;
  private stopped = false;
  private readonly losses = new Map<string, number>();

  constructor(
    private readonly db: ReadModelDatabase,
    private readonly identity: LeaseOwnerIdentity,
    private readonly options: NodeMembershipOptions,
  ) {}

  // ------------------------------------------------------------------------------------------------ JobAssignment

  attach(job: string, control?: JobControl): () => void {
    if (!this.accepts(job)) return () => undefined;
    const known = this.controls.get(job);
    if (control || known === undefined) this.controls.set(job, control ?? known ?? null);
    return () => {
      if (control && this.controls.get(job) === control) this.controls.set(job, null);
    };
  }

  async mayTake(job: string): Promise<boolean> {
    // Before the declaration below: a sweep ticking on a member that does not run it must not put it up for the job.
    if (!this.accepts(job)) return false;
    if (!this.controls.has(job)) this.controls.set(job, null);
    await this.start();
    // A job the assignment has not seen yet (a market created since): the next heartbeat shares it out.
    if (this.assignment !== null && !this.assignment.has(job)) await this.beat();
    const to = this.assignment?.get(job);
    return to === undefined || to === this.identity.owner;
  }

  goneOwners(): readonly string[] {
    return this.gone;
  }

  holds(job: string): boolean {
    return this.held.has(job) || this.taken.has(job);
  }

  tookLease(job: string): void {
    this.taken.set(job, this.beats);
  }

  letGo(job: string): void {
    this.held.delete(job);
    this.taken.delete(job);
  }

  now(): number {
    return Date.now() + this.offset;
  }

  alone(): boolean {
    return this.liveOwners.length === 1 && this.liveOwners[0] === this.identity.owner;
  }

  lostLease(job: string, how: LeaseLoss): void {
    const key = `${how} ${job}`;
    this.losses.set(key, (this.losses.get(key) ?? 0) + 1);
  }

  /** Leases lost so far, by how and job: `<how> <job>` → count. */
  lostLeases(): ReadonlyMap<string, number> {
    return this.losses;
  }

  /** Whether this member runs the job at all (NodeMembershipOptions.accepts). */
  accepts(job: string): boolean {
    return this.options.accepts?.(job) ?? true;
  }

  // ------------------------------------------------------------------------------------------------ what /metrics shows

  /** The single-writer jobs this node holds the lease of now. */
  heldJobs(): string[] {
    return [...new Set([...this.held, ...this.taken.keys()])].sort();
  }

  /** The live nodes as this node last saw them, and which node each job is assigned to. */
  view(): { nodes: string[]; assignment: Map<string, string> } {
    return { nodes: [...this.liveOwners], assignment: new Map(this.assignment ?? []) };
  }

  // ------------------------------------------------------------------------------------------------ lifecycle

  /** Registers this node and keeps it alive; resolves after the first heartbeat (jobs wait for it before taking leases). */
  start(): Promise<void> {
    this.started ??= (async () => {
      await this.holdLock();
      await this.beat();
      this.timer = setInterval(() => void this.beat().catch((err: unknown) => this.options.logger?.warn({ err }, 'node heartbeat failed; trying again')), this.options.heartbeatMs);
      this.timer.unref();
    })();
    return this.started;
  }

  /** Leaves: the row deleted (the others share this node's jobs at their next heartbeat), the lock let go. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating?.catch(() => undefined);
    if (this.started) await this.db.transaction((tx) => tx.query(this.db.sql('DELETE FROM platform_nodes WHERE owner = ?'), [this.identity.owner])).catch(() => undefined);
    const lock = this.lock;
    this.lock = null;
    await lock?.end().catch(() => undefined);
  }

  /** One heartbeat at a time; a call while one is under way shares it. */
  beat(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.beating ??= this.heartbeat().finally(() => {
      this.beating = null;
    });
    return this.beating;
  }

  private async heartbeat(): Promise<void> {
    if (this.options.lockDatabase && this.lock === null) await this.holdLock();
    const beat = ++this.beats;
    const snapshot = await this.db.transaction((tx) => this.exchange(tx));
    if (this.stopped) return;
    this.offset = snapshot.now - Date.now();
    this.held = new Set(snapshot.renewed);
    for (const [job, at] of this.taken) if (at < beat) this.taken.delete(job);

    const newest = new Map<string, string>();
    for (const n of snapshot.nodes) if ((newest.get(n.node_id) ?? '') < n.owner) newest.set(n.node_id, n.owner);
    const live = snapshot.nodes.filter(
      (n) =>
        (n.owner === this.identity.owner || Number(n.alive_until) > snapshot.now) &&
        (snapshot.locks === null || n.lock_key === null || n.owner === this.identity.owner || snapshot.locks.has(n.lock_key)) &&
        newest.get(n.node_id) === n.owner,
    );
    const liveOwners = new Set(live.map((n) => n.owner));
    this.liveOwners = [...liveOwners].sort();
    this.gone = snapshot.nodes.filter((n) => !liveOwners.has(n.owner)).map((n) => n.owner);
    const members: Member[] = live.map((n) => ({ owner: n.owner, jobs: n.owner === this.identity.owner ? [...this.controls.keys()] : parseJobs(n.jobs) }));
    const holders = new Map(snapshot.leases.map((l) => [l.name, liveOwners.has(l.owner) ? l.owner : null]));
    this.assignment = assignJobs(members, holders);
    this.act(new Map(snapshot.leases.map((l) => [l.name, l.owner])));
  }

  /**
   * Stops what runs here on a lease another node holds now (this node paused past it: fenced, it stands by), hands off
   * what is another live node's now, and tries at once what is this node's and not running here.
   */
  private act(holders: ReadonlyMap<string, string | null>): void {
    for (const [job, control] of this.controls) {
      if (control === null) continue;
      const holder = holders.get(job);
      if (control.running && holder && holder !== this.identity.owner && !this.holds(job)) {
        control.lose();
        continue;
      }
      const to = this.assignment!.get(job);
      if (to === this.identity.owner) {
        if (!control.running) control.wake();
      } else if (to !== undefined && control.running) {
        control.handOff();
      }
    }
  }

  /** The heartbeat's transaction: this node's row and leases renewed, then everything the assignment needs read. */
  private async exchange(tx: EntityManager): Promise<Snapshot> {
    const run = async (text: string, params: unknown[] = []): Promise<QueryResult> => (await tx.queryRunner!.query(this.db.sql(text), params, true)) as QueryResult;
    const clock = this.db.isPostgres ? Number(((await run('SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now')).records as Array<{ now: string }>)[0].now) : Date.now();
    const until = clock + leaseDuration();
    await run(
      `INSERT INTO platform_nodes (owner, node_id, jobs, lock_key, alive_until, started_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (owner) DO UPDATE SET jobs = excluded.jobs, lock_key = excluded.lock_key, alive_until = excluded.alive_until`,
      [this.identity.owner, this.identity.nodeId, JSON.stringify([...this.controls.keys()].sort()), this.lockKey, until, new Date(clock).toISOString()],
    );
    const renewed = ((await run('UPDATE projection_checkpoints SET lease_until = ? WHERE owner = ? RETURNING name', [until, this.identity.owner])).records ?? []) as Array<{ name: string }>;
    await run('DELETE FROM platform_nodes WHERE alive_until < ?', [clock - FORGET_AFTER_LEASES * leaseDuration()]);
    const nodes = (await run('SELECT owner, node_id, jobs, lock_key, alive_until FROM platform_nodes')).records as NodeRow[];
    const locks = this.db.isPostgres
      ? new Set(
          ((await run(
            `SELECT ((l.classid::bigint << 32) | l.objid::bigint)::text AS key FROM pg_locks l
             WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          )).records as Array<{ key: string }>).map((r) => r.key),
        )
      : null;
    const leases = (await run('SELECT name, owner FROM projection_checkpoints WHERE owner IS NOT NULL')).records as Array<{ name: string; owner: string }>;
    return { now: clock, renewed: renewed.map((r) => r.name), nodes, locks, leases };
  }

  /** PostgreSQL: a session advisory lock this process holds while it lives (on a connection of its own). */
  private async holdLock(): Promise<void> {
    const target = this.options.lockDatabase;
    if (!target || this.stopped) return;
    const key = lockKeyOf(this.identity.owner);
    const client = new Client({ connectionString: target.connectionString });
    client.on('error', (err) => {
      // The lock went with the connection: the others see this node gone; the next heartbeat takes it again.
      if (this.lock === client) {
        this.lock = null;
        this.lockKey = null;
        this.options.logger?.warn({ err }, 'node lock connection lost; taking the lock again');
      }
    });
    try {
      await client.connect();
      await client.query('SELECT pg_advisory_lock($1)', [key]);
      this.lock = client;
      this.lockKey = key;
    } catch (err) {
      await client.end().catch(() => undefined);
      this.options.logger?.warn({ err }, 'node lock not taken; liveness by heartbeat alone until it is');
    }
  }
}

/** The advisory lock key of a lease owner: 64 bits of its hash, as PostgreSQL's signed bigint in decimal. */
export function lockKeyOf(owner: string): string {
  return createHash('sha256').update(`platform node ${owner}`).digest().readBigInt64BE(0).toString();
}

function parseJobs(text: string): string[] {
  try {
    const jobs = JSON.parse(text) as unknown;
    return Array.isArray(jobs) ? jobs.filter((j): j is string => typeof j === 'string') : [];
  } catch {
    return [];
  }
}
