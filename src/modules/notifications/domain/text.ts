/**
 * Text that goes into a notification. Titles and messages are fixed templates; what fills them from events is either
 * a value the platform made (ids, amounts, enumerations) or text a person or a client chose (an agent label, a
 * collection title, a device description parsed from a User-Agent header). The latter is bounded, stripped of
 * control characters and scrubbed of anything that looks like a credential or a one-time code: no notification ever
 * carries a secret, a token, a token hash or a code, even one a client put in its User-Agent.
 */

/** Shapes of secrets the platform hands out or stores, and of credentials in general. */
const SECRET_SHAPES: readonly RegExp[] = [
  // hcs_ session, hcsu_ step-up, hcat_ activation, hcct_ contact change, hcwt_ workload token, hcws_ client secret.
  /\bhc[a-z]{1,3}_[A-Za-z0-9_-]{6,}/g,
  /\bbearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g,
  // Hashes and keys: 40 or more hex digits (ids are 32 and are not secrets, but untrusted text carries none of ours).
  /\b(?:0x)?[0-9a-fA-F]{40,}\b/g,
  // Long base64 runs with letters and digits (keys, secrets), and base32 runs (TOTP secrets).
  /(?<![A-Za-z0-9+/-])(?=[A-Za-z0-9+/-]*\d)(?=[A-Za-z0-9+/-]*[A-Za-z])[A-Za-z0-9+/-]{24,}={0,2}/g,
  /\b[A-Z2-7]{16,}=*(?![A-Za-z0-9])/g,
  // Lowercase base32 too, when it has the digits base32 uses (ordinary long words have none).
  /\b(?=[a-z2-7]*[2-7])[a-z2-7]{16,}=*(?![A-Za-z0-9])/g,
  // One-time codes: 6 to 10 digits standing alone (TOTP codes, recovery codes' digit groups).
  /(?<![\d.])\d{6,10}(?![\d.])/g,
  // Recovery-code-like groups: xxxx-xxxx-xxxx.
  /\b[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}\b/gi,
  // key=value credentials.
  /\b(?:password|passwd|pwd|secret|token|code|api[_-]?key)\s*[:=]\s*\S+/gi,
];

export const REDACTED = '[redacted]';

/** Untrusted text made fit for a notification: one line, no control characters, nothing secret-shaped, bounded. */
export function untrusted(value: unknown, max = 80, fallback = 'unknown'): string {
  if (typeof value !== 'string') return fallback;
  let text = value.replace(/\p{Cc}|\p{Cf}/gu, ' ').replace(/\s+/g, ' ').trim();
  for (const shape of SECRET_SHAPES) text = text.replace(shape, REDACTED);
  const chars = [...text];
  if (chars.length > max) text = `${chars.slice(0, max - 1).join('').trimEnd()}…`;
  return text || fallback;
}

/** True when the text holds nothing secret-shaped (what the tests check of every notification they see). */
export function looksSecretFree(text: string): boolean {
  return SECRET_SHAPES.every((shape) => {
    shape.lastIndex = 0;
    const hit = shape.test(text);
    shape.lastIndex = 0;
    return !hit;
  });
}

/** A decimal string without trailing fractional zeros: "0.010000000000000000" → "0.01", "100.000" → "100". */
export function plainDecimal(value: unknown): string {
  if (typeof value !== 'string' || !/^-?\d+(\.\d+)?$/.test(value)) return '?';
  if (!value.includes('.')) return value;
  const trimmed = value.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '-0' ? '0' : trimmed;
}

/** Lower-case words of an enumeration value: "STOP_LIMIT" → "stop-limit", "ACCOUNT_CLOSURE" → "account closure". */
export function words(value: unknown, joiner = ' '): string {
  if (typeof value !== 'string' || !/^[A-Z][A-Z0-9_]{0,63}$/.test(value)) return 'unknown';
  return value.toLowerCase().split('_').join(joiner);
}

/** Shortens a long public identifier (a wallet address) for a sentence: 0x5290…9EE7. */
export function shortRef(value: unknown): string {
  if (typeof value !== 'string') return 'an unknown destination';
  const text = value.replace(/[^\x21-\x7e]/g, '');
  if (!text) return 'an unknown destination';
  // Shortened first (an address is public, but its full form would look like a hash), then scrubbed like any text.
  return untrusted(text.length > 16 ? `${text.slice(0, 6)}…${text.slice(-4)}` : text, 40, 'an unknown destination');
}
