/**
 * What every JSON body must be before any handler sees it: a JSON object, UTF-8, at most 64 levels deep (deeper input would
 * exhaust the validators' recursion — a 500 from bad input), and free of U+0000 and lone surrogates, which
 * PostgreSQL text cannot store and canonical JSON cannot reproduce: accepted here, they would stall a projector.
 */
import { PlatformError, ValidationFailed } from '../errors';

export const MAX_JSON_DEPTH = 64;
const UNSTORABLE = /[\u0000\p{Cs}]/u;

export function assertAcceptableJson(value: unknown): void {
  // Every request body of the platform is an object (the seeds' *Request shapes): `null`, an array, a string or a
  // number is refused here, once, rather than read as "no fields" by a DTO whose fields are all optional.
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new ValidationFailed('The request body must be a JSON object.', [{ field: 'body', issue: `must be a JSON object, not ${kind}` }]);
  }
  const problem = findProblem(value, '', 0);
  if (problem) throw new ValidationFailed('The request body cannot be accepted.', [problem]);
}

function findProblem(value: unknown, path: string, depth: number): { field: string; issue: string } | null {
  if (depth > MAX_JSON_DEPTH) return { field: path || 'body', issue: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  if (typeof value === 'string') {
    return UNSTORABLE.test(value) ? { field: path || 'body', issue: 'holds U+0000 or an unpaired surrogate' } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = findProblem(value[i], `${path}[${i}]`, depth + 1);
      if (p) return p;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const field = path ? `${path}.${key}` : key;
    if (UNSTORABLE.test(key)) return { field, issue: 'field name holds U+0000 or an unpaired surrogate' };
    const p = findProblem((value as Record<string, unknown>)[key], field, depth + 1);
    if (p) return p;
  }
  return null;
}

/** JSON bodies are UTF-8 (RFC 8259); a declared other charset is refused rather than misread. */
export function assertUtf8ContentType(contentType: string | undefined): void {
  const charset = /;\s*charset=("?)([^";\s]+)\1/i.exec(contentType ?? '')?.[2]?.toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new PlatformError('UNSUPPORTED_MEDIA_TYPE', 'JSON bodies must be UTF-8.', { details: [{ field: 'Content-Type', issue: `charset ${charset} is not supported` }] });
  }
}
