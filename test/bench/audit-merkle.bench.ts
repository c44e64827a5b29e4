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
 *   3. proofs over HTTP at 1,000,000 events (step 5): figure 2's log moved into a DATA_DIR, the platform server
 *      started on it as a process of its own (server-process.ts: `node dist/src/main.js`, SERVER_TIMING on) with a
 *      checkpoint every 1000 events; once the checkpointer has signed the ~1000 checkpoints the log is due and every
 *      projection, audit-merkle included, is at the head (setup, printed, not a figure), one client (latency-client.ts
 *      in a worker thread, one keep-alive connection, one request at a time) times 3000 requests of each scenario
 *      after 500 of warm-up: inclusion proofs of events sampled over the log against the newest checkpoint and against
 *      a named covering tree_size, consistency proofs between random pairs of checkpoints, and the inclusion proof as
 *      an AUDITOR who is not a platform admin. Every answer must be a 200 whose path the test suite's independent
 *      RFC 9162 verifier accepts (failures are counted; any fails the run after the table). Baseline: GET
 *      /api/v1/audit/checkpoints/latest (authenticated, one event read) on the same server through the same client,
 *      first and last (the faster p50 is taken).                             target: p50 <= 5 ms
 *      Then where a proof's time goes: the Server-Timing stages, and the handlers' steps (the three queries, the path,
 *      the JSON) replayed outside the server on its read.sqlite. MERKLE_BENCH_ONLY=proofs runs this figure alone.
 *   4. the same build as 2 with the read model on the local PostgreSQL (events on SQLite), over 200,000 events, beside
 *      the SQLite build of the same log; skipped with a note when no PostgreSQL answers at TEST_DATABASE_URL.
 *
 * Followed by where a build's time goes: an extra instrumented build split into readAll, the projector's applyBatch
 * (its statements one by one, and the rest: leaf hashes, tree folding, hex) and the transaction around it
 * (BEGIN, checkpoint, COMMIT), and the projector's JavaScript alone per event (leaf hashes, the fold, hex, and its
 * INSERT parameters, replicated from insertRows beside a loop in place of its `chunk.flat()`).
 *
 * The logs are written before any clock starts (appends of 1000 events, group-committed; not a figure). `buildLog`
 * and `appendLog` are exported for other programs that need the same log.
 *
 * Figures 1, 2 and 4 are the best of 2 runs on fresh read-model files, baseline and measured runs alternating.
 * Everything runs in fresh temp dirs that are removed at the end (the server killed, crash or not). BENCH_SCALE
 * scales the sizes (0.1 for a smoke run). The process exits 0 whatever the figures are; only a crash, or a proof
 * answer that does not hold, exits 1.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { EntityManager } from 'typeorm';
