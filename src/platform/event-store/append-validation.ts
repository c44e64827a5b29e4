/** Checks every adapter applies before an append touches the store. */
import { ValidationFailed } from '../errors';
import type { ExpectedRevision, NewEvent } from './event-store.port';

const EVENT_ID = /^[0-9a-f]{32}$/;
const TYPE = /^[A-Za-z][A-Za-z0-9_.-]{0,127}$/;
/** RFC 3339 in UTC, as the envelope has them (`2026-11-22T10:00:00.000Z`). */
const OCCURRED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export function validateAppend(stream: string, events: NewEvent[], expected: ExpectedRevision): void {
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
    if (e.data === null || typeof e.data !== 'object' || Array.isArray(e.data)) {
      throw new ValidationFailed('Event data must be a JSON object.', [{ field: `events[${i}].data`, issue: 'must be an object' }]);
    }
  });
}
