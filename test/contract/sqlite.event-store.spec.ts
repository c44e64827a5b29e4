import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { runEventStoreContract } from './event-store.contract';
import { unparsedData } from '../../src/platform/event-store/lazy-data';
import { newEvent } from '../support/events';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function openStore(writerThread = true): SqliteEventStore {
  const dir = mkdtempSync(join(tmpdir(), 'es-'));
  dirs.push(dir);
  return new SqliteEventStore({ filename: join(dir, 'events.sqlite'), pollIntervalMs: 50, writerThread });
}

runEventStoreContract('sqlite', async () => openStore());
// In-memory stores, and files when asked, commit on the store's own connection: the same contract.
runEventStoreContract('sqlite, commits in place', async () => openStore(false));

/** Two stores on one file: two connections, as two processes would have. */
function twoConnections(): [SqliteEventStore, SqliteEventStore] {
  const dir = mkdtempSync(join(tmpdir(), 'es-'));
  dirs.push(dir);
  const file = join(dir, 'events.sqlite');
  return [new SqliteEventStore({ filename: file }), new SqliteEventStore({ filename: file })];
}

/** Counts the queries one of the store's prepared statements runs. */
const spyOnStatement = (store: SqliteEventStore, name: 'forwards' | 'backwards' | 'all') =>
  jest.spyOn((store as unknown as { stmt: Record<string, { all: () => unknown }> }).stmt[name], 'all');