import type { EventStore, NewEvent, RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { openReadModelDatabase, type ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { newId } from '../../src/platform/context/request-context';
import { appendLeaves, consistencyNodeIds, consistencyProof, inclusionNodeIds, inclusionPath, leafHashOfCommitment, nodeSourceOf, rootFromFrontier } from '../../src/modules/audit/domain/merkle';
import { AuditMerkleProjector, auditMerkleReadModel, merkleCheckpoint, merkleLeaf, merkleNodes, merkleState } from '../../projections/audit-merkle/audit-merkle.read-model';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';
import { subjectKeysInFile } from '../../src/platform/privacy/sqlite-subject-keys';
import { LOG_SEALED } from '../../src/platform/privacy/subject-keys';
import { loadOrCreateKey } from '../../src/platform/security/key-file';
import { makeTestDatabase, TEST_DATABASE_URL } from '../support/databases';
import { verifyConsistency, verifyInclusion } from '../support/rfc9162-reference';
import { concurrentSingles, metadata, payload, type BenchStore } from './append-workload';
import { ClientWorker } from './client-worker';
import type { ClientRequest, RunAnswer } from './latency-client';
import { clock, type Figure, log, pad, padL, percentiles, printFigures, runBenchmark, scaled, SCALE, seconds } from './report';
import { call, cleanup, guard, killAll, registerTrader, startNode, stopNode, untilReady, type ServerNode } from './server-process';

// ---------------------------------------------------------------------------------------------------------------
// Sizes (about 2.5 minutes at scale 1 on a 2-vCPU VM for figures 1, 2 and 4, most of it writing the 1,000,000-event log;
// figure 3 adds the server's start over that log, about 3.7 minutes, and about half a minute of requests).

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

  // 3. Proofs over HTTP, on this very log (moved into the server's DATA_DIR).
  await proofFigures(logFile, written.events);
  rmSync(join(dir, 'log'), { recursive: true, force: true });

  // 4. PostgreSQL read model, a smaller log (events on SQLite).
  const unreachable = await postgresReachable();
  let pgBuild: Build | null = null;
  if (unreachable) {
    log(`4. the build on PostgreSQL read models skipped: no PostgreSQL at ${TEST_DATABASE_URL.replace(/\/\/[^@]*@/, '//')} (${unreachable})`);
    log();
  } else {
    const pgFile = join(dir, 'pg-log', 'events.sqlite');
    const pgWritten = await buildLog(pgFile, PG_EVENTS);
    log(`4. the same build with the read model on PostgreSQL (events on SQLite), ${int(PG_EVENTS)} events (log written in ${pgWritten.seconds.toFixed(1)} s; not a figure)`);
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
// 3. Inclusion and consistency proofs over HTTP at 1,000,000 events.

/** The checkpointer's cadence on the proofs server (AUDIT_CHECKPOINT_EVERY_EVENTS): a checkpoint every 1000 events. */
const CHECKPOINT_EVERY = 1000;
/** Sequential requests per scenario, after PROOF_WARMUP of the same kind. */
const PROOF_REQUESTS = scaled(3000);
const PROOF_WARMUP = scaled(500);
const TARGET_PROOF_P50_MS = 5;
/** The folds at boot (checkpointer, projections) over the log: generous, they are setup, not a figure. */
const SETUP_TIMEOUT_MS = 20 * 60_000;
const PROOF_ADMIN = { email: 'ops@bench.test', password: 'Merkle-Proofs-Passw0rd-2026!' };
const CHECKPOINT_STREAM = 'audit-checkpoints';
const LATEST_CHECKPOINT_PATH = '/api/v1/audit/checkpoints/latest';
const inclusionPathOf = (eventId: string, treeSize?: number): string => `/api/v1/audit/proofs/inclusion?event_id=${eventId}${treeSize === undefined ? '' : `&tree_size=${treeSize}`}`;
const consistencyPathOf = (first: number, second: number): string => `/api/v1/audit/proofs/consistency?first=${first}&second=${second}`;

const ms = (microseconds: number): string => (microseconds / 1000).toFixed(3);
const median = (xs: number[]): number => percentiles(xs).p50;

/** An event of the log the proofs are asked about: its id and leaf (SQLite positions are dense from 1). */
interface SampledEvent {
  event_id: string;
  leaf: number;
}

/** What the proofs server's log holds: the checkpoints' tree sizes (oldest first), and the events besides them. */
interface LogFacts {
  head: number;
  events: number;
  treeSizes: number[];
}

/** Read straight from the server's events.sqlite (WAL: a reader beside the server's writer), never through the API. */
function logFacts(file: string): LogFacts {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const head = Number((db.prepare('SELECT COALESCE(MAX(position), 0) AS n FROM events').get() as { n: number }).n);
    const cps = db.prepare('SELECT data FROM events WHERE stream = ? ORDER BY position').all(CHECKPOINT_STREAM) as Array<{ data: string }>;
    const treeSizes = cps.map((r) => {
      const cp = JSON.parse(r.data) as { alg?: string; tree_size?: string };
      if (cp.alg !== 'audit-checkpoint-v2' || cp.tree_size === undefined) throw new Error(`a checkpoint that is not v2: ${r.data.slice(0, 200)}`);
      return Number(cp.tree_size);
    });
    return { head, events: head - cps.length, treeSizes };
  } finally {
    db.close();
  }
}

/**
 * `count` events of the first `logEvents` positions, spread over the log: one uniformly at random in each of `count`
 * equal slices, in random order (so consecutive requests do not walk the tree in order).
 */
function sampleEvents(file: string, logEvents: number, count: number): SampledEvent[] {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const byPosition = db.prepare('SELECT event_id, type FROM events WHERE position = ?');
    const sampled: SampledEvent[] = [];
    for (let k = 0; k < count; k++) {
      const position = 1 + Math.min(logEvents - 1, Math.floor(((k + Math.random()) * logEvents) / count));
      const row = byPosition.get(position) as { event_id: string; type: string } | undefined;
      if (!row || row.type !== 'Credited') throw new Error(`position ${position} is not an event of the log: ${JSON.stringify(row)}`);
      sampled.push({ event_id: row.event_id, leaf: position - 1 });
    }
    for (let i = sampled.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [sampled[i], sampled[j]] = [sampled[j], sampled[i]];
    }
    return sampled;
  } finally {
    db.close();
  }
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)];
/** A random checkpoint's tree size that contains leaf `leaf` (the tree of size s holds leaves 0..s-1). */
const coveringSize = (treeSizes: readonly number[], leaf: number): number => {
  const from = treeSizes.findIndex((s) => s > leaf);
  if (from < 0) throw new Error(`no checkpoint covers leaf ${leaf}`);
  return treeSizes[from + Math.floor(Math.random() * (treeSizes.length - from))];
};
/** Two distinct checkpoints' tree sizes, older first (equal sizes would prove nothing: an empty path). */
const sizePair = (treeSizes: readonly number[]): [number, number] => {
  const i = Math.floor(Math.random() * treeSizes.length);
  let j = Math.floor(Math.random() * (treeSizes.length - 1));
  if (j >= i) j++;
  return [treeSizes[Math.min(i, j)], treeSizes[Math.max(i, j)]];
};

