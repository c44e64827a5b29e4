/**
 * Audit Merkle tree benchmark (issue 50, docs/plans/merkle-proofs.md). A plain node program, not a jest test:
 * `npm run bench`. The tree over the log is a projection (projections/audit-merkle: AuditMerkleProjector), run here
 * as the platform runs it: by a ProjectionRunner over the embedded SqliteEventStore, in the writers' process.
 *
 *   1. tree maintenance against the 64-writer append rate: 64 writers (append-workload.ts `concurrentSingles`, as the
 *      SQLite event-store benchmark runs them) append while a runner with only the Merkle projector follows live: the
 *      append rate, the lag (events) when the writers finish and how long until the tree reaches the head; then a
 *      fresh read model catches up over the same log: the tree's maintenance rate (events folded per second).
 *      Baseline: the append rate.                                          target: maintenance / append >= 1.0x
 *   2. building the tree from scratch: `runner.rebuild('audit-merkle')` over a log of 1,000,000 events, in pages of
 *      1000 (what `npm run projections -- rebuild` uses). Baseline: a plain readAll pass over the same log in the same
 *      pages.                                                               target: <= 30 s (>= 33,333 ev/s)
 *   3. the same build with the read model on the local PostgreSQL (events on SQLite), over 200,000 events, beside the
 *      SQLite build of the same log; skipped with a note when no PostgreSQL answers at TEST_DATABASE_URL.
 *
 * Followed by where a build's time goes: an extra instrumented build split into readAll, the projector's applyBatch
 * (its statements one by one, and the rest: leaf hashes, tree folding, hex) and the transaction around it
 * (BEGIN, checkpoint, COMMIT), and the projector's JavaScript alone per event (leaf hashes, the fold, hex, and its
 * INSERT parameters, replicated from insertRows beside a loop in place of its `chunk.flat()`).
 *
 * The logs are written before any clock starts (appends of 1000 events, group-committed; not a figure). `buildLog`
 * and `appendLog` are exported for the proofs figure (step 5: inclusion and consistency proofs over HTTP at
 * 1,000,000 events), which needs the same log: a third figure imports them rather than building its own.
 *
 * Every figure is the best of 2 runs on fresh read-model files, baseline and measured runs alternating. Everything
 * runs in a fresh temp dir that is removed at the end. BENCH_SCALE scales the sizes (0.1 for a smoke run). The
 * process exits 0 whatever the figures are; only a crash exits 1.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { EntityManager } from 'typeorm';
import type { EventStore, NewEvent, RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { openReadModelDatabase, type ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { newId } from '../../src/platform/context/request-context';
import { appendLeaves, leafHashOfCommitment, rootFromFrontier } from '../../src/modules/audit/domain/merkle';
import { AuditMerkleProjector, auditMerkleReadModel, merkleState } from '../../projections/audit-merkle/audit-merkle.read-model';
import { makeTestDatabase, TEST_DATABASE_URL } from '../support/databases';
import { concurrentSingles, metadata, payload, type BenchStore } from './append-workload';
import { clock, log, pad, padL, printSummary, runBenchmark, scaled, SCALE, seconds } from './report';

// ---------------------------------------------------------------------------------------------------------------
// Sizes (about 4 minutes in total at scale 1 on a 2-vCPU VM, most of it writing the 1,000,000-event log).

const WRITERS = 64;
const PER_WRITER = scaled(400); // 25,600 events, as the event-store benchmark's 64-writer figure
/** The runner's batch when it follows the log (PROJECTION_BATCH_SIZE's default). */
const LIVE_BATCH = 500;
/** The issue's log: 1,000,000 events. */
export const LOG_EVENTS = scaled(1_000_000);
const PG_EVENTS = scaled(200_000);
/** A rebuild's page (`npm run projections -- rebuild`: PROJECTION_BATCH_SIZE but at least 1000); the readAll baseline's too. */
const BUILD_PAGE = 1000;
const MATH_LEAVES = scaled(200_000);
const REPS = 2;

const TARGET_SECONDS_PER_MILLION = 30;
const TARGET_BUILD_RATE = 1_000_000 / TARGET_SECONDS_PER_MILLION;

// ---------------------------------------------------------------------------------------------------------------
// The log (exported: the proofs figure builds the same one).