describe('SqliteEventStore specifics', () => {
  it.each([false, true])('parses a large event\'s data when a reader first reads it, not for readers that pass it by (writer thread: %s)', async (writerThread) => {
    const store = openStore(writerThread);
    try {
      const data = { snapshot: Array.from({ length: 2000 }, (_, i) => ({ order_id: `o${i}`, price: `${i}.5` })) };
      const small = newEvent('Small', { n: 1 });
      await store.append(`lazy-${writerThread}`, [newEvent('EngineSnapshotTaken', data), small], 'no_stream');
      const [big, next] = await store.readAll({ after: 0n });
      expect(typeof unparsedData(big)).toBe('string');
      expect(unparsedData(next)).toBeUndefined();
      // A second reader of the tail gets the same event, still unparsed; reading data parses it once, for both.
      const [again] = await store.readAll({ after: 0n, maxCount: 1 });
      expect(again).toBe(big);
      expect(Object.keys(big)).toContain('data');
      expect(big.data).toEqual(data);
      expect(unparsedData(big)).toBeUndefined();
      expect(again.data).toBe(big.data);
    } finally {
      await store.close();
    }
  });

  it('is durable by configuration: WAL journal and synchronous=FULL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'es-'));
    dirs.push(dir);
    const file = join(dir, 'events.sqlite');
    const store = new SqliteEventStore({ filename: file });
    const db = (store as unknown as { db: Database.Database }).db;
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    await store.append('durable-1', [newEvent('Stored')], 'no_stream');
    await store.close();
    const reopened = new SqliteEventStore({ filename: file });
    expect((await reopened.readStream('durable-1')).map((e) => e.type)).toEqual(['Stored']);
    await reopened.close();
  });

  it('answers reads at a stream\'s known end without a query, and sees another connection\'s appends at once', async () => {
    const [a, b] = twoConnections();
    const queries = spyOnStatement(a, 'forwards');
    const backQueries = spyOnStatement(a, 'backwards');

    await a.append('heads-1', [newEvent('One'), newEvent('Two')], 'no_stream');
    // Its own commit told a where the stream ends: nothing new from revision 2, no query.
    expect(await a.readStream('heads-1', { fromRevision: 2n })).toEqual([]);
    expect(queries).not.toHaveBeenCalled();
    // A read from the head learns the last event; the next one is served from it, equal to the row.
    const [last] = await a.readStream('heads-1', { direction: 'backwards', maxCount: 1 });
    expect(last.type).toBe('Two');
    expect(backQueries).toHaveBeenCalledTimes(1);
    expect(await a.readStream('heads-1', { direction: 'backwards', maxCount: 1 })).toEqual([last]);
    expect(backQueries).toHaveBeenCalledTimes(1);
    // Its own next append moves the known head and its last event.
    await a.append('heads-1', [newEvent('Three')], 1n);
    expect((await a.readStream('heads-1', { direction: 'backwards', maxCount: 1 })).map((e) => e.type)).toEqual(['Three']);
    expect(backQueries).toHaveBeenCalledTimes(1);

    // Another connection appends: a's next reads query again and see it, forwards and from the head.
    await b.append('heads-1', [newEvent('Four')], 2n);
    expect((await a.readStream('heads-1', { fromRevision: 3n })).map((e) => e.type)).toEqual(['Four']);
    expect((await a.readStream('heads-1', { direction: 'backwards', maxCount: 1 })).map((e) => e.type)).toEqual(['Four']);
    expect(backQueries).toHaveBeenCalledTimes(2);
    // And a stream another connection creates is not taken for absent.
    expect(await a.readStream('heads-2')).toEqual([]);
    await b.append('heads-2', [newEvent('Born')], 'no_stream');
    expect((await a.readStream('heads-2')).map((e) => e.type)).toEqual(['Born']);
    await Promise.all([a.close(), b.close()]);
  });

  it('a reader caught up with its own commits reads nothing without a query, yet sees what another connection committed after them', async () => {
    const [a, b] = twoConnections();
    const scans = spyOnStatement(a, 'all');
    await a.append('own-1', [newEvent('Mine')], 'no_stream');
    const head = await a.headPosition();
    expect(await a.readAll({ after: head })).toEqual([]);
    expect(scans).not.toHaveBeenCalled();

    await b.append('other-1', [newEvent('Theirs')], 'no_stream');
    expect((await a.readAll({ after: head })).map((e) => e.type)).toEqual(['Theirs']);
    // A commit of a's that stores nothing (a refused append) does not hide b's next events either.
    await b.append('other-1', [newEvent('TheirsAgain')], 0n);
    await expect(a.append('own-1', [newEvent('Refused')], 'no_stream')).rejects.toThrow();
    expect((await a.readAll({ after: head })).map((e) => e.type)).toEqual(['Theirs', 'TheirsAgain']);
    await Promise.all([a.close(), b.close()]);
  });

  it('serves reads at the head from its tail of parsed events, equal to the rows, and never skips another process\'s appends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'es-'));
    dirs.push(dir);
    const file = join(dir, 'events.sqlite');
    const a = new SqliteEventStore({ filename: file, pollIntervalMs: 20 });
    const b = new SqliteEventStore({ filename: file, pollIntervalMs: 20 });
    await a.append('tail-a', [newEvent('A1', { n: '1' }), newEvent('A2', { n: '2' })], 'no_stream');
    await b.append('tail-b', [newEvent('B1')], 'no_stream'); // another writer on the same file: a gap in a's tail
    await a.append('tail-a', [newEvent('A3')], 1n);
    const seen = await a.readAll({ after: 0n });
    expect(seen.map((e) => e.type)).toEqual(['A1', 'A2', 'B1', 'A3']);
    // What the tail serves equals what SQL returns, field by field.
    const fresh = new SqliteEventStore({ filename: file });
    expect(await fresh.readAll({ after: 0n })).toEqual(seen);
    expect(await a.readAll({ after: 1n, maxCount: 1 })).toEqual([seen[1]]);
    expect(await a.readAll({ after: 3n })).toEqual([seen[3]]); // from the tail
    // A subscription from the start gets every event once, in order, across the gap.
    const subscription = a.subscribeToAll();
    const got: string[] = [];
    for await (const e of subscription) {
      got.push(e.type);
      if (got.length === 4) break;
    }
    expect(got).toEqual(['A1', 'A2', 'B1', 'A3']);
    await Promise.all([a.close(), b.close(), fresh.close()]);
  });

  it.each([true, false])('commits appends that arrive together in one transaction (group commit; writer thread: %s)', async (writerThread) => {
    const store = openStore(writerThread);
    const db = (store as unknown as { db: Database.Database }).db;
    const spy = jest.spyOn(store as unknown as { settle: (b: unknown[]) => unknown }, 'settle');
    await Promise.all(Array.from({ length: 64 }, (_, i) => store.append(`group-${i}`, [newEvent('One')], 'no_stream')));
    expect(spy).toHaveBeenCalledTimes(1);
    expect((spy.mock.calls[0][0] as unknown[]).length).toBe(64);
    expect((db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n).toBe(64);
    await store.close();
  });

  it('gathers the appends that arrive while the writer thread commits into the next commit, in order', async () => {
    const store = openStore();
    const spy = jest.spyOn(store as unknown as { settle: (b: Array<{ stream: string }>) => unknown }, 'settle');
    const first = store.append('order-0', [newEvent('One')], 'no_stream');
    await new Promise((r) => setImmediate(r)); // the first commit is under way
    const rest = Array.from({ length: 10 }, (_, i) => store.append(`order-${i + 1}`, [newEvent('One')], 'no_stream'));
    const positions = (await Promise.all([first, ...rest])).map((r) => r.position);
    expect(spy).toHaveBeenCalledTimes(2);
    expect(spy.mock.calls.map((c) => c[0].length)).toEqual([1, 10]);
    expect(positions).toEqual(positions.map((_, i) => positions[0] + BigInt(i)));
    await store.close();
  });

  it('refuses an append that reuses a stored event id, writing none of it, while its batch neighbours commit', async () => {
    const store = openStore();
    const taken = newEvent('Taken');
    await store.append('owner-stream', [taken], 'no_stream');
    const [clash, neighbour] = await Promise.allSettled([
      store.append('other-stream', [newEvent('Fresh'), { ...newEvent('Dup'), event_id: taken.event_id }], 'any'),
      store.append('neighbour', [newEvent('Fine'), newEvent('Fine')], 'no_stream'),
    ]);
    expect(clash.status).toBe('rejected');
    expect((clash as PromiseRejectedResult).reason.code).toBe('STATE_CONFLICT');
    expect(await store.readStream('other-stream')).toEqual([]);
    expect(neighbour.status).toBe('fulfilled');
    expect(await store.readStream('neighbour')).toHaveLength(2);
    await store.close();
  });

  it('forgets idle subscription waiters (no growth while nothing is appended)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'es-'));
    dirs.push(dir);
    const store = new SqliteEventStore({ filename: join(dir, 'events.sqlite'), pollIntervalMs: 5 });
    const sub = store.subscribeToAll();
    const it = sub[Symbol.asyncIterator]();
    const pending = it.next();
    await new Promise((r) => setTimeout(r, 200));
    expect((store as unknown as { appendWaiters: Set<unknown> }).appendWaiters.size).toBeLessThanOrEqual(1);
    await store.append('wake', [newEvent('Wake')], 'no_stream');
    expect((await pending).value.type).toBe('Wake');
    await sub.close();
    await store.close();
  });

  it.each([true, false])('passes a waiting subscription over its own commits with none of the wanted types, and delivers whole those with one (writer thread: %s)', async (writerThread) => {
    const store = openStore(writerThread);
    await store.append('before', [newEvent('Before')], 'no_stream');
    const passed: bigint[] = [];
    const sub = store.subscribeToAll({ after: await store.headPosition(), passOver: { types: new Set(['Wanted']), passed: (position) => void passed.push(position) } });
    const batches = sub.batches(100)[Symbol.asyncIterator]();
    const first = batches.next();

    const other = await store.append('other', [newEvent('Other'), newEvent('Other')], 'no_stream');
    expect(passed).toEqual([other.position]);
    const mixed = await store.append('mixed', [newEvent('Other'), newEvent('Wanted')], 'no_stream');
    // Delivered whole, from just after the passed position; nothing passed for it.
    expect((await first).value.map((e: { type: string; position: bigint }) => [e.type, e.position])).toEqual([['Other', mixed.position - 1n], ['Wanted', mixed.position]]);
    expect(passed).toEqual([other.position]);
    await sub.close();
    await store.close();
  });

  it("reads another connection's commits, never passes over them", async () => {
    const [mine, theirs] = twoConnections();
    const passed: bigint[] = [];
    const sub = mine.subscribeToAll({ after: 0n, passOver: { types: new Set(['Wanted']), passed: (position) => void passed.push(position) } });
    const batches = sub.batches(100)[Symbol.asyncIterator]();
    const first = batches.next();
    await theirs.append('theirs', [newEvent('Other')], 'no_stream');
    // Found at the poll: this store knows nothing of what that commit holds.
    expect((await first).value.map((e: { type: string }) => e.type)).toEqual(['Other']);
    expect(passed).toEqual([]);
    await sub.close();
    await Promise.all([mine.close(), theirs.close()]);
  });

  it('fails a whole group commit on a storage error, leaving nothing half-written (commits in place)', async () => {
    const store = openStore(false);
    const db = (store as unknown as { db: Database.Database }).db;
    await store.append('seed', [newEvent('Seed')], 'no_stream');
    const pageCount = Number(db.pragma('page_count', { simple: true }));
    db.pragma(`max_page_count = ${pageCount + 2}`);
    const big = 'x'.repeat(20_000);
    const results = await Promise.allSettled([
      store.append('full-a', [newEvent('Big', { big })], 'no_stream'),
      store.append('full-b', [newEvent('Big', { big })], 'no_stream'),
      store.append('full-c', [newEvent('Small')], 'no_stream'),
    ]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    for (const s of ['full-a', 'full-b', 'full-c']) expect(await store.readStream(s)).toEqual([]);
    expect(db.inTransaction).toBe(false);
    await store.close();
  });

  it('fails a whole group commit the writer thread cannot make, leaving nothing half-written, and commits the next', async () => {
    const store = openStore();
    const db = (store as unknown as { db: Database.Database }).db;
    await store.append('seed', [newEvent('Seed')], 'no_stream');
    // The writer's connection meets an error that rolls its whole transaction back, as a full disk would.
    db.exec("CREATE TRIGGER refuse_big BEFORE INSERT ON events WHEN length(NEW.data) > 10000 BEGIN SELECT RAISE(ROLLBACK, 'no space'); END");
    const big = 'x'.repeat(20_000);
    const results = await Promise.allSettled([
      store.append('full-a', [newEvent('Small')], 'no_stream'),
      store.append('full-b', [newEvent('Big', { big }), newEvent('Small')], 'no_stream'),
      store.append('full-c', [newEvent('Small')], 'no_stream'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason.message).toMatch(/no space/);
    for (const s of ['full-a', 'full-b', 'full-c']) expect(await store.readStream(s)).toEqual([]);
    db.exec('DROP TRIGGER refuse_big');
    await store.append('full-a', [newEvent('Small')], 'no_stream');
    expect((await store.readStream('full-a')).map((e) => e.type)).toEqual(['Small']);
    await store.close();
  });

  it('fails what the writer thread holds if it dies, and every append after', async () => {
    const store = openStore();
    await store.append('before', [newEvent('One')], 'no_stream');
    const writer = (store as unknown as { writer: { worker: { terminate(): Promise<number> } } }).writer;
    await writer.worker.terminate();
    await expect(store.append('after', [newEvent('Two')], 'no_stream')).rejects.toThrow(/writer thread exited/);
    await expect(store.append('after', [newEvent('Two')], 'no_stream')).rejects.toThrow(/writer thread exited/);
    expect(await store.readStream('after')).toEqual([]);
    await store.close();
  });

  it('enforces unique event ids and unique (stream, revision) in the schema itself', async () => {
    const store = openStore();
    const db = (store as unknown as { db: Database.Database }).db;
    const e = newEvent('One');
    await store.append('uniq', [e], 'no_stream');
    const row = db.prepare('SELECT * FROM events').get() as Record<string, unknown>;
    const insert = db.prepare(
      'INSERT INTO events (event_id, stream, revision, type, occurred_at, data, metadata, event_commitment, previous_event_commitment) VALUES (?,?,?,?,?,?,?,?,?)',
    );
    expect(() => insert.run(e.event_id, 'other', 0, 'X', row.occurred_at, '{}', '{}', 'x', null)).toThrow(/UNIQUE/);
    expect(() => insert.run('f'.repeat(32), 'uniq', 0, 'X', row.occurred_at, '{}', '{}', 'x', null)).toThrow(/UNIQUE/);
    await store.close();
  });
});
