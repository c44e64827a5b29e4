/**
 * The audit chain of PLATFORM.md section 3: every event commits to its content and to the previous event of its
 * stream. Canonical JSON (RFC 8785, JCS) comes from `safe-stable-stringify` in deterministic, strict mode (pino's
 * serializer, pinned): members sorted by UTF-16 code units, strings and numbers as ECMAScript's JSON.stringify
 * writes them — which is exactly JCS for the values `assertCanonicalizable` admits (no lone surrogates, finite
 * numbers, plain objects). It is twice as fast as the `canonicalize` package on the append path; that package, by
 * one of the RFC's authors, is the oracle of a differential test, and independent vectors check both.
 */
import { hash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';
import type { EventMetadata } from '../event-store/event-store.port';
import type { JsonObject, JsonValue } from './json';

export const COMMITMENT_ALG = 'sha256-jcs-v1';

export interface CommittedFields {
  stream: string;
  revision: bigint;
  event_id: string;
  type: string;
  occurred_at: string;
  data: JsonObject;
  metadata: EventMetadata;
  previous_event_commitment: string | null;
}

const jcs = configure({ deterministic: true, strict: true, bigint: false, circularValue: Error });

/** RFC 8785 canonical JSON text (for values that pass `assertCanonicalizable`). */
export function canonicalJson(value: JsonValue | Record<string, unknown>): string {
  const text = jcs(value);
  if (text === undefined) throw new Error('value has no canonical JSON form');
  return text;
}

export function sha256Hex(input: string | Buffer): string {
  // One-shot hashing (Node >= 20.12) costs half of createHash().update().digest() on the append path.
  return hash('sha256', input, 'hex');
}

/** Ids, types, streams and timestamps are plain ASCII that JSON quotes as is; anything else goes through JSON.stringify. */
const PLAIN = /^[0-9A-Za-z_.:+-]*$/;
const quote = (s: string): string => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));

/** The object whose canonical JSON is hashed; exported so the offline verifier and docs use the same shape. */
export function commitmentPreimage(fields: CommittedFields): Record<string, unknown> {
  if (fields.revision > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('revision beyond 2^53 cannot be committed as a JSON number');
  return {
    alg: COMMITMENT_ALG,
    stream: fields.stream,
    revision: Number(fields.revision),
    event_id: fields.event_id,
    type: fields.type,
    occurred_at: fields.occurred_at,
    data: fields.data,
    metadata: fields.metadata,
    previous_event_commitment: fields.previous_event_commitment,
  };
}

export function eventCommitment(fields: CommittedFields): string {
  return eventCommitmentOf(fields, canonicalJson(fields.data), canonicalJson(fields.metadata));
}

/**
 * The same commitment from data and metadata already in canonical form, so an append canonicalizes each once and
 * stores that text. The preimage's members are written in their JCS order (alg, data, event_id, metadata,
 * occurred_at, previous_event_commitment, revision, stream, type); a string's JCS form is its JSON.stringify form.
 * The independent test vectors check this path.
 */
export function eventCommitmentOf(fields: Omit<CommittedFields, 'data' | 'metadata'>, dataJcs: string, metadataJcs: string): string {
  if (fields.revision > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('revision beyond 2^53 cannot be committed as a JSON number');
  const previous = fields.previous_event_commitment === null ? 'null' : quote(fields.previous_event_commitment);
  return sha256Hex(
    `{"alg":${quote(COMMITMENT_ALG)},"data":${dataJcs},"event_id":${quote(fields.event_id)},"metadata":${metadataJcs},` +
      `"occurred_at":${quote(fields.occurred_at)},"previous_event_commitment":${previous},"revision":${fields.revision.toString()},` +
      `"stream":${quote(fields.stream)},"type":${quote(fields.type)}}`,
  );
}

export interface ChainBreak {
  index: number;
  event_id: string;
  revision: bigint;
  reason: string;
}

/**
 * Verifies one stream's events (in revision order, starting at revision 0 or after `previous`): every commitment
 * recomputes and every link points at the event before. Returns the first broken link, or null.
 */
export function verifyStreamChain(
  events: Array<CommittedFields & { event_commitment: string }>,
  previous: { revision: bigint; event_commitment: string } | null = null,
): ChainBreak | null {
  let prev = previous;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const expectedRevision = prev ? prev.revision + 1n : 0n;
    if (e.revision !== expectedRevision) {
      return { index: i, event_id: e.event_id, revision: e.revision, reason: `revision gap: expected ${expectedRevision}` };
    }
    const expectedPrev = prev ? prev.event_commitment : null;
    if (e.previous_event_commitment !== expectedPrev) {
      return { index: i, event_id: e.event_id, revision: e.revision, reason: 'previous_event_commitment does not match the previous event' };
    }
    if (eventCommitment(e) !== e.event_commitment) {
      return { index: i, event_id: e.event_id, revision: e.revision, reason: 'event_commitment does not match the event content' };
    }
    prev = { revision: e.revision, event_commitment: e.event_commitment };
  }
  return null;
}
