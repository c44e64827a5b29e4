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
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type Position,
  type ReadPosition,
  type ReadRevision,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { assertCanonicalizable } from '../../commitments/json';
import { ValidationFailed } from '../../errors';
import { validateAppend } from '../append-validation';
import {
  type AppendResult,
  type EventStore,
  type EventSubscription,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
} from '../event-store.port';
import {
  NO_POSITION,
  pinnedRevision,
  checkExpectation,
  replayWindow,
  isWrongExpectedVersion,
  isStreamNotFound,
  toPlatformError,
  assertNoReservedKey,
  splitChain,
  commitPositionOf,
  toRecordedEvent,
  comparePositions,
  toReadPosition,
  chainEvents,
  sameIds,
} from './eventstoredb.mapping';
import { EventStoreDbSubscription } from './eventstoredb.subscription';

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
