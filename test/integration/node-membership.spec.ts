/**
 * The live nodes share the single-writer jobs (src/platform/jobs/node-membership.ts), on SQLite and on the real
 * PostgreSQL: nodes on one read-model database, each with its membership and the platform's lease loops over the same
 * job names. Shown: the jobs are shared out and never held twice; a node that leaves hands its jobs on; on PostgreSQL a
 * crashed node (its session lock gone with its connection) loses its jobs at once rather than when its leases run out;
 * a node paused past its lease loses them then, and its late write is refused.
 */
import { Client } from 'pg';
import { NodeMembership } from '../../src/platform/jobs/node-membership';
import { LeasedSweep } from '../../src/platform/jobs/periodic-job';
import { CheckpointStore, leaseDuration, LeaseLost, setLeaseDuration } from '../../src/platform/projections/checkpoint.store';
import { LeaseLoop } from '../../src/platform/projections/lease-loop';
import { identityOf } from '../../src/platform/projections/node-identity';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';

const LEASE_MS = 3000;
const HEARTBEAT_MS = 100;
const JOBS = Array.from({ length: 10 }, (_, i) => `job-${i}`);

interface TestNode {
  name: string;
  membership: NodeMembership;
  store: CheckpointStore;
  loops: LeaseLoop[];
}

