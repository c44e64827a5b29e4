/**
 * The one EventStore contract on the real PostgreSQL (127.0.0.1:5432 on these machines; TEST_DATABASE_URL), a schema
 * of its own per run; then what only this adapter must show: no subscriber skips an event when appends commit while
 * another append's transaction is held open, group commit, the schema created once by nodes starting together, the
 * one-round-trip append (and its fallback when another node moved a stream on), reads of a stream's end answered from
 * memory yet never stale, and subscriptions reading one shared tail.
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
    const commits = jest.spyOn(store as unknown as { commit: (...a: unknown[]) => unknown }, 'commit');
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

  /** Every query the store's pool sends from now on, by its text's first words. */
  function queriesOf(store: PostgresEventStore): string[] {
    const sent: string[] = [];
    const pool = (store as unknown as { pool: { query: (...a: unknown[]) => unknown } }).pool;
    const query = pool.query.bind(pool);
    pool.query = (...a: unknown[]) => {
      const text = typeof a[0] === 'string' ? a[0] : (a[0] as { text: string }).text;
      sent.push(text.replace(/\s+/g, ' '));
      return query(...a);
    };
    return sent;
  }

  it('appends in one round trip: a batch chained from known stream ends goes through append_events alone', async () => {
    const store = open();
    const stream = `one-trip-${hex32()}`;
    await store.append(stream, [newEvent('First')], 'no_stream');
    const sent = queriesOf(store);
    const [second, fresh] = await Promise.all([store.append(stream, [newEvent('Second')], 0n), store.append(`one-trip-${hex32()}`, [newEvent('New')], 'no_stream')]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/append_events/);
    expect(second.next_revision).toBe(1n);
    expect(fresh.position).toBe(second.position + 1n);
    expect((await store.readStream(stream)).map((e) => [e.type, e.revision, e.previous_event_commitment !== null])).toEqual([['First', 0n, false], ['Second', 1n, true]]);
  });

  it('falls back to the careful path when another node moved a known stream on: a stale expectation is a conflict, a fresh one lands chained', async () => {
    const a = open();
    const b = open();
    const stream = `moved-${hex32()}`;
    await a.append(stream, [newEvent('One')], 'no_stream');
    await b.append(stream, [newEvent('Two')], 0n); // a still believes the stream ends at revision 0
    await expect(a.append(stream, [newEvent('Stale')], 0n)).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    const any = await a.append(stream, [newEvent('Three')], 'any');
    expect(any.next_revision).toBe(2n);
    const events = await a.readStream(stream);
    expect(events.map((e) => e.type)).toEqual(['One', 'Two', 'Three']);
    expect(events[2].previous_event_commitment).toBe(events[1].event_commitment);
  });

  it("answers a read of a stream's end from memory, yet shows another node's append made before the read", async () => {
    const a = open();
    const b = open();
    const stream = `ends-${hex32()}`;
    // A subscription keeps a's tail, so the stream's end is known there.
    const sub = a.subscribeToAll({ after: await a.headPosition() });
    const seen = collect(sub, (events) => events.some((e) => e.stream === stream && e.type === 'Two'));
    await a.append(stream, [newEvent('One')], 'no_stream');
    const sent = queriesOf(a);
    expect((await a.readStream(stream, { direction: 'backwards', maxCount: 1 })).map((e) => e.type)).toEqual(['One']);
    expect(await a.readStream(stream, { fromRevision: 1n })).toEqual([]);
    expect(sent.filter((q) => /WHERE e.stream/.test(q))).toEqual([]); // no read of the stream, only the head check
    await b.append(stream, [newEvent('Two')], 0n);
    // Read at once, before any notification could have been waited for: the head check sees b's commit.
    expect((await a.readStream(stream, { direction: 'backwards', maxCount: 1 })).map((e) => [e.type, e.revision])).toEqual([['Two', 1n]]);
    expect((await a.readStream(stream, { fromRevision: 1n })).map((e) => e.type)).toEqual(['Two']);
    await seen;
    await sub.close();
  });

  it("keeps one tail for every subscription: another node's commit is read once however many subscribe, and none skips this node's own commit that followed it", async () => {
    const a = open({ pollIntervalMs: 60_000 }); // no poll fallback read during the test
    const b = open();
    const from = await a.headPosition();
    const subs = Array.from({ length: 8 }, () => a.subscribeToAll({ after: from }));
    const marker = `tail-${hex32()}`;
    const collected = subs.map((s) => collect(s, (seen) => seen.filter((e) => e.stream.startsWith(marker)).length >= 3));
    await new Promise((r) => setTimeout(r, 100)); // every subscription caught up and waiting
    const sent = queriesOf(a);
    await b.append(`${marker}-b`, [newEvent('Other')], 'no_stream');
    await a.append(`${marker}-a`, [newEvent('Own'), newEvent('Own2')], 'no_stream');
    for (const seen of await Promise.all(collected)) {
      const mine = seen.filter((e) => e.stream.startsWith(marker));
      expect(mine.map((e) => e.type)).toEqual(['Other', 'Own', 'Own2']);
      expect(mine[1].position).toBe(mine[0].position + 1n);
    }
    // None at all when b's notification (with its event) arrives before a's own commit lands; one when after.
    expect(sent.filter((q) => /WHERE e.position >/.test(q)).length).toBeLessThanOrEqual(1);
    await Promise.all(subs.map((s) => s.close()));
  });

  it("takes another node's commit from its notification when it fits (no read of the table), and reads one too large for it", async () => {
    const a = open({ pollIntervalMs: 60_000 }); // no poll fallback read during the test
    const b = open();
    const sub = a.subscribeToAll({ after: await a.headPosition() });
    const marker = `announced-${hex32()}`;
    const big = { text: 'x'.repeat(4000) };
    const seen = collect(sub, (events) => events.filter((e) => e.stream.startsWith(marker)).length >= 4);
    await new Promise((r) => setTimeout(r, 100)); // caught up and waiting
    const sent = queriesOf(a);
    await b.append(`${marker}-small`, [newEvent('Small')], 'no_stream');
    await b.append(`${marker}-large`, [newEvent('Large', big), newEvent('Large', big), newEvent('Large', big)], 'no_stream');
    const events = (await seen).filter((e) => e.stream.startsWith(marker));
    expect(events.map((e) => e.type)).toEqual(['Small', 'Large', 'Large', 'Large']);
    expect(events[1].data).toEqual(big);
    expect(events[1].position).toBe(events[0].position + 1n);
    const reads = sent.filter((q) => /WHERE e.position >/.test(q));
    expect(reads.length).toBe(1); // the large commit only: the small one came with its notification
    await sub.close();
  });
});

