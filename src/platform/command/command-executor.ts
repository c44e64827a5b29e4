/**
 * The command-handling helper every module uses: load the stream, fold it with `evolve`, `decide`, append with the
 * expected revision. A conflict is retried (reload, decide again) only when the client did not pin a version;
 * a pinned version that is stale is the client's VERSION_CONFLICT to resolve.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { JsonObject } from '../commitments/json';
import { VersionConflict } from '../errors';
import { EVENT_STORE, type EventStore, type NewEvent, type RecordedEvent } from '../event-store/event-store.port';
import { eventMetadata, newId, recordAppend } from '../context/request-context';
import type { DecideContext, Decider, DomainEvent } from './decider';

export interface ExecuteOptions {
  /** The version (stream revision) the client read; omitted means "whatever is current". */
  expectedVersion?: bigint;
  maxAttempts?: number;
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

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async load<S, E extends DomainEvent>(stream: string, decider: Pick<Decider<unknown, S, E>, 'initialState' | 'evolve'>): Promise<{ state: S; version: bigint | null; events: RecordedEvent[] }> {
    const events = await this.store.readStream(stream);
    let state = decider.initialState();
    for (const e of events) state = decider.evolve(state, { type: e.type, data: e.data } as E);
    return { state, version: events.length > 0 ? events[events.length - 1].revision : null, events };
  }

  execute<C, S, E extends DomainEvent>(stream: string, decider: Decider<C, S, E>, command: C, options: ExecuteOptions = {}): Promise<CommandOutcome<S>> {
    const previous = this.streamLocks.get(stream) ?? Promise.resolve();
    const run = previous.then(() => this.executeNow(stream, decider, command, options));
    const settled = run.catch(() => undefined);
    this.streamLocks.set(stream, settled);
    void settled.then(() => {
      if (this.streamLocks.get(stream) === settled) this.streamLocks.delete(stream);
    });
    return run;
  }

  /** Conflicts left are with other processes: retried after a short jittered pause, unless the client pinned a version. */
  private async executeNow<C, S, E extends DomainEvent>(stream: string, decider: Decider<C, S, E>, command: C, options: ExecuteOptions): Promise<CommandOutcome<S>> {
    const maxAttempts = options.expectedVersion === undefined ? (options.maxAttempts ?? 8) : 1;
    for (let attempt = 1; ; attempt++) {
      const { state, version } = await this.load(stream, decider);
      if (options.expectedVersion !== undefined && version !== options.expectedVersion) {
        throw new VersionConflict(stream, options.expectedVersion.toString(), version);
      }
      const context: DecideContext = { now: options.now?.() ?? new Date(), newId: options.newId ?? newId };
      const decided = decider.decide(command, state, context);
      if (decided.length === 0) return { state, version, position: null, events: [] };

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
        const result = await this.store.append(stream, events, version === null ? 'no_stream' : version);
        recordAppend(result.position, events.map((e) => e.type));
        const next = decided.reduce((s, e) => decider.evolve(s, e), state);
        return { state: next, version: result.next_revision, position: result.position, events };
      } catch (error) {
        if (!(error instanceof VersionConflict) || attempt >= maxAttempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }
}
