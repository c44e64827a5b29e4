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

/**
 * A sealed value (src/platform/privacy/sealing.ts): a personal or secret field's value encrypted with its data
 * subject's key, stored in place of the value. The chain commits to it by digest: in the committed form of `data`,
 * each sealed value is replaced by `{"$sealed_digest": sha256_hex(JCS(sealed value))}`. Every published form
 * (Kafka, exports, the audit routes) carries that committed form, so an auditor recomputes every commitment without
 * ever receiving the ciphertext, and erasing a subject's key changes no commitment. Data without sealed values is
 * its own committed form: events written before sealing existed verify as they always did.
 */
export const SEALED_MARK = '$sealed';
export const SEALED_DIGEST_MARK = '$sealed_digest';

const isSealedObject = (v: unknown): v is Record<string, JsonValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as Record<string, unknown>)[SEALED_MARK] === 'string';

function committedValue(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(committedValue);
  if (typeof v !== 'object' || v === null) return v;
  if (isSealedObject(v)) return { [SEALED_DIGEST_MARK]: sha256Hex(canonicalJson(v)) };
  const out: JsonObject = {};
  for (const [k, member] of Object.entries(v)) out[k] = committedValue(member as JsonValue);
  return out;
}

/** `data` as the chain commits to it and as it is published: every sealed value replaced by its digest. */
export function committedData(data: JsonObject): JsonObject {
  return committedValue(data) as JsonObject;
}

/**
 * JCS of the committed form, from the JCS of `data`: the same text when it holds no sealed value (the common case: a
 * `"$sealed":` key is nowhere in the text, since inside a string its quotes are escaped). An in-place rewrite of the
 * sealed value's text was measured no faster than canonicalizing the committed form again (the text is a fresh rope
 * either way), so there is one rule, the general one.
 */
export function committedDataJcs(data: JsonObject, dataJcs: string): string {
  return dataJcs.includes(`"${SEALED_MARK}":`) ? canonicalJson(committedData(data)) : dataJcs;
}

export function eventCommitment(fields: CommittedFields): string {
  return eventCommitmentOf(fields, committedDataJcs(fields.data, canonicalJson(fields.data)), canonicalJson(fields.metadata));
}

/**
 * The same commitment from the committed form of data (committedDataJcs) and metadata already in canonical form, so
 * an append canonicalizes each once and stores that text. The preimage's members are written in their JCS order (alg, data, event_id, metadata,
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
  /** Which check failed: the revision sequence, the link to the previous event, or the event's own commitment. */
  kind: 'revision' | 'previous_event_commitment' | 'event_commitment';
  /**
   * The hashes compared. `event_commitment`: expected = recomputed from the event's content, found = stored.
   * `previous_event_commitment` and `revision`: expected = the previous event's commitment (null at revision 0),
   * found = the event's stored previous_event_commitment.
   */
  expected: string | null;
  found: string | null;
  /** For `revision`: the revision the chain expected at this place. */
  expected_revision?: bigint;
}

export type LinkBreak = Omit<ChainBreak, 'index'>;

/**
 * One link of a stream's chain, the check every verifier shares (verifyStreamChain below, the audit CLI's
 * commit-order replay, the AI-wallet activity check): `e` must be the revision after `previous` (0 without one),
 * point at its commitment, and its own commitment must recompute from its content. `recomputed` is that commitment.
 */
export function checkChainLink(
  e: CommittedFields & { event_commitment: string },
  previous: { revision: bigint; event_commitment: string } | null,
): { recomputed: string; broken: LinkBreak | null } {
  const recomputed = eventCommitment(e);
  const expectedRevision = previous ? previous.revision + 1n : 0n;
  const expectedPrev = previous ? previous.event_commitment : null;
  const at = { event_id: e.event_id, revision: e.revision };
  if (e.revision !== expectedRevision) {
    return {
      recomputed,
      broken: { ...at, kind: 'revision', reason: `revision gap: expected ${expectedRevision}`, expected: expectedPrev, found: e.previous_event_commitment, expected_revision: expectedRevision },
    };
  }
  if (e.previous_event_commitment !== expectedPrev) {
    return {
      recomputed,
      broken: { ...at, kind: 'previous_event_commitment', reason: 'previous_event_commitment does not match the previous event', expected: expectedPrev, found: e.previous_event_commitment },
    };
  }
  if (recomputed !== e.event_commitment) {
    return { recomputed, broken: { ...at, kind: 'event_commitment', reason: 'event_commitment does not match the event content', expected: recomputed, found: e.event_commitment } };
  }
  return { recomputed, broken: null };
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
    const { broken } = checkChainLink(e, prev);
    if (broken) return { index: i, ...broken };
    prev = { revision: e.revision, event_commitment: e.event_commitment };
  }
  return null;
}