/** One proof request of a scenario and how to check its answer's body (a reason when it is wrong, null when it holds). */
interface Probe {
  request: ClientRequest;
  check: (body: string) => string | null;
}

const unhex = (s: string): Buffer => Buffer.from(s, 'hex');
/** The body as JSON, or null (an error page, a truncated body). */
function parsed<T>(body: string): T | null {
  try {
    return JSON.parse(body) as T;
  } catch {
    return null;
  }
}

interface InclusionAnswer {
  event_id: string;
  leaf_index: string;
  tree_size: string;
  event_commitment: string;
  audit_path: string[];
  checkpoint: { tree_size: string; root_hash: string };
}
interface ConsistencyAnswer {
  first: string;
  second: string;
  consistency_path: string[];
  first_checkpoint: { tree_size: string; root_hash: string };
  second_checkpoint: { tree_size: string; root_hash: string };
}

/**
 * An inclusion answer must be the event asked, against the tree size asked (or, without one, a tree holding it),
 * with a non-empty path that the test suite's independent RFC 9162 verifier (test/support/rfc9162-reference.ts)
 * accepts against the checkpoint's root. The checkpoints' signatures are the e2e suite's business, not checked here.
 */
function inclusionProbe(headers: Record<string, string>, e: SampledEvent, treeSize?: number): Probe {
  return {
    request: { method: 'GET', path: inclusionPathOf(e.event_id, treeSize), headers },
    check: (body) => {
      const p = parsed<InclusionAnswer>(body);
      if (!p || p.event_id !== e.event_id || Number(p.leaf_index) !== e.leaf) return `not this event's proof: ${body.slice(0, 200)}`;
      if (treeSize !== undefined ? Number(p.tree_size) !== treeSize : Number(p.tree_size) <= e.leaf) return `tree_size ${p.tree_size}`;
      if (!Array.isArray(p.audit_path) || p.audit_path.length === 0) return 'an empty audit_path';
      if (p.checkpoint?.tree_size !== p.tree_size) return 'the checkpoint is of another tree size';
      const leaf = leafHashOfCommitment(p.event_commitment);
      if (!verifyInclusion(e.leaf, Number(p.tree_size), leaf, p.audit_path.map(unhex), unhex(p.checkpoint.root_hash))) return 'the path does not verify';
      return null;
    },
  };
}

function consistencyProbe(headers: Record<string, string>, first: number, second: number): Probe {
  return {
    request: { method: 'GET', path: consistencyPathOf(first, second), headers },
    check: (body) => {
      const p = parsed<ConsistencyAnswer>(body);
      if (!p || Number(p.first) !== first || Number(p.second) !== second) return `not this pair's proof: ${body.slice(0, 200)}`;
      if (!Array.isArray(p.consistency_path) || p.consistency_path.length === 0) return 'an empty consistency_path';
      const [a, b] = [p.first_checkpoint, p.second_checkpoint];
      if (Number(a?.tree_size) !== first || Number(b?.tree_size) !== second) return 'the checkpoints are of other tree sizes';
      if (!verifyConsistency(first, second, unhex(a.root_hash), unhex(b.root_hash), p.consistency_path.map(unhex))) return 'the path does not verify';
      return null;
    },
  };
}

function baselineProbe(headers: Record<string, string>): Probe {
  return {
    request: { method: 'GET', path: LATEST_CHECKPOINT_PATH, headers },
    check: (body) => {
      const cp = parsed<{ alg?: string; signature?: string }>(body);
      return cp?.alg === 'audit-checkpoint-v2' && typeof cp.signature === 'string' ? null : `not a signed v2 checkpoint: ${body.slice(0, 200)}`;
    },
  };
}

interface ScenarioRun {
  name: string;
  latencies: number[];
  timings: string[];
  /** Mean response body, bytes. */
  bytes: number;
  failures: number;
  firstFailure: string | null;
}

/**
 * The probes one at a time on the client's one keep-alive connection, each timed; then (off the clock) every answer
 * checked. A failure is a non-200 or a body that does not hold; all are counted and the first one kept.
 */
