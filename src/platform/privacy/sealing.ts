/**
 * Sealing: the personal and secret fields of an event (as its module classifies them, field-classes.ts) are stored
 * encrypted with the key of their data subject (subject-keys.ts). One authenticated encryption per event, not per
 * field (one cipher set-up costs as much as the encryption of a few fields): each sealed field holds only a
 * reference, and the values travel together in one sealed value under the data's `$sealed_values` member:
 *
 *   "email": {"$sealed_field": "email"}, "item": {"payload": {"$sealed_field": "item.payload"}, …}, …
 *   "$sealed_values": {"$sealed": "aes-256-gcm-v2", "kid": <32 hex>, "t": {"email": "s", "item.payload": "o"},
 *                      "iv": <base64url>, "ct": <base64url>}
 *
 * `ct` is AES-256-GCM (ciphertext, then the 16-byte tag) of the JSON object {path: value}, authenticated with the
 * event type and the sealed paths, so the values cannot be moved to another event type or field; `t` gives each
 * value's JSON type (string, number, boolean, array, object), which is what an erased value reads as
 * (ERASED_VALUES). A null value is not sealed. The chain commits to the sealed value by its digest and every published
 * form carries only that digest (commitment.ts, committedData): erasing the key changes no commitment, and nothing
 * published held the ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SEALED_MARK } from '../commitments/commitment';
import type { JsonObject, JsonValue } from '../commitments/json';
import { eventDeclaration, type EventForSubject, type FieldClassMap } from './field-classes';
import type { SubjectKey } from './subject-keys';

export const SEALING_ALG = 'aes-256-gcm-v2';
/** The data member holding an event's sealed values, and the reference a sealed field holds. */
export const SEALED_VALUES = '$sealed_values';
export const SEALED_FIELD = '$sealed_field';

type JsonType = 's' | 'n' | 'b' | 'a' | 'o';

export interface SealedValues {
  $sealed: typeof SEALING_ALG;
  kid: string;
  t: Record<string, JsonType>;
  iv: string;
  ct: string;
}

/** What a text whose subject was erased reads as, and what read models put in place of the person's words. */
export const ERASED_TEXT = '[erased]';

/** What a value whose subject was erased reads as: of its type, saying nothing (docs/privacy.md). */
export const ERASED_VALUES: Readonly<Record<JsonType, JsonValue>> = { s: ERASED_TEXT, n: 0, b: false, a: [], o: {} };

/** The keys sealing needs: the subject's current key to seal, any key by id to unseal (null once erased). */
export interface SealingKeys {
  keyFor(subject: string): SubjectKey;
  keyById(kid: string): Buffer | null;
}

const typeOf = (v: JsonValue): JsonType => (Array.isArray(v) ? 'a' : typeof v === 'string' ? 's' : typeof v === 'number' ? 'n' : typeof v === 'boolean' ? 'b' : 'o');

/**
 * Nonces come from a pool of random bytes drawn 1,024 at a time: one randomBytes call per event costs about as much
 * as the encryption. A 96-bit random nonce per event, under keys that each seal one person's few events.
 */
const NONCE_BYTES = 12;
let noncePool = Buffer.alloc(0);
let nonceAt = 0;
function nextNonce(): Buffer {
  if (nonceAt + NONCE_BYTES > noncePool.length) {
    noncePool = randomBytes(NONCE_BYTES * 1024);
    nonceAt = 0;
  }
  const nonce = noncePool.subarray(nonceAt, nonceAt + NONCE_BYTES);
  nonceAt += NONCE_BYTES;
  return nonce;
}

/** What the encryption authenticates besides the values: the event type and which fields it seals. */
const aadOf = (type: string, paths: string[]): Buffer => Buffer.from(`${type}:${[...paths].sort().join(',')}`, 'utf8');

export function sealValues(values: Record<string, JsonValue>, key: SubjectKey, type: string): SealedValues {
  const paths = Object.keys(values);
  const iv = nextNonce();
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(aadOf(type, paths));
  const body = cipher.update(JSON.stringify(values), 'utf8');
  cipher.final(); // GCM is a stream mode: final adds no bytes, it computes the tag
  const t: Record<string, JsonType> = {};
  for (const p of paths) t[p] = typeOf(values[p]);
  return { $sealed: SEALING_ALG, kid: key.kid, t, iv: iv.toString('base64url'), ct: Buffer.concat([body, cipher.getAuthTag()]).toString('base64url') };
}