/** An event of the log: append-workload.ts's payload and metadata, as the event-store benchmarks append them. */
export function logEvent(i: number): NewEvent {
  return { event_id: newId(), type: 'Credited', data: payload(i), metadata };
}

export interface LogOptions {
  /** Events per append (each to a new stream); default 1000. */
  batch?: number;
  /** Appends in flight (the store group-commits them); default 4. */
  inFlight?: number;
  /** Called after each append with the events appended so far. */
  onProgress?: (appended: number) => void;
}

/**
 * Appends `count` events to `store` as fast as the store takes them: appends of `batch` events, each to a new stream,
 * `inFlight` at a time. Setup, not a figure.
 */
export async function appendLog(store: EventStore, count: number, options: LogOptions = {}): Promise<{ events: number; seconds: number }> {
  const batch = options.batch ?? 1000;
  const inFlight = options.inFlight ?? 4;
  const tag = newId();
  let handedOut = 0;
  let appended = 0;
  const started = clock();
  const writer = async (): Promise<void> => {
    while (handedOut < count) {
      const first = handedOut;
      const n = Math.min(batch, count - first);
      handedOut += n;
      const events = Array.from({ length: n }, (_, k) => logEvent(first + k));
      await store.append(`log-${tag}-${first}`, events, 'no_stream');
      appended += n;
      options.onProgress?.(appended);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, writer));
  return { events: count, seconds: seconds(started) };
}

