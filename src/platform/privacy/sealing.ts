/**
 * Sealing: the personal and secret fields of an event (as its module classifies them, field-classes.ts) are stored
 * encrypted with the key of their data subject (subject-keys.ts), in place of the value:
 *
 *   {"$sealed": "aes-256-gcm-v1", "kid": <32 hex>, "t": "s"|"n"|"b"|"a"|"o", "iv": <base64url>, "ct": <base64url>}
 *
 * `ct` is AES-256-GCM (ciphertext then 16-byte tag) of the value's JSON text, authenticated with
 * `<event type>:<field path>` so a sealed value cannot be moved to another field; `t` is the value's JSON type
 * (string, number, boolean, array, object), which is what an erased value reads as (ERASED_VALUES). A null value is
 * not sealed. The chain commits to a sealed value by its digest and every published form carries only that digest
 * (commitment.ts, committedData), so erasing the key changes no commitment and nothing published held the ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SEALED_MARK } from '../commitments/commitment';
import type { JsonObject, JsonValue } from '../commitments/json';
import { eventDeclaration, type EventForSubject, type FieldClassMap } from './field-classes';
import type { SubjectKey } from './subject-keys';

export const SEALING_ALG = 'aes-256-gcm-v1';

type JsonType = 's' | 'n' | 'b' | 'a' | 'o';

export interface SealedValue {
  $sealed: typeof SEALING_ALG;
  kid: string;
  t: JsonType;
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

export function sealValue(value: JsonValue, key: SubjectKey, aad: string): SealedValue {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { $sealed: SEALING_ALG, kid: key.kid, t: typeOf(value), iv: iv.toString('base64url'), ct: body.toString('base64url') };
}

/** The clear value, or ERASED_VALUES of its type when the key is gone. Throws when the value was tampered with. */
export function unsealValue(sealed: SealedValue, key: Buffer | null, aad: string): JsonValue {
  if (!key) return structuredClone(ERASED_VALUES[sealed.t] ?? null);
  const body = Buffer.from(sealed.ct, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(body.subarray(body.length - 16));
  const text = Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
  return JSON.parse(text) as JsonValue;
}

export const isSealed = (v: unknown): v is SealedValue =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (v as Record<string, unknown>)[SEALED_MARK] === SEALING_ALG;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The event's data with its personal and secret fields sealed under its subject's key (the data itself when its type
 * has none). A field already sealed (an event sealed before, appended again) is left as it is.
 */
export function sealEventData(e: EventForSubject & { data: JsonObject }, keys: SealingKeys): JsonObject {
  const declaration = eventDeclaration(e.type);
  if (!declaration?.protectedFields) return e.data;
  let key: SubjectKey | undefined;
  const keyOnce = (): SubjectKey => (key ??= keys.keyFor(declaration.subject(e)));
  const walk = (data: JsonObject, classes: FieldClassMap, path: string): JsonObject => {
    let out: JsonObject | undefined;
    for (const [field, c] of Object.entries(classes)) {
      const value = data[field];
      if (value === undefined || value === null || isSealed(value)) continue;
      let next: JsonValue = value;
      if (c === 'personal' || c === 'secret') next = sealValue(value, keyOnce(), `${e.type}:${path}${field}`) as unknown as JsonObject;
      else if (typeof c !== 'string' && isObject(value)) next = walk(value, c, `${path}${field}.`);
      if (next !== value) (out ??= { ...data })[field] = next;
    }
    return out ?? data;
  };
  return walk(e.data, declaration.fields, '');
}

/** The event's data with every sealed value opened (erased ones as ERASED_VALUES). */
export function unsealEventData(type: string, data: JsonObject, keys: Pick<SealingKeys, 'keyById'>): JsonObject {
  const declaration = eventDeclaration(type);
  if (declaration && !declaration.protectedFields) return data;
  const walk = (value: JsonValue, path: string): JsonValue => {
    if (isSealed(value)) return unsealValue(value, keys.keyById(value.kid), `${type}:${path.slice(0, -1)}`);
    if (!isObject(value)) return value;
    let out: JsonObject | undefined;
    for (const [field, member] of Object.entries(value)) {
      const next = walk(member as JsonValue, `${path}${field}.`);
      if (next !== member) (out ??= { ...value })[field] = next;
    }
    return out ?? value;
  };
  return walk(data, '') as JsonObject;
}
