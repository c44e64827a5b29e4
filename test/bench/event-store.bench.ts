/**
 * Event-store benchmark (SQLite adapter). A plain node program, not a jest test: `npm run bench`.
 *
 * Every figure is printed next to a baseline measured in the same run on the same disk, as a ratio, so the
 * numbers mean something on any machine: the baselines are what better-sqlite3 does with rows of the same shape
 * (same `events` table, same JSON sizes, same pragmas) when nothing else is in the way.
 *
 *   1. raw better-sqlite3 INSERTs: transactions of 100 rows, and one row per durable transaction
 *   2. durable single-event appends from 64 concurrent writers (exact expected revisions)   target >= 20,000 ev/s
 *   3. 100-event batch appends, sequential                                                 target >= 50% of raw
 *   4. readAll in pages of 1000 over the whole log vs raw SELECT + JSON.parse
 *   5. projection rebuild (TestLedgerProjector via ProjectionRunner) vs raw upserts         target >= 30,000 ev/s
 *   6. sealing (docs/privacy.md): the appends of 2 through the sealing store, an account-like event whose 5 personal
 *      and secret fields are sealed, against the same events declared all internal        target cost < 10%
 *
 * Every figure is the best of 2 runs (reads: 3) on fresh database files (this kind of VM is noisy), baseline and adapter runs
 * alternating. Followed by a per-event cost breakdown of the append and rebuild paths (where the time goes).
 * Everything runs in a fresh temp dir that is removed at the end. Sizes can be scaled with BENCH_SCALE (e.g. 0.25 for a smoke run).
 * The process exits 0 whatever the figures are: the PASS/BELOW column is informational.
 */
