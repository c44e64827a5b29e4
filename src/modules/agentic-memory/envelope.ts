/**
 * The memory envelope (the seeds' AgenticMemoryEnvelope, no extra fields): every agentic memory response is
 * `{success: true, response, meta?}`; errors keep the platform's one error envelope. Keyset pages of this module
 * (`{items, next_cursor?}` inside `response`) share the cursor helpers here.
 */
import { rawPage, rawPageAfter } from '../../platform/http/pagination';

export interface MemoryEnvelope<T> {
  success: true;
  response: T;
  meta?: Record<string, unknown>;
}

export function memoryEnvelope<T>(response: T, meta?: Record<string, unknown>): MemoryEnvelope<T> {
  return meta && Object.keys(meta).length > 0 ? { success: true, response, meta } : { success: true, response };
}

export interface Paged<T> {
  items: T[];
  next_cursor?: string;
}

/** `limit` of the `limit + 1` rows read (keyed by position), and the cursor after the last one when there are more. */
export const page = <R extends { position: string }>(rows: R[], limit: number, scope: string): { rows: R[]; next_cursor?: string } =>
  rawPage(rows, limit, (r) => r.position, scope);

/** The zero-padded position a cursor of this list carries, or null without a cursor; a foreign cursor is a 400. */
export const after = rawPageAfter;
