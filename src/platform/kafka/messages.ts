/**
 * What the publisher sends for an event, and how a batch is cut into sends. Pure.
 *
 * An event becomes one message on `<prefix>.events.<module>`: key = stream, value = the envelope of PLATFORM.md
 * section 3 as JSON (revision and position as decimal strings, like every position on the wire), headers `event_id`,
 * `type`, `position`, `event_commitment`. An audit checkpoint event (`AuditCheckpointRecorded` on `audit-checkpoints`)
 * is, in addition, one message on `<prefix>.audit.checkpoints` whose value is the signed checkpoint unchanged (the
 * event's data, what GET /api/v1/audit/checkpoints/latest answers), key `audit-checkpoints`, the same headers.
 */
import type { RecordedEvent } from '../event-store/event-store.port';
import { AUDIT_CHECKPOINT_EVENT_TYPE, AUDIT_CHECKPOINT_STREAM, checkpointsTopic, eventsTopic, moduleOfStream } from './topics';

export interface OutgoingMessage {
  topic: string;
  key: string;
  /** null: a tombstone (a compacted topic then forgets the key). */
  value: string | null;
  headers: Record<string, string>;
}

import { eventEnvelope } from '../event-store/event-envelope';

export { eventEnvelope, type EventEnvelope } from '../event-store/event-envelope';

export function eventHeaders(e: RecordedEvent): Record<string, string> {
  return { event_id: e.event_id, type: e.type, position: e.position.toString(), event_commitment: e.event_commitment };
}

export function isAuditCheckpoint(e: Pick<RecordedEvent, 'stream' | 'type'>): boolean {
  return e.stream === AUDIT_CHECKPOINT_STREAM && e.type === AUDIT_CHECKPOINT_EVENT_TYPE;
}

/** The messages of one event, in the order they are sent. */
export function eventMessages(e: RecordedEvent, prefix: string): OutgoingMessage[] {
  const headers = eventHeaders(e);
  const messages: OutgoingMessage[] = [{ topic: eventsTopic(prefix, moduleOfStream(e.stream)), key: e.stream, value: JSON.stringify(eventEnvelope(e)), headers }];
  if (isAuditCheckpoint(e)) messages.push({ topic: checkpointsTopic(prefix), key: AUDIT_CHECKPOINT_STREAM, value: JSON.stringify(e.data), headers: { ...headers } });
  return messages;
}

/** Bytes a message takes on the wire, near enough to keep a send under the broker's request limits. */
export function messageSize(m: OutgoingMessage): number {
  let size = 64 + Buffer.byteLength(m.key) + (m.value === null ? 0 : Buffer.byteLength(m.value));
  for (const [k, v] of Object.entries(m.headers)) size += 8 + Buffer.byteLength(k) + Buffer.byteLength(v);
  return size;
}

export interface SendLimits {
  /** Items (events, outbox rows) per send at most. */
  maxItems: number;
  /** Bytes per send at most, unless one item alone is larger (it is then sent alone). */
  maxBytes: number;
}

/**
 * Cuts items (each with its messages) into consecutive sends within the limits, never splitting an item's messages:
 * the publisher advances its checkpoint after each acknowledged send, so a send must end on an item boundary.
 */
export function planSends<T>(items: readonly T[], messagesOf: (item: T) => OutgoingMessage[], limits: SendLimits): Array<{ items: T[]; messages: OutgoingMessage[] }> {
  const sends: Array<{ items: T[]; messages: OutgoingMessage[] }> = [];
  let current: { items: T[]; messages: OutgoingMessage[] } = { items: [], messages: [] };
  let bytes = 0;
  for (const item of items) {
    const messages = messagesOf(item);
    const size = messages.reduce((n, m) => n + messageSize(m), 0);
    if (current.items.length > 0 && (current.items.length >= limits.maxItems || bytes + size > limits.maxBytes)) {
      sends.push(current);
      current = { items: [], messages: [] };
      bytes = 0;
    }
    current.items.push(item);
    current.messages.push(...messages);
    bytes += size;
  }
  if (current.items.length > 0) sends.push(current);
  return sends;
}

/** kafkajs' sendBatch shape: messages grouped by topic, each topic's in the order given. */
export function byTopic(messages: readonly OutgoingMessage[]): Array<{ topic: string; messages: Array<{ key: string; value: string | null; headers: Record<string, string> }> }> {
  const grouped = new Map<string, Array<{ key: string; value: string | null; headers: Record<string, string> }>>();
  for (const m of messages) {
    let list = grouped.get(m.topic);
    if (!list) grouped.set(m.topic, (list = []));
    list.push({ key: m.key, value: m.value, headers: m.headers });
  }
  return [...grouped].map(([topic, msgs]) => ({ topic, messages: msgs }));
}

/** The message of one outbox row: key = the row id, value = the row as the API shows it (null: tombstone). */
export function outboxMessage(topic: string, row: { row_key: string; value: string | null; headers: string }): OutgoingMessage {
  const headers = JSON.parse(row.headers) as Record<string, string>;
  return { topic, key: row.row_key, value: row.value, headers };
}
