/**
 * Password policy of the seeds: 12 to 128 printable characters, at least three character classes, and no reuse of
 * the email's local part.
 *
 * Definitions (the seeds do not spell them out, so they are fixed here):
 * - The password is NFKC-normalised (NIST SP 800-63B 5.1.1.2; the form the hasher hashes) before it is measured and
 *   checked. Length counts Unicode code points of that form, so an emoji or an accented letter counts once whatever
 *   its UTF-16 or decomposed length.
 * - "Printable" means none of these General Categories, in the password as typed or after NFKC: control (Cc),
 *   format (Cf: zero-width space U+200B, joiners, bidi overrides, BOM, …), line and paragraph separators (Zl U+2028,
 *   Zp U+2029), surrogates (Cs: a lone surrogate is not encodable as UTF-8), private use (Co) and unassigned (Cn)
 *   code points. Spaces (Zs) and every other assigned character are allowed.
 * - Classes: lowercase (\p{Ll}), uppercase (\p{Lu} and titlecase \p{Lt}), digit (\p{Nd}), other (everything else:
 *   symbols, punctuation, spaces, and letters without case such as CJK).
 * - The email's local part (text before the last "@") must not appear anywhere in the password, case-insensitively,
 *   when it is at least 3 characters long; a "+tag" sub-address's base part (before the first "+") is checked too.
 */

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;
const MIN_LOCAL_PART_LENGTH = 3;
const REQUIRED_CLASSES = 3;

// Cn is "unassigned in the Unicode version of this Node.js build" (V8's ICU data); a newer runtime may admit more.
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/u;
const LOWER = /\p{Ll}/u;
const UPPER = /[\p{Lu}\p{Lt}]/u;
const DIGIT = /\p{Nd}/u;

export function passwordPolicyIssues(password: string, email: string): string[] {
  if (typeof password !== 'string') return ['Password must be a string.'];
  const issues: string[] = [];
  const normalized = password.normalize('NFKC');
  const chars = [...normalized];

  if (chars.length < PASSWORD_MIN_LENGTH) issues.push(`Password must be at least ${PASSWORD_MIN_LENGTH} characters long.`);
  if (chars.length > PASSWORD_MAX_LENGTH) issues.push(`Password must be at most ${PASSWORD_MAX_LENGTH} characters long.`);
  // Both forms: NFKC maps a few compatibility characters onto others, and never the other way into printable ones.
  if (NOT_PRINTABLE.test(password) || NOT_PRINTABLE.test(normalized)) {
    issues.push('Password must contain only printable characters (no control, format, separator, private-use, unassigned or surrogate code points).');
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
  const local = email.slice(0, at).normalize('NFKC').toLowerCase();
  const base = local.split('+')[0] ?? '';
  return [...new Set([local, base])].filter((part) => [...part].length >= MIN_LOCAL_PART_LENGTH);
}