async function runProbes(client: ClientWorker, name: string, probes: Probe[]): Promise<ScenarioRun> {
  const answer = await guard(client.ask<RunAnswer>({ kind: 'run', requests: probes.map((p) => p.request), keepBodies: true }));
  const bodies = answer.bodies ?? [];
  let failed = 0;
  let firstFailure: string | null = null;
  let bytes = 0;
  probes.forEach((p, i) => {
    const body = bodies[i] ?? '';
    bytes += Buffer.byteLength(body);
    const wrong = p.check(body);
    if (wrong !== null) {
      failed++;
      firstFailure ??= `${p.request.path}: ${wrong}`;
    }
  });
  // The worker counts statuses, not which request had which: an error body fails its check, and a non-200 whose body
  // passed (none should) is counted from the statuses.
  const not200 = Object.entries(answer.statuses).filter(([s]) => s !== '200').reduce((n, [, c]) => n + c, 0);
  if (not200 > 0) firstFailure ??= `statuses ${JSON.stringify(answer.statuses)}`;
  const failures = Math.max(failed, not200);
  return { name, latencies: answer.latencies, timings: answer.timings, bytes: bytes / Math.max(1, probes.length), failures, firstFailure };
}

interface ProofServer {
  node: ServerNode;
  dataDir: string;
  admin: Record<string, string>;
  auditor: Record<string, string>;
  facts: LogFacts;
  /** Setup phases, seconds since the server was spawned (not figures). */
  phases: Array<[string, number]>;
}

