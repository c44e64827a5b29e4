/**
 * Folded stream states kept between commands, so a command reads only the events appended since the last one instead
 * of the whole stream (an AI-wallet binding with thousands of intents, a session, a market). The store stays the
 * truth: every load still reads the stream from the cached revision on, so events appended by another node are
 * folded in before anyone decides, and an append still carries its expected revision.
 *
 * Evolve functions may update a state in place (the binding's maps do), so one rule keeps a cached state exact
 * whoever folds into it, concurrent loads and the executor's own appends alike: an event is folded only when its
 * revision is the entry's next one, and one already folded is skipped.
 */
import type { RecordedEvent } from '../event-store/event-store.port';
import type { Decider, DomainEvent } from './decider';

export type Folding<S, E extends DomainEvent> = Pick<Decider<unknown, S, E>, 'initialState' | 'evolve'>;

/** What folding needs of an event, recorded or just appended. */
export type FoldedEvent = Pick<RecordedEvent, 'event_id' | 'type' | 'data' | 'revision' | 'position'>;

/** The last events of a stream, by id: what a retried request looks for (CommandExecutor.ownEarlierAppend). */
export type TailEvent = Pick<RecordedEvent, 'event_id' | 'type' | 'revision' | 'position'>;

export interface StreamState<S> {
  readonly decider: Folding<S, DomainEvent>;
  state: S;
  /** Revision of the last event folded in; null while the stream has none. */
  version: bigint | null;
  /** Commit position of that event. */
  position: bigint | null;
  /** The newest events, oldest first (at most TAIL_LENGTH). */
  tail: TailEvent[];
}

const TAIL_LENGTH = 32;

export class StreamStateCache {
  /** Insertion order is recency order: a hit moves to the end, the first entry is the least recently used. */
  private readonly entries = new Map<string, StreamState<unknown>>();
  /** When each entry last moved to the end (in `keep` calls). */
  private readonly movedAt = new WeakMap<StreamState<unknown>, number>();
  private keeps = 0;

  constructor(private readonly capacity = 10_000) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * The cached state of `stream` if it was folded the same way (same evolve and initial state: a decider wrapped for
   * one command folds like the one it wraps), else a new empty one (kept once `keep` is called).
   */
  entry<S, E extends DomainEvent>(stream: string, decider: Folding<S, E>): StreamState<S> {
    const cached = this.entries.get(stream);
    if (cached && cached.decider.evolve === decider.evolve && cached.decider.initialState === decider.initialState) return cached as StreamState<S>;
    return { decider: decider as Folding<S, DomainEvent>, state: decider.initialState(), version: null, position: null, tail: [] };
  }

  /** The revision a read must start at to bring `entry` up to date. */
  static next(entry: StreamState<unknown>): bigint {
    return entry.version === null ? 0n : entry.version + 1n;
  }

  /**
   * Folds `events` (ascending revisions) into `entry`, skipping those it already holds. False when they leave a gap,
   * which a read from `next(entry)` cannot do; then the entry is unusable and the caller starts over. An evolve that
   * throws leaves the entry half-folded, so it is dropped from the cache before the error goes on.
   */
  fold<S, E extends DomainEvent>(stream: string, entry: StreamState<S>, events: readonly FoldedEvent[]): boolean {
    try {
      for (const e of events) {
        if (entry.version !== null && e.revision <= entry.version) continue;
        if (e.revision !== StreamStateCache.next(entry)) return false;
        entry.state = entry.decider.evolve(entry.state, { type: e.type, data: e.data } as E);
        entry.version = e.revision;
        entry.position = e.position;
        entry.tail.push({ event_id: e.event_id, type: e.type, revision: e.revision, position: e.position });
      }
    } catch (error) {
      this.forget(stream, entry);
      throw error;
    }
    if (entry.tail.length > TAIL_LENGTH) entry.tail.splice(0, entry.tail.length - TAIL_LENGTH);
    return true;
  }

  /** Keeps `entry` as the stream's cached state (the most recently used). */
  keep(stream: string, entry: StreamState<unknown>): void {
    const now = ++this.keeps;
    // A hot entry (a market, a session) is moved only every quarter of the capacity: moving it on every hit churns
    // the map, and it cannot come near eviction in between (at most a quarter of the capacity is added meanwhile).
    if (this.entries.get(stream) === entry && now - (this.movedAt.get(entry) ?? -Infinity) < this.capacity / 4) return;
    this.movedAt.set(entry, now);
    this.entries.delete(stream);
    this.entries.set(stream, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Drops the stream's cached state (only `entry`, when given and no longer the cached one, is left alone). */
  forget(stream: string, entry?: StreamState<unknown>): void {
    if (entry === undefined || this.entries.get(stream) === entry) this.entries.delete(stream);
  }
}
