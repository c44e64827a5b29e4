/**
 * The EventStoreDB adapter's pure half: how platform events, ids, revisions, chain fields, positions and errors map to
 * and from ESDB's (no I/O; unit-tested in test/unit/eventstoredb-mapping.spec.ts). The adapter
 * (eventstoredb.event-store.ts) and its subscription (eventstoredb.subscription.ts) use it.
 */
import {
  ANY,
  ErrorType,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  type AppendExpectedRevision,
  type EventData,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { eventCommitment } from '../../commitments/commitment';
import type { JsonObject } from '../../commitments/json';
import { PlatformError, StateConflict, ValidationFailed, VersionConflict } from '../../errors';
import {
  describeExpected,
  type EventMetadata,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
} from '../event-store.port';

/** The one metadata key the adapter reserves for the chain fields ESDB has no column for. */
export const CHAIN_KEY = '$chain';

/** uint64 max: what servers before 22.6 report as the $all position of an event read from a stream. */
export const NO_POSITION = 0xffff_ffff_ffff_ffffn;

export interface ChainFields {
  occurred_at: string;
  event_commitment: string;
  previous_event_commitment: string | null;
}

/** ESDB metadata as stored: the envelope metadata plus the reserved chain key. */
export type StoredMetadata = EventMetadata & { [CHAIN_KEY]: ChainFields };

type ChainedEventType = { type: string; data: JsonObject; metadata: StoredMetadata };

/** The fields of a client ResolvedEvent the mapping reads; plain objects satisfy it in tests. */
export interface ResolvedEventLike {
  event?: {
    streamId: string;
    id: string;
    revision: bigint;
    type: string;
    isJson?: boolean;
    data: unknown;
    metadata?: unknown;
    position?: Position;
  };
  commitPosition?: bigint;
}

// ---------------------------------------------------------------------------------------------------------------
// Pure helpers (exported for unit tests)
// ---------------------------------------------------------------------------------------------------------------

const HEX32 = /^[0-9a-fA-F]{32}$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** 32-hex event_id -> the 8-4-4-4-12 UUID ESDB requires as an event id. */
export function eventIdToUuid(eventId: string): string {
  if (!HEX32.test(eventId)) {
    throw new ValidationFailed('Invalid event id.', [{ field: 'event_id', issue: 'must be 32 hexadecimal characters' }]);
  }
  const h = eventId.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** ESDB's UUID (as the server prints it) -> the platform's lowercase 32-hex event_id. */
export function uuidToEventId(uuid: string): string {
  if (!UUID.test(uuid)) throw new Error(`EventStoreDB returned an event id that is not a UUID: ${uuid}`);
  return uuid.replace(/-/g, '').toLowerCase();
}

export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

export function fromEsdbExpectedRevision(expected: AppendExpectedRevision): ExpectedRevision {
  switch (expected) {
    case ANY:
      return 'any';
    case NO_STREAM:
      return 'no_stream';
    case STREAM_EXISTS:
      return 'stream_exists';
    default:
      return expected;
  }
}

/** The exact revision an append is pinned to, given the stream's current last revision (null: no stream). */
export function pinnedRevision(current: bigint | null): bigint | typeof NO_STREAM {
  return current === null ? NO_STREAM : current;
}

/** A revision ESDB reports (CurrentRevision, or -1 from legacy error metadata) -> platform form, null = no stream. */
export function currentRevisionOf(actual: unknown): bigint | null {
  if (typeof actual === 'bigint') return actual < 0n ? null : actual;
  if (typeof actual === 'number' && Number.isInteger(actual)) return actual < 0 ? null : BigInt(actual);
  if (typeof actual === 'string' && /^-?\d+$/.test(actual)) return currentRevisionOf(BigInt(actual));
  return null; // 'no_stream' or absent
}

export function expectationHolds(expected: ExpectedRevision, current: bigint | null): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === null;
  if (expected === 'stream_exists') return current !== null;
  return current === expected;
}

export function checkExpectation(stream: string, expected: ExpectedRevision, current: bigint | null): void {
  if (!expectationHolds(expected, current)) throw new VersionConflict(stream, describeExpected(expected), current);
}

/**
 * Where a retry of these `count` events would already sit, if the first attempt succeeded: the revisions whose ids
 * must equal the append's ids in order for it to be an idempotent success. Null when the stream is too short.
 */
export function replayWindow(expected: ExpectedRevision, current: bigint | null, count: number): { fromRevision: bigint; count: number } | null {
  if (current === null || count === 0) return null;
  const n = BigInt(count);
  let from: bigint;
  if (expected === 'no_stream') from = 0n;
  else if (typeof expected === 'bigint') from = expected + 1n;
  else from = current - n + 1n; // any / stream_exists: the newest n events
  if (from < 0n || from + n - 1n > current) return null;
  return { fromRevision: from, count };
}

export function isWrongExpectedVersion(err: unknown): err is { actualVersion?: unknown } {
  // Duck-typed as well: a second copy of the client package would defeat instanceof.
  return err instanceof WrongExpectedVersionError || errorType(err) === ErrorType.WRONG_EXPECTED_VERSION;
}

export function isStreamNotFound(err: unknown): boolean {
  return err instanceof StreamNotFoundError || errorType(err) === ErrorType.STREAM_NOT_FOUND;
}

export function errorType(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;
}

const UNAVAILABLE_TYPES: ReadonlySet<unknown> = new Set([
  ErrorType.UNAVAILABLE,
  ErrorType.DEADLINE_EXCEEDED,
  ErrorType.TIMEOUT,
  ErrorType.NOT_LEADER,
]);

/**
 * Client error -> platform error. `knownActual` is used for a WrongExpectedVersion that carries no actual revision.
 * Unknown errors are returned unchanged (the HTTP filter turns them into INTERNAL).
 */
export function toPlatformError(err: unknown, stream: string, expected: ExpectedRevision = 'any', knownActual: bigint | null = null): Error {
  if (err instanceof PlatformError) return err;
  if (isWrongExpectedVersion(err)) {
    const actual = err.actualVersion === undefined ? knownActual : currentRevisionOf(err.actualVersion);
    return new VersionConflict(stream, describeExpected(expected), actual);
  }
  const type = errorType(err);
  if (type === ErrorType.STREAM_DELETED) return new StateConflict(`Stream ${stream} was deleted.`);
  if (type === ErrorType.MAXIMUM_APPEND_SIZE_EXCEEDED) {
    return new PlatformError('PAYLOAD_TOO_LARGE', 'The events exceed the event store maximum append size.');
  }
  if (UNAVAILABLE_TYPES.has(type)) {
    return new PlatformError('SERVICE_UNAVAILABLE', 'The event store is unavailable.', { retryAfter: 1 });
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The envelope may not use the key the adapter reserves, or reading it back would lose it. */
export function assertNoReservedKey(metadata: EventMetadata, field = 'metadata'): void {
  if (Object.prototype.hasOwnProperty.call(metadata, CHAIN_KEY)) {
    throw new ValidationFailed('Event metadata uses a reserved key.', [{ field: `${field}.${CHAIN_KEY}`, issue: 'reserved by the event store' }]);
  }
}

/** Envelope metadata + chain fields -> ESDB metadata. */
export function withChain(metadata: EventMetadata, chain: ChainFields): StoredMetadata {
  assertNoReservedKey(metadata);
  return { ...metadata, [CHAIN_KEY]: { ...chain } };
}

/** ESDB metadata -> envelope metadata and chain fields; null when the event was not written by this adapter. */
export function splitChain(stored: unknown): { metadata: EventMetadata; chain: ChainFields } | null {
  if (!isPlainObject(stored)) return null;
  const chain = stored[CHAIN_KEY];
  if (!isPlainObject(chain)) return null;
  const { occurred_at, event_commitment, previous_event_commitment } = chain;
  if (typeof occurred_at !== 'string' || typeof event_commitment !== 'string') return null;
  if (previous_event_commitment !== null && typeof previous_event_commitment !== 'string') return null;
  const { [CHAIN_KEY]: _chain, ...metadata } = stored;
  return { metadata: metadata as EventMetadata, chain: { occurred_at, event_commitment, previous_event_commitment } };
}

/** ESDB's own records: $-prefixed event types (incl. links "$>") or $-prefixed streams. */
export function isSystemEvent(streamId: string, type: string): boolean {
  return streamId.startsWith('$') || type.startsWith('$');
}

/** The $all commit position of a resolved event, or undefined when the server did not report it. */
export function commitPositionOf(resolved: ResolvedEventLike): bigint | undefined {
  const fromEvent = resolved.event?.position?.commit;
  if (fromEvent !== undefined && fromEvent >= 0n && fromEvent !== NO_POSITION) return fromEvent;
  const fromResolved = resolved.commitPosition;
  if (fromResolved !== undefined && fromResolved >= 0n && fromResolved !== NO_POSITION) return fromResolved;
  return undefined;
}

/**
 * ResolvedEvent -> RecordedEvent. Null for records that are not platform events (no event, system events,
 * non-JSON data, no chain metadata). Throws when a platform event comes without a position (server < 22.6).
 */
export function toRecordedEvent(resolved: ResolvedEventLike): RecordedEvent | null {
  const e = resolved.event;
  if (!e || isSystemEvent(e.streamId, e.type) || e.isJson === false || !isPlainObject(e.data)) return null;
  const split = splitChain(e.metadata);
  if (!split) return null;
  const position = commitPositionOf(resolved);
  if (position === undefined) {
    throw new Error(`EventStoreDB did not report the $all position of ${e.streamId}@${e.revision} (server older than 22.6?).`);
  }
  return {
    event_id: uuidToEventId(e.id),
    type: e.type,
    stream: e.streamId,
    revision: e.revision,
    position,
    occurred_at: split.chain.occurred_at,
    data: e.data as JsonObject,
    metadata: split.metadata,
    event_commitment: split.chain.event_commitment,
    previous_event_commitment: split.chain.previous_event_commitment,
  };
}

/** Total order of $all positions (commit first, then prepare). */
export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** A platform position (exclusive lower bound) -> where ESDB starts reading. Our events have commit == prepare. */
export function toReadPosition(after: bigint | undefined): ReadPosition {
  return after === undefined || after <= 0n ? START : { commit: after, prepare: after };
}

/**
 * Builds the ESDB events of one append and their chain, given the stream's current last revision and commitment.
 * Pure apart from `now` (used when an event has no occurred_at).
 */
export function chainEvents(
  stream: string,
  events: NewEvent[],
  current: bigint | null,
  previousCommitment: string | null,
  now: () => string = () => new Date().toISOString(),
): EventData<ChainedEventType>[] {
  let previous = current === null ? null : previousCommitment;
  let revision = current === null ? 0n : current + 1n;
  return events.map((e) => {
    const event_id = e.event_id.toLowerCase();
    const occurred_at = e.occurred_at ?? now();
    const event_commitment = eventCommitment({
      stream,
      revision,
      event_id,
      type: e.type,
      occurred_at,
      data: e.data,
      metadata: e.metadata,
      previous_event_commitment: previous,
    });
    const metadata = withChain(e.metadata, { occurred_at, event_commitment, previous_event_commitment: previous });
    previous = event_commitment;
    revision += 1n;
    return jsonEvent<ChainedEventType>({ id: eventIdToUuid(event_id), type: e.type, data: e.data, metadata });
  });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function sameIds(existing: ResolvedEvent[], ids: string[], fromRevision: bigint): boolean {
  if (existing.length !== ids.length) return false;
  return existing.every((r, i) => r.event !== undefined && r.event.revision === fromRevision + BigInt(i) && uuidToEventId(r.event.id) === ids[i]);
}