/** `read` until `done` holds (guarded: a server that dies fails the wait at once). */
async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = SETUP_TIMEOUT_MS, meanwhile?: () => void): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    meanwhile?.();
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s; last ${JSON.stringify(value)?.slice(0, 500)}`);
    await guard(sleep(250));
  }
}

interface Readiness {
  status: number;
  head: number;
  behind: Array<{ name: string; checkpoint: string; state: string }>;
}

async function readiness(node: ServerNode): Promise<Readiness> {
  const r = await call(node, 'GET', '/health/ready');
  const head = Number(/head (\d+)/.exec(r.json?.checks?.event_store?.detail ?? '')?.[1] ?? NaN);
  const projections = (r.json?.projections ?? []) as Array<{ name: string; checkpoint: string; state: string }>;
  return { status: r.status, head, behind: projections.filter((p) => !(Number(p.checkpoint) >= head)) };
}

/**
 * The platform refuses to start on a log its subject-key store does not know (sealing-event-store.ts assertSealedLog:
 * a log written before sealing must be migrated). This log was written by the store directly, and none of its events
 * has a personal or secret field, so there is nothing to seal: the DATA_DIR gets its key store (and master key file)
 * marked for this log, as the platform marks a fresh one at its first start.
 */
async function markLogSealed(dataDir: string): Promise<void> {
  const keys = subjectKeysInFile(join(dataDir, 'subject-keys.sqlite'), loadOrCreateKey(dataDir, 'privacy-master.key', undefined, 'PRIVACY_MASTER_KEY'));
  try {
    await keys.assertMasterKey();
    await keys.setMeta(LOG_SEALED, `benchmark log written by the store (no personal or secret field) at ${new Date().toISOString()}`);
  } finally {
    await keys.close();
  }
}

/**
 * The platform server (`node dist/src/main.js`, server-process.ts) on a DATA_DIR holding the log (moved there, not
 * copied), with checkpoints every CHECKPOINT_EVERY events and never by time, and the Server-Timing header on. Waits
 * until the checkpointer has signed every checkpoint the log is due (it folds the whole log at start and signs when
 * `pending >= every`) and every projection, audit-merkle included, has reached the log's head. Signs in the platform
 * admin (ADMIN_EMAIL/ADMIN_PASSWORD) and a trader the admin grants the AUDITOR role.
 */
async function proofServer(logFile: string, logEvents: number): Promise<ProofServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-merkle-proofs-'));
  cleanup.dirs.push(dataDir);
  const eventsFile = join(dataDir, 'events.sqlite');
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(logFile + suffix)) renameSync(logFile + suffix, eventsFile + suffix);
  await markLogSealed(dataDir);
  const phases: Array<[string, number]> = [];
  const t = clock();
  const node = await startNode('merkle-proofs', {
    DATA_DIR: dataDir,
    ADMIN_EMAIL: PROOF_ADMIN.email,
    ADMIN_PASSWORD: PROOF_ADMIN.password,
    AUDIT_CHECKPOINT_EVERY_EVENTS: String(CHECKPOINT_EVERY),
    AUDIT_CHECKPOINT_INTERVAL_MS: String(24 * 3600_000),
    SEED_MARKETS: 'false',
    SERVER_TIMING: 'true',
  });
  // The log's DATA_DIR, not the empty one startNode made (the mailbox registerTrader reads is there).
  node.dataDir = dataDir;
  // Listening; ready (/health/ready) only once the background thread, folding the log, answers again: waited below.
  await untilReady(node, '/health/live');
  phases.push(['listening', seconds(t)]);
  let reported = clock();
  const progress = (): void => {
    if (seconds(reported) < 30) return;
    reported = clock();
    const f = logFacts(eventsFile);
    log(`   … ${seconds(t).toFixed(0)} s: ${int(f.treeSizes.length)} checkpoints signed, the log at ${int(f.head)} events (the server folds it: setup, not a figure)`);
  };

  const signIn = await until('the admin signs in', () => call(node, 'POST', '/api/v1/auth/sessions', PROOF_ADMIN), (r) => r.status === 201 || r.status === 202, SETUP_TIMEOUT_MS, progress);
  const admin = { authorization: `Bearer ${signIn.json.access_token as string}` };
  await until('the admin session is usable', () => call(node, 'GET', LATEST_CHECKPOINT_PATH, undefined, signIn.json.access_token as string), (r) => r.status === 200, SETUP_TIMEOUT_MS, progress);
  phases.push(['the admin signed in, a first checkpoint answered', seconds(t)]);

  // Every checkpoint the log is due: one per CHECKPOINT_EVERY events other than checkpoints (boot's own included).
  const due = Math.floor(logEvents / CHECKPOINT_EVERY);
  const signed = await until(
    'the checkpointer signs the log',
    async () => logFacts(eventsFile),
    (f) => f.treeSizes.length >= Math.max(due, Math.floor(f.events / CHECKPOINT_EVERY)),
    SETUP_TIMEOUT_MS,
    progress,
  );
  phases.push([`${int(signed.treeSizes.length)} checkpoints signed`, seconds(t)]);

  const ready = await until('the projections reach the head', () => readiness(node), (r) => r.status === 200 && r.head >= signed.head && r.behind.length === 0, SETUP_TIMEOUT_MS, progress);
  phases.push([`every projection at the head (${int(ready.head)})`, seconds(t)]);
  const facts = logFacts(eventsFile);
  const sizes = facts.treeSizes;
  if (sizes.some((s, i) => i > 0 && s <= sizes[i - 1])) throw new Error('the tree sizes of the checkpoints do not grow');
  if (sizes.length < due || sizes[sizes.length - 1] < logEvents) throw new Error(`${sizes.length} checkpoints up to tree size ${sizes[sizes.length - 1]} over a log of ${logEvents}`);
  const span = await until('the audit-merkle tree answers for the newest checkpoint', () => call(node, 'GET', consistencyPathOf(sizes[0], sizes[sizes.length - 1]), undefined, signIn.json.access_token as string), (r) => r.status === 200);
  if (!Array.isArray(span.json.consistency_path) || span.json.consistency_path.length === 0) throw new Error(`an empty consistency proof: ${JSON.stringify(span.json).slice(0, 300)}`);

  // An auditor who is not a platform admin: the route's other principal (its check loads the auditors' stream).
  const traderToken = await registerTrader(node, 'auditor');
  const profile = await call(node, 'GET', '/api/v1/identity/contact', undefined, traderToken);
  const grant = await call(node, 'POST', '/api/v1/audit/auditors', { profile_uuid: profile.json.profile_uuid, reason: 'proofs benchmark' }, signIn.json.access_token as string);
  if (grant.status !== 201) throw new Error(`granting AUDITOR: ${grant.status} ${JSON.stringify(grant.json)}`);
  const auditor = { authorization: `Bearer ${traderToken}` };
  await until('the auditor reads checkpoints', () => call(node, 'GET', LATEST_CHECKPOINT_PATH, undefined, traderToken), (r) => r.status === 200, 30_000);
  await until('the projections settle after the setup', () => readiness(node), (r) => r.status === 200 && r.behind.length === 0, 60_000);
  phases.push(['an auditor registered and granted', seconds(t)]);
  return { node, dataDir, admin, auditor, facts: logFacts(eventsFile), phases };
}

/** Each Server-Timing stage's median over a run, and the client's time beyond their sum (µs), in order of appearance. */
function stageMedians(run: ScenarioRun): Array<[string, number]> {
  const parsedStages = run.timings.map((header) => new Map(header.split(', ').filter(Boolean).map((part) => part.split(';dur=')).map(([stage, d]) => [stage, Number(d) * 1000] as [string, number])));
  const names = [...new Set(parsedStages.flatMap((stages) => [...stages.keys()]))];
  const rows: Array<[string, number]> = names.map((stage) => [stage, median(parsedStages.map((stages) => stages.get(stage) ?? 0))]);
  rows.push(['outside the handlers (loopback, Fastify)', median(parsedStages.map((stages, i) => run.latencies[i] - [...stages.values()].reduce((a, b) => a + b, 0)))]);
  return rows;
}

/** A stopwatch whose `lap(into)` pushes the µs since the previous lap (or its start) onto `into`. */
function stopwatch(): (into: number[]) => void {
  let last = clock();
  return (into) => {
    const now = clock();
    into.push(Number(now - last) / 1000);
    last = now;
  };
}

/**
 * What the proof handlers do, step by step, outside the server: the same read-model helpers (merkleLeaf,
 * merkleCheckpoint, merkleNodes) and domain functions on the server's read.sqlite (read-only, beside it), through a
 * prepared-statement cache over better-sqlite3 in place of TypeORM's query runner, then the answer's JSON. Medians
 * per request, µs. What the server's handler stage takes beyond their sum is the framework's and TypeORM's.
 */
async function handlerSteps(readFile: string, events: SampledEvent[], treeSizes: number[]): Promise<{ inclusion: Array<[string, number]>; consistency: Array<[string, number]>; plan: string }> {
  const raw = new SqliteDatabase(readFile, { readonly: true, fileMustExist: true });
  try {
    const statements = new Map<string, ReturnType<typeof raw.prepare>>();
    /** µs spent preparing statements since the last reset (the nodes query's text is new every time: its ids are literals). */
    let preparing = 0;
    const reader = {
      query: async (sql: string, params: unknown[] = []): Promise<unknown[]> => {
        let st = statements.get(sql);
        if (!st) {
          if (statements.size >= 100) statements.clear();
          const at = clock();
          st = raw.prepare(sql);
          preparing += Number(clock() - at) / 1000;
          statements.set(sql, st);
        }
        return st.all(...(params as [{}]));
      },
    };
    const db = { reader, sql: (s: string) => s } as unknown as ReadModelDatabase;
    const inc = { leaf: [] as number[], checkpoint: [] as number[], nodes: [] as number[], prepare: [] as number[], path: [] as number[], json: [] as number[] };
    const con = { checkpoints: [] as number[], nodes: [] as number[], prepare: [] as number[], proof: [] as number[], json: [] as number[] };
    let sink = 0;
    for (const e of events) {
      let lap = stopwatch();
      const leaf = await merkleLeaf(db, e.event_id);
      lap(inc.leaf);
      const cp = await merkleCheckpoint(db, 'latest');
      lap(inc.checkpoint);
      if (!leaf || !cp) throw new Error(`the read model lacks event ${e.event_id} or a checkpoint`);
      const size = Number(cp.tree_size);
      preparing = 0;
      const nodes = await merkleNodes(db.reader, inclusionNodeIds(leaf.leaf_index, size));
      lap(inc.nodes);
      inc.prepare.push(preparing);
      const path = inclusionPath(leaf.leaf_index, size, nodeSourceOf(nodes)).map((h) => h.toString('hex'));
      const answer = { event_id: e.event_id, position: leaf.position.toString(), leaf_index: String(leaf.leaf_index), tree_size: cp.tree_size, event_commitment: leaf.event_commitment, leaf_hash: leafHashOfCommitment(leaf.event_commitment).toString('hex'), root_hash: cp.root_hash, audit_path: path, checkpoint: cp };
      lap(inc.path);
      sink += JSON.stringify(answer).length;
      lap(inc.json);

      const [first, second] = sizePair(treeSizes);
      lap = stopwatch();
      const heads = [await merkleCheckpoint(db, first), await merkleCheckpoint(db, second)];
      lap(con.checkpoints);
      if (!heads[0] || !heads[1]) throw new Error(`the read model lacks checkpoint ${first} or ${second}`);
      preparing = 0;
      const cNodes = await merkleNodes(db.reader, consistencyNodeIds(first, second));
      lap(con.nodes);
      con.prepare.push(preparing);
      const proof = consistencyProof(first, second, nodeSourceOf(cNodes)).map((h) => h.toString('hex'));
      const cAnswer = { first: String(first), second: String(second), first_root: heads[0].root_hash, second_root: heads[1].root_hash, consistency_path: proof, first_checkpoint: heads[0], second_checkpoint: heads[1] };
      lap(con.proof);
      sink += JSON.stringify(cAnswer).length;
      lap(con.json);
    }
    if (sink === 0) throw new Error('no proofs');
    const last = treeSizes[treeSizes.length - 1];
    const ids = inclusionNodeIds(Math.floor(last / 3), last);
    const where = ids.map((id) => `(level = ${id.level} AND idx = ${id.index})`).join(' OR ');
    const plan = (raw.prepare(`EXPLAIN QUERY PLAN SELECT level, idx, hash FROM audit_merkle_nodes WHERE ${where}`).all() as Array<{ detail: string }>).map((r) => r.detail).filter((d) => !/^INDEX \d+$/.test(d));
    return {
      inclusion: [
        ['leaf: SELECT FROM audit_merkle_leaves WHERE event_id = ?', median(inc.leaf)],
        ['checkpoint: the newest (ORDER BY tree_size DESC LIMIT 1), JSON.parse', median(inc.checkpoint)],
        ['nodes: inclusionNodeIds, one SELECT of (level, idx) ORs', median(inc.nodes)],
        ['  of which preparing that SELECT (its text is new each time)', median(inc.prepare)],
        ['path: nodeSourceOf, inclusionPath, leaf hash, hex', median(inc.path)],
        ['JSON.stringify of the answer', median(inc.json)],
      ],
      consistency: [
        ['two checkpoints by tree_size, JSON.parse each', median(con.checkpoints)],
        ['nodes: consistencyNodeIds, one SELECT of (level, idx) ORs', median(con.nodes)],
        ['  of which preparing that SELECT', median(con.prepare)],
        ['proof: nodeSourceOf, consistencyProof, hex', median(con.proof)],
        ['JSON.stringify of the answer', median(con.json)],
      ],
      plan: `${ids.length} node ids: ${[...new Set(plan)].join('; ')}`,
    };
  } finally {
    raw.close();
  }
}

/** Unexpected answers of the proofs figure: printed, and the run fails after the summary (exit 1). */
const proofFailures: string[] = [];

/**
 * 3. The proofs over HTTP: the server on the log, then one client (latency-client.ts in a worker thread, one
 * keep-alive connection, one request at a time), each scenario warmed up, then PROOF_REQUESTS timed. The baseline,
 * a cheap authenticated GET on the same server through the same client, runs first and last (the faster is taken).
 */
async function proofFigures(logFile: string, logEvents: number): Promise<void> {
  log(`3. inclusion and consistency proofs over HTTP at ${int(logEvents)} events: the platform server (node dist/src/main.js) on that log`);
  const server = await proofServer(logFile, logEvents);
  const { node, admin, auditor, facts } = server;
  const sizes = facts.treeSizes;
  const n = PROOF_REQUESTS;
  const w = PROOF_WARMUP;
  const sampled = sampleEvents(join(server.dataDir, 'events.sqlite'), logEvents, 3 * (n + w));
  const part = (k: number): SampledEvent[] => sampled.slice(k * (n + w), (k + 1) * (n + w));
  const scenarios: Array<{ name: string; probes: Probe[]; target: boolean }> = [
    { name: 'baseline: GET audit/checkpoints/latest', probes: Array.from({ length: n + w }, () => baselineProbe(admin)), target: false },
    { name: 'inclusion, newest checkpoint', probes: part(0).map((e) => inclusionProbe(admin, e)), target: true },
    { name: 'inclusion, named tree_size', probes: part(1).map((e) => inclusionProbe(admin, e, coveringSize(sizes, e.leaf))), target: true },
    { name: 'consistency, two checkpoints', probes: Array.from({ length: n + w }, () => consistencyProbe(admin, ...sizePair(sizes))), target: true },
    { name: 'inclusion, newest, as an AUDITOR', probes: part(2).map((e) => inclusionProbe(auditor, e)), target: true },
  ];
  const client = await ClientWorker.open(node.url, guard);
  cleanup.workers.push(client.worker);
  client.worker.setMaxListeners(0); // each ask adds an 'error' listener (client-worker.ts)
  for (const s of scenarios) {
    const warm = await runProbes(client, `warm-up ${s.name}`, s.probes.slice(0, w));
    if (warm.failures > 0) proofFailures.push(`warm-up ${s.name}: ${warm.failures} of ${w} failed, first: ${warm.firstFailure}`);
  }
  const measure = async (s: (typeof scenarios)[number]): Promise<ScenarioRun> => {
    await guard(sleep(200));
    const run = await runProbes(client, s.name, s.probes.slice(w));
    if (run.failures > 0) proofFailures.push(`${s.name}: ${run.failures} of ${n} failed, first: ${run.firstFailure}`);
    return run;
  };
  const runsOf: ScenarioRun[] = [];
  const baselineFirst = await measure(scenarios[0]);
  for (const s of scenarios.slice(1)) runsOf.push(await measure(s));
  const baselineLast = await measure(scenarios[0]);
  const baseline = percentiles(baselineFirst.latencies).p50 <= percentiles(baselineLast.latencies).p50 ? baselineFirst : baselineLast;
  const base = percentiles(baseline.latencies);
  const steps = await handlerSteps(join(server.dataDir, 'read.sqlite'), sampled.slice(0, Math.min(2000, n)), sizes);
  await client.close();
  await stopNode(node);
  rmSync(server.dataDir, { recursive: true, force: true });

  log(`   setup, not a figure: ${server.phases.map(([what, s]) => `${what} ${s.toFixed(1)} s`).join('; ')} (seconds since spawn)`);
  log(`   ${int(sizes.length)} signed v2 checkpoints (AUDIT_CHECKPOINT_EVERY_EVENTS=${CHECKPOINT_EVERY}: ${int(Math.floor(logEvents / CHECKPOINT_EVERY))} due over the log), tree sizes ${int(sizes[0])} … ${int(sizes[sizes.length - 1])}; the log ${int(facts.head)} events`);
  log(`   one client, one request at a time on one keep-alive connection (latency-client.ts); ${int(n)} requests per scenario after ${int(w)} of warm-up;`);
  log(`   ${int(3 * (n + w))} events sampled from events.sqlite, one per slice of the log; every answer a 200 whose path the RFC 9162 reference verifies`);
  const header = `   ${pad('scenario', 40)} ${padL('p50 ms', 8)} ${padL('p90 ms', 8)} ${padL('p99 ms', 8)} ${padL('max ms', 8)}  ${padL('p50 vs base', 11)}  ${padL('body B', 7)}  failed`;
  log(header);
  const row = (r: ScenarioRun, label = r.name): void => {
    const p = percentiles(r.latencies);
    log(`   ${pad(label, 40)} ${padL(ms(p.p50), 8)} ${padL(ms(p.p90), 8)} ${padL(ms(p.p99), 8)} ${padL(ms(p.max), 8)}  ${padL(fmtRatio(p.p50 / base.p50), 11)}  ${padL(int(r.bytes), 7)}  ${r.failures}`);
  };
  row(baselineFirst, 'baseline: checkpoints/latest (first)');
  for (const r of runsOf) row(r);
  row(baselineLast, 'baseline: checkpoints/latest (last)');
  log();
  log('   Where the time goes, Server-Timing stages (medians, ms):');
  const stageRuns = [baseline, ...runsOf];
  const stageNames = [...new Set([...runsOf, baseline].flatMap((r) => stageMedians(r).map(([name]) => name)))];
  const labels = ['baseline', 'incl newest', 'incl sized', 'consistency', 'incl auditor'];
  log(`      ${pad('stage', 44)} ${labels.map((l) => padL(l, 12)).join(' ')}`);
  const perRun = stageRuns.map((r) => new Map(stageMedians(r)));
  for (const stage of stageNames) log(`      ${pad(stage === 'serialize' ? 'serialize (the handler: guard to answer, JSON)' : stage, 44)} ${perRun.map((m) => padL(m.has(stage) ? ms(m.get(stage)!) : '—', 12)).join(' ')}`);
  log(`   The handlers' steps outside the server, on its read.sqlite (better-sqlite3, cached statements, no TypeORM; medians over ${int(Math.min(2000, n))}):`);
  for (const [label, us] of steps.inclusion) log(`      inclusion    ${pad(label, 70)} ${padL(ms(us), 7)} ms`);
  const sum = (rows: Array<[string, number]>): number => rows.filter(([label]) => !label.startsWith(' ')).reduce((a, [, x]) => a + x, 0);
  log(`      inclusion    ${pad('sum', 70)} ${padL(ms(sum(steps.inclusion)), 7)} ms`);
  for (const [label, us] of steps.consistency) log(`      consistency  ${pad(label, 70)} ${padL(ms(us), 7)} ms`);
  log(`      consistency  ${pad('sum', 70)} ${padL(ms(sum(steps.consistency)), 7)} ms`);
  log(`      the nodes query's plan, ${steps.plan}`);
  log();

  figures.push({ name: 'proofs baseline: GET checkpoints/latest', value: `p50 ${ms(base.p50)} ms, p99 ${ms(base.p99)}`, baseline: '(first/last p50 ' + `${ms(percentiles(baselineFirst.latencies).p50)}/${ms(percentiles(baselineLast.latencies).p50)})`, target: '—', pass: null });
  for (const r of runsOf) {
    const p = percentiles(r.latencies);
    figures.push({
      name: `${r.name}, ${int(logEvents)} events`,
      value: `p50 ${ms(p.p50)} ms, p99 ${ms(p.p99)}${r.failures > 0 ? `, ${r.failures} FAILED` : ''}`,
      baseline: `p50 ${fmtRatio(p.p50 / base.p50)} the baseline's`,
      target: `p50 <= ${TARGET_PROOF_P50_MS} ms`,
      pass: r.failures === 0 && p.p50 <= TARGET_PROOF_P50_MS * 1000,
    });
  }
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
    if (ONLY === 'proofs') {
      const logFile = join(dir, 'log', 'events.sqlite');
      const written = await buildLog(logFile, LOG_EVENTS);
      log(`(MERKLE_BENCH_ONLY=proofs: figure 3 alone; its log written in ${written.seconds.toFixed(1)} s, ${fmtRate(perSec(written.events, written.seconds))}, appends of 1000; not a figure)`);
      await proofFigures(logFile, written.events);
    } else {
      await maintenance(dir);
      await buildFigures(dir);
    }
  } finally {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  }
  printFigures(figures);
  log();
  log(`total run time ${seconds(totalStart).toFixed(1)} s; ${loadAverage()} (the machine is shared: other programs' load shows there)`);
  if (proofFailures.length > 0) throw new Error(`unexpected proof answers (the figures above are over failing requests):\n  ${proofFailures.join('\n  ')}`);
}

/** MERKLE_BENCH_ONLY=proofs runs figure 3 alone (its log, the server, the proofs). */
const ONLY = process.env.MERKLE_BENCH_ONLY;

const loadAverage = (): string => `load average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min)`;

if (require.main === module) runBenchmark(main);
