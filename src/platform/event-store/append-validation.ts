/** What every adapter does the same way around an append: the checks before it touches the store, expectations, canonical texts, idempotent replays. */
import { assertCanonicalizable } from '../commitments/json';
import { canonicalJson, committedDataJcs } from '../commitments/commitment';
import { StateConflict, ValidationFailed, VersionConflict } from '../errors';
import { describeExpected, type AppendResult, type CanonicalTexts, type ExpectedRevision, type NewEvent, type PreparedEvent } from './event-store.port';

export type { CanonicalTexts } from './event-store.port';

const EVENT_ID = /^[0-9a-f]{32}$/;
const TYPE = /^[A-Za-z][A-Za-z0-9_.-]{0,127}$/;
/** RFC 3339 in UTC, as the envelope has them (`2026-11-22T10:00:00.000Z`). */
const OCCURRED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export function validateAppend(stream: string, events: Array<NewEvent | PreparedEvent>, expected: ExpectedRevision): void {
  if (typeof stream !== 'string' || stream.length === 0 || stream.length > 512 || stream.startsWith('$')) {
    throw new ValidationFailed('Invalid stream name.', [{ field: 'stream', issue: 'must be 1-512 characters, not starting with $' }]);
  }
  if (typeof expected === 'bigint' && expected < 0n) {
    throw new ValidationFailed('Invalid expected revision.', [{ field: 'expected_revision', issue: 'must be >= 0' }]);
  }
  const seen = new Set<string>();
  events.forEach((e, i) => {
    if (!EVENT_ID.test(e.event_id)) throw new ValidationFailed('Invalid event id.', [{ field: `events[${i}].event_id`, issue: 'must be 32 lowercase hex characters' }]);
    if (seen.has(e.event_id)) throw new ValidationFailed('Duplicate event id in one append.', [{ field: `events[${i}].event_id`, issue: 'duplicate' }]);
    seen.add(e.event_id);
    if (e.occurred_at !== undefined && (!OCCURRED_AT.test(e.occurred_at) || Number.isNaN(Date.parse(e.occurred_at)))) {
      throw new ValidationFailed('Invalid occurred_at.', [{ field: `events[${i}].occurred_at`, issue: 'must be an RFC 3339 UTC timestamp' }]);
    }
    if (!TYPE.test(e.type)) throw new ValidationFailed('Invalid event type.', [{ field: `events[${i}].type`, issue: 'must be an identifier' }]);
    if ('texts' in e) return; // prepared: its data is canonical JSON text already
    if (e.data === null || typeof e.data !== 'object' || Array.isArray(e.data)) {
      throw new ValidationFailed('Event data must be a JSON object.', [{ field: `events[${i}].data`, issue: 'must be an object' }]);
    }
  });
}

/** Whether the stream's current revision (null: no stream) meets the writer's expectation. */
export function expectationHolds(expected: ExpectedRevision, current: bigint | null): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === null;
  if (expected === 'stream_exists') return current !== null;
  return current === expected;
}

/** The canonical (RFC 8785) texts of an append's events: hashed into the commitment and stored as they are. */
export function canonicalTexts(events: NewEvent[]): CanonicalTexts[] {
  // Writers usually share one metadata object across an append: canonicalize it once.
  const metadataTexts = new Map<object, string>();
  return events.map((e) => {
    assertCanonicalizable(e.data, 'data');
    let metadata = metadataTexts.get(e.metadata);
    if (metadata === undefined) {
      assertCanonicalizable(e.metadata, 'metadata');
      metadata = canonicalJson(e.metadata);
      metadataTexts.set(e.metadata, metadata);
    }
    const data = canonicalJson(e.data);
    return { data, committed: committedDataJcs(e.data, data), metadata };
  });
}

/**
 * EventStoreDB's idempotence: the same event ids already written to the same stream at the place the writer targets
 * mean a retry of a write that succeeded: its original result, instead of writing twice. `found` is where each of the
 * append's ids is stored (undefined: not stored). Null when none is stored; throws when they are stored elsewhere
 * (STATE_CONFLICT) or at another place of the stream (VersionConflict).
 */
export function idempotentReplayOf(
  stream: string,
  events: ReadonlyArray<{ event_id: string }>,
  expected: ExpectedRevision,
  current: bigint | null,
  found: Array<{ stream: string; revision: bigint; position: bigint } | undefined>,
): AppendResult | null {
  if (events.length === 0 || found.every((f) => f === undefined)) return null;
  const consecutive = found.every((f) => f !== undefined && f.stream === stream) && found.every((f, i) => f!.revision === found[0]!.revision + BigInt(i));
  if (!consecutive) {
    throw new StateConflict(`Event ids of this append are already used elsewhere in the log.`, { details: [{ field: 'event_id', issue: 'already stored at another place' }] });
  }
  const first = found[0]!.revision;
  const last = found[found.length - 1]!;
  const samePlace =
    expected === 'any' || expected === 'stream_exists' || (expected === 'no_stream' && first === 0n) || (typeof expected === 'bigint' && first === expected + 1n);
  if (!samePlace) throw new VersionConflict(stream, describeExpected(expected), current);
  return { next_revision: last.revision, position: last.position };
}
