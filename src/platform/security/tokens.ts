/**
 * Bearer-style secrets every module issues (session, step-up, activation and agent workload tokens, client
 * secrets): 256 random bits behind a readable prefix, stored only as SHA-256 hashes, compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const TOKEN_BYTES = 32;

/** prefix + base64url (no padding) of 32 random bytes: 43 characters after the prefix. */
export function newToken(prefix: string): string {
  return prefix + randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Lowercase hex SHA-256 of the token's UTF-8 bytes; the only form a token is stored in. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Constant-time equality of two secrets. Both sides are hashed to fixed-length digests first, so not even the length
 * of the expected value leaks; non-strings are never equal.
 */
export function sameSecret(a: string, b: string): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db) && a === b; // the final === only runs on (practically certain) equality
}

