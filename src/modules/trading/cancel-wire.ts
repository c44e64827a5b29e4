/**
 * The seeds' Cancellation result entry, exactly: members in the seeds' order; variant A (`update`) for an order the
 * engine held, variant B (`event_manager_id`, `event_manager_timestamp`) for a new cancel instance of an order still
 * NEW; `success: false` entries for unknown, foreign or final orders, carrying nothing of another account.
 */
import type { CancelOutcome } from './cancels';
import { asUuid } from './orders';

const MODEL = 'mtf.order';
export const UPDATE_COMPLETED = 'The following update on model mtf.order has been completed';


/** `YYYY-MM-DD HH:MM:SS.ffffff` (UTC) from an RFC 3339 instant. */
export function eventManagerTimestamp(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?/.exec(new Date(iso).toISOString());
  return `${m![1]} ${m![2]}.${(m![3] ?? '').padEnd(6, '0')}`;
}

/** The engine's client id of an order: the sequence at the end of its engine id (`GW-7-0-701` → 701); 0 before. */
const engineClientId = (engineId: string | null): number => (engineId === null ? 0 : Number(engineId.slice(engineId.lastIndexOf('-') + 1)));

export function cancelEntry(o: CancelOutcome, environment_tag: string): Record<string, unknown> {
  const attempted = o.variant !== null;
  const ids = { market_id: o.market_id, matching_engine_client_id: engineClientId(o.engine_id), pmx_id: o.engine_id ?? '' };
  const payload = {
    environment_tag,
    model: MODEL,
    operation: o.variant === 'B' ? 'create' : 'write',
    record: { cancellation_attempted: attempted, market_id: ids.market_id, matching_engine_client_id: ids.matching_engine_client_id, order_uuid: o.order_uuid, pmx_id: ids.pmx_id },
  };
  if (o.variant === 'B') {
    const id = asUuid(o.request_event_id!);
    return {
      event_manager_id: id,
      event_manager_timestamp: eventManagerTimestamp(o.requested_at!),
      exec_time_ms: o.exec_time_ms,
      message: o.ok ? `A new instance of model mtf.event.manager has been created with id ${id}` : o.message,
      payload,
      success: o.ok,
    };
  }
  if (o.variant === 'A') {
    return {
      exec_time_ms: o.exec_time_ms,
      message: o.ok ? UPDATE_COMPLETED : o.message,
      payload,
      success: o.ok,
      update: { cancellation_attempted: true, ...ids },
    };
  }
  return { exec_time_ms: o.exec_time_ms, message: o.message, payload, success: false };
}

/** `{ response: { <order_id>: entry }, success }`: success is false when any entry failed. */
export function cancelEnvelope(outcomes: CancelOutcome[], environment_tag: string): { response: Record<string, unknown>; success: boolean } {
  const response: Record<string, unknown> = {};
  for (const o of outcomes) response[o.order_uuid] = cancelEntry(o, environment_tag);
  return { response, success: outcomes.every((o) => o.ok) };
}
