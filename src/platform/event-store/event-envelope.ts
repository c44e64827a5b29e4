/**
 * The event envelope of PLATFORM.md section 3 as it leaves the platform (from the event as stored: RAW_EVENT_STORE) (Kafka values, the audit routes, and as
 * docs/schemas/event-envelope.schema.json says): revision and position as decimal strings, so no consumer loses
 * precision past 2^53.
 */
import { committedData } from '../commitments/commitment';
import type { RecordedEvent } from './event-store.port';

export interface EventEnvelope {
  event_id: string;
  type: string;
  stream: string;
  revision: string;
  position: string;
  occurred_at: string;
  data: RecordedEvent['data'];
  metadata: RecordedEvent['metadata'];
  event_commitment: string;
  previous_event_commitment: string | null;
}

export function eventEnvelope(e: RecordedEvent): EventEnvelope {
  return {
    event_id: e.event_id,
    type: e.type,
    stream: e.stream,
    revision: e.revision.toString(),
    position: e.position.toString(),
    occurred_at: e.occurred_at,
    // Sealed values as their digests (commitment.ts): what the chain commits to, never a personal or secret value.
    data: committedData(e.data),
    metadata: e.metadata,
    event_commitment: e.event_commitment,
    previous_event_commitment: e.previous_event_commitment,
  };
}