import 'reflect-metadata';
import type Database from 'better-sqlite3';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';
import * as crypto from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, eventCommitmentOf } from '../../src/platform/commitments/commitment';
import { assertCanonicalizable, type JsonObject } from '../../src/platform/commitments/json';
import { validateAppend } from '../../src/platform/event-store/append-validation';
import type { EventMetadata, EventStore, NewEvent, RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { EVENTS_SCHEMA, INSERT_EVENT, SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { openReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { newId } from '../../src/platform/context/request-context';
import { hex32 } from '../support/events';
import { TestLedgerProjector, testLedgerReadModel } from '../support/test-ledger/ledger.read-model';
import { clock, type Figure, log, pad, padL, printFigures, runBenchmark, scaled, SCALE, seconds } from './report';
import { declareEventClasses } from '../../src/platform/privacy/field-classes';
import { SealingEventStore } from '../../src/platform/privacy/sealing-event-store';
import { subjectKeysInFile } from '../../src/platform/privacy/sqlite-subject-keys';
import { sealEventData, unsealEventData } from '../../src/platform/privacy/sealing';

// ---------------------------------------------------------------------------------------------------------------
// Sealing: one event shape, declared twice: with its personal and secret fields, and with every field internal.

type AccountLike = { profile_uuid: string; email: string; first_name: string; last_name: string; password_hash: string; device: { name: string; platform: string }; plan: string; tier: string };
declareEventClasses<{ type: 'BenchAccountSealed'; data: AccountLike } | { type: 'BenchAccountPlain'; data: AccountLike }>(
  'bench',
  {
    BenchAccountSealed: { profile_uuid: 'internal', email: 'personal', first_name: 'personal', last_name: 'personal', password_hash: 'secret', device: 'personal', plan: 'internal', tier: 'internal' },
    BenchAccountPlain: { profile_uuid: 'internal', email: 'internal', first_name: 'internal', last_name: 'internal', password_hash: 'internal', device: 'internal', plan: 'internal', tier: 'internal' },
  },
  { subject: (e) => String(e.data.profile_uuid) },
);

function accountEvent(type: 'BenchAccountSealed' | 'BenchAccountPlain', subject: string, i: number): NewEvent {
  return {
    event_id: newId(),
    type,
    data: {
      profile_uuid: subject, email: `user-${i}@example.com`, first_name: 'Ada', last_name: `Lovelace-${i}`, password_hash: `scrypt$17$8$1$${hex64()}`,
      device: { name: 'Firefox 132', platform: 'Linux' }, plan: 'PRO', tier: String(i % 5),
    },
    metadata: platformMetadata(TENANT, WORKSPACE, subject),
    occurred_at: new Date().toISOString(),
  };
}

/** 64 concurrent writers of single-event appends, one data subject each (a person's stream), through the sealing store. */
async function sealedWriters(dir: string, type: 'BenchAccountSealed' | 'BenchAccountPlain'): Promise<number> {
  const keys = subjectKeysInFile(join(dir, 'subject-keys.sqlite'), crypto.randomBytes(32));
  const store = new SealingEventStore(new SqliteEventStore({ filename: join(dir, 'events.sqlite') }), keys);
  const plan = Array.from({ length: WRITERS }, (_, w) => {
    const subject = hex32();
    return { stream: `identity-account-${subject}`, events: Array.from({ length: EVENTS_PER_WRITER }, (_, k) => accountEvent(type, subject, w * EVENTS_PER_WRITER + k)) };
  });
  const t = clock();
  await Promise.all(
    plan.map(async ({ stream, events }) => {
      for (let k = 0; k < events.length; k++) await store.append(stream, [events[k]], k === 0 ? 'no_stream' : BigInt(k - 1));
    }),
  );
  const rate = perSec(WRITERS * EVENTS_PER_WRITER, seconds(t));
  if (type === 'BenchAccountSealed') {
    const [stored] = await store.raw.readStream(plan[0].stream, { maxCount: 1 });
    if (!JSON.stringify(stored.data).includes('"$sealed"')) throw new Error('nothing was sealed');
  }
  await store.close();
  await keys.close();
  return rate;
}

/** The bench's order events (nothing to seal) from 64 writers, through the sealing store or the adapter alone. */
async function orderWriters(dir: string, sealing: boolean): Promise<number> {
  const raw = new SqliteEventStore({ filename: join(dir, 'events.sqlite') });
  const keys = sealing ? subjectKeysInFile(join(dir, 'subject-keys.sqlite'), crypto.randomBytes(32)) : null;
  const store: EventStore = keys ? new SealingEventStore(raw, keys) : raw;
  const plan = Array.from({ length: WRITERS }, (_, w) => ({ stream: orderStream(), events: Array.from({ length: EVENTS_PER_WRITER }, (_, k) => orderEvent(w * EVENTS_PER_WRITER + k)) }));
  const t = clock();
  await Promise.all(plan.map(async ({ stream, events }) => {
    for (let k = 0; k < events.length; k++) await store.append(stream, [events[k]], k === 0 ? 'no_stream' : BigInt(k - 1));
  }));
  const rate = perSec(WRITERS * EVENTS_PER_WRITER, seconds(t));
  await store.close();
  await keys?.close();
  return rate;
}

/** Sealing and opening one event's fields, CPU only (keys cached), per event. */
async function sealingCpu(dir: string): Promise<{ sealNs: number; openNs: number }> {
  const store = subjectKeysInFile(join(dir, 'cpu-keys.sqlite'), crypto.randomBytes(32));
  const subject = hex32();
  const key = await store.keyFor(subject);
  const keys = { keyFor: () => key, keyById: () => key.key };
  const events = Array.from({ length: 20_000 }, (_, i) => accountEvent('BenchAccountSealed', subject, i));
  const open: JsonObject[] = [];
  let t = clock();
  for (const e of events) open.push(sealEventData({ type: e.type, stream: 's', data: e.data, metadata: e.metadata }, keys));
  const sealNs = Number(clock() - t) / events.length;
  t = clock();
  for (const d of open) unsealEventData('BenchAccountSealed', d, keys);
  const openNs = Number(clock() - t) / events.length;
  await store.close();
  return { sealNs, openNs };
}

// ---------------------------------------------------------------------------------------------------------------
// Sizes (about 60-90 s in total on a 2-vCPU VM).

const n = scaled;

const WRITERS = 64;
const EVENTS_PER_WRITER = n(400); // 25,600 events
const BATCH = 100;
const BATCHES = n(300); // 30,000 events
const RAW_BATCHED_ROWS = BATCHES * BATCH; // same row count as scenario 3
const RAW_SINGLE_ROWS = n(3000);
const READ_PAGE = 1000;
const LEDGERS = 1000;
const LEDGER_EVENTS = n(60_000);
const REBUILD_BATCH = 1000;
const BREAKDOWN_EVENTS = n(20_000);
const REPS = 2;
const READ_REPS = 3;

const TARGET_CONCURRENT = 20_000;
const TARGET_BATCH_RATIO = 0.5;
const TARGET_REBUILD = 30_000;

// The adapter's own DDL and INSERT, so the baseline writes exactly the same table.
const EVENTS_DDL = EVENTS_SCHEMA;
const INSERT_SQL = INSERT_EVENT;

// ---------------------------------------------------------------------------------------------------------------
// Timing and formatting.

const perSec = (count: number, s: number): number => count / s;
const fmtRate = (r: number): string => `${Math.round(r).toLocaleString('en-US')} ev/s`;
const fmtRatio = (r: number): string => `${r.toFixed(2)}x`;
const fmtPct = (r: number): string => `${(r * 100).toFixed(0)}%`;
const us = (ns: number): string => `${(ns / 1000).toFixed(1)} us`;

const figures: Figure[] = [];

// ---------------------------------------------------------------------------------------------------------------
// Realistic payloads: data about 200 bytes of JSON, metadata as the platform builds it (eventMetadata()).

const INSTRUMENTS = ['XETR:DE0007164600', 'XETR:DE0005190003', 'XPAR:FR0000120271', 'XAMS:NL0010273215'];

function orderData(i: number): JsonObject {
  return {
    order_uuid: crypto.randomUUID(),
    account_uuid: crypto.randomUUID(),
    instrument: INSTRUMENTS[i % INSTRUMENTS.length],
    side: i % 2 === 0 ? 'buy' : 'sell',
    quantity: `${(i % 500) + 1}.000000`,
    limit_price: `${100 + (i % 97)}.${String(i % 10000).padStart(4, '0')}`,
    time_in_force: 'GTC',
    client_order_ref: `web-${i.toString(36).padStart(8, '0')}`,
  };
}

function platformMetadata(tenant: string, workspace: string, user: string): EventMetadata {
  const request = hex32();
  return {
    tenant_uuid: tenant,
    workspace_uuid: workspace,
    actor: { type: 'user', reference: user },
    correlation_id: request,
    causation_id: hex32(),
    request_id: request,
    schema_version: 1,
  };
}

const TENANT = crypto.randomUUID();
const WORKSPACE = crypto.randomUUID();
const USER = crypto.randomUUID();

function orderEvent(i: number): NewEvent {
  return {
    event_id: newId(),
    type: 'OrderPlaced',
    data: orderData(i),
    metadata: platformMetadata(TENANT, WORKSPACE, USER),
    occurred_at: new Date().toISOString(),
  };
}

const orderStream = (): string => `mtf-order-${crypto.randomUUID()}`;
const hex64 = (): string => crypto.randomBytes(32).toString('hex');

/** A row for the raw baselines: exactly the strings the adapter would store for the same event. */
type RawRow = [string, string, number, string, string, string, string, string, string | null];

function rawRow(stream: string, revision: number, i: number, previous: string | null): RawRow {
  const e = orderEvent(i);
  return [e.event_id, stream, revision, e.type, e.occurred_at!, JSON.stringify(e.data), JSON.stringify(e.metadata), hex64(), previous];
}

function openRawEventsDb(file: string): Database.Database {
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 10000');
  db.exec(EVENTS_DDL);
  return db;
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios.

interface RawBaselines {
  batched: number;
  single: number;
}

function rawInsertBaselines(file: string): RawBaselines {
  const db = openRawEventsDb(file);
  const insert = db.prepare(INSERT_SQL);
  const insertMany = db.transaction((rows: RawRow[]) => {
    for (const r of rows) insert.run(...r);
  });

  // Rows are built before the clock starts: the baseline is SQLite's cost alone.
  const batches: RawRow[][] = [];
  for (let b = 0; b < BATCHES; b++) {
    const stream = orderStream();
    const rows: RawRow[] = [];
    let prev: string | null = null;
    for (let r = 0; r < BATCH; r++) {
      const row = rawRow(stream, r, b * BATCH + r, prev);
      prev = row[7];
      rows.push(row);
    }
    batches.push(rows);
  }
  let t = clock();
  for (const rows of batches) insertMany(rows);
  const batched = perSec(RAW_BATCHED_ROWS, seconds(t));

  // One row per durable transaction (autocommit: one WAL fsync per row), streams round-robin as 64 writers would.
  const streams = Array.from({ length: WRITERS }, () => orderStream());
  const singles: RawRow[] = [];
  for (let i = 0; i < RAW_SINGLE_ROWS; i++) {
    singles.push(rawRow(streams[i % WRITERS], Math.floor(i / WRITERS), i, null));
  }
  t = clock();
  for (const r of singles) insert.run(...r);
  const single = perSec(RAW_SINGLE_ROWS, seconds(t));
  db.close();
  return { batched, single };
}

/**
 * Instrumentation only: counts the transactions of the adapter's group commit by wrapping its private
 * `commitBatch` (reported as n/a if the adapter's internals change).
 */
function countCommits(store: SqliteEventStore): { commits: number; appends: number } {
  const counter = { commits: 0, appends: 0 };
  const internals = store as unknown as { commitBatch?: (batch: unknown[]) => unknown };
  const original = internals.commitBatch;
  if (typeof original !== 'function') return { commits: NaN, appends: NaN };
  internals.commitBatch = (batch: unknown[]) => {
    counter.commits += 1;
    counter.appends += batch.length;
    return original(batch);
  };
  return counter;
}

async function concurrentWriters(store: SqliteEventStore): Promise<{ rate: number; appendsPerCommit: number }> {
  const counter = countCommits(store);
  // Events are built up front, so the figure is the store's cost (payload building is the caller's).
  const plan = Array.from({ length: WRITERS }, (_, w) => ({
    stream: orderStream(),
    events: Array.from({ length: EVENTS_PER_WRITER }, (_, k) => orderEvent(w * EVENTS_PER_WRITER + k)),
  }));
  const t = clock();
  await Promise.all(
    plan.map(async ({ stream, events }) => {
      for (let k = 0; k < events.length; k++) {
        const result = await store.append(stream, [events[k]], k === 0 ? 'no_stream' : BigInt(k - 1));
        if (result.next_revision !== BigInt(k)) throw new Error(`unexpected revision ${result.next_revision} for ${stream}`);
      }
    }),
  );
  const s = seconds(t);
  return { rate: perSec(WRITERS * EVENTS_PER_WRITER, s), appendsPerCommit: counter.appends / counter.commits };
}

async function batchAppends(store: EventStore): Promise<number> {
  const plan = Array.from({ length: BATCHES }, (_, b) => ({
    stream: orderStream(),
    events: Array.from({ length: BATCH }, (_, k) => orderEvent(b * BATCH + k)),
  }));
  const t = clock();
  for (const { stream, events } of plan) {
    const result = await store.append(stream, events, 'no_stream');
    if (result.next_revision !== BigInt(BATCH - 1)) throw new Error('unexpected revision');
  }
  return perSec(BATCHES * BATCH, seconds(t));
}

async function readAllRate(store: EventStore): Promise<{ rate: number; events: number }> {
  let after = 0n;
  let events = 0;
  let check = 0;
  const t = clock();
  for (;;) {
    const page = await store.readAll({ after, maxCount: READ_PAGE });
    if (page.length === 0) break;
    events += page.length;
    check += page[page.length - 1].data === undefined ? 0 : 1;
    after = page[page.length - 1].position;
  }
  const s = seconds(t);
  if (check === 0) throw new Error('read nothing');
  return { rate: perSec(events, s), events };
}

interface RawEventRow {
  position: number;
  event_id: string;
  stream: string;
  revision: number;
  type: string;
  occurred_at: string;
  data: string;
  metadata: string;
  event_commitment: string;
  previous_event_commitment: string | null;
}

/** The same pages with a plain prepared SELECT on its own connection, JSON.parse of data and metadata. */
function rawReadRate(file: string): { rate: number; events: number } {
  const db = new SqliteDatabase(file, { readonly: true });
  const page = db.prepare<[number, number], RawEventRow>('SELECT * FROM events WHERE position > ? ORDER BY position ASC LIMIT ?');
  let after = 0;
  let events = 0;
  let keys = 0;
  const t = clock();
  for (;;) {
    const rows = page.all(after, READ_PAGE);
    if (rows.length === 0) break;
    for (const r of rows) {
      const data = JSON.parse(r.data) as JsonObject;
      const metadata = JSON.parse(r.metadata) as JsonObject;
      keys += data === null || metadata === null ? 0 : 1;
    }
    events += rows.length;
    after = rows[rows.length - 1].position;
  }
  const s = seconds(t);
  db.close();
  if (keys !== events) throw new Error('parse check failed');
  return { rate: perSec(events, s), events };
}

function ledgerData(type: 'LedgerOpened' | 'LedgerCredited', ledger: string, i: number): JsonObject {
  if (type === 'LedgerOpened') {
    return {
      ledger_id: ledger,
      owner: `acct-${crypto.randomUUID()}`,
      currency: 'EUR',
      opened_by: 'onboarding',
      terms_version: '2025-11-01',
      branch: 'DE-FRA-01',
      reference: `open-${i.toString(36).padStart(10, '0')}`,
    };
  }
  return {
    ledger_id: ledger,
    amount: String(100 + (i % 90_000)),
    currency: 'EUR',
    value_date: '2025-11-20',
    booking_reference: `wire-${crypto.randomUUID()}`,
    memo: 'incoming SEPA transfer',
  };
}

/** 1000 ledgers opened, then credited in rounds (one append per ledger per round, all rounds group-committed). */
async function writeLedgerLog(store: EventStore): Promise<{ rate: number; events: number }> {
  const ledgers = Array.from({ length: LEDGERS }, () => hex32());
  const rounds = Math.ceil(LEDGER_EVENTS / LEDGERS);
  let written = 0;
  const t = clock();
  for (let round = 0; round < rounds && written < LEDGER_EVENTS; round++) {
    const appends: Array<Promise<unknown>> = [];
    for (let l = 0; l < LEDGERS && written < LEDGER_EVENTS; l++, written++) {
      const type = round === 0 ? 'LedgerOpened' : 'LedgerCredited';
      const event: NewEvent = {
        event_id: newId(),
        type,
        data: ledgerData(type, ledgers[l], written),
        metadata: platformMetadata(TENANT, WORKSPACE, USER),
        occurred_at: new Date().toISOString(),
      };
      appends.push(store.append(`test-ledger-${ledgers[l]}`, [event], round === 0 ? 'no_stream' : BigInt(round - 1)));
    }
    await Promise.all(appends);
  }
  return { rate: perSec(written, seconds(t)), events: written };
}

/** The rebuild's write work with nothing in the way: one upsert per event, transactions of 1000, read-model pragmas. */
function rawUpsertRate(file: string, events: Array<{ ledger: string; owner?: string; amount?: string; revision: number; at: string }>): number {
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE test_ledger_balances (ledger_id varchar(32) PRIMARY KEY NOT NULL, owner varchar(200) NOT NULL,
    balance varchar(40) NOT NULL, entries integer NOT NULL, version integer NOT NULL, updated_at varchar(40) NOT NULL)`);
  const upsert = db.prepare(`INSERT INTO test_ledger_balances (ledger_id, owner, balance, entries, version, updated_at)
    VALUES (?, ?, ?, 0, ?, ?)
    ON CONFLICT (ledger_id) DO UPDATE SET balance = excluded.balance, entries = entries + 1, version = excluded.version, updated_at = excluded.updated_at`);
  const balances = new Map<string, bigint>();
  const apply = db.transaction((chunk: typeof events) => {
    for (const e of chunk) {
      const balance = (balances.get(e.ledger) ?? 0n) + BigInt(e.amount ?? '0');
      balances.set(e.ledger, balance);
      upsert.run(e.ledger, e.owner ?? '', balance.toString(), e.revision, e.at);
    }
  });
  const t = clock();
  for (let i = 0; i < events.length; i += REBUILD_BATCH) apply(events.slice(i, i + REBUILD_BATCH));
  const rate = perSec(events.length, seconds(t));
  db.close();
  return rate;
}

/** An EventStore that delegates to another and counts the time spent in readAll (for the rebuild breakdown). */
function timedStore(inner: EventStore, acc: { readNs: bigint }): EventStore {
  return {
    kind: inner.kind,
    append: (s, e, x) => inner.append(s, e, x),
    readStream: (s, o) => inner.readStream(s, o),
    readAll: async (o) => {
      const t = clock();
      const page = await inner.readAll(o);
      acc.readNs += clock() - t;
      return page;
    },
    subscribeToAll: (o) => inner.subscribeToAll(o),
    headPosition: () => inner.headPosition(),
    close: () => inner.close(),
  };
}

class TimedLedgerProjector extends TestLedgerProjector {
  applyNs = 0n;
  override async apply(event: RecordedEvent, tx: import('typeorm').EntityManager): Promise<void> {
    const t = clock();
    await super.apply(event, tx);
    this.applyNs += clock() - t;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Per-event cost breakdown of the append path (CPU work the adapter does per event, measured in isolation).

/** JCS for plain JSON without array-index-like keys: JSON.stringify of a key-sorted copy (shown as an alternative). */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortedCopy);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedCopy((value as Record<string, unknown>)[key]);
  return out;
}

function appendBreakdown(storeFile: string): Array<[string, number]> {
  const events = Array.from({ length: BREAKDOWN_EVENTS }, (_, i) => orderEvent(i));
  const stream = orderStream();
  // Best of 3 passes: the first pass of each loop also pays for JIT compilation.
  const per = (fn: () => void): number => {
    let bestNs = Infinity;
    for (let pass = 0; pass < 3; pass++) {
      const t = clock();
      fn();
      bestNs = Math.min(bestNs, Number(clock() - t) / BREAKDOWN_EVENTS);
    }
    return bestNs;
  };
  const rows: Array<[string, number]> = [];
  let sink = 0;
  rows.push(['validateAppend (regex, Set)', per(() => { for (const e of events) validateAppend(stream, [e], 0n); })]);
  rows.push(['assertCanonicalizable(data)+(metadata)', per(() => { for (const e of events) { assertCanonicalizable(e.data, 'data'); assertCanonicalizable(e.metadata, 'metadata'); } })]);
  rows.push(['canonicalJson(data)+(metadata), stored as is', per(() => { for (const e of events) sink += canonicalJson(e.data).length + canonicalJson(e.metadata).length; })]);
  const texts = events.map((e) => ({ data: canonicalJson(e.data), metadata: canonicalJson(e.metadata) }));
  rows.push(['eventCommitmentOf (preimage + sha256)', per(() => {
    events.forEach((e, i) => {
      sink += eventCommitmentOf({ stream, revision: 7n, event_id: e.event_id, type: e.type, occurred_at: e.occurred_at!, previous_event_commitment: null }, texts[i].data, texts[i].metadata).length;
    });
  })]);

  // SQLite statements the adapter runs per append / per event, on a second connection to the populated store.
  const db = new SqliteDatabase(storeFile);
  db.pragma('synchronous = FULL');
  const byId = db.prepare('SELECT stream, revision, position FROM events WHERE event_id = ?').safeIntegers(true);
  const tail = db.prepare('SELECT revision, event_commitment FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1').safeIntegers(true);
  const ids = events.map((e) => e.event_id);
  rows.push(['lookup by event_id (only on a retry, not per append)', per(() => { for (const id of ids) sink += byId.get(id) === undefined ? 0 : 1; })]);
  const streams = db.prepare('SELECT DISTINCT stream FROM events LIMIT 1000').pluck().all() as string[];
  rows.push(['tail lookup (stream, revision DESC)', per(() => { for (let i = 0; i < BREAKDOWN_EVENTS; i++) sink += tail.get(streams[i % streams.length]) ? 1 : 0; })]);
  const sp = db.transaction(() => undefined);
  const outer = db.transaction(() => { for (let i = 0; i < BREAKDOWN_EVENTS; i++) sp(); });
  rows.push(['empty savepoint (nested transaction)', per(() => outer())]);
  db.close();
  if (sink < 0) log(String(sink));
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------

const best = (xs: number[]): number => Math.max(...xs);
const runs = (xs: number[]): string => xs.map((x) => Math.round(x).toLocaleString('en-US')).join(' / ');

async function main(): Promise<void> {
  const totalStart = clock();
  const dir = mkdtempSync(join(tmpdir(), 'es-bench-'));
  const cpu = cpus();
  log('Event-store benchmark: SQLite adapter (WAL, synchronous=FULL)');
  log(`machine: ${cpu[0]?.model ?? 'unknown cpu'} x ${cpu.length}, node ${process.version}, ${process.platform}/${process.arch}`);
  log(`temp dir: ${dir}${SCALE !== 1 ? `   (BENCH_SCALE=${SCALE})` : ''}`);
  const sample = orderEvent(1);
  log(`payload: data ${JSON.stringify(sample.data).length} B, metadata ${JSON.stringify(sample.metadata).length} B of JSON per event`);
  log(`every figure: best of ${REPS} runs (reads: ${READ_REPS}), each on fresh database files; baseline and adapter runs alternate`);
  log();

  try {
    // 1-3. Raw baselines and appends, alternating, fresh files for every run.
    const rawBatched: number[] = [];
    const rawSingle: number[] = [];
    const concRates: number[] = [];
    const batchRates: number[] = [];
    let appendsPerCommit = NaN;
    let storeFile = '';
    let store: SqliteEventStore | null = null;
    for (let rep = 0; rep < REPS; rep++) {
      const raw = rawInsertBaselines(join(dir, `raw-${rep}.sqlite`));
      rawBatched.push(raw.batched);
      rawSingle.push(raw.single);
      // Each scenario starts from an empty store, as the raw baselines do (index depth and WAL traffic grow with size).
      const concStore = new SqliteEventStore({ filename: join(dir, `conc-${rep}`, 'events.sqlite') });
      const conc = await concurrentWriters(concStore);
      await concStore.close();
      concRates.push(conc.rate);
      appendsPerCommit = conc.appendsPerCommit;
      if (store) await store.close();
      storeFile = join(dir, `batch-${rep}`, 'events.sqlite');
      store = new SqliteEventStore({ filename: storeFile });
      batchRates.push(await batchAppends(store));
    }
    if (!store) throw new Error('no store');
    const raw = { batched: best(rawBatched), single: best(rawSingle) };
    const conc = best(concRates);
    const batch = best(batchRates);

    log('1. raw better-sqlite3 INSERT into an identical events table (prepared statement, rows prebuilt)');
    log(`   transactions of ${BATCH} rows, ${RAW_BATCHED_ROWS} rows:      ${padL(fmtRate(raw.batched), 14)}   (runs: ${runs(rawBatched)})`);
    log(`   1 row per durable transaction, ${RAW_SINGLE_ROWS} rows:  ${padL(fmtRate(raw.single), 14)}   (runs: ${runs(rawSingle)})`);
    log();

    log(`2. ${WRITERS} concurrent writers x ${EVENTS_PER_WRITER} single-event appends (exact expected revisions, durable, empty store)`);
    log(`   ${padL(fmtRate(conc), 14)}   = ${fmtRatio(conc / raw.single)} the 1-row-per-tx baseline, ${fmtPct(conc / raw.batched)} of the 100-row-tx baseline   (runs: ${runs(concRates)})`);
    log(`   group commit: ${appendsPerCommit.toFixed(1)} appends per transaction (measured); ${((1e6 * appendsPerCommit) / conc).toFixed(0)} us per commit`);
    log();
    figures.push({
      name: `${WRITERS} writers, single-event appends`,
      value: fmtRate(conc),
      baseline: `${fmtRatio(conc / raw.single)} 1-row tx / ${fmtPct(conc / raw.batched)} batched`,
      target: `>= ${TARGET_CONCURRENT.toLocaleString('en-US')} ev/s`,
      pass: conc >= TARGET_CONCURRENT,
    });

    log(`3. ${BATCHES} sequential appends of ${BATCH} events (one new stream each, empty store)`);
    log(`   ${padL(fmtRate(batch), 14)}   = ${fmtPct(batch / raw.batched)} of the raw 100-row-tx baseline   (runs: ${runs(batchRates)})`);
    log();
    figures.push({
      name: `${BATCH}-event batch appends`,
      value: fmtRate(batch),
      baseline: `${fmtPct(batch / raw.batched)} of raw batched`,
      target: `>= ${fmtPct(TARGET_BATCH_RATIO)} of raw`,
      pass: batch / raw.batched >= TARGET_BATCH_RATIO,
    });

    // 4. Global-log read over the log of the last batch run, alternating raw and adapter. A store that did not write
    //    the log reads it (as a rebuild after a restart does): the writer would serve its newest events from its tail.
    await store.close();
    store = new SqliteEventStore({ filename: storeFile });
    const rawReads: number[] = [];
    const reads: number[] = [];
    let logSize = 0;
    for (let rep = 0; rep < READ_REPS; rep++) {
      rawReads.push(rawReadRate(storeFile).rate);
      const r = await readAllRate(store);
      reads.push(r.rate);
      logSize = r.events;
    }
    const rawRead = best(rawReads);
    const read = best(reads);
    log(`4. readAll in pages of ${READ_PAGE} over the whole log (${logSize} events)`);
    log(`   ${padL(fmtRate(read), 14)}   = ${fmtPct(read / rawRead)} of raw SELECT + JSON.parse of data and metadata (${fmtRate(rawRead)})   (runs: ${runs(reads)} vs ${runs(rawReads)})`);
    log();
    figures.push({ name: 'readAll, pages of 1000', value: fmtRate(read), baseline: `${fmtPct(read / rawRead)} of raw SELECT`, target: '-', pass: null });

    const breakdown = appendBreakdown(storeFile);
    await store.close();

    // 5. Projection rebuild.
    const ledgerDir = join(dir, 'ledger');
    const ledgerWriter = new SqliteEventStore({ filename: join(ledgerDir, 'events.sqlite') });
    const written = await writeLedgerLog(ledgerWriter);
    await ledgerWriter.close();
    // Rebuilt by a store that did not write the log: every event comes from SQL, as after a restart.
    const ledgerStore = new SqliteEventStore({ filename: join(ledgerDir, 'events.sqlite') });
    const rmDb = await openReadModelDatabase({ dataDir: ledgerDir, readModels: [testLedgerReadModel] });
    const runner = new ProjectionRunner(ledgerStore, rmDb, [new TestLedgerProjector()], { batchSize: REBUILD_BATCH });
    const rebuildRates: number[] = [];
    let rebuiltEvents = 0;
    for (let rep = 0; rep < REPS; rep++) {
      const t = clock();
      const rebuilt = await runner.rebuild('test-ledger-balances');
      rebuildRates.push(perSec(rebuilt.events, seconds(t)));
      rebuiltEvents = rebuilt.events;
      const check: Array<{ n: number; entries: number }> = await rmDb.reader.query('SELECT COUNT(*) AS n, SUM(entries) AS entries FROM test_ledger_balances');
      if (Number(check[0].n) !== LEDGERS || Number(check[0].entries) !== written.events - LEDGERS) {
        throw new Error(`rebuild produced ${check[0].n} rows / ${check[0].entries} entries`);
      }
    }
    const rebuild = best(rebuildRates);

    // The baseline's input: the same events, parsed beforehand (the baseline is the upserts alone).
    const input: Array<{ ledger: string; owner?: string; amount?: string; revision: number; at: string }> = [];
    for (let after = 0n; ; ) {
      const page = await ledgerStore.readAll({ after, maxCount: 5000 });
      if (page.length === 0) break;
      for (const e of page) {
        const d = e.data as { ledger_id: string; owner?: string; amount?: string };
        input.push({ ledger: d.ledger_id, owner: d.owner, amount: d.amount, revision: Number(e.revision), at: e.occurred_at });
      }
      after = page[page.length - 1].position;
    }
    const rawUpserts: number[] = [];
    for (let rep = 0; rep < REPS; rep++) rawUpserts.push(rawUpsertRate(join(dir, `raw-read-${rep}.sqlite`), input));
    const rawUpsert = best(rawUpserts);

    // Breakdown run: the same rebuild again, with readAll and projector.apply timed.
    const acc = { readNs: 0n };
    const timedProjector = new TimedLedgerProjector();
    const timedRunner = new ProjectionRunner(timedStore(ledgerStore, acc), rmDb, [timedProjector], { batchSize: REBUILD_BATCH });
    const tTimed = clock();
    await timedRunner.rebuild('test-ledger-balances');
    const timedNs = Number(clock() - tTimed);

    log(`5. projection rebuild of test-ledger-balances, ${rebuiltEvents} events over ${LEDGERS} ledgers (log written at ${fmtRate(written.rate)} by ${LEDGERS} concurrent writers)`);
    log(`   ${padL(fmtRate(rebuild), 14)}   = ${fmtPct(rebuild / rawUpsert)} of raw better-sqlite3 upserts (${fmtRate(rawUpsert)}, tx of ${REBUILD_BATCH})   (runs: ${runs(rebuildRates)}; first includes JIT warm-up)`);
    log();
    figures.push({
      name: 'projection rebuild (fixed-SQL projector)',
      value: fmtRate(rebuild),
      baseline: `${fmtPct(rebuild / rawUpsert)} of raw upsert`,
      target: `>= ${TARGET_REBUILD.toLocaleString('en-US')} ev/s`,
      pass: rebuild >= TARGET_REBUILD,
    });

    // 6. Sealing: the same 64-writer appends through the sealing store, sealed against all-internal, alternating.
    const sealedRates: number[] = [];
    const plainRates: number[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      plainRates.push(await sealedWriters(join(dir, `plain-${rep}`), 'BenchAccountPlain'));
      sealedRates.push(await sealedWriters(join(dir, `sealed-${rep}`), 'BenchAccountSealed'));
    }
    const sealed = best(sealedRates);
    const plain = best(plainRates);
    const cost = 1 - sealed / plain;
    const layerRates: number[] = [];
    const adapterRates: number[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      adapterRates.push(await orderWriters(join(dir, `orders-raw-${rep}`), false));
      layerRates.push(await orderWriters(join(dir, `orders-sealing-${rep}`), true));
    }
    const layer = best(layerRates);
    const adapter = best(adapterRates);
    const layerCost = 1 - layer / adapter;
    const cpu = await sealingCpu(dir);
    log(`6. sealing: ${WRITERS} concurrent writers x ${EVENTS_PER_WRITER} single-event appends of an account-like event (one subject per writer)`);
    log(`   5 personal and secret fields sealed:  ${padL(fmtRate(sealed), 14)}   (runs: ${runs(sealedRates)})`);
    log(`   the same events, nothing to seal:     ${padL(fmtRate(plain), 14)}   (runs: ${runs(plainRates)})`);
    log(`   cost of sealing: ${fmtPct(cost)} of append throughput; CPU per event: seal ${us(cpu.sealNs)}, open ${us(cpu.openNs)} (keys cached)`);
    log(`   the platform's append path (the order events of 2, nothing personal), through the sealing store: ${padL(fmtRate(layer), 12)}`);
    log(`   the same, the adapter alone:                                                               ${padL(fmtRate(adapter), 12)}   cost ${fmtPct(layerCost)}   (runs: ${runs(layerRates)} vs ${runs(adapterRates)})`);
    log();
    figures.push({ name: 'sealing store, order appends', value: fmtRate(layer), baseline: `${fmtPct(layer / adapter)} of the adapter alone`, target: '< 10% cost', pass: layerCost < 0.1 });
    figures.push({ name: 'appends with 5 sealed fields', value: fmtRate(sealed), baseline: `${fmtPct(sealed / plain)} of the same unsealed`, target: '< 10% cost', pass: cost < 0.1 });

    log('Where the time goes: append path, per event, CPU work measured in isolation (best of 3 passes)');
    for (const [label, ns] of breakdown) log(`   ${pad(label, 46)} ${padL(us(ns), 8)}`);
    log(`   (compare: raw batched insert ${us(1e9 / raw.batched)}/row; concurrent append ${us(1e9 / conc)}/event; batch append ${us(1e9 / batch)}/event)`);
    log();
    const ev = rebuiltEvents;
    const readNs = Number(acc.readNs);
    const applyNs = Number(timedProjector.applyNs);
    log(`Where the time goes: rebuild (an extra instrumented run: ${fmtRate(perSec(ev, timedNs / 1e9))}), per event`);
    log(`   ${pad('store.readAll (SELECT + JSON.parse + bigint)', 42)} ${padL(us(readNs / ev), 10)}  ${fmtPct(readNs / timedNs)}`);
    log(`   ${pad('projector.apply (SELECT + UPDATE via tx.query)', 42)} ${padL(us(applyNs / ev), 10)}  ${fmtPct(applyNs / timedNs)}`);
    log(`   ${pad('runner: transaction, checkpoint, awaits', 42)} ${padL(us((timedNs - readNs - applyNs) / ev), 10)}  ${fmtPct((timedNs - readNs - applyNs) / timedNs)}`);
    log(`   ${pad('(raw upsert baseline)', 42)} ${padL(us(1e9 / rawUpsert), 10)}`);
    log();

    await rmDb.close();
    await ledgerStore.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  printFigures(figures);
  log();
  log(`total run time ${seconds(totalStart).toFixed(1)} s`);
}

runBenchmark(main);
