/**
 * The EventStoreDB adapter's pure mapping: ids, expected revisions, errors, the stored chain metadata and
 * ResolvedEvent -> RecordedEvent. No server: the contract suite covers the adapter against a real one.
 */
import {
  ANY,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamDeletedError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { verifyStreamChain } from '../../src/platform/commitments/commitment';
import { PlatformError, StateConflict, ValidationFailed, VersionConflict } from '../../src/platform/errors';
import type { EventMetadata, ExpectedRevision, NewEvent } from '../../src/platform/event-store/event-store.port';
import {
  CHAIN_KEY,
  chainEvents,
  checkExpectation,
  commitPositionOf,
  comparePositions,
  currentRevisionOf,
  eventIdToUuid,
  fromEsdbExpectedRevision,
  pinnedRevision,
  replayWindow,
  splitChain,
  toEsdbExpectedRevision,
  toPlatformError,
  toReadPosition,
  toRecordedEvent,
  uuidToEventId,
  withChain,
  type ResolvedEventLike,
} from '../../src/platform/event-store/eventstoredb/eventstoredb.mapping';

const metadata: EventMetadata = {
  tenant_uuid: '0b6a4a4e-5b0e-4c1a-9a51-8d3f0c2f7e11',
  workspace_uuid: null,
  actor: { type: 'user', reference: 'u-1' },
  correlation_id: 'c0ffee00c0ffee00c0ffee00c0ffee00',
  causation_id: null,
  request_id: 'req-1',
  schema_version: 1,
};

const chain = {
  occurred_at: '2026-01-02T03:04:05.678Z',
  event_commitment: 'a'.repeat(64),
  previous_event_commitment: null,
};

function resolved(overrides: Partial<NonNullable<ResolvedEventLike['event']>> = {}, commitPosition?: bigint): ResolvedEventLike {
  return {
    event: {
      streamId: 'ledger-1',
      id: '0123abcd-4567-89ef-0123-456789abcdef',
      revision: 3n,
      type: 'Credited',
      isJson: true,
      data: { amount: '10.50' },
      metadata: withChain(metadata, chain),
      position: { commit: 4242n, prepare: 4242n },
      ...overrides,
    },
    commitPosition,
  };
}

describe('event id <-> ESDB UUID', () => {
  it('formats a 32-hex id as 8-4-4-4-12 and maps it back losslessly', () => {
    const id = '0123abcd456789ef0123456789abcdef';
    const uuid = eventIdToUuid(id);
    expect(uuid).toBe('0123abcd-4567-89ef-0123-456789abcdef');
    expect(uuidToEventId(uuid)).toBe(id);
  });

  it('round-trips random ids and lowercases what the server prints', () => {
    for (let i = 0; i < 50; i++) {
      const id = Array.from({ length: 32 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');
      expect(uuidToEventId(eventIdToUuid(id))).toBe(id);
    }
    expect(uuidToEventId('0123ABCD-4567-89EF-0123-456789ABCDEF')).toBe('0123abcd456789ef0123456789abcdef');
  });

  it('rejects ids that are not 32 hex characters, and server ids that are not UUIDs', () => {
    expect(() => eventIdToUuid('xyz')).toThrow(ValidationFailed);
    expect(() => eventIdToUuid('0123abcd-4567-89ef-0123-456789abcdef')).toThrow(ValidationFailed);
    expect(() => eventIdToUuid('g'.repeat(32))).toThrow(ValidationFailed);
    expect(() => uuidToEventId('0123abcd456789ef0123456789abcdef')).toThrow(/not a UUID/);
  });
});

describe('expected revision mapping', () => {
  it('maps the platform expectations to the client constants and back', () => {
    const pairs: Array<[ExpectedRevision, unknown]> = [
      ['any', ANY],
      ['no_stream', NO_STREAM],
      ['stream_exists', STREAM_EXISTS],
      [0n, 0n],
      [2n ** 62n, 2n ** 62n],
    ];
    for (const [platform, esdb] of pairs) {
      expect(toEsdbExpectedRevision(platform)).toBe(esdb);
      expect(fromEsdbExpectedRevision(toEsdbExpectedRevision(platform))).toBe(platform);
    }
    expect(fromEsdbExpectedRevision(NO_STREAM)).toBe('no_stream');
    expect(fromEsdbExpectedRevision(7n)).toBe(7n);
  });

  it('pins an append to the exact revision it read: NO_STREAM for a missing stream', () => {
    expect(pinnedRevision(null)).toBe(NO_STREAM);
    expect(pinnedRevision(0n)).toBe(0n);
    expect(pinnedRevision(41n)).toBe(41n);
  });

  it('maps reported current revisions to bigint or null (no stream)', () => {
    expect(currentRevisionOf(5n)).toBe(5n);
    expect(currentRevisionOf(0n)).toBe(0n);
    expect(currentRevisionOf('no_stream')).toBeNull();
    expect(currentRevisionOf(-1n)).toBeNull();
    expect(currentRevisionOf('-1')).toBeNull();
    expect(currentRevisionOf('12')).toBe(12n);
    expect(currentRevisionOf(undefined)).toBeNull();
  });

  it('checks the writer expectation like the SQLite adapter', () => {
    expect(() => checkExpectation('s', 'any', null)).not.toThrow();
    expect(() => checkExpectation('s', 'any', 3n)).not.toThrow();
    expect(() => checkExpectation('s', 'no_stream', null)).not.toThrow();
    expect(() => checkExpectation('s', 'stream_exists', 0n)).not.toThrow();
    expect(() => checkExpectation('s', 2n, 2n)).not.toThrow();

    const noStream = captured(() => checkExpectation('s', 'no_stream', 2n));
    expect(noStream).toBeInstanceOf(VersionConflict);
    expect(noStream.currentVersion).toBe(2n);
    const exists = captured(() => checkExpectation('s', 'stream_exists', null));
    expect(exists).toBeInstanceOf(VersionConflict);
    expect(exists.currentVersion).toBeNull();
    const stale = captured(() => checkExpectation('s', 0n, 2n));
    expect(stale.currentVersion).toBe(2n);
    expect(stale.message).toContain('expected 0');
  });
});

describe('idempotent replay window', () => {
  it('targets the events right after an exact revision', () => {
    expect(replayWindow(1n, 2n, 1)).toEqual({ fromRevision: 2n, count: 1 });
    expect(replayWindow(1n, 4n, 2)).toEqual({ fromRevision: 2n, count: 2 });
    expect(replayWindow(1n, 2n, 2)).toBeNull(); // the stream is too short to hold a previous attempt
    expect(replayWindow(2n, 2n, 1)).toBeNull(); // stream exactly at the expectation: a first attempt
  });

  it('targets revisions 0..n-1 for no_stream and the newest n for any / stream_exists', () => {
    expect(replayWindow('no_stream', 5n, 2)).toEqual({ fromRevision: 0n, count: 2 });
    expect(replayWindow('no_stream', 0n, 2)).toBeNull();
    expect(replayWindow('any', 5n, 2)).toEqual({ fromRevision: 4n, count: 2 });
    expect(replayWindow('stream_exists', 1n, 2)).toEqual({ fromRevision: 0n, count: 2 });
    expect(replayWindow('any', 0n, 2)).toBeNull();
    expect(replayWindow('any', null, 1)).toBeNull();
    expect(replayWindow('any', 3n, 0)).toBeNull();
  });
});

describe('toPlatformError', () => {
  it('maps WrongExpectedVersionError to VersionConflict with the actual revision as current_version', () => {
    const err = new WrongExpectedVersionError(undefined, { streamName: 'ledger-1', expected: 1n, current: 4n });
    const mapped = toPlatformError(err, 'ledger-1', 1n);
    expect(mapped).toBeInstanceOf(VersionConflict);
    const conflict = mapped as VersionConflict;
    expect(conflict.code).toBe('VERSION_CONFLICT');
    expect(conflict.status).toBe(409);
    expect(conflict.currentVersion).toBe(4n);
    expect(conflict.stream).toBe('ledger-1');
    expect(conflict.expected).toBe('1');
  });

  it('reports a missing stream (no_stream or -1) as current_version null', () => {
    const noStream = new WrongExpectedVersionError(undefined, { streamName: 's', expected: STREAM_EXISTS, current: NO_STREAM });
    expect((toPlatformError(noStream, 's', 'stream_exists') as VersionConflict).currentVersion).toBeNull();
    const legacy = { type: 'wrong-expected-version', actualVersion: -1n };
    expect((toPlatformError(legacy, 's', 0n) as VersionConflict).currentVersion).toBeNull();
  });

  it('uses the revision the adapter read when the error carries none', () => {
    const bare = { type: 'wrong-expected-version' };
    expect((toPlatformError(bare, 's', 3n, 7n) as VersionConflict).currentVersion).toBe(7n);
  });

  it('maps deleted streams, unavailability and oversize appends; passes other errors through', () => {
    expect(toPlatformError(StreamDeletedError.fromStreamName('s'), 's')).toBeInstanceOf(StateConflict);
    const unavailable = toPlatformError(new UnavailableError(undefined, 'down'), 's') as PlatformError;
    expect(unavailable.code).toBe('SERVICE_UNAVAILABLE');
    expect(unavailable.retryable).toBe(true);
    expect((toPlatformError({ type: 'maximum-append-size-exceeded' }, 's') as PlatformError).code).toBe('PAYLOAD_TOO_LARGE');
    const other = new Error('boom');
    expect(toPlatformError(other, 's')).toBe(other);
    const already = new VersionConflict('s', 'any', 1n);
    expect(toPlatformError(already, 's')).toBe(already);
  });
});

describe('$chain metadata', () => {
  it('stores the chain under one reserved key and strips it on the way back', () => {
    const stored = withChain(metadata, chain);
    expect(stored[CHAIN_KEY]).toEqual(chain);
    expect(JSON.parse(JSON.stringify(stored))).toEqual({ ...metadata, $chain: chain });
    const split = splitChain(JSON.parse(JSON.stringify(stored)));
    expect(split).not.toBeNull();
    expect(split!.metadata).toEqual(metadata);
    expect(CHAIN_KEY in split!.metadata).toBe(false);
    expect(split!.chain).toEqual(chain);
  });

  it('refuses envelope metadata that already uses the reserved key', () => {
    expect(() => withChain({ ...metadata, $chain: 'mine' }, chain)).toThrow(ValidationFailed);
  });

  it('does not recognise metadata without a well-formed chain', () => {
    expect(splitChain(undefined)).toBeNull();
    expect(splitChain(new Uint8Array([1, 2]))).toBeNull();
    expect(splitChain(metadata)).toBeNull();
    expect(splitChain({ ...metadata, $chain: { occurred_at: 'x', event_commitment: 1, previous_event_commitment: null } })).toBeNull();
    expect(splitChain({ ...metadata, $chain: { ...chain, previous_event_commitment: 5 } })).toBeNull();
  });
});

describe('ResolvedEvent -> RecordedEvent', () => {
  it('maps the envelope: 32-hex id, bigint revision and commit position, chain fields, metadata without $chain', () => {
    const big = 2n ** 60n + 1n; // beyond 2^53: must not pass through a JS number
    const recorded = toRecordedEvent(resolved({ position: { commit: big, prepare: big } }));
    expect(recorded).toEqual({
      event_id: '0123abcd456789ef0123456789abcdef',
      type: 'Credited',
      stream: 'ledger-1',
      revision: 3n,
      position: big,
      occurred_at: chain.occurred_at,
      data: { amount: '10.50' },
      metadata,
      event_commitment: chain.event_commitment,
      previous_event_commitment: null,
    });
    expect(typeof recorded!.position).toBe('bigint');
  });

  it('falls back to the resolved commit position when the record has none, and refuses unknown positions', () => {
    expect(toRecordedEvent(resolved({ position: undefined }, 99n))!.position).toBe(99n);
    const unknown = 0xffff_ffff_ffff_ffffn;
    expect(toRecordedEvent(resolved({ position: { commit: unknown, prepare: unknown } }, 77n))!.position).toBe(77n);
    expect(commitPositionOf(resolved({ position: undefined }))).toBeUndefined();
    expect(() => toRecordedEvent(resolved({ position: undefined }))).toThrow(/position/);
  });

  it('leaves out what the platform did not write', () => {
    expect(toRecordedEvent({})).toBeNull(); // no event (e.g. a checkpoint-like message)
    expect(toRecordedEvent(resolved({ type: '$>' }))).toBeNull(); // link event
    expect(toRecordedEvent(resolved({ type: '$statsCollected' }))).toBeNull();
    expect(toRecordedEvent(resolved({ streamId: '$settings' }))).toBeNull();
    expect(toRecordedEvent(resolved({ metadata: metadata }))).toBeNull(); // no $chain
    expect(toRecordedEvent(resolved({ metadata: undefined }))).toBeNull();
    expect(toRecordedEvent(resolved({ isJson: false, data: new Uint8Array([1]) }))).toBeNull();
    expect(toRecordedEvent(resolved({ data: 'not json' }))).toBeNull();
  });
});

describe('chainEvents', () => {
  const newEvents = (n: number, from = 0): NewEvent[] =>
    Array.from({ length: n }, (_, i) => ({
      event_id: (from + i + 1).toString(16).padStart(32, '0'),
      type: 'Step',
      data: { i: from + i },
      metadata,
    }));

  function readBack(stream: string, proposed: ReturnType<typeof chainEvents>, firstRevision: bigint, firstPosition: bigint) {
    return proposed.map((p, i) =>
      toRecordedEvent({
        event: {
          streamId: stream,
          id: p.id,
          revision: firstRevision + BigInt(i),
          type: p.type,
          isJson: true,
          // What the client sends and the server returns is JSON text.
          data: JSON.parse(JSON.stringify(p.data)),
          metadata: JSON.parse(JSON.stringify(p.metadata)),
          position: { commit: firstPosition + BigInt(i) * 100n, prepare: firstPosition + BigInt(i) * 100n },
        },
      })!,
    );
  }

  it('builds JSON events whose read-back forms a verifiable chain, across two appends', () => {
    const first = chainEvents('ledger-9', newEvents(3), null, null, () => '2026-01-01T00:00:00.000Z');
    expect(first.map((e) => e.id)).toEqual(newEvents(3).map((e) => eventIdToUuid(e.event_id)));
    expect(first.every((e) => e.contentType === 'application/json')).toBe(true);
    const read1 = readBack('ledger-9', first, 0n, 1000n);
    expect(read1[0].previous_event_commitment).toBeNull();
    expect(verifyStreamChain(read1)).toBeNull();

    const second = chainEvents('ledger-9', newEvents(2, 3), 2n, read1[2].event_commitment);
    const read2 = readBack('ledger-9', second, 3n, 5000n);
    expect(read2[0].previous_event_commitment).toBe(read1[2].event_commitment);
    expect(verifyStreamChain([...read1, ...read2])).toBeNull();
    expect(Date.parse(read2[0].occurred_at)).not.toBeNaN();
  });

  it('keeps a writer-given occurred_at and commits to it', () => {
    const [e] = chainEvents('s', [{ ...newEvents(1)[0], occurred_at: '2020-05-06T07:08:09.000Z' }], null, null);
    expect((e.metadata as Record<string, { occurred_at: string }>)[CHAIN_KEY].occurred_at).toBe('2020-05-06T07:08:09.000Z');
  });

  it('ignores a previous commitment when the stream does not exist yet', () => {
    const [e] = chainEvents('s', newEvents(1), null, 'f'.repeat(64));
    expect((e.metadata as Record<string, { previous_event_commitment: unknown }>)[CHAIN_KEY].previous_event_commitment).toBeNull();
  });
});

describe('positions', () => {
  it('orders by commit then prepare', () => {
    expect(comparePositions({ commit: 1n, prepare: 1n }, { commit: 2n, prepare: 0n })).toBe(-1);
    expect(comparePositions({ commit: 2n, prepare: 3n }, { commit: 2n, prepare: 2n })).toBe(1);
    expect(comparePositions({ commit: 5n, prepare: 5n }, { commit: 5n, prepare: 5n })).toBe(0);
  });

  it('reads $all from the start, or from the given position (commit == prepare for platform events)', () => {
    expect(toReadPosition(undefined)).toBe(START);
    expect(toReadPosition(0n)).toBe(START);
    expect(toReadPosition(2n ** 55n)).toEqual({ commit: 2n ** 55n, prepare: 2n ** 55n });
  });
});

function captured(fn: () => void): VersionConflict {
  try {
    fn();
  } catch (e) {
    return e as VersionConflict;
  }
  throw new Error('expected a throw');
}