/** The clear values, or ERASED_VALUES of their types when the key is gone. Throws when they were tampered with. */
export function unsealValues(sealed: SealedValues, key: Buffer | null, type: string): Record<string, JsonValue> {
  const paths = Object.keys(sealed.t);
  if (!key) return Object.fromEntries(paths.map((p) => [p, structuredClone(ERASED_VALUES[sealed.t[p]] ?? null)]));
  const body = Buffer.from(sealed.ct, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'));
  decipher.setAAD(aadOf(type, paths));
  decipher.setAuthTag(body.subarray(body.length - 16));
  const text = decipher.update(body.subarray(0, body.length - 16)).toString('utf8');
  decipher.final(); // throws when the tag does not match: changed, or moved to another event type or field
  return JSON.parse(text) as Record<string, JsonValue>;
}

export const isSealed = (v: unknown): v is SealedValues =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (v as Record<string, unknown>)[SEALED_MARK] === SEALING_ALG;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const isFieldRef = (v: unknown): v is { [SEALED_FIELD]: string } => isObject(v) && typeof v[SEALED_FIELD] === 'string';

/** Whose key sealing this event needs: its subject when it has a non-null personal or secret field, else null. */
export function sealingSubject(e: EventForSubject & { data: JsonObject }): string | null {
  const declaration = eventDeclaration(e.type);
  if (!declaration?.protectedFields || e.data[SEALED_VALUES] !== undefined) return null;
  const any = (data: JsonObject, classes: FieldClassMap): boolean =>
    Object.entries(classes).some(([field, c]) => {
      const value = data[field];
      if (value === undefined || value === null) return false;
      return c === 'personal' || c === 'secret' || (typeof c !== 'string' && isObject(value) && any(value, c));
    });
  return any(e.data, declaration.fields) ? declaration.subject(e) : null;
}

/**
 * The event's data with its personal and secret fields sealed under its subject's key (the data itself when its type
 * has none, or nothing non-null to seal). Data sealed before (an event appended again) is left as it is.
 */
export function sealEventData(e: EventForSubject & { data: JsonObject }, keys: SealingKeys): JsonObject {
  const declaration = eventDeclaration(e.type);
  if (!declaration?.protectedFields || e.data[SEALED_VALUES] !== undefined) return e.data;
  const values: Record<string, JsonValue> = {};
  const walk = (data: JsonObject, classes: FieldClassMap, path: string): JsonObject => {
    let out: JsonObject | undefined;
    for (const [field, c] of Object.entries(classes)) {
      const value = data[field];
      if (value === undefined || value === null) continue;
      let next: JsonValue = value;
      if (c === 'personal' || c === 'secret') {
        values[`${path}${field}`] = value;
        next = { [SEALED_FIELD]: `${path}${field}` };
      } else if (typeof c !== 'string' && isObject(value)) next = walk(value, c, `${path}${field}.`);
      if (next !== value) (out ??= { ...data })[field] = next;
    }
    return out ?? data;
  };
  const data = walk(e.data, declaration.fields, '');
  if (data === e.data) return data;
  return { ...data, [SEALED_VALUES]: sealValues(values, keys.keyFor(declaration.subject(e)), e.type) as unknown as JsonObject };
}

/** The event's data with its sealed values opened (erased ones as ERASED_VALUES) and put back in their fields. */
export function unsealEventData(type: string, data: JsonObject, keys: Pick<SealingKeys, 'keyById'>): JsonObject {
  const sealed = data[SEALED_VALUES];
  if (!isSealed(sealed)) return data;
  const values = unsealValues(sealed, keys.keyById(sealed.kid), type);
  // A reference is opened only where it was made (its own path): one a person wrote into their own content stays text.
  const walk = (value: JsonObject, path: string): JsonObject => {
    let out: JsonObject | undefined;
    for (const [field, member] of Object.entries(value)) {
      if (path === '' && field === SEALED_VALUES) {
        out ??= { ...value };
        delete out[field];
        continue;
      }
      const here = `${path}${field}`;
      const next = isFieldRef(member) && member[SEALED_FIELD] === here && here in values ? values[here] : isObject(member) ? walk(member, `${here}.`) : member;
      if (next !== member) (out ??= { ...value })[field] = next as JsonValue;
    }
    return out ?? value;
  };
  return walk(data, '');
}
