import type { JsonObject } from '../commitments/json';

/** What a domain event is to the domain code: a type and canonical-JSON data. */
export interface DomainEvent {
  type: string;
  data: JsonObject | object;
}

/** Injected into `decide` so domain code has no clock and no randomness of its own. */
export interface DecideContext {
  now: Date;
  newId(): string;
}

/** A module's pure domain: fold events into state, decide a command's events from state. */
export interface Decider<C, S, E extends DomainEvent> {
  initialState(): S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S, context: DecideContext): E[];
}

export function fold<S, E extends DomainEvent>(decider: Pick<Decider<unknown, S, E>, 'initialState' | 'evolve'>, events: E[]): S {
  return events.reduce((state, e) => decider.evolve(state, e), decider.initialState());
}
