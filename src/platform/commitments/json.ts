/**
 * JSON values that every RFC 8785 (JCS) implementation reproduces byte for byte. Event data and metadata are
 * checked against this at append: `undefined`, non-finite numbers, BigInt, Dates, class instances, functions and
 * lone UTF-16 surrogates have no single canonical form, so a chain built over them could not be re-verified.
 */
import { ValidationFailed, type ErrorDetail } from '../errors';

/**
 * In a `u` regex a valid pair is one code point, so \p{Cs} matches only unpaired surrogates. U+0000 is refused too:
 * canonical JSON could carry it, but PostgreSQL text cannot, and a projector that cannot store an event stalls.
 */
const LONE_SURROGATE = /[\u0000\p{Cs}]/u;

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export class NonCanonicalData extends ValidationFailed {
  constructor(details: ErrorDetail[]) {
    super('Event data holds values that canonical JSON (RFC 8785) cannot reproduce.', details);
  }
}

/** Returns the problems found (empty when the value is canonicalizable). */
export function findNonCanonical(value: unknown, path = '$', problems: ErrorDetail[] = []): ErrorDetail[] {
  if (problems.length >= 20) return problems;
  switch (typeof value) {
    case 'string':
      if (LONE_SURROGATE.test(value)) problems.push({ field: path, issue: 'string holds U+0000 or a lone UTF-16 surrogate' });
      return problems;
    case 'boolean':
      return problems;
    case 'number':
      if (!Number.isFinite(value)) problems.push({ field: path, issue: `non-finite number ${String(value)}` });
      return problems;
    case 'undefined':
      problems.push({ field: path, issue: 'undefined is not JSON' });
      return problems;
    case 'bigint':
      problems.push({ field: path, issue: 'BigInt is not JSON: use a decimal string' });
      return problems;
    case 'function':
    case 'symbol':
      problems.push({ field: path, issue: `${typeof value} is not JSON` });
      return problems;
    case 'object':
      break;
  }
  if (value === null) return problems;
  if (Array.isArray(value)) {
    value.forEach((item, i) => findNonCanonical(item, `${path}[${i}]`, problems));
    return problems;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const name = value instanceof Date ? 'Date (use an RFC 3339 string)' : `instance of ${proto?.constructor?.name ?? 'unknown'}`;
    problems.push({ field: path, issue: `${name} is not plain JSON` });
    return problems;
  }
  for (const key of Object.keys(value)) {
    if (LONE_SURROGATE.test(key)) problems.push({ field: path, issue: 'key holds U+0000 or a lone UTF-16 surrogate' });
    findNonCanonical((value as Record<string, unknown>)[key], `${path}.${key}`, problems);
  }
  return problems;
}

/**
 * The same rules as `findNonCanonical`, without building a path for every value: every append checks its data and
 * metadata, and the paths were a good part of what the append path allocated. Paths are built only for a refusal.
 */
export function isCanonicalizable(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return !LONE_SURROGATE.test(value);
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isCanonicalizable(value[i])) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (LONE_SURROGATE.test(key) || !isCanonicalizable((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

export function assertCanonicalizable(value: unknown, path: string): void {
  if (isCanonicalizable(value)) return;
  throw new NonCanonicalData(findNonCanonical(value, path));
}
