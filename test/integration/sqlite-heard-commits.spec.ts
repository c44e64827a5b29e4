/**
 * A commit one thread announces to another's store of the same log file (SqliteEventStore.onCommitted → heard, the
 * main thread to its worker threads, issue 48): the other store's subscriptions wake at once and read the rows from
 * memory, rather than at their next poll from the file; rows heard twice, or out of turn, change nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore, type EventRow } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { newEvent } from '../support/events';

describe('SQLite commits heard from another thread', () => {
  let dir: string;
  let writer: SqliteEventStore;
  let follower: SqliteEventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'heard-'));
    writer = new SqliteEventStore({ filename: join(dir, 'events.sqlite') });
    // Its poll would find the writer's commits only after a minute: anything sooner is the announcement.
    follower = new SqliteEventStore({ filename: join(dir, 'events.sqlite'), pollIntervalMs: 60_000 });
  });
  afterEach(async () => {
    await follower.close();
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function firstEvents(n: number, sub: AsyncIterable<RecordedEvent>): Promise<RecordedEvent[]> {
    const got: RecordedEvent[] = [];
    for await (const e of sub) {
      got.push(e);
      if (got.length === n) break;
    }
    return got;
  }

  it('wakes the follower\'s subscription at once with the announced rows, in order', async () => {
    const announced: EventRow[][] = [];
    writer.onCommitted((rows) => {
      announced.push(rows);
      follower.heard(rows);
    });
    const sub = follower.subscribeToAll();
    const reading = firstEvents(3, sub);
    await writer.append('s-1', [newEvent('Thing', { n: 1 }), newEvent('Thing', { n: 2 })], 'no_stream');
    await writer.append('s-2', [newEvent('Thing', { n: 3 })], 'no_stream');
    // Without the announcement the subscription would wait out its minute's poll, past the test's timeout.
    const events = await reading;
    expect(events.map((e) => [e.stream, e.revision, e.position, e.data])).toEqual([
      ['s-1', 0n, 1n, { n: 1 }],
      ['s-1', 1n, 2n, { n: 2 }],
      ['s-2', 0n, 3n, { n: 3 }],
    ]);
    expect(announced.flat().map((r) => r.position)).toEqual([1n, 2n, 3n]);
    await sub.close();
  });

  it('ignores rows it holds already and reads what it missed from the file', async () => {
    const rows: EventRow[][] = [];
    writer.onCommitted((r) => rows.push(r));
    await writer.append('s-1', [newEvent('Thing', { n: 1 })], 'no_stream');
    await writer.append('s-1', [newEvent('Thing', { n: 2 })], 0n);
    await writer.append('s-1', [newEvent('Thing', { n: 3 })], 1n);
    // The first commit heard twice, the second never: the third follows a gap.
    follower.heard(rows[0]);
    follower.heard(rows[0]);
    follower.heard(rows[2]);
    const all = await follower.readAll();
    expect(all.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const sub = follower.subscribeToAll();
    expect((await firstEvents(3, sub)).map((e) => e.position)).toEqual([1n, 2n, 3n]);
    await sub.close();
  });

  it('told only that the log moved (the teller held the rows back), reads them from the file at once', async () => {
    const sub = follower.subscribeToAll();
    const reading = firstEvents(2, sub);
    await writer.append('s-1', [newEvent('Thing', { n: 1 }), newEvent('Thing', { n: 2 })], 'no_stream');
    follower.heard([]);
    // Woken without rows: without the word, the minute's poll would come after the test's timeout.
    expect((await reading).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
    await sub.close();
  });

  it('told where the log ends, reads what follows its tail once, for every subscription', async () => {
    const subs = [follower.subscribeToAll(), follower.subscribeToAll()];
    const reading = subs.map((sub) => firstEvents(3, sub));
    await writer.append('s-1', [newEvent('Thing', { n: 1 }), newEvent('Thing', { n: 2 })], 'no_stream');
    const { position } = await writer.append('s-2', [newEvent('Thing', { n: 3 })], 'no_stream');
    follower.heardUpTo(position);
    follower.heardUpTo(position); // told twice: nothing more
    for (const events of await Promise.all(reading)) expect(events.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    for (const sub of subs) await sub.close();
  });
});
