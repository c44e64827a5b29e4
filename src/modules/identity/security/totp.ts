/**
 * TOTP (RFC 6238) on otplib 13: 6 digits, HMAC-SHA-1, 30-second steps, ±1 step of clock drift, Base32 secrets
 * (what authenticator apps expect). otplib 13's functional API takes every option per call (no global options to
 * share or leak); a code of time step n is HOTP with counter n (RFC 6238 section 4), which is how codes are made here,
 * so the step a code matched is known exactly.
 *
 * matchTotp returns the RFC 6238 time step (counter) the code belongs to; callers persist the last accepted step
 * and refuse any code whose step is not greater, which makes each code usable once. Secrets are plain RFC 4648
 * Base32, unchanged from otplib 12: every stored secret keeps working.
 */
import { timingSafeEqual } from 'node:crypto';
import { generateSecret, generateSync, generateURI } from 'otplib';

export const TOTP_DIGITS = 6;
export const TOTP_STEP_SECONDS = 30;
export const TOTP_WINDOW = 1;
const SECRET_BYTES = 20; // 160 bits, the RFC 4226 recommended size for HMAC-SHA-1
// Refuse secrets that are not upper-case Base32 of at least 26 characters = 128 bits (otplib 13's guardrail; RFC 4226
// asks for 128 and recommends 160, which every secret this platform made has) rather than let a library derive some
// key from them.
const BASE32_SECRET = /^[A-Z2-7]{26,}=*$/;

/** The code of one RFC 6238 time step: HOTP of the step as counter, SHA-1, six digits. */
function codeOfStep(secret: string, step: number): string {
  return generateSync({ strategy: 'hotp', secret, counter: step, algorithm: 'sha1', digits: TOTP_DIGITS });
}

/** New Base32 secret of 160 random bits (32 characters, no padding). */
export function newTotpSecret(): string {
  return generateSecret({ length: SECRET_BYTES });
}

/** otpauth:// URI for QR codes: otpauth://totp/<issuer>:<label>?secret=…&period=30&digits=6&algorithm=SHA1&issuer=… */
export function otpauthUri(secret: string, label: string, issuer: string): string {
  return generateURI({ strategy: 'totp', issuer, label, secret, algorithm: 'sha1', digits: TOTP_DIGITS, period: TOTP_STEP_SECONDS });
}

/** RFC 6238 time step (counter) of an instant. */
export function totpStep(atMs: number): number {
  return Math.floor(atMs / 1000 / TOTP_STEP_SECONDS);
}

/** Whether a secret is usable: unpadded-or-padded upper-case RFC 4648 Base32 of at least 128 bits. */
export function isTotpSecret(secret: unknown): secret is string {
  return typeof secret === 'string' && BASE32_SECRET.test(secret);
}

/** The code valid at atMs (epoch milliseconds); used by tests and tools. Throws on an unusable secret. */
export function totpCode(secret: string, atMs: number): string {
  if (!isTotpSecret(secret)) throw new Error('TOTP secret must be Base32 of at least 80 bits');
  return codeOfStep(secret, totpStep(atMs));
}

/**
 * The time step the code matches within ±1 step of atMs, or null (also for malformed codes or secrets).
 * Spaces in the code are ignored (apps show "123 456"). When `afterStep` is given, steps at or before it are not
 * considered, so a caller passing its last accepted step never gets a replay — even if, by chance, the same digits
 * are also valid in a later step. The current step is preferred, then the previous, then the next.
 */
export function matchTotp(code: string, secret: string, atMs: number, afterStep?: number): number | null {
  if (typeof code !== 'string' || !isTotpSecret(secret) || !Number.isFinite(atMs)) return null;
  const digits = code.replace(/\s+/g, '');
  if (!new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(digits)) return null;
  const current = totpStep(atMs);
  let matched: number | null = null;
  // Every candidate is computed and compared (no early exit), so timing does not reveal which step matched.
  const deltas = [0];
  for (let i = 1; i <= TOTP_WINDOW; i += 1) deltas.push(-i, i);
  for (const delta of deltas) {
    const step = current + delta;
    if (step < 0) continue;
    let expected: string;
    try {
      expected = codeOfStep(secret, step);
    } catch {
      return null;
    }
    const equal = timingSafeEqual(Buffer.from(expected), Buffer.from(digits));
    if (equal && matched === null && (afterStep === undefined || step > afterStep)) matched = step;
  }
  return matched;
}
