/**
 * PostgreSQL event-store benchmark (issue 29): the platform's PostgreSQL adapter against Emmett's
 * (`@event-driven-io/emmett-postgresql`, pinned dev dependency) on the same PostgreSQL server, same machine, same run,
 * each in a fresh database of its own:
 *
 *   1. 64 concurrent writers, single-event appends, each writer on its own stream with exact expected revisions
 *   2. 100-event batch appends, sequential
 *
 * Both as events per second and as the ratio ours / Emmett's (target ≥ 1.0× on both), while ours does more per event
 * (the canonical JSON and the hash chain). Best of 2 runs each, ours and Emmett's alternating. Needs the PostgreSQL of
 * TEST_DATABASE_URL (127.0.0.1:5432 here; `bash test/infra/ensure-postgres.sh`); without one it says so and exits 0.
 * BENCH_SCALE scales the sizes.
 */
import 'reflect-metadata';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import type { NewEvent } from '../../src/platform/event-store/event-store.port';
import { batches, concurrentSingles, metadata, payload, type BenchStore } from './append-workload';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres.event-store';
import { newId } from '../../src/platform/context/request-context';
import { log, pad, padL, printSummary, runBenchmark, scaled } from './report';

const BASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const WRITERS = 64;
const PER_WRITER = scaled(60);
const BATCHES = scaled(60);


function ours(url: string): BenchStore {
  const store = new PostgresEventStore({ connectionString: url, schema: 'platform', poolSize: 10 });
  const event = (i: number): NewEvent => ({ event_id: newId(), type: 'Credited', data: payload(i), metadata });
  return {
    appendOne: async (stream, i, expected) => void (await store.append(stream, [event(i)], expected === null ? 'no_stream' : expected)),
    appendBatch: async (stream, n) => void (await store.append(stream, Array.from({ length: n }, (_, i) => event(i)), 'no_stream')),
    close: () => store.close(),
  };
}

function emmett(url: string): BenchStore {
  const store = getPostgreSQLEventStore(url, { schema: { autoMigration: 'CreateOrUpdate' } });
  const event = (i: number) => ({ type: 'Credited', data: payload(i), metadata: { correlation_id: metadata.correlation_id } });
  return {
    appendOne: async (stream, i, expected) => void (await store.appendToStream(stream, [event(i)], { expectedStreamVersion: expected === null ? 'STREAM_DOES_NOT_EXIST' : expected + 1n })),
    appendBatch: async (stream, n) => void (await store.appendToStream(stream, Array.from({ length: n }, (_, i) => event(i)), { expectedStreamVersion: 'STREAM_DOES_NOT_EXIST' })),
    close: () => store.close(),
  };
}

async function withDatabase<T>(run: (url: string) => Promise<T>): Promise<T> {
  const name = `bench_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: BASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    // Not FORCE: terminating a connection a client library still pools would crash this process (an unhandled error).
    await new Promise((r) => setTimeout(r, 200));
    await admin.query(`DROP DATABASE IF EXISTS ${name}`).catch((error: Error) => log(`  (database ${name} left behind: ${error.message})`));
    await admin.end();
  }
}

async function main(): Promise<void> {
  const probe = new Client({ connectionString: BASE_URL });
  try {
    await probe.connect();
    await probe.end();
  } catch (error) {
    log(`PostgreSQL event-store benchmark skipped: no PostgreSQL at ${BASE_URL.replace(/\/\/[^@]*@/, '//')} (${(error as Error).message})`);
    return;
  }
  log(`PostgreSQL event-store benchmark: ${WRITERS} writers × ${PER_WRITER} single-event appends; ${BATCHES} batches of 100 events`);
  const best = { oursSingle: 0, emmettSingle: 0, oursBatch: 0, emmettBatch: 0 };
  for (let round = 0; round < 2; round++) {
    for (const [name, open] of [['ours', ours], ['emmett', emmett]] as const) {
      await withDatabase(async (url) => {
        const store = open(url);
        try {
          await store.appendOne(`warm-${round}`, 0, null); // schema creation and connections outside the clock
          const single = await concurrentSingles(store, `${round}`, WRITERS, PER_WRITER);
          const batch = await batches(store, `${round}`, BATCHES);
          log(`  round ${round + 1} ${pad(name, 7)} singles ${padL(Math.round(single).toLocaleString('en-US'), 8)} ev/s   batches ${padL(Math.round(batch).toLocaleString('en-US'), 8)} ev/s`);
          if (name === 'ours') {
            best.oursSingle = Math.max(best.oursSingle, single);
            best.oursBatch = Math.max(best.oursBatch, batch);
          } else {
            best.emmettSingle = Math.max(best.emmettSingle, single);
            best.emmettBatch = Math.max(best.emmettBatch, batch);
          }
        } finally {
          await store.close();
        }
      });
    }
  }
  const row = (label: string, o: number, e: number): string[] => [label, Math.round(o).toLocaleString('en-US'), Math.round(e).toLocaleString('en-US'), `${(o / e).toFixed(2)}x`, o >= e ? 'PASS' : 'BELOW'];
  printSummary(
    ['Figure', 'ours ev/s', 'Emmett ev/s', 'ratio', 'target >= 1.0x'],
    [row(`${WRITERS} concurrent single-event appends`, best.oursSingle, best.emmettSingle), row('100-event batch appends', best.oursBatch, best.emmettBatch)],
    new Set([1, 2, 3]),
  );
}

runBenchmark(main);