describe.each<DatabaseKind>(['sqlite', 'postgres'])('node membership on %s', (kind) => {
  let testDb: TestDatabase;
  let db: ReadModelDatabase;
  const nodes: TestNode[] = [];
  const previousLease = leaseDuration();

  beforeAll(() => setLeaseDuration(LEASE_MS));
  afterAll(() => setLeaseDuration(previousLease));

  beforeEach(async () => {
    testDb = makeTestDatabase(kind);
    db = await testDb.open([]);
  });
  afterEach(async () => {
    for (const n of nodes.splice(0)) {
      await Promise.all(n.loops.map((l) => l.stop()));
      await n.membership.stop();
    }
    await db.close();
    await testDb.dispose();
  });

  /** A node running every job of JOBS under the platform's lease loop (a job's work: wait to be interrupted). */
  async function startNode(name: string, incarnation = 1n): Promise<TestNode> {
    const identity = identityOf(name, incarnation);
    const membership = new NodeMembership(db, identity, {
      heartbeatMs: HEARTBEAT_MS,
      lockDatabase: testDb.databaseUrl ? { connectionString: testDb.databaseUrl, schema: testDb.schema } : undefined,
    });
    identity.jobs = membership;
    const store = new CheckpointStore(db, identity);
    const loops = JOBS.map((job) => {
      let interrupted: () => void = () => undefined;
      return new LeaseLoop(
        {
          leaseName: job,
          acquire: () => store.acquire(job),
          work: () => new Promise<void>((resolve) => (interrupted = resolve)),
          interrupt: async () => interrupted(),
          renew: () => store.renew(job),
          release: () => store.release(job),
        },
        { retryDelayMs: 20, maxRetryDelayMs: 100, assignment: store.assignment },
      );
    });
    await membership.start();
    for (const l of loops) l.start();
    const node = { name, membership, store, loops };
    nodes.push(node);
    return node;
  }

  const owners = async (): Promise<Map<string, string | null>> =>
    new Map(((await db.reader.query('SELECT name, owner FROM projection_checkpoints')) as Array<{ name: string; owner: string | null }>).map((r) => [r.name, r.owner]));

  async function until<T>(read: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms: ${JSON.stringify([...(value as Map<string, unknown>)])}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const heldBy = (o: Map<string, string | null>, node: TestNode): number => [...o.values()].filter((owner) => owner?.startsWith(`${node.name}#`)).length;
  const running = (node: TestNode): number => node.loops.filter((l) => l.state === 'running').length;

  it('given two nodes with the same jobs, then each runs half, no job on both, and each says which it holds', async () => {
    const a = await startNode('node-a');
    const b = await startNode('node-b');
    const o = await until(owners, (m) => JOBS.every((j) => m.get(j)) && heldBy(m, a) === 5 && heldBy(m, b) === 5, 5000, 'five jobs each');
    await until(() => running(a) + running(b), (n) => n === 10, 5000, 'ten jobs running');
    expect(running(a)).toBe(5);
    expect(running(b)).toBe(5);
    expect(a.membership.heldJobs()).toEqual(JOBS.filter((j) => o.get(j)?.startsWith('node-a#')));
    expect(a.membership.view().nodes).toHaveLength(2);
  });

  it('given two nodes sharing the jobs, when one leaves, then the other runs them all within a few heartbeats', async () => {
    const a = await startNode('node-a');
    const b = await startNode('node-b');
    await until(owners, (m) => heldBy(m, a) === 5 && heldBy(m, b) === 5, 5000, 'five jobs each');
    await Promise.all(b.loops.map((l) => l.stop()));
    await b.membership.stop();
    nodes.splice(nodes.indexOf(b), 1);
    const left = Date.now();
    await until(() => running(a), (n) => n === 10, 5000, 'every job on the node left');
    expect(Date.now() - left).toBeLessThan(LEASE_MS);
  });

  it('given leased sweeps on both nodes and no tick due, then each is held (and swept) by one node at once; when that node leaves, the other holds it within a few heartbeats', async () => {
    const SWEEPS = ['sweep-a', 'sweep-b', 'sweep-c', 'sweep-d'];
    const a = await startNode('node-a');
    const b = await startNode('node-b');
    const swept: string[] = [];
    // No PeriodicJob: nothing ticks them but the node's assignment waking its share.
    const sweepsOf = (node: TestNode) => SWEEPS.map((name) => new LeasedSweep(node.store, name, async () => (swept.push(`${node.name} ${name}`), 0)));
    sweepsOf(a);
    const ofB = sweepsOf(b);
    const o = await until(owners, (m) => SWEEPS.every((s) => m.get(s)), 5000, 'every sweep held');
    expect(SWEEPS.filter((s) => o.get(s)?.startsWith('node-a#')).length + SWEEPS.filter((s) => o.get(s)?.startsWith('node-b#')).length).toBe(4);
    expect(swept.map((x) => x.split(' ')[1]).sort()).toEqual(SWEEPS);
    // node-b leaves (its lease loops and sweeps let go): node-a holds every sweep within a few heartbeats.
    await Promise.all(b.loops.map((l) => l.stop()));
    await Promise.all(ofB.map((sweep) => sweep.release()));
    await b.membership.stop();
    nodes.splice(nodes.indexOf(b), 1);
    const left = Date.now();
    await until(owners, (m) => SWEEPS.every((s) => m.get(s)?.startsWith('node-a#')), 5000, 'every sweep on the node left');
    expect(Date.now() - left).toBeLessThan(LEASE_MS);
  });

  it('given a node paused past its lease (no heartbeat), then the other takes its jobs, and its late write is refused', async () => {
    const a = await startNode('node-a');
    const b = await startNode('node-b');
    await until(owners, (m) => heldBy(m, a) === 5 && heldBy(m, b) === 5, 5000, 'five jobs each');
    const bJob = JOBS.find((j) => b.membership.heldJobs().includes(j))!;
    // Paused: no heartbeat (on PostgreSQL its lock stays held: the connection lives on, as in a long GC).
    clearInterval((b.membership as unknown as { timer: NodeJS.Timeout }).timer);
    const pausedAt = Date.now();
    await until(() => running(a), (n) => n === 10, LEASE_MS + 3000, 'every job on the running node');
    expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(LEASE_MS - 2 * HEARTBEAT_MS);
    await expect(db.transaction((tx) => b.store.advance(tx, bJob, 7n))).rejects.toThrow(LeaseLost);
    expect((await owners()).get(bJob)).toMatch(/^node-a#/);
  });

  if (kind === 'postgres') {
    it('given a node paused inside an open transaction on its job, then its row locks go within seconds and another node takes the job', async () => {
      const a = await startNode('node-a');
      const b = await startNode('node-b');
      await until(owners, (m) => heldBy(m, a) === 5 && heldBy(m, b) === 5, 5000, 'five jobs each');
      const bJob = JOBS.find((j) => b.membership.heldJobs().includes(j))!;
      // b is paused mid-batch: its checkpoint row locked by a transaction of its pool that waits for b, and no heartbeat.
      clearInterval((b.membership as unknown as { timer: NodeJS.Timeout }).timer);
      const stuck = db.writer.createQueryRunner();
      await stuck.connect();
      await stuck.startTransaction();
      await stuck.query(db.sql('UPDATE projection_checkpoints SET updated_at = ? WHERE name = ?'), [new Date().toISOString(), bJob]);
      const pausedAt = Date.now();
      // The session is ended after 5 s idle in its transaction (idleInTransaction): a takes the job once b's lease ran out.
      await until(() => running(a), (n) => n === 10, LEASE_MS + 8000, 'every job on the running node');
      expect(Date.now() - pausedAt).toBeLessThan(LEASE_MS + 8000);
      expect((await owners()).get(bJob)).toMatch(/^node-a#/);
      await expect(stuck.commitTransaction()).rejects.toThrow();
      await stuck.release().catch(() => undefined);
    }, 30_000);

    it('given a node that crashes (its session lock gone with its connection), then the other takes its jobs at once, not when its leases run out', async () => {
      const a = await startNode('node-a');
      const b = await startNode('node-b');
      await until(owners, (m) => heldBy(m, a) === 5 && heldBy(m, b) === 5, 5000, 'five jobs each');
      const internals = b.membership as unknown as { timer: NodeJS.Timeout; lock: Client & { processID: number } };
      clearInterval(internals.timer);
      const admin = new Client({ connectionString: testDb.databaseUrl });
      await admin.connect();
      try {
        await admin.query('SELECT pg_terminate_backend($1)', [internals.lock.processID]);
      } finally {
        await admin.end();
      }
      const crashed = Date.now();
      await until(() => running(a), (n) => n === 10, LEASE_MS, 'every job on the running node');
      expect(Date.now() - crashed).toBeLessThan(LEASE_MS / 2);
      expect(a.membership.view().nodes).toEqual([expect.stringMatching(/^node-a#/)]);
    });
  }
});