/** A new SQLite log of `count` events in `file` (the store that wrote it is closed again). */
export async function buildLog(file: string, count: number, options: LogOptions = {}): Promise<{ events: number; seconds: number }> {
  const store = new SqliteEventStore({ filename: file });
  try {
    return await appendLog(store, count, options);
  } finally {
    await store.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting.

const perSec = (count: number, s: number): number => count / s;
const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const fmtRate = (r: number): string => `${int(r)} ev/s`;
const fmtRatio = (r: number): string => `${r.toFixed(2)}x`;
const fmtPct = (r: number): string => `${(r * 100).toFixed(0)}%`;
const us = (ns: number): string => `${(ns / 1000).toFixed(2)} us`;
const best = (xs: number[]): number => Math.max(...xs);
const runs = (xs: number[]): string => xs.map(int).join(' / ');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Figure {
  name: string;
  value: string;
  baseline: string;
  target: string;
  pass: boolean | null;
}
const figures: Figure[] = [];

// ---------------------------------------------------------------------------------------------------------------
// Read models.

interface TreeDb {
  db: ReadModelDatabase;
  dispose(): Promise<void>;
}

async function sqliteTreeDb(dir: string): Promise<TreeDb> {
  const db = await openReadModelDatabase({ dataDir: dir, readModels: [auditMerkleReadModel] });
  return {
    db,
    async dispose() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresTreeDb(): Promise<TreeDb> {
  const testDb = makeTestDatabase('postgres'); // a fresh schema, dropped by dispose
  const db = await testDb.open([auditMerkleReadModel]);
  return {
    db,
    async dispose() {
      await db.close();
      await testDb.dispose();
    },
  };
}

async function postgresReachable(): Promise<string | null> {
  const probe = new Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
    await probe.end();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

function popcount(n: number): number {
  let c = 0;
  for (let x = n; x > 0; x = Math.floor(x / 2)) c += x % 2;
  return c;
}

/** The stored tree: its size and root, after checking it holds every perfect subtree (2n − popcount(n)) and every leaf. */
async function checkedTree(db: ReadModelDatabase, events: number): Promise<{ size: number; root: string }> {
  const state = await merkleState(db.reader);
  const [nodes] = (await db.reader.query('SELECT COUNT(*) AS n FROM audit_merkle_nodes')) as Array<{ n: number | string }>;
  const [leaves] = (await db.reader.query('SELECT COUNT(*) AS n FROM audit_merkle_leaves')) as Array<{ n: number | string }>;
  if (state.size !== events || Number(nodes.n) !== 2 * events - popcount(events) || Number(leaves.n) !== events) {
    throw new Error(`the tree holds ${state.size} leaves, ${nodes.n} nodes and ${leaves.n} leaf rows for ${events} events`);
  }
  return { size: state.size, root: rootFromFrontier(state.frontier, state.size).toString('hex') };
}

async function untilRunning(runner: ProjectionRunner): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (runner.status()[0].state !== 'running') {
    if (Date.now() > deadline) throw new Error(`the runner did not start: ${JSON.stringify(runner.status()[0], (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
    await sleep(1);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Maintenance against the 64-writer append rate.

/** The SQLite event-store benchmark's store for the append workload, counting what landed. */
function benchStore(store: SqliteEventStore, counter: { appended: number }): BenchStore {
  const event = (i: number): NewEvent => ({ event_id: newId(), type: 'Credited', data: payload(i), metadata });
  return {
    appendOne: async (stream, i, expected) => {
      await store.append(stream, [event(i)], expected === null ? 'no_stream' : expected);
      counter.appended += 1;
    },
    appendBatch: async (stream, n) => void (await store.append(stream, Array.from({ length: n }, (_, i) => event(i)), 'no_stream')),
    close: () => store.close(),
  };
}

interface LiveRun {
  appendRate: number;
  writeSeconds: number;
  events: number;
  /** Events appended but not yet folded: the largest seen during the writes (sampled every 10 ms), and at their end. */
  maxLag: number;
  lagAtEnd: number;
  /** From the writers' end until the tree reached the head. */
  drainSeconds: number;
  root: string;
}

/**
 * The 64-writer scenario on a fresh log in `dir`, with the Merkle projector following live (`follow`) or with no
 * projector at all (the append rate alone).
 */
async function writersRun(dir: string, tag: string, follow: boolean): Promise<LiveRun> {
  const store = new SqliteEventStore({ filename: join(dir, 'events.sqlite') });
  const counter = { appended: 0 };
  const bench = benchStore(store, counter);
  const tree = follow ? await sqliteTreeDb(join(dir, 'rm')) : null;
  const runner = tree ? new ProjectionRunner(store, tree.db, [new AuditMerkleProjector()], { batchSize: LIVE_BATCH }) : null;
  try {
    if (runner) {
      runner.start();
      await untilRunning(runner);
    }
    // One append first (JIT, connection, lease), folded before the clock starts.
    await bench.appendOne(`warm-${tag}`, 0, null);
    const start = await store.headPosition();
    if (runner && !(await runner.waitFor(start, undefined, 30_000))) throw new Error('the tree did not fold the first event');
    counter.appended = 0;
    let maxLag = 0;
    const sampler = runner
      ? setInterval(() => {
          maxLag = Math.max(maxLag, Number(start) + counter.appended - Number(runner.status()[0].checkpoint));
        }, 10)
      : null;
    const t = clock();
    const appendRate = await concurrentSingles(bench, tag, WRITERS, PER_WRITER);
    const writeSeconds = seconds(t);
    if (sampler) clearInterval(sampler);
    const head = await store.headPosition();
    const events = Number(head);
    if (events !== Number(start) + WRITERS * PER_WRITER) throw new Error(`the log holds ${events} events, expected ${Number(start) + WRITERS * PER_WRITER}`);
    if (!runner || !tree) return { appendRate, writeSeconds, events, maxLag: 0, lagAtEnd: 0, drainSeconds: 0, root: '' };
    const lagAtEnd = Number(head - runner.status()[0].checkpoint);
    const d = clock();
    if (!(await runner.waitFor(head, undefined, 600_000))) throw new Error('the tree did not reach the head within 10 minutes');
    const drainSeconds = seconds(d);
    if (runner.status()[0].last_error) throw new Error(`the projector failed: ${runner.status()[0].last_error}`);
    await runner.stop();
    const { root } = await checkedTree(tree.db, events);
    return { appendRate, writeSeconds, events, maxLag: Math.max(maxLag, lagAtEnd), lagAtEnd, drainSeconds, root };
  } finally {
    await runner?.stop();
    await tree?.dispose();
    await store.close();
  }
}

/**
 * The tree's maintenance rate: a fresh read model catches up over a log it has not seen, live batches of LIVE_BATCH
 * events through `start()` (the path of a running node), read by a store that did not write the log.
 */
async function catchUp(logFile: string, rmDir: string): Promise<{ rate: number; events: number; root: string }> {
  const store = new SqliteEventStore({ filename: logFile });
  const tree = await sqliteTreeDb(rmDir);
  const runner = new ProjectionRunner(store, tree.db, [new AuditMerkleProjector()], { batchSize: LIVE_BATCH });
  try {
    const head = await store.headPosition();
    const t = clock();
    runner.start();
    await untilRunning(runner);
    if (!(await runner.waitFor(head, undefined, 600_000))) throw new Error('the catch-up did not reach the head within 10 minutes');
    const s = seconds(t);
    await runner.stop();
    const { root } = await checkedTree(tree.db, Number(head));
    return { rate: perSec(Number(head), s), events: Number(head), root };
  } finally {
    await runner.stop();
    await tree.dispose();
    await store.close();
  }
}

async function maintenance(dir: string): Promise<void> {
  const followed: LiveRun[] = [];
  const alone: number[] = [];
  const catchUps: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    alone.push((await writersRun(join(dir, `writers-alone-${rep}`), `a${rep}`, false)).appendRate);
    const liveDir = join(dir, `writers-tree-${rep}`);
    const live = await writersRun(liveDir, `t${rep}`, true);
    followed.push(live);
    const caught = await catchUp(join(liveDir, 'events.sqlite'), join(dir, `catch-up-${rep}`));
    if (caught.root !== live.root) throw new Error('the tree built live and the one caught up over the same log differ');
    catchUps.push(caught.rate);
    rmSync(liveDir, { recursive: true, force: true });
    rmSync(join(dir, `writers-alone-${rep}`), { recursive: true, force: true });
  }
  const append = best(followed.map((r) => r.appendRate));
  const appendAlone = best(alone);
  const maintain = best(catchUps);
  const liveBest = followed.reduce((a, b) => (b.appendRate > a.appendRate ? b : a));
  const events = WRITERS * PER_WRITER;

  log(`1. tree maintenance against ${WRITERS} writers x ${PER_WRITER} single-event appends (${int(events)} events, durable, exact expected revisions)`);
  log(`   append rate, the tree following live (runner batch ${LIVE_BATCH}):  ${padL(fmtRate(append), 14)}   (runs: ${runs(followed.map((r) => r.appendRate))})`);
  log(`   append rate, no projector (reference):                 ${padL(fmtRate(appendAlone), 14)}   the tree costs the writers ${fmtPct(1 - append / appendAlone)}   (runs: ${runs(alone)})`);
  log(`   maintenance rate, a fresh tree catching up over the log: ${padL(fmtRate(maintain), 12)}   = ${fmtRatio(maintain / append)} the append rate   (runs: ${runs(catchUps)})`);
  for (const [i, r] of followed.entries()) {
    log(`   live, run ${i + 1}: writes took ${r.writeSeconds.toFixed(2)} s; lag at most ${int(r.maxLag)} events, ${int(r.lagAtEnd)} when the writers finished; at the head ${(r.drainSeconds * 1000).toFixed(0)} ms later`);
  }
  log();
  figures.push({ name: `${WRITERS} writers: append rate, tree following`, value: fmtRate(append), baseline: `(${fmtPct(append / appendAlone)} of no projector)`, target: '—', pass: null });
  figures.push({ name: 'tree maintenance (catch-up over that log)', value: fmtRate(maintain), baseline: `${fmtRatio(maintain / append)} the append rate`, target: '>= 1.00x', pass: maintain >= append });
  figures.push({
    name: 'live: lag at writers\' end, time to head',
    value: `${int(liveBest.lagAtEnd)} ev, ${(liveBest.drainSeconds * 1000).toFixed(0)} ms`,
    baseline: `${fmtPct(liveBest.lagAtEnd / events)} of the events written`,
    target: '—',
    pass: null,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// 2-3. Building the tree from scratch.

/** A plain readAll pass over the whole log in pages of `page`, by a store that did not write it. */
async function readPass(file: string, page: number): Promise<{ rate: number; seconds: number; events: number }> {
  const store = new SqliteEventStore({ filename: file });
  try {
    let after = 0n;
    let events = 0;
    let check = 0;
    const t = clock();
    for (;;) {
      const rows = await store.readAll({ after, maxCount: page });
      if (rows.length === 0) break;
      events += rows.length;
      check += rows[rows.length - 1].event_commitment.length;
      after = rows[rows.length - 1].position;
    }
    const s = seconds(t);
    if (check === 0) throw new Error('read nothing');
    return { rate: perSec(events, s), seconds: s, events };
  } finally {
    await store.close();
  }
}

/** Where a build's time went (the instrumented run), in ns. */
interface BuildTimes {
  totalNs: number;
  readNs: number;
  transactionNs: number;
  applyNs: number;
  statements: Map<string, { ns: number; calls: number }>;
}

const STATEMENTS: Array<[string, (sql: string) => boolean]> = [
  ['SELECT state', (s) => s.startsWith('SELECT') && s.includes('audit_merkle_state')],
  ['INSERT nodes', (s) => s.includes('INTO audit_merkle_nodes')],
  ['INSERT leaves', (s) => s.includes('INTO audit_merkle_leaves')],
  ['INSERT/UPDATE state', (s) => s.includes('audit_merkle_state')],
];

/** The projector, its applyBatch timed, and each statement it runs through the transaction. */
class TimedMerkleProjector extends AuditMerkleProjector {
  applyNs = 0;
  readonly statements = new Map<string, { ns: number; calls: number }>(STATEMENTS.map(([name]) => [name, { ns: 0, calls: 0 }]));

  override async applyBatch(events: RecordedEvent[], tx: EntityManager): Promise<void> {
    const t = clock();
    const timed = new Proxy(tx, {
      get: (target, prop) => {
        if (prop !== 'query') return Reflect.get(target, prop);
        return async (sql: string, params?: unknown[]) => {
          const q = clock();
          try {
            return await target.query(sql, params);
          } finally {
            const name = STATEMENTS.find(([, is]) => is(sql))?.[0] ?? 'other';
            const acc = this.statements.get(name) ?? { ns: 0, calls: 0 };
            acc.ns += Number(clock() - q);
            acc.calls += 1;
            this.statements.set(name, acc);
          }
        };
      },
    });
    await super.applyBatch(events, timed);
    this.applyNs += Number(clock() - t);
  }
}

/** The store with its readAll timed (everything else passes through). */
function timedReads(store: SqliteEventStore, acc: { readNs: number }): EventStore {
  return new Proxy(store, {
    get: (target, prop) => {
      if (prop === 'readAll') {
        return async (options: Parameters<EventStore['readAll']>[0]) => {
          const t = clock();
          try {
            return await target.readAll(options);
          } finally {
            acc.readNs += Number(clock() - t);
          }
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Times every read-model transaction (SQLite: BEGIN IMMEDIATE … COMMIT; PostgreSQL: the pipelined batch). */
function timeTransactions(db: ReadModelDatabase, acc: { transactionNs: number }): void {
  const plain = db.transaction.bind(db);
  const pipelined = db.pipelinedTransaction.bind(db);
  db.transaction = <T>(work: (tx: EntityManager) => Promise<T>): Promise<T> => {
    const t = clock();
    return plain(work).finally(() => (acc.transactionNs += Number(clock() - t)));
  };
  db.pipelinedTransaction = <T>(work: (tx: EntityManager) => Promise<T>, close: { text: string; params: unknown[] }, refused: (error: unknown) => unknown): Promise<T> => {
    const t = clock();
    return pipelined(work, close, refused).finally(() => (acc.transactionNs += Number(clock() - t)));
  };
}

interface Build {
  seconds: number;
  events: number;
  root: string;
  times?: BuildTimes;
}

/** `runner.rebuild('audit-merkle')` over the log in `file` into a fresh read model (pages of BUILD_PAGE), timed. */
async function buildTree(file: string, open: () => Promise<TreeDb>, instrumented = false): Promise<Build> {
  const store = new SqliteEventStore({ filename: file });
  const tree = await open();
  const acc = { readNs: 0, transactionNs: 0 };
  const projector = instrumented ? new TimedMerkleProjector() : new AuditMerkleProjector();
  if (instrumented) timeTransactions(tree.db, acc);
  const runner = new ProjectionRunner(instrumented ? timedReads(store, acc) : store, tree.db, [projector], { batchSize: BUILD_PAGE });
  try {
    const t = clock();
    const built = await runner.rebuild('audit-merkle');
    const totalNs = Number(clock() - t);
    const { root } = await checkedTree(tree.db, built.events);
    const times =
      projector instanceof TimedMerkleProjector ? { totalNs, readNs: acc.readNs, transactionNs: acc.transactionNs, applyNs: projector.applyNs, statements: projector.statements } : undefined;
    return { seconds: totalNs / 1e9, events: built.events, root, times };
  } finally {
    await tree.dispose();
    await store.close();
  }
}

/** Best of REPS builds and REPS readAll passes over one log, alternating; all trees must agree. */
async function builds(file: string, open: (rep: number) => Promise<TreeDb>): Promise<{ build: number[]; read: number[]; events: number; root: string }> {
  const build: number[] = [];
  const read: number[] = [];
  let events = 0;
  let root = '';
  for (let rep = 0; rep < REPS; rep++) {
    const r = await readPass(file, BUILD_PAGE);
    read.push(r.rate);
    const b = await buildTree(file, () => open(rep));
    if (root && b.root !== root) throw new Error('two builds over the same log gave different roots');
    root = b.root;
    events = b.events;
    if (r.events !== b.events) throw new Error(`readAll read ${r.events} events, the build folded ${b.events}`);
    build.push(perSec(b.events, b.seconds));
  }
  return { build, read, events, root };
}

function printBreakdown(label: string, b: Build): void {
  const t = b.times!;
  const ev = b.events;
  const line = (name: string, ns: number, extra = ''): void => log(`   ${pad(name, 52)} ${padL(us(ns / ev), 10)}  ${padL(fmtPct(ns / t.totalNs), 4)}${extra}`);
  log(`Where the time goes: ${label} (an extra instrumented build: ${b.seconds.toFixed(2)} s, ${fmtRate(perSec(ev, b.seconds))}), per event`);
  line('store.readAll (SELECT, JSON.parse, bigint)', t.readNs);
  line('projector.applyBatch', t.applyNs);
  let sql = 0;
  for (const [name, s] of t.statements) {
    if (s.calls === 0) continue;
    sql += s.ns;
    line(`  ${name} (${int(s.calls)} statements)`, s.ns);
  }
  line('  the rest: leaf hashes, appendLeaves, hex, SQL text', t.applyNs - sql);
  line('transaction: BEGIN, checkpoint advance, COMMIT', t.transactionNs - t.applyNs);
  line('runner: reset, pages, awaits', t.totalNs - t.readNs - t.transactionNs);
  log();
}

/** The projector's JavaScript alone, per leaf, on random commitments: what a build pays besides reading and SQL. */
function treeMath(): Array<[string, number]> {
  const commitments = Array.from({ length: MATH_LEAVES }, () => randomBytes(32).toString('hex'));
  const bestOf = (fn: () => void): number => {
    let ns = Infinity;
    for (let pass = 0; pass < 3; pass++) {
      const t = clock();
      fn();
      ns = Math.min(ns, Number(clock() - t) / MATH_LEAVES);
    }
    return ns;
  };
  let sink = 0;
  const leaves = commitments.map(leafHashOfCommitment);
  const rows: Array<[string, number]> = [];
  rows.push(['leafHashOfCommitment (regex, hex decode, SHA-256)', bestOf(() => { for (const c of commitments) sink += leafHashOfCommitment(c)[0]; })]);
  const fold = (): void => {
    let frontier: Buffer[] = [];
    let size = 0;
    for (let at = 0; at < leaves.length; at += BUILD_PAGE) {
      const after = appendLeaves(frontier, size, leaves.slice(at, at + BUILD_PAGE));
      frontier = after.frontier;
      size = after.size;
      sink += after.completed.length;
    }
  };
  rows.push([`appendLeaves, batches of ${BUILD_PAGE} (node hashes, frontier)`, bestOf(fold)]);
  const nodes = appendLeaves([], 0, leaves.slice(0, BUILD_PAGE * 8)).completed;
  rows.push(['hex of the completed nodes (~2 per leaf)', bestOf(() => { for (let i = 0; i < MATH_LEAVES; i++) sink += nodes[i % nodes.length].hash.toString('hex').length; }) * 2]);
  // The projector's parameter building, replicated from insertRows (audit-merkle.read-model.ts): per page, the node and
  // leaf rows, each chunk of 500 as its VALUES text and `chunk.flat()`; and the same with a loop in place of flat().
  const events = commitments.slice(0, BUILD_PAGE).map((c, i) => ({ event_id: c.slice(0, 32), position: BigInt(i + 1) }));
  const pageNodes = nodes.slice(0, 2 * BUILD_PAGE).map((n) => [n.level, n.index, n.hash.toString('hex')] as const);
  const params = (flat: boolean): void => {
    const leafRows = events.map((e, i) => [e.event_id, i, e.position.toString()] as const);
    for (const rs of [pageNodes, leafRows]) {
      for (let at = 0; at < rs.length; at += 500) {
        const chunk = rs.slice(at, at + 500);
        const text = `INSERT INTO t (a, b, c) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}`;
        let values: Array<string | number>;
        if (flat) values = chunk.flat();
        else {
          values = new Array<string | number>(chunk.length * 3);
          let k = 0;
          for (const r of chunk) {
            values[k++] = r[0];
            values[k++] = r[1];
            values[k++] = r[2];
          }
        }
        sink += text.length + values.length;
      }
    }
  };
  const perPage = (fn: () => void): number => bestOf(() => { for (let p = 0; p < MATH_LEAVES / BUILD_PAGE; p++) fn(); });
  rows.push(['INSERT parameters as insertRows builds them (flat())', perPage(() => params(true))]);
  rows.push(['the same, a loop into a preallocated array', perPage(() => params(false))]);
  if (sink < 0) log(String(sink));
  return rows;
}

async function buildFigures(dir: string): Promise<void> {
  // 2. The issue's log, built before any clock starts.
  const logFile = join(dir, 'log', 'events.sqlite');
  const written = await buildLog(logFile, LOG_EVENTS);
  log(`2. building the tree from scratch over ${int(LOG_EVENTS)} events (log written beforehand in ${written.seconds.toFixed(1)} s, ${fmtRate(perSec(written.events, written.seconds))}, appends of 1000; not a figure)`);
  const sqlite = await builds(logFile, (rep) => sqliteTreeDb(join(dir, `tree-${rep}`)));
  const build = best(sqlite.build);
  const read = best(sqlite.read);
  const buildSeconds = sqlite.events / build;
  log(`   runner.rebuild('audit-merkle'), pages of ${BUILD_PAGE}:  ${padL(`${buildSeconds.toFixed(2)} s`, 9)}  ${padL(fmtRate(build), 14)}   (runs: ${runs(sqlite.build)})`);
  log(`   readAll alone, same log, same pages:                ${padL(`${(sqlite.events / read).toFixed(2)} s`, 9)}  ${padL(fmtRate(read), 14)}   (runs: ${runs(sqlite.read)})`);
  log(`   the build takes ${fmtRatio(read / build)} the time of reading the log; at this rate 1,000,000 events take ${(1_000_000 / build).toFixed(1)} s (target <= ${TARGET_SECONDS_PER_MILLION} s)`);
  log();
  figures.push({
    name: `tree build, ${int(sqlite.events)} events (SQLite)`,
    value: `${buildSeconds.toFixed(1)} s, ${fmtRate(build)}`,
    baseline: `${fmtRatio(read / build)} the readAll time`,
    target: `<= ${TARGET_SECONDS_PER_MILLION} s per 1M`,
    pass: build >= TARGET_BUILD_RATE,
  });
  const instrumented = await buildTree(logFile, () => sqliteTreeDb(join(dir, 'tree-timed')), true);
  if (instrumented.root !== sqlite.root) throw new Error('the instrumented build gave another root');
  const math = treeMath();
  rmSync(join(dir, 'log'), { recursive: true, force: true });

  // 3. PostgreSQL read model, a smaller log (events on SQLite).
  const unreachable = await postgresReachable();
  let pgBuild: Build | null = null;
  if (unreachable) {
    log(`3. the build on PostgreSQL read models skipped: no PostgreSQL at ${TEST_DATABASE_URL.replace(/\/\/[^@]*@/, '//')} (${unreachable})`);
    log();
  } else {
    const pgFile = join(dir, 'pg-log', 'events.sqlite');
    const pgWritten = await buildLog(pgFile, PG_EVENTS);
    log(`3. the same build with the read model on PostgreSQL (events on SQLite), ${int(PG_EVENTS)} events (log written in ${pgWritten.seconds.toFixed(1)} s; not a figure)`);
    const pg = await builds(pgFile, () => postgresTreeDb());
    const small = await builds(pgFile, (rep) => sqliteTreeDb(join(dir, `pg-sqlite-tree-${rep}`)));
    if (small.root !== pg.root) throw new Error('the PostgreSQL and SQLite trees of one log differ');
    const pgRate = best(pg.build);
    const smallRate = best(small.build);
    const pgRead = best([...pg.read, ...small.read]);
    log(`   PostgreSQL read model:  ${padL(`${(pg.events / pgRate).toFixed(2)} s`, 9)}  ${padL(fmtRate(pgRate), 14)}   (runs: ${runs(pg.build)})`);
    log(`   SQLite read model:      ${padL(`${(small.events / smallRate).toFixed(2)} s`, 9)}  ${padL(fmtRate(smallRate), 14)}   (runs: ${runs(small.build)})`);
    log(`   readAll alone:          ${padL(`${(pg.events / pgRead).toFixed(2)} s`, 9)}  ${padL(fmtRate(pgRead), 14)}   (runs: ${runs([...pg.read, ...small.read])})`);
    log(`   on PostgreSQL the build takes ${fmtRatio(pgRead / pgRate)} the time of reading the log (SQLite: ${fmtRatio(pgRead / smallRate)}); 1,000,000 events at this rate: ${(1_000_000 / pgRate).toFixed(1)} s`);
    log();
    figures.push({
      name: `tree build, ${int(pg.events)} events (PostgreSQL)`,
      value: `${(pg.events / pgRate).toFixed(1)} s, ${fmtRate(pgRate)}`,
      baseline: `${fmtRatio(pgRead / pgRate)} readAll, ${fmtPct(pgRate / smallRate)} of SQLite`,
      target: `<= ${TARGET_SECONDS_PER_MILLION} s per 1M`,
      pass: pgRate >= TARGET_BUILD_RATE,
    });
    pgBuild = await buildTree(pgFile, () => postgresTreeDb(), true);
    rmSync(join(dir, 'pg-log'), { recursive: true, force: true });
  }

  printBreakdown(`the ${int(instrumented.events)}-event build on SQLite`, instrumented);
  if (pgBuild) printBreakdown(`the ${int(pgBuild.events)}-event build on PostgreSQL`, pgBuild);
  log(`Where the time goes: the projector's JavaScript alone, per leaf (${int(MATH_LEAVES)} random commitments, best of 3 passes)`);
  for (const [label, ns] of math) log(`   ${pad(label, 52)} ${padL(us(ns), 10)}  ${padL(fmtPct((ns * LOG_EVENTS) / (instrumented.seconds * 1e9)), 4)} of the SQLite build`);
  log();
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const totalStart = clock();
  const dir = mkdtempSync(join(tmpdir(), 'merkle-bench-'));
  const cpu = cpus();
  log('Audit Merkle tree benchmark (issue 50): the audit-merkle projection over the SQLite event store');
  log(`machine: ${cpu[0]?.model ?? 'unknown cpu'} x ${cpu.length}, node ${process.version}, ${process.platform}/${process.arch}; ${loadAverage()}`);
  log(`temp dir: ${dir}${SCALE !== 1 ? `   (BENCH_SCALE=${SCALE})` : ''}`);
  log(`payload: data ${JSON.stringify(payload(1)).length} B, metadata ${JSON.stringify(metadata).length} B of JSON per event (append-workload.ts)`);
  log(`every figure: best of ${REPS} runs on fresh read models; baseline and measured runs alternate`);
  log();
  try {
    await maintenance(dir);
    await buildFigures(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cols = ['figure', 'value', 'vs baseline (same run)', 'target', 'result'];
  printSummary(cols, figures.map((f) => [f.name, f.value, f.baseline, f.target, f.pass === null ? 'info' : f.pass ? 'PASS' : 'BELOW']), new Set([1]));
  log();
  log(`total run time ${seconds(totalStart).toFixed(1)} s; ${loadAverage()} (the machine is shared: other programs' load shows there)`);
}

const loadAverage = (): string => `load average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min)`;

if (require.main === module) runBenchmark(main);
