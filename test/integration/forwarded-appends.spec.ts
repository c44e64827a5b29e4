/**
 * A worker thread's appends, made by the main thread's store (src/platform/workers/forwarded-appends.ts): over a real
 * MessageChannel to a real SQLite store, as the worker and main threads talk. The append lands in the writer's log with
 * the writer's hashing, answers as it would in place, and its errors arrive as the same classes (a command's retry on a
 * VersionConflict depends on it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { StateConflict, ValidationFailed, VersionConflict } from '../../src/platform/errors';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { answerAppend, ForwardingEventStore, type AppendCall } from '../../src/platform/workers/forwarded-appends';
import { newEvent } from '../support/events';

describe('appends forwarded to the log\'s one writer', () => {
  let dir: string;
  let writer: SqliteEventStore;
  let forwarding: ForwardingEventStore;
  let channel: MessageChannel;
  const calls: AppendCall[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fwd-'));
    writer = new SqliteEventStore({ filename: join(dir, 'events.sqlite') });
    channel = new MessageChannel();
    // The main thread's side: each call made on the writer, answered on the same port.
    channel.port2.on('message', (call: AppendCall) => {
      calls.push(call);
      void answerAppend(writer, call).then((answer) => channel.port2.postMessage(answer));
    });
    forwarding = new ForwardingEventStore(new SqliteEventStore({ filename: join(dir, 'events.sqlite') }), channel.port1);
  });
  afterEach(async () => {
    await forwarding.close();
    await writer.close();
    channel.port1.close();
    calls.length = 0;
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends on the writer, in canonical form made by the sender, and answers as the writer did', async () => {
    const result = await forwarding.append('account-1', [newEvent('Credited', { memo: 'b', amount: '12.500000000000000000' })], 'no_stream');
    expect(result).toEqual({ next_revision: 0n, position: 1n });
    expect(calls).toHaveLength(1);
    // What crossed is the canonical text (keys sorted), made by the sender.
    expect(calls[0].events[0].texts.data).toBe('{"amount":"12.500000000000000000","memo":"b"}');
    const [stored] = await writer.readStream('account-1');
    expect(stored.data).toEqual({ memo: 'b', amount: '12.500000000000000000' });
    // The forwarding store reads on its own connection what the writer committed.
    expect((await forwarding.readStream('account-1')).map((e) => e.event_id)).toEqual([stored.event_id]);
  });

  it('raises the writer\'s errors as their own classes: a conflict, a reused event id', async () => {
    const first = newEvent('Opened');
    await forwarding.append('account-2', [first], 'no_stream');
    const conflict = await forwarding.append('account-2', [newEvent('Opened')], 'no_stream').catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(VersionConflict);
    expect(conflict).toMatchObject({ stream: 'account-2', expected: 'no_stream', currentVersion: 0n, code: 'VERSION_CONFLICT' });
    const reused = await forwarding.append('account-3', [first], 'no_stream').catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(StateConflict);
    // What the sender can check itself never leaves it.
    const before = calls.length;
    await expect(forwarding.append('$bad', [newEvent('Opened')], 'no_stream')).rejects.toBeInstanceOf(ValidationFailed);
    expect(calls).toHaveLength(before);
  });

  it('retries of a write that succeeded answer its first result, as in place', async () => {
    const events = [newEvent('Opened'), newEvent('Named', { name: 'x' })];
    const once = await forwarding.append('account-4', events, 'no_stream');
    const again = await forwarding.append('account-4', events, 'no_stream');
    expect(again).toEqual(once);
    expect(await writer.readStream('account-4')).toHaveLength(2);
  });
});
