/**
 * The one EventStore contract on the real PostgreSQL (127.0.0.1:5432 on these machines; TEST_DATABASE_URL), a schema
 * of its own per run; then what only this adapter must show: no subscriber skips an event when appends commit while
 * another append's transaction is held open, group commit, and the schema created once by nodes starting together.
 */
import { Client } from 'pg';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres.event-store';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32, newEvent } from '../support/events';
import { runEventStoreContract } from './event-store.contract';

const schema = `es_${hex32().slice(0, 12)}`;
const stores: PostgresEventStore[] = [];
const open = (options: Partial<ConstructorParameters<typeof PostgresEventStore>[0]> = {}): PostgresEventStore => {
  const store = new PostgresEventStore({ connectionString: TEST_DATABASE_URL, schema, pollIntervalMs: 50, ...options });
  stores.push(store);
  return store;
};

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
  const c = new Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

runEventStoreContract('postgres', async () => open());

async function collect(sub: AsyncIterable<RecordedEvent>, until: (seen: RecordedEvent[]) => boolean, timeoutMs = 15_000): Promise<RecordedEvent[]> {
  const seen: RecordedEvent[] = [];
  const deadline = setTimeout(() => undefined, 0);
  clearTimeout(deadline);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${seen.length} events`)), timeoutMs)));
  try {
    return await Promise.race([
      (async () => {
        for await (const e of sub) {
          seen.push(e);
          if (until(seen)) break;
        }
        return seen;
      })(),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('PostgresEventStore specifics', () => {
  it('never lets a subscriber skip an event: appends wait behind one whose transaction is held open, then every subscriber sees every event once, in one order', async () => {
    const writerA = open();
    const writerB = open();
    const reader = open();
    const start = await reader.headPosition();
    const subs = [reader.subscribeToAll({ after: start }), open().subscribeToAll({ after: start })];
    const collected = subs.map((s) => collect(s, (seen) => seen.length >= 41));

    // Another session holds the append lock in an open transaction (as a slow append's transaction would).
    const blocker = new Client({ connectionString: TEST_DATABASE_URL });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT pg_advisory_xact_lock($1)', [0x65766e7473]);
    const writes = [
      ...Array.from({ length: 20 }, (_, i) => writerA.append(`noskip-a-${i}`, [newEvent('A', { i: String(i) })], 'no_stream')),
      ...Array.from({ length: 20 }, (_, i) => writerB.append(`noskip-b-${i}`, [newEvent('B', { i: String(i) })], 'no_stream')),
    ];
    await new Promise((r) => setTimeout(r, 300));
    // Nothing committed while the lock is held: readers see nothing new, rather than later positions first.
    expect(await reader.readAll({ after: start })).toEqual([]);
    await blocker.query('COMMIT');
    await blocker.end();
    const results = await Promise.all(writes);
    await writerA.append('noskip-last', [newEvent('Last')], 'no_stream');

    const positions = results.map((r) => r.position).sort((a, b) => (a < b ? -1 : 1));
    expect(positions).toEqual(Array.from({ length: 40 }, (_, i) => start + 1n + BigInt(i))); // dense, no gap
    const [one, two] = await Promise.all(collected);
    for (const seen of [one, two]) {
      expect(seen.map((e) => e.position)).toEqual(Array.from({ length: 41 }, (_, i) => start + 1n + BigInt(i)));
      expect(new Set(seen.map((e) => e.event_id)).size).toBe(41);
    }
    expect(two.map((e) => e.event_id)).toEqual(one.map((e) => e.event_id));
    await Promise.all(subs.map((s) => s.close()));
  });

  it('commits appends that arrive together in one transaction (group commit), each refusal alone', async () => {
    const store = open();
    const commits = jest.spyOn(store as unknown as { commitBatch: (...a: unknown[]) => unknown }, 'commitBatch');
    const taken = newEvent('Taken');
    await store.append(`group-owner-${hex32()}`, [taken], 'no_stream');
    commits.mockClear();
    const settled = await Promise.allSettled([
      ...Array.from({ length: 63 }, () => store.append(`group-${hex32()}`, [newEvent('One')], 'no_stream')),
      store.append(`group-clash-${hex32()}`, [newEvent('Fresh'), { ...newEvent('Dup'), event_id: taken.event_id }], 'any'),
    ]);
    expect(commits).toHaveBeenCalledTimes(1);
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(63);
    expect((settled[63] as PromiseRejectedResult).reason.code).toBe('STATE_CONFLICT');
  });

  it("takes any stream name, quotes and backslashes included (read in the transaction's opening statement as literals)", async () => {
    const store = open();
    const stream = `o'brien\\'; DROP TABLE events; -- ${hex32()}`;
    await store.append(stream, [newEvent('One')], 'no_stream');
    await store.append(stream, [newEvent('Two')], 0n);
    expect((await store.readStream(stream)).map((e) => [e.type, e.revision])).toEqual([['One', 0n], ['Two', 1n]]);
    await expect(store.append(stream, [newEvent('Stale')], 0n)).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
  });

  it('lets nodes that start together create the schema once, and a second node read what the first wrote', async () => {
    const fresh = `es_${hex32().slice(0, 12)}`;
    const [a, b, c] = [0, 1, 2].map(() => open({ schema: fresh }));
    try {
      const [ra, rb] = await Promise.all([a.append('shared', [newEvent('One')], 'no_stream'), b.append('other', [newEvent('Two')], 'no_stream')]);
      expect([ra.position, rb.position].sort()).toEqual([1n, 2n]);
      expect((await c.readAll()).map((e) => e.type).sort()).toEqual(['One', 'Two']);
    } finally {
      await Promise.all([a, b, c].map((s) => s.close()));
      const client = new Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${fresh}" CASCADE`);
      await client.end();
    }
  });
});
