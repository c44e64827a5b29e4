/**
 * The command-handling helper every module uses: load the stream, fold it with `evolve`, `decide`, append with the
 * expected revision. A conflict is retried (reload, decide again) only when the client did not pin a version;
 * a pinned version that is stale is the client's VERSION_CONFLICT to resolve.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '../clock';
import type { JsonObject } from '../commitments/json';
import { VersionConflict } from '../errors';
import { EVENT_STORE, type EventStore, type NewEvent, type RecordedEvent } from '../event-store/event-store.port';
import { eventMetadata, idMark, nextId, peekId, recordAppend, rewindIds } from '../context/request-context';
import type { DecideContext, Decider, DomainEvent } from './decider';
import { StreamStateCache, type Folding, type StreamState } from './stream-state-cache';
import { markStage } from '../observability/server-timing';

/**
 * A one-use authorisation the command spends when, and only when, it decides events (a step-up token). Checked by
 * its issuer before the command runs; spent right before the append of the events it authorises, after validation
 * and `decide` passed, so a refused request (400, 404, 409, 422) never costs it; given back when that append fails.
 */
export interface OneUseSpend {
  /** Spends it; throws (403) when it was spent meanwhile: of two requests racing with one token, one acts. */
  spend(): Promise<void>;
  /** Gives a spent authorisation back: the action it was spent on was not recorded. */
  release(): Promise<void>;
}

export interface ExecuteOptions {
  /** The version (stream revision) the client read; omitted means "whatever is current". */
  expectedVersion?: bigint;
  maxAttempts?: number;
  /**
   * The stream is named by an id made for this command (a new order's): it cannot exist yet, so the first attempt
   * decides on the initial state without reading it, and the append's `no_stream` expectation proves the guess (a
   * conflict is read and decided again as usual). Not for a request with an Idempotency-Key: its ids are derived
   * from the key, so a retry names the same stream, and it must read it to find its own earlier append (and answer
   * that, not decide again on today's inputs).
   */
  newStream?: boolean;
  /**
   * Spent right before the append when `decide` returns events, at most once across retries; released when no
   * append follows (the append fails, or a retry decides nothing or refuses). The spend and the append are two
   * appends on two streams (EventStoreDB has no atomic multi-stream append): a process that dies between them leaves
   * the authorisation spent and the action not done, and the caller asks for a new one.
   */
  spend?: OneUseSpend;
  /** Clock and id source, for tests and replays. */
  now?: () => Date;
  newId?: () => string;
}

export interface CommandOutcome<S> {
  state: S;
  /** Stream revision after the command (null when the stream still does not exist). */
  version: bigint | null;
  /** Commit position of the appended events (null when the command decided nothing). */
  position: bigint | null;
  events: NewEvent[];
}

@Injectable()
export class CommandExecutor {
  /** Commands on one stream run one at a time in this process, so they never conflict with each other. */
  private readonly streamLocks = new Map<string, Promise<unknown>>();
  private readonly states = new StreamStateCache();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {}

  /** The platform clock's time, the one commands are decided at: for what a handler works out before deciding (expiries). */
  now(): Date {
    return this.clock();
  }

  /** The stream's folded state, read from the store from where this node's cached fold ends (see StreamStateCache). */
  async load<S, E extends DomainEvent>(stream: string, decider: Folding<S, E>): Promise<{ state: S; version: bigint | null }> {
    const entry = await this.loadEntry(stream, decider);
    return { state: entry.state, version: entry.version };
  }

  private async loadEntry<S, E extends DomainEvent>(stream: string, decider: Folding<S, E>): Promise<StreamState<S>> {
    for (;;) {
      let entry = this.states.entry(stream, decider);
      const from = StreamStateCache.next(entry);
      const events = await this.store.readStream(stream, from === 0n ? undefined : { fromRevision: from });
      // Another load may have created the stream's entry while this one read the whole stream: fold into that one.
      if (from === 0n) entry = this.states.entry(stream, decider);
      if (this.states.fold(stream, entry, events)) {
        this.states.keep(stream, entry);
        return entry;
      }
      this.states.forget(stream, entry);
    }
  }

  execute<C, S, E extends DomainEvent>(stream: string, decider: Decider<C, S, E>, command: C, options: ExecuteOptions = {}): Promise<CommandOutcome<S>> {
    const previous = this.streamLocks.get(stream) ?? Promise.resolve();
    const run = previous.then(() => (options.spend ? this.executeSpending(stream, decider, command, options, options.spend) : this.executeNow(stream, decider, command, options)));
    const settled = run.catch(() => undefined);
    this.streamLocks.set(stream, settled);
    void settled.then(() => {
      if (this.streamLocks.get(stream) === settled) this.streamLocks.delete(stream);
    });
    return run;
  }

