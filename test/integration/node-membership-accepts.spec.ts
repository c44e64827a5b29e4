/**
 * Members that run only their kind of job (NodeMembershipOptions.accepts), as the worker threads of one process will
 * (issue 48): an engine thread's member runs the markets' engines and the background thread's the rest, on SQLite and
 * on the real PostgreSQL. Shown: each kind goes only to the member that accepts it, a member lists only what it accepts,
 * a sweep ticking on a member that does not run it neither runs nor puts that member up for it, and when the one
 * member that accepts a job leaves, the job stays unheld rather than move to a member that refuses it.
 */
import { NodeMembership } from '../../src/platform/jobs/node-membership';
import { acceptingJobs } from '../../src/platform/jobs/job-assignment';
import { LeasedSweep } from '../../src/platform/jobs/periodic-job';
import { CheckpointStore, leaseDuration, setLeaseDuration } from '../../src/platform/projections/checkpoint.store';
import { LeaseLoop } from '../../src/platform/projections/lease-loop';
import { identityOf } from '../../src/platform/projections/node-identity';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';

const LEASE_MS = 3000;
const HEARTBEAT_MS = 100;
const ENGINES = ['engine:m0', 'engine:m1', 'engine:m2', 'engine:m3'];
const OTHERS = ['projector-0', 'projector-1', 'projector-2', 'billing-rater', 'audit-checkpointer'];
const JOBS = [...ENGINES, ...OTHERS];
const SWEEP = 'sweep-expired-intents';
const ENGINE_MEMBER = acceptingJobs(['engine:*']);
const BACKGROUND_MEMBER = acceptingJobs(['*', '!engine:*']);

interface TestMember {
  name: string;
  membership: NodeMembership;
  /** One for each of JOBS, in order. */
  loops: LeaseLoop[];
  sweep: LeasedSweep;
}

describe.each<DatabaseKind>(['sqlite', 'postgres'])('members accepting their kind of job on %s', (kind) => {
  let testDb: TestDatabase;
  let db: ReadModelDatabase;
  const members: TestMember[] = [];
  const swept: string[] = [];
  const previousLease = leaseDuration();

  beforeAll(() => setLeaseDuration(LEASE_MS));
  afterAll(() => setLeaseDuration(previousLease));

  beforeEach(async () => {
    testDb = makeTestDatabase(kind);
    db = await testDb.open([]);
    swept.length = 0;
  });
  afterEach(async () => {
    for (const m of members.splice(0)) await leave(m);
    await db.close();
    await testDb.dispose();
  });

  /**
   * A member of one process that, like every thread booting the modules, has a lease loop for every job and the sweep:
   * only what it accepts is its to run.
   */
  async function startMember(name: string, accepts: (job: string) => boolean): Promise<TestMember> {
    const identity = identityOf(name, 1n);
    const membership = new NodeMembership(db, identity, {
      heartbeatMs: HEARTBEAT_MS,
      accepts,
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
    const sweep = new LeasedSweep(store, SWEEP, async () => (swept.push(name), 1));
    await membership.start();
    for (const l of loops) l.start();
    const member = { name, membership, loops, sweep };
    members.push(member);
    return member;
  }

  async function leave(m: TestMember): Promise<void> {
    await Promise.all(m.loops.map((l) => l.stop()));
    await m.sweep.release();
    await m.membership.stop();
    if (members.includes(m)) members.splice(members.indexOf(m), 1);
  }

  const owners = async (): Promise<Map<string, string | null>> =>
    new Map(((await db.reader.query('SELECT name, owner FROM projection_checkpoints')) as Array<{ name: string; owner: string | null }>).map((r) => [r.name, r.owner]));
  const listed = async (): Promise<Map<string, string[]>> =>
    new Map(((await db.reader.query('SELECT node_id, jobs FROM platform_nodes')) as Array<{ node_id: string; jobs: string }>).map((r) => [r.node_id, JSON.parse(r.jobs) as string[]]));
  const runningJobs = (m: TestMember): string[] => JOBS.filter((_, i) => m.loops[i].state === 'running').sort();
  const ownedBy = (o: Map<string, string | null>, jobs: string[], m: TestMember): boolean => jobs.every((j) => o.get(j)?.startsWith(`${m.name}#`));

  async function until<T>(read: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms: ${JSON.stringify(value instanceof Map ? [...value] : value)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The engine member first (alone at first, it must not take the rest), or last (it finds the rest assigned). */
  async function startBoth(engineFirst: boolean): Promise<{ eng: TestMember; bg: TestMember }> {
    const bg0 = engineFirst ? null : await startMember('node.bg', BACKGROUND_MEMBER);
    const eng = await startMember('node.eng-1', ENGINE_MEMBER);
    const bg = bg0 ?? (await startMember('node.bg', BACKGROUND_MEMBER));
    await until(owners, (o) => ownedBy(o, ENGINES, eng) && ownedBy(o, [...OTHERS, SWEEP], bg), 5000, 'each kind on its member');
    return { eng, bg };
  }

  it('given an engine member and a background member, then the engines run only on the first and the rest only on the second, each listing only its kind', async () => {
    const { eng, bg } = await startBoth(true);
    await until(() => [runningJobs(eng), runningJobs(bg)], ([e, b]) => e.length + b.length === JOBS.length, 5000, 'every job running');
    expect(runningJobs(eng)).toEqual([...ENGINES].sort());
    expect(runningJobs(bg)).toEqual([...OTHERS].sort());
    // The sweep ticks on both (a PeriodicJob on every thread): it runs on the member that accepts it only.
    expect(await eng.sweep.tick()).toBeNull();
    expect(await bg.sweep.tick()).toBe(1);
    expect(swept.every((name) => name === 'node.bg')).toBe(true);
    // After a heartbeat that follows the tick: the engine member still does not list the sweep (the tick did not declare it).
    await eng.membership.beat();
    const rows = await listed();
    expect(rows.get('node.eng-1')).toEqual([...ENGINES].sort());
    expect(rows.get('node.bg')).toEqual([...OTHERS, SWEEP].sort());
    expect([...eng.membership.view().assignment].filter(([, owner]) => owner.startsWith('node.eng-1#')).map(([job]) => job).sort()).toEqual([...ENGINES].sort());
  });

  it('given both members, when the background member leaves, then its jobs stay unheld rather than move to the engine member, which keeps the engines', async () => {
    const { eng, bg } = await startBoth(false);
    await leave(bg);
    await until(() => eng.membership.view().nodes, (nodes) => nodes.length === 1, 5000, 'the engine member alone');
    // Longer than a stand-by loop's poll (a third of the lease) and many heartbeats: time for a wrong member to take them.
    await new Promise((r) => setTimeout(r, LEASE_MS));
    expect(await eng.sweep.tick()).toBeNull();
    const o = await owners();
    expect([...OTHERS, SWEEP].map((job) => [job, o.get(job) ?? null])).toEqual([...OTHERS, SWEEP].map((job) => [job, null]));
    expect(ownedBy(o, ENGINES, eng)).toBe(true);
    expect(runningJobs(eng)).toEqual([...ENGINES].sort());
    expect([...eng.membership.view().assignment.keys()].sort()).toEqual([...ENGINES].sort());
    expect(swept).not.toContain('node.eng-1');
  });
});
