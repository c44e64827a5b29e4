/**
 * Password policy of the seeds: 12 to 128 printable characters, at least three character classes, and no reuse of
 * the email's local part.
 *
 * Definitions (the seeds do not spell them out, so they are fixed here):
 * - Length counts Unicode code points of the NFC-normalised password (the form the hasher stores), so an emoji or an
 *   accented letter counts once whatever its UTF-16 or decomposed length.
 * - "Printable" means: no control characters (General Category Cc: C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F)
 *   and no lone surrogates (not encodable as UTF-8). Spaces and any other Unicode characters are allowed.
 * - Classes: lowercase (\p{Ll}), uppercase (\p{Lu} and titlecase \p{Lt}), digit (\p{Nd}), other (everything else:
 *   symbols, punctuation, spaces, and letters without case such as CJK).
 * - The email's local part (text before the last "@") must not appear anywhere in the password, case-insensitively,
 *   when it is at least 3 characters long; a "+tag" sub-address's base part (before the first "+") is checked too.
 */

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;
const MIN_LOCAL_PART_LENGTH = 3;
const REQUIRED_CLASSES = 3;

const CONTROL = /\p{Cc}/u;
const LONE_SURROGATE = /\p{Cs}/u;
const LOWER = /\p{Ll}/u;
const UPPER = /[\p{Lu}\p{Lt}]/u;
const DIGIT = /\p{Nd}/u;

export function passwordPolicyIssues(password: string, email: string): string[] {
  if (typeof password !== 'string') return ['Password must be a string.'];
  const issues: string[] = [];
  // Lone surrogates survive normalize() unchanged, so checking after normalisation is safe.
  const normalized = password.normalize('NFC');
  const chars = [...normalized];

  if (chars.length < PASSWORD_MIN_LENGTH) issues.push(`Password must be at least ${PASSWORD_MIN_LENGTH} characters long.`);
  if (chars.length > PASSWORD_MAX_LENGTH) issues.push(`Password must be at most ${PASSWORD_MAX_LENGTH} characters long.`);
  if (CONTROL.test(normalized) || LONE_SURROGATE.test(normalized)) {
    issues.push('Password must contain only printable characters (no control characters).');
  }

  let lower = false;
  let upper = false;
  let digit = false;
  let other = false;
  for (const c of chars) {
    if (LOWER.test(c)) lower = true;
    else if (UPPER.test(c)) upper = true;
    else if (DIGIT.test(c)) digit = true;
    else other = true;
  }
  const classes = [lower, upper, digit, other].filter(Boolean).length;
  if (classes < REQUIRED_CLASSES) {
    issues.push('Password must contain at least three of: lowercase letters, uppercase letters, digits, other characters.');
  }

  const haystack = normalized.toLowerCase();
  if (localPartsOf(email).some((part) => haystack.includes(part))) {
    issues.push('Password must not contain the local part of the email address.');
  }
  return issues;
}

/** Lowercased local part (and its "+tag"-free base), only those long enough to matter. */
function localPartsOf(email: string): string[] {
  if (typeof email !== 'string') return [];
  const at = email.lastIndexOf('@');
  if (at <= 0) return [];
  const local = email.slice(0, at).normalize('NFC').toLowerCase();
  const base = local.split('+')[0] ?? '';
  return [...new Set([local, base])].filter((part) => [...part].length >= MIN_LOCAL_PART_LENGTH);
}
