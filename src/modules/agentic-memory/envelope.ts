/**
 * The memory envelope (the seeds' AgenticMemoryEnvelope, no extra fields): every agentic memory response is
 * `{success: true, response, meta?}`; errors keep the platform's one error envelope. Keyset pages of this module
 * (`{items, next_cursor?}` inside `response`) share the cursor helpers here.
 */
import { ValidationFailed } from '../../platform/errors';
import { decodeCursor, encodeCursor } from '../../platform/http/pagination';

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

/** `limit` of the `limit + 1` rows read, and the cursor after the last one when there are more. */
export function page<R extends { position: string }>(rows: R[], limit: number, scope: string): { rows: R[]; next_cursor?: string } {
  const taken = rows.slice(0, limit);
  return { rows: taken, ...(rows.length > limit ? { next_cursor: encodeCursor([taken[taken.length - 1].position, scope]) } : {}) };
}

/** The zero-padded position a cursor of this list carries, or null without a cursor; a foreign cursor is a 400. */
export function after(cursor: string | undefined, scope: string): string | null {
  if (!cursor) return null;
  const [position, issuedFor] = decodeCursor(cursor, 2).map(String);
  if (issuedFor !== scope || !/^\d{20}$/.test(position)) throw new ValidationFailed('Invalid cursor.', [{ field: 'cursor', issue: 'not issued for this list' }]);
  return position;
}
