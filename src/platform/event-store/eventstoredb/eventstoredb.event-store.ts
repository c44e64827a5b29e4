/**
 * Production event store on EventStoreDB / KurrentDB through @eventstore/db-client 6.x.
 *
 * ESDB knows nothing of the audit chain, so the adapter computes it client-side: it reads the stream's last event,
 * checks the writer's expectation itself, then appends with the EXACT revision it read. A concurrent writer therefore
 * makes ESDB reject the append (WrongExpectedVersion) instead of silently forking the chain.
 *
 * Stored form: ESDB event id = the 32-hex event_id as a hyphenated UUID; ESDB metadata = the envelope metadata plus
 * `$chain` { occurred_at, event_commitment, previous_event_commitment } (stripped again on read).
 * Positions are $all commit positions, kept as bigint end to end.
 */
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  ErrorType,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type EventData,
  type Position,
  type ReadPosition,
  type ReadRevision,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { eventCommitment } from '../../commitments/commitment';
import { assertCanonicalizable, type JsonObject } from '../../commitments/json';
import { PlatformError, StateConflict, ValidationFailed, VersionConflict } from '../../errors';
import { validateAppend } from '../append-validation';
import { availableBatches } from '../available-batches';
import {
  describeExpected,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type EventSubscription,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../event-store.port';

/** The one metadata key the adapter reserves for the chain fields ESDB has no column for. */
export const CHAIN_KEY = '$chain';

/** uint64 max: what servers before 22.6 report as the $all position of an event read from a stream. */
const NO_POSITION = 0xffff_ffff_ffff_ffffn;

/** Same default page as the SQLite adapter, so callers see one behaviour. */
const DEFAULT_READ_ALL_COUNT = 1000;
const READ_ALL_PAGE_MAX = 4096;
const HEAD_PAGE = 256;
/** headPosition gives up looking for a platform event after this many newer non-platform records. */
const HEAD_SCAN_LIMIT = 10_000;

/** Appends with 'any' / 'stream_exists' retry a lost race; the caller pinned no revision so a retry is correct. */
const APPEND_ATTEMPTS = 32;
const APPEND_RETRY_BASE_MS = 5;
const APPEND_RETRY_MAX_MS = 250;

const RESUBSCRIBE_BASE_MS = 100;
const RESUBSCRIBE_MAX_MS = 5000;

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

function errorType(err: unknown): unknown {
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function sameIds(existing: ResolvedEvent[], ids: string[], fromRevision: bigint): boolean {
  if (existing.length !== ids.length) return false;
  return existing.every((r, i) => r.event !== undefined && r.event.revision === fromRevision + BigInt(i) && uuidToEventId(r.event.id) === ids[i]);
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------------------------
// The adapter
// ---------------------------------------------------------------------------------------------------------------

export interface EventStoreDbOptions {
  /** Told of every subscription drop before it is resumed (for logs and metrics; drops are otherwise silent). */
  onSubscriptionDrop?: (error: unknown, failures: number) => void;
}

export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly client: EventStoreDBClient;
  private readonly subscriptions = new Set<EventStoreDbSubscription>();
  /** Per-stream queue: appends to one stream from this process take turns instead of racing each other in ESDB. */
  private readonly streamTurns = new Map<string, Promise<void>>();
  private closed = false;

  /** `connection`: an esdb:// / kurrentdb connection string, or a client the store then owns (close() disposes it). */
  constructor(
    connection: string | EventStoreDBClient,
    private readonly options: EventStoreDbOptions = {},
  ) {
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) throw new Error('event store is closed');
    validateAppend(stream, events, expected);
    events.forEach((e, i) => {
      assertCanonicalizable(e.data, `events[${i}].data`);
      assertCanonicalizable(e.metadata, `events[${i}].metadata`);
      assertNoReservedKey(e.metadata, `events[${i}].metadata`);
    });
    return this.inTurn(stream, () => this.appendWithRetry(stream, events, expected));
  }

  private async appendWithRetry(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const ids = events.map((e) => e.event_id.toLowerCase());
    const unpinned = expected === 'any' || expected === 'stream_exists';
    for (let attempt = 1; ; attempt++) {
      // any/stream_exists compare the newest n ids, so read them in the same round trip as the last event.
      const tail = await this.readRaw(stream, { direction: BACKWARDS, fromRevision: END, maxCount: unpinned ? Math.max(events.length, 1) : 1 });
      const last = tail[0]?.event;
      const current = last ? last.revision : null;

      const window = replayWindow(expected, current, events.length);
      if (window) {
        const existing = unpinned
          ? [...tail].reverse()
          : await this.readRaw(stream, { direction: FORWARDS, fromRevision: window.fromRevision, maxCount: window.count });
        if (sameIds(existing, ids, window.fromRevision)) {
          const newest = existing[existing.length - 1];
          return { next_revision: newest.event!.revision, position: await this.positionOf(stream, newest) };
        }
      }
      checkExpectation(stream, expected, current);
      if (events.length === 0) return { next_revision: current ?? -1n, position: await this.headPosition() };

      let previousCommitment: string | null = null;
      if (last) {
        const chain = splitChain(last.metadata);
        if (!chain) throw new Error(`Stream ${stream} ends with an event the platform did not write; its chain cannot be extended.`);
        previousCommitment = chain.chain.event_commitment;
      }
      const proposed = chainEvents(stream, events, current, previousCommitment);
      const pin = pinnedRevision(current);

      try {
        const result = await this.client.appendToStream(stream, proposed, { expectedRevision: pin });
        if (!result.success) {
          // Clients configured with throwOnAppendFailure=false report the conflict instead of throwing it.
          throw new WrongExpectedVersionError(undefined, {
            streamName: stream,
            expected: pin,
            current: result.nextExpectedRevision >= 0n ? result.nextExpectedRevision : NO_STREAM,
          });
        }
        const expectedLast = (current ?? -1n) + BigInt(events.length);
        if (result.nextExpectedRevision !== expectedLast) {
          // Only a soft-deleted or truncated stream renumbers like this; the written chain would not verify.
          throw new Error(`EventStoreDB wrote ${stream} up to revision ${result.nextExpectedRevision}, expected ${expectedLast}: chain broken.`);
        }
        const commit = result.position?.commit;
        const position =
          commit !== undefined && commit >= 0n && commit !== NO_POSITION ? commit : await this.positionAt(stream, result.nextExpectedRevision);
        return { next_revision: result.nextExpectedRevision, position };
      } catch (err) {
        if (isWrongExpectedVersion(err) && unpinned && attempt < APPEND_ATTEMPTS) {
          // Full jitter: concurrent writers of one stream spread out instead of colliding again.
          await sleep(Math.random() * Math.min(APPEND_RETRY_MAX_MS, APPEND_RETRY_BASE_MS * 2 ** attempt));
          continue;
        }
        throw toPlatformError(err, stream, expected, current);
      }
    }
  }

  private async inTurn<T>(stream: string, work: () => Promise<T>): Promise<T> {
    const before = this.streamTurns.get(stream) ?? Promise.resolve();
    let done!: () => void;
    const mine = before.then(() => new Promise<void>((resolve) => (done = resolve)));
    this.streamTurns.set(stream, mine);
    await before;
    try {
      return await work();
    } finally {
      done();
      if (this.streamTurns.get(stream) === mine) this.streamTurns.delete(stream);
    }
  }

  /** Position of an event read from a stream; falls back to reading it when the server left it out. */
  private async positionOf(stream: string, resolved: ResolvedEvent): Promise<bigint> {
    return commitPositionOf(resolved) ?? this.positionAt(stream, resolved.event!.revision);
  }

  private async positionAt(stream: string, revision: bigint): Promise<bigint> {
    const [resolved] = await this.readRaw(stream, { direction: FORWARDS, fromRevision: revision, maxCount: 1 });
    const position = resolved ? commitPositionOf(resolved) : undefined;
    if (position === undefined) throw new Error(`EventStoreDB did not report the $all position of ${stream}@${revision} (server older than 22.6?).`);
    return position;
  }

  /** Stream read with "no such stream" as an empty result; other client errors mapped to platform errors. */
  private async readRaw(stream: string, options: { direction: typeof FORWARDS | typeof BACKWARDS; fromRevision: ReadRevision; maxCount: number }): Promise<ResolvedEvent[]> {
    try {
      return await collect(this.client.readStream(stream, options));
    } catch (err) {
      if (isStreamNotFound(err)) return [];
      throw toPlatformError(err, stream);
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (maxCount <= 0) return [];
    if (options.fromRevision !== undefined && options.fromRevision < 0n) {
      throw new ValidationFailed('Invalid revision.', [{ field: 'fromRevision', issue: 'must be >= 0' }]);
    }
    const direction = options.direction === 'backwards' ? BACKWARDS : FORWARDS;
    const fromRevision: ReadRevision = options.fromRevision ?? (direction === BACKWARDS ? END : START);
    const raw = await this.readRaw(stream, { direction, fromRevision, maxCount });
    // Records the platform did not write (none in its own streams) are left out rather than half-mapped.
    return raw.map(toRecordedEvent).filter((e): e is RecordedEvent => e !== null);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? DEFAULT_READ_ALL_COUNT;
    if (limit <= 0) return [];
    const after = options.after;
    const out: RecordedEvent[] = [];
    // The client has no server-side filter for reads, so page until `limit` platform events or the end of $all.
    let from: ReadPosition = toReadPosition(after);
    let seen: Position | undefined;
    for (;;) {
      const pageSize = Math.min(Math.max(limit - out.length + 1, 64), READ_ALL_PAGE_MAX);
      let page: AllStreamResolvedEvent[];
      try {
        page = await collect(this.client.readAll({ direction: FORWARDS, fromPosition: from, maxCount: pageSize }));
      } catch (err) {
        throw toPlatformError(err, '$all');
      }
      let progressed = false;
      for (const resolved of page) {
        const pos = resolved.event?.position;
        if (!pos) continue;
        // fromPosition is inclusive: skip what the previous page (or `after`) already covered.
        if (seen && comparePositions(pos, seen) <= 0) continue;
        seen = pos;
        progressed = true;
        if (after !== undefined && pos.commit <= after) continue;
        const recorded = toRecordedEvent(resolved);
        if (recorded) {
          out.push(recorded);
          if (out.length >= limit) return out;
        }
      }
      if (page.length < pageSize || !progressed || !seen) return out;
      from = seen;
    }
  }

  subscribeToAll(options: SubscribeOptions = {}): EventSubscription {
    if (this.closed) throw new Error('event store is closed');
    const sub = new EventStoreDbSubscription(this.client, options.after, (s) => this.subscriptions.delete(s), this.options.onSubscriptionDrop);
    this.subscriptions.add(sub);
    return sub;
  }

  async headPosition(): Promise<bigint> {
    let from: ReadPosition = END;
    let oldest: Position | undefined;
    let newestAny: bigint | undefined;
    let scanned = 0;
    while (scanned < HEAD_SCAN_LIMIT) {
      let page: AllStreamResolvedEvent[];
      try {
        page = await collect(this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: HEAD_PAGE }));
      } catch (err) {
        throw toPlatformError(err, '$all');
      }
      for (const resolved of page) {
        const pos = resolved.event?.position;
        if (!pos || (oldest && comparePositions(pos, oldest) >= 0)) continue;
        oldest = pos;
        newestAny ??= pos.commit;
        if (toRecordedEvent(resolved)) return pos.commit;
      }
      if (page.length < HEAD_PAGE || !oldest) return 0n;
      scanned += page.length;
      from = oldest;
    }
    // Only system / foreign records near the head: the log head is still a true upper bound for "now".
    return newestAny ?? 0n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.client.dispose();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Subscription
// ---------------------------------------------------------------------------------------------------------------

/** Errors that resubscribing cannot fix: surfaced to the consumer instead of retried forever. */
const FATAL_SUBSCRIPTION_ERRORS: ReadonlySet<unknown> = new Set([ErrorType.ACCESS_DENIED, ErrorType.INVALID_ARGUMENT, ErrorType.UNSUPPORTED]);

/**
 * Catch-up then live over $all. Pulled with for-await, so the client's bounded stream buffer (and gRPC flow control
 * behind it) is the only read-ahead. A dropped subscription is resumed from the last position seen, with backoff;
 * positions at or before it are skipped, so nothing is delivered twice and nothing is skipped.
 */
export class EventStoreDbSubscription implements EventSubscription {
  private closed = false;
  private started = false;
  private live: AllStreamSubscription | undefined;
  private wake: (() => void) | undefined;
  /** Last position seen (delivered, or filtered out as not ours). Undefined: from the start. */
  private last: Position | undefined;

  constructor(
    private readonly client: EventStoreDBClient,
    after: bigint | undefined,
    private readonly onClosed: (sub: EventStoreDbSubscription) => void,
    private readonly onDrop?: (error: unknown, failures: number) => void,
  ) {
    const start = toReadPosition(after);
    this.last = start === START || start === END ? undefined : start;
  }

  /** gRPC delivers one event at a time: grouped here into what has arrived. */
  batches(maxSize: number): AsyncIterable<RecordedEvent[]> {
    return availableBatches(this, maxSize);
  }

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    if (this.started) throw new Error('an event subscription can be iterated only once');
    this.started = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<RecordedEvent> {
    let failures = 0;
    try {
      while (!this.closed) {
        let sub: AllStreamSubscription | undefined;
        try {
          sub = this.client.subscribeToAll({ fromPosition: this.last ?? START, filter: excludeSystemEvents() });
          this.live = sub;
          sub.once('confirmation', () => (failures = 0));
          // A late error (after the loop has left) must not become an uncaught 'error' event.
          sub.on('error', () => undefined);
          for await (const resolved of sub) {
            if (this.closed) return;
            const pos = resolved.event?.position;
            if (!pos) continue; // no event (checkpoint-like message): nothing to deliver
            if (this.last && comparePositions(pos, this.last) <= 0) continue; // replayed after a resubscribe
            this.last = pos;
            const recorded = toRecordedEvent(resolved);
            if (recorded) yield recorded;
          }
          // The server ended a subscription we did not close: treat it like a drop.
          if (!this.closed) this.reportDrop(new Error('subscription ended by the server'), failures);
        } catch (err) {
          if (this.closed) return;
          if (FATAL_SUBSCRIPTION_ERRORS.has(errorType(err))) throw toPlatformError(err, '$all');
          this.reportDrop(err, failures);
        } finally {
          if (this.live === sub) this.live = undefined;
          await sub?.unsubscribe().catch(() => undefined);
        }
        if (this.closed) return;
        await this.backoff(failures++);
      }
    } finally {
      this.closed = true;
      this.onClosed(this);
    }
  }

  private reportDrop(error: unknown, failures: number): void {
    try {
      this.onDrop?.(error, failures);
    } catch {
      // A failing log hook must not end the subscription.
    }
  }

  /** 100 ms doubling to 5 s, with jitter; cut short by close(). */
  private backoff(failures: number): Promise<void> {
    const ceiling = Math.min(RESUBSCRIBE_MAX_MS, RESUBSCRIBE_BASE_MS * 2 ** failures);
    const ms = ceiling / 2 + Math.random() * (ceiling / 2);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).then(() => {
      this.wake = undefined;
    });
  }

  async close(): Promise<void> {
    if (this.closed && !this.live) return;
    this.closed = true;
    this.wake?.();
    const live = this.live;
    this.live = undefined;
    // Cancelling the gRPC call ends the for-await in run() cleanly (cancellation is not surfaced as an error).
    await live?.unsubscribe().catch(() => undefined);
    this.onClosed(this);
  }
}
