/**
 * The one event-store port of the platform. Adapters: SQLite (embedded default), EventStoreDB and PostgreSQL.
 * Revisions and positions are bigint in code and decimal strings on the wire: never lossy JS numbers.
 */
import type { JsonObject } from '../commitments/json';

/** Where the writer expects the stream to be. A bigint is an exact revision (0-based) of the stream's last event. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint;

export interface ActorRef {
  type: string;
  reference: string;
}

/** The envelope metadata of PLATFORM.md section 3. */
export interface EventMetadata {
  tenant_uuid: string | null;
  workspace_uuid: string | null;
  actor: ActorRef;
  correlation_id: string;
  causation_id: string | null;
  request_id: string | null;
  schema_version: number;
  /**
   * Only on the events of an AI agent's command (actor `workload`): the person who answers for the agent, the owner of
   * its binding (`{type: 'profile', reference: <profile_uuid>}`), as the auth guard resolved it for the request.
   * Billing bills the agent's usage to that person (docs/billing.md, "Which account pays"). Absent on every other event.
   */
  on_behalf_of?: ActorRef;
  [extra: string]: unknown;
}

/** An event as a writer proposes it. */
export interface NewEvent {
  /** 32-hex. A retry that re-sends the same ids to the same place is an idempotent success. */
  event_id: string;
  type: string;
  data: JsonObject;
  metadata: EventMetadata;
  /** RFC 3339 UTC; the adapter sets the append time when omitted. */
  occurred_at?: string;
}

/** The canonical (RFC 8785) texts of an event: its data, data as the chain commits to it (sealed values as digests), metadata. */
export interface CanonicalTexts {
  data: string;
  committed: string;
  metadata: string;
}

/**
 * An event whose texts the writer has already made with append-validation's `canonicalTexts` (the same function,
 * e.g. on a worker thread, for an engine snapshot of a megabyte): a store's `appendPrepared` stores them and commits to
 * them as they are, so the request thread never canonicalizes the data. They must be exactly what `canonicalTexts`
 * makes of the event, since a verifier recomputes the commitment from the data as stored.
 */
export interface PreparedEvent extends Pick<NewEvent, 'event_id' | 'type' | 'occurred_at'> {
  texts: CanonicalTexts;
}

/** An event as stored: the envelope of PLATFORM.md section 3. */
export interface RecordedEvent {
  event_id: string;
  type: string;
  stream: string;
  revision: bigint;
  position: bigint;
  occurred_at: string;
  data: JsonObject;
  metadata: EventMetadata;
  event_commitment: string;
  previous_event_commitment: string | null;
}

export interface AppendResult {
  /** Revision of the last event now in the stream (what the next writer should expect). */
  next_revision: bigint;
  /** Global position of the last event of this append. */
  position: bigint;
}

export type Direction = 'forwards' | 'backwards';

export interface ReadStreamOptions {
  direction?: Direction;
  /** Inclusive. Defaults to the first revision (forwards) or the last (backwards). */
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events with a position strictly greater. Omitted means from the start of the log. */
  after?: bigint;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Exclusive: the subscription delivers events after this position. Omitted means from the start. */
  after?: bigint;
  /**
   * The consumer acts on these event types only. A store may then pass over a commit of this process holding none of
   * them without delivering it, and say how far it passed (the position and time of its last event) instead; the next
   * batch starts after that. Stores that do not (EventStoreDB, PostgreSQL) deliver every event as without it.
   */
  passOver?: PassOver;
  /**
   * Whether something waits for this consumer to take the next commit (a request's read-your-writes, a caller of the
   * matching engine): stores that wake their subscribers one per turn of the event loop wake these first.
   */
  awaited?: () => boolean;
}

export interface PassOver {
  readonly types: ReadonlySet<string>;
  /** Called synchronously, while the consumer waits for its next batch. */
  passed(position: bigint, occurred_at: string): void;
}

/**
 * Catch-up then live. Consumed with `for await`; the adapter reads ahead only a bounded buffer
 * (backpressure), so a slow consumer never makes it load the whole log.
 */
export interface EventSubscription extends AsyncIterable<RecordedEvent> {
  /**
   * The same events in batches of what is available now (at most `maxSize`): a batch closes when it is full or when
   * the next event would have to be waited for. Catch-up gets big batches, live traffic low latency. Iterate either
   * the events or the batches of one subscription, not both.
   */
  batches(maxSize: number): AsyncIterable<RecordedEvent[]>;
  close(): Promise<void>;
}

export interface EventStore {
  readonly kind: 'sqlite' | 'eventstoredb' | 'postgres';
  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** `append` of events already in canonical form (PreparedEvent); absent where the store does not take them. */
  appendPrepared?(stream: string, events: PreparedEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  subscribeToAll(options?: SubscribeOptions): EventSubscription;
  /** Position of the newest event in the log (0n when empty). */
  headPosition(): Promise<bigint>;
  /**
   * Resolves at the next commit the store sees (this process's, or another node's it is told of), or after
   * `timeoutMs`: for a wait on another node's work (a market engine's decision) that would otherwise poll.
   */
  nextCommit?(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');

export function describeExpected(expected: ExpectedRevision): string {
  return typeof expected === 'bigint' ? expected.toString() : expected;
}
