/**
 * The one contract every EventStore adapter passes. Streams are unique per test so the suite can run against a
 * shared EventStoreDB whose log already holds other events.
 */
import { verifyStreamChain } from '../../src/platform/commitments/commitment';
import { canonicalTexts } from '../../src/platform/event-store/append-validation';
import { NonCanonicalData } from '../../src/platform/commitments/json';
import { VersionConflict } from '../../src/platform/errors';
import type { EventStore, RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { hex32, newEvent } from '../support/events';

export function runEventStoreContract(name: string, open: () => Promise<EventStore>): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    const streamName = (): string => `contract-${hex32()}`;

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    async function collectStream(sub: AsyncIterable<RecordedEvent>, stream: string, count: number, timeoutMs = 10000): Promise<RecordedEvent[]> {
      const out: RecordedEvent[] = [];
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out with ${out.length}/${count} events of ${stream}`)), timeoutMs);
      });
      const collect = (async () => {
        for await (const e of sub) {
          if (e.stream === stream) out.push(e);
          if (out.length >= count) break;
        }
        return out;
      })();
      try {
        return await Promise.race([collect, timeout]);
      } finally {
        clearTimeout(timer);
      }
    }

    it('round-trips an append: envelope fields, revisions, positions and the chain', async () => {
      const stream = streamName();
      const events = [newEvent('LedgerOpened', { owner: 'ada' }), newEvent('Credited', { amount: '10.50' }), newEvent('Debited', { amount: '3.25' })];
      const result = await store.append(stream, events, 'no_stream');
      expect(result.next_revision).toBe(2n);
      expect(typeof result.position).toBe('bigint');

      const read = await store.readStream(stream);
      expect(read.map((e) => e.event_id)).toEqual(events.map((e) => e.event_id));
      expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
      expect(read.map((e) => e.type)).toEqual(['LedgerOpened', 'Credited', 'Debited']);
      expect(read[1].data).toEqual({ amount: '10.50' });
      expect(read[0].metadata).toEqual(events[0].metadata);
      expect(read[0].stream).toBe(stream);
      expect(read[2].position).toBe(result.position);
      expect(read[0].position < read[1].position && read[1].position < read[2].position).toBe(true);
      expect(read[0].previous_event_commitment).toBeNull();
      expect(read[1].previous_event_commitment).toBe(read[0].event_commitment);
      expect(read[0].event_commitment).toMatch(/^[0-9a-f]{64}$/);
      expect(Date.parse(read[0].occurred_at)).not.toBeNaN();

      const backwards = await store.readStream(stream, { direction: 'backwards', fromRevision: 1n, maxCount: 2 });
      expect(backwards.map((e) => e.revision)).toEqual([1n, 0n]);
      const fromOne = await store.readStream(stream, { fromRevision: 1n, maxCount: 1 });
      expect(fromOne.map((e) => e.revision)).toEqual([1n]);
      expect(await store.readStream(streamName())).toEqual([]);
    });

    it('keeps the occurred_at a writer gives', async () => {
      const stream = streamName();
      await store.append(stream, [newEvent('At', {}, { occurred_at: '2026-01-02T03:04:05.678Z' })], 'any');
      const [e] = await store.readStream(stream);
      expect(e.occurred_at).toBe('2026-01-02T03:04:05.678Z');
    });

    it('rejects a stale or wrong expectation with VersionConflict carrying the current revision', async () => {
      const stream = streamName();
      await expect(store.append(stream, [newEvent('A')], 'stream_exists')).rejects.toBeInstanceOf(VersionConflict);
      await store.append(stream, [newEvent('A'), newEvent('B'), newEvent('C')], 'no_stream');

      const stale = await store.append(stream, [newEvent('D')], 0n).catch((e) => e);
      expect(stale).toBeInstanceOf(VersionConflict);
      expect(stale.code).toBe('VERSION_CONFLICT');
      expect(stale.currentVersion).toBe(2n);

      await expect(store.append(stream, [newEvent('D')], 'no_stream')).rejects.toBeInstanceOf(VersionConflict);
      await expect(store.append(stream, [newEvent('D')], 7n)).rejects.toBeInstanceOf(VersionConflict);
      const ok = await store.append(stream, [newEvent('D')], 2n);
      expect(ok.next_revision).toBe(3n);
      const any = await store.append(stream, [newEvent('E')], 'any');
      expect(any.next_revision).toBe(4n);
      const exists = await store.append(stream, [newEvent('F')], 'stream_exists');
      expect(exists.next_revision).toBe(5n);
      expect((await store.readStream(stream)).length).toBe(6);
    });

    it('refuses a new stream\'s append to one that exists, one event or several, and the same commit\'s others still land', async () => {
      const stream = streamName();
      await store.append(stream, [newEvent('A'), newEvent('B')], 'no_stream');
      const other = streamName();
      // Issued together: one commit on the stores that group them.
      const [one, several, beside] = await Promise.allSettled([
        store.append(stream, [newEvent('C')], 'no_stream'),
        store.append(stream, [newEvent('C'), newEvent('D')], 'no_stream'),
        store.append(other, [newEvent('X'), newEvent('Y')], 'no_stream'),
      ]);
      for (const refused of [one, several]) {
        expect(refused.status).toBe('rejected');
        expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflict);
        expect((refused as PromiseRejectedResult).reason.currentVersion).toBe(1n);
      }
      expect(beside.status).toBe('fulfilled');
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B']);
      const landed = await store.readStream(other);
      expect(landed.map((e) => e.type)).toEqual(['X', 'Y']);
      expect(verifyStreamChain(landed)).toBeNull();
    });

    it('lets exactly one of two concurrent appends at the same revision win', async () => {
      const stream = streamName();
      await store.append(stream, [newEvent('Opened')], 'no_stream');
      const results = await Promise.allSettled([
        store.append(stream, [newEvent('Left')], 0n),
        store.append(stream, [newEvent('Right')], 0n),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0].reason).toBeInstanceOf(VersionConflict);
      expect(lost[0].reason.currentVersion).toBe(1n);
      const read = await store.readStream(stream);
      expect(read).toHaveLength(2);
      expect(verifyStreamChain(read)).toBeNull();
    });

    it('treats re-appending the same event ids at the same place as an idempotent success', async () => {
      const stream = streamName();
      const first = [newEvent('A'), newEvent('B')];
      const original = await store.append(stream, first, 'no_stream');
      const retry = await store.append(stream, first, 'no_stream');
      expect(retry).toEqual(original);

      const second = [newEvent('C')];
      const secondResult = await store.append(stream, second, 1n);
      expect(await store.append(stream, second, 1n)).toEqual(secondResult);
      expect(await store.append(stream, second, 'any')).toEqual(secondResult);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B', 'C']);

      // The same ids aimed at another place are not a retry.
      await expect(store.append(stream, second, 0n)).rejects.toBeInstanceOf(VersionConflict);
    });

    it('orders the global log across streams by commit', async () => {
      const a = streamName();
      const b = streamName();
      const before = await store.headPosition();
      await store.append(a, [newEvent('A0')], 'no_stream');
      await store.append(b, [newEvent('B0')], 'no_stream');
      await store.append(a, [newEvent('A1')], 0n);
      expect(await store.headPosition()).toBeGreaterThan(before);

      const ours: RecordedEvent[] = [];
      let after = before;
      for (;;) {
        const page = await store.readAll({ after, maxCount: 100 });
        if (page.length === 0) break;
        ours.push(...page.filter((e) => e.stream === a || e.stream === b));
        after = page[page.length - 1].position;
      }
      expect(ours.map((e) => e.type)).toEqual(['A0', 'B0', 'A1']);
      expect(ours[0].position < ours[1].position && ours[1].position < ours[2].position).toBe(true);
      expect(ours.every((e) => e.position > before)).toBe(true);
    });

    it('subscribes from a position: catch-up, then live, without gaps or duplicates', async () => {
      const stream = streamName();
      const before = await store.headPosition();
      for (let i = 0; i < 5; i++) await store.append(stream, [newEvent('Tick', { i })], 'any');
      const sub = store.subscribeToAll({ after: before });
      const collecting = collectStream(sub, stream, 12);
      for (let i = 5; i < 10; i++) await store.append(stream, [newEvent('Tick', { i })], 'any');
      await store.append(stream, [newEvent('Tick', { i: 10 }), newEvent('Tick', { i: 11 })], 'any');
      const got = await collecting;
      await sub.close();
      expect(got.map((e) => (e.data as { i: number }).i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      expect(got.map((e) => e.revision)).toEqual(Array.from({ length: 12 }, (_, i) => BigInt(i)));
      expect(got[0].position).toBeGreaterThan(before);

      // Resuming after the fifth event delivers exactly the rest.
      const resumed = store.subscribeToAll({ after: got[4].position });
      const rest = await collectStream(resumed, stream, 7);
      await resumed.close();
      expect(rest.map((e) => e.revision)).toEqual([5n, 6n, 7n, 8n, 9n, 10n, 11n]);
    });

    it('delivers the same events in batches: catch-up bounded by the batch size, then live, in order', async () => {
      const stream = streamName();
      const before = await store.headPosition();
      for (let i = 0; i < 7; i++) await store.append(stream, [newEvent('Tick', { i })], 'any');
      const sub = store.subscribeToAll({ after: before });
      const batches: RecordedEvent[][] = [];
      const ours: RecordedEvent[] = [];
      const collecting = (async () => {
        for await (const batch of sub.batches(3)) {
          batches.push(batch);
          ours.push(...batch.filter((e) => e.stream === stream));
          if (ours.length >= 10) break;
        }
      })();
      await store.append(stream, [newEvent('Tick', { i: 7 }), newEvent('Tick', { i: 8 }), newEvent('Tick', { i: 9 })], 'any');
      await collecting;
      await sub.close();
      expect(ours.map((e) => (e.data as { i: number }).i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(batches.every((b) => b.length >= 1 && b.length <= 3)).toBe(true);
      const positions = batches.flat().map((e) => e.position);
      expect(positions.every((p, i) => i === 0 || p > positions[i - 1])).toBe(true);
      expect(positions[0]).toBeGreaterThan(before);
    });

    it('keeps one gap-free chain per stream under concurrent writers', async () => {
      const stream = streamName();
      const others = Array.from({ length: 10 }, () => streamName());
      await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => store.append(stream, [newEvent('Step', { i })], 'any')),
        ...others.map((s) => store.append(s, [newEvent('Other'), newEvent('Other')], 'no_stream')),
      ]);
      const read = await store.readStream(stream);
      expect(read.map((e) => e.revision)).toEqual(Array.from({ length: 20 }, (_, i) => BigInt(i)));
      expect(verifyStreamChain(read)).toBeNull();
      for (const s of others) expect(verifyStreamChain(await store.readStream(s))).toBeNull();

      // A chain that was tampered with is caught at the first broken link.
      const tampered = read.map((e) => ({ ...e }));
      tampered[7] = { ...tampered[7], data: { i: 999 } };
      expect(verifyStreamChain(tampered)).toMatchObject({ index: 7, reason: expect.stringContaining('event_commitment') });
    });

    it('rejects domain data that canonical JSON cannot reproduce, writing nothing', async () => {
      const stream = streamName();
      const bad: Array<Record<string, unknown>> = [
        { amount: undefined },
        { amount: Number.NaN },
        { amount: Number.POSITIVE_INFINITY },
        { at: new Date() },
        { amount: 10n },
        { nested: { list: [1, undefined] } },
        { text: 'broken \ud800 surrogate' },
      ];
      for (const data of bad) {
        const error = await store.append(stream, [newEvent('Bad', data as never)], 'any').catch((e) => e);
        expect(error).toBeInstanceOf(NonCanonicalData);
        expect(error.code).toBe('VALIDATION_FAILED');
        expect(error.details.length).toBeGreaterThan(0);
      }
      expect(await store.readStream(stream)).toEqual([]);
    });

    it('appends prepared events (texts made elsewhere, e.g. a snapshot thread) into the same chain, large ones included', async () => {
      // Only EventStoreDB takes no prepared event (a matching engine then builds its snapshots as before).
      if (!store.appendPrepared) return expect(store.kind).toBe('eventstoredb');
      const stream = streamName();
      // An engine snapshot's size: past the SQLite store's 64 KiB mark (committed on its writer thread, parsed lazily).
      const large = { engine_revision: '41', snapshot: { bids: Array.from({ length: 1500 }, (_, i) => ({ order_id: hex32(), price: `${100 + i}.5`, sequence: i })) } };
      const events = [newEvent('Opened', { n: 1 }), newEvent('EngineSnapshotTaken', large), newEvent('Small', { note: 'prepared too' }), newEvent('Closed', { n: 2 })];
      const prepared = (e: (typeof events)[number]) => ({ event_id: e.event_id, type: e.type, texts: canonicalTexts([e])[0] });
      await store.append(stream, [events[0]], 'no_stream');
      expect((await store.appendPrepared(stream, [prepared(events[1]), prepared(events[2])], 0n)).next_revision).toBe(2n);
      await store.append(stream, [events[3]], 2n);
      const read = await store.readStream(stream);
      expect(canonicalTexts([events[1]])[0].data.length).toBeGreaterThan(64 * 1024);
      expect(read.map((e) => e.data)).toEqual(events.map((e) => e.data));
      expect(read.map((e) => e.metadata)).toEqual(events.map((e) => e.metadata));
      expect(verifyStreamChain(read)).toBeNull();
      // Subscribers get the same events, and the chain verifies on what they got.
      const delivered = await collectStream(store.subscribeToAll(), stream, 4);
      expect(delivered.map((e) => e.data)).toEqual(events.map((e) => e.data));
      expect(verifyStreamChain(delivered)).toBeNull();
      // A prepared append is checked as any other: a stale expectation writes nothing.
      await expect(store.appendPrepared(stream, [prepared(newEvent('Late'))], 0n)).rejects.toBeInstanceOf(VersionConflict);
      expect(await store.readStream(stream)).toHaveLength(4);
    });

    it('rejects an occurred_at that is not an RFC 3339 UTC timestamp', async () => {
      const stream = streamName();
      for (const occurred_at of ['yesterday', '2026-11-22 10:00:00', '2026-11-22T10:00:00+01:00', '2026-13-45T99:00:00Z']) {
        const error = await store.append(stream, [newEvent('At', {}, { occurred_at })], 'any').catch((e) => e);
        expect(error.code).toBe('VALIDATION_FAILED');
      }
      expect(await store.readStream(stream)).toEqual([]);
    });
  });
}