  /**
   * A retried request (same Idempotency-Key) whose first attempt appended but never answered: the stream already
   * ends with the events with the ids this request derives next. Answer with the outcome of that append.
   */
  private async ownEarlierAppend<S>(stream: string, entry: StreamState<S>): Promise<CommandOutcome<S> | null> {
    const stored = entry.tail;
    if (peekId(0) === null || stored.length === 0) return null;
    // `decide` may take a few ids for records before the events take theirs: look a short way ahead.
    const stored_ids = new Map(stored.map((e, i) => [e.event_id, i]));
    let skip = 0;
    let start = -1;
    for (; skip < 16 && start < 0; skip++) start = stored_ids.get(peekId(skip)!) ?? -1;
    if (start < 0) return null;
    skip -= 1;
    let count = 1;
    while (start + count < stored.length && stored[start + count].event_id === peekId(skip + count)) count++;
    // Only a retry right after its own append: once anything followed, the outcome would be stale, decide anew.
    if (start + count !== stored.length) return null;
    for (let i = 0; i < skip + count; i++) nextId();
    const first = stored[start];
    const last = stored[stored.length - 1];
    // The cache keeps ids only: read the append's events back (a rare path, only for a retry).
    const mine = await this.store.readStream(stream, { fromRevision: first.revision, maxCount: count });
    recordAppend(last.position, mine.map((e) => e.type));
    return {
      state: entry.state,
      version: last.revision,
      position: last.position,
      events: mine.map((e) => ({ event_id: e.event_id, type: e.type, data: e.data, metadata: e.metadata, occurred_at: e.occurred_at })),
    };
  }

  /** executeNow with a one-use authorisation: spent once, before the first append; released unless events landed. */
  private async executeSpending<C, S, E extends DomainEvent>(stream: string, decider: Decider<C, S, E>, command: C, options: ExecuteOptions, authorisation: OneUseSpend): Promise<CommandOutcome<S>> {
    let spent = false;
    const spendOnce = async (): Promise<void> => {
      if (spent) return;
      await authorisation.spend();
      spent = true;
    };
    let outcome: CommandOutcome<S>;
    try {
      outcome = await this.executeNow(stream, decider, command, options, spendOnce);
    } catch (error) {
      if (spent) await authorisation.release();
      throw error;
    }
    if (spent && outcome.events.length === 0) await authorisation.release();
    return outcome;
  }

  /** Conflicts left are with other processes: retried after a short jittered pause, unless the client pinned a version. */
  private async executeNow<C, S, E extends DomainEvent>(
    stream: string,
    decider: Decider<C, S, E>,
    command: C,
    options: ExecuteOptions,
    beforeAppend?: () => Promise<void>,
  ): Promise<CommandOutcome<S>> {
    const maxAttempts = options.expectedVersion === undefined ? (options.maxAttempts ?? 8) : 1;
    for (let attempt = 1; ; attempt++) {
      const guess = attempt === 1 && options.newStream === true && options.expectedVersion === undefined && peekId(0) === null ? this.states.entry(stream, decider) : null;
      const entry = guess !== null && guess.version === null ? guess : await this.loadEntry(stream, decider);
      const { state, version } = entry;
      const earlier = await this.ownEarlierAppend(stream, entry);
      if (earlier) return earlier;
      if (options.expectedVersion !== undefined && version !== options.expectedVersion) {
        throw new VersionConflict(stream, options.expectedVersion.toString(), version);
      }
      const mark = idMark();
      const context: DecideContext = { now: options.now?.() ?? this.clock(), newId: options.newId ?? nextId };
      const decided = decider.decide(command, state, context);
      if (decided.length === 0) {
        // Nothing to append: the response still carries the position the answer reflects.
        const position = entry.position;
        if (position !== null) recordAppend(position, []);
        return { state, version, position, events: [] };
      }

      const occurred_at = context.now.toISOString();
      const metadata = eventMetadata();
      const events: NewEvent[] = decided.map((e) => ({
        event_id: context.newId(),
        type: e.type,
        data: e.data as JsonObject,
        metadata,
        occurred_at,
      }));
      try {
        if (beforeAppend) await beforeAppend();
        markStage('decide');
        const result = await this.store.append(stream, events, version === null ? 'no_stream' : version);
        markStage('append');
        recordAppend(result.position, events.map((e) => e.type));
        // Fold the append into the entry (a load that read it meanwhile has already: the revisions tell).
        const first = result.next_revision - BigInt(events.length) + 1n;
        this.states.fold(stream, entry, events.map((e, i) => ({ event_id: e.event_id, type: e.type, data: e.data, revision: first + BigInt(i), position: result.position })));
        if (entry === guess) this.states.keep(stream, entry);
        return { state: entry.state, version: result.next_revision, position: result.position, events };
      } catch (error) {
        rewindIds(mark);
        if (!(error instanceof VersionConflict) || attempt >= maxAttempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }
}
