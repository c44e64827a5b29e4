/**
 * Bearer-style secrets and their storage: tokens carry 256 random bits behind a readable prefix (hcat_ activation,
 * hcsu_ step-up, hcct_ contact change, hcs_ session, hcti_ tenant invitation), are stored only as SHA-256 hashes, and are compared in
 * constant time. Also single-use recovery codes and the masked hints shown instead of contact details.
 */
import { randomBytes } from 'node:crypto';
import { hashToken, newToken, sameSecret } from '../../../platform/security/tokens';

export { hashToken, newToken, sameSecret };
export type TokenPrefix = 'hcat_' | 'hcsu_' | 'hcct_' | 'hcs_' | 'hcti_';

/**
 * Crockford's Base32 alphabet (no i, l, o, u): 32 symbols, 5 bits each, so a code of 12 symbols carries 60 bits.
 * Codes are shown as 'xxxx-xxxx-xxxx' in lower case.
 */
export const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const RECOVERY_SYMBOLS = 12;
const RECOVERY_GROUP = 4;

/** `count` distinct single-use recovery codes (default ten, the seeds' number). Store hashToken(code) only. */
export function newRecoveryCodes(count = 10): string[] {
  if (!Number.isInteger(count) || count < 0 || count > 100) throw new RangeError('recovery code count must be 0 to 100');
  const codes = new Set<string>();
  while (codes.size < count) {
    // 256 is a multiple of 32, so taking the low 5 bits of each random byte is unbiased.
    const symbols = [...randomBytes(RECOVERY_SYMBOLS)].map((byte) => RECOVERY_ALPHABET[byte & 31]).join('');
    codes.add(groupRecovery(symbols));
  }
  return [...codes];
}

/**
 * Canonical form of a code as typed by a person ('xxxx-xxxx-xxxx'), or null when it cannot be one: case, spaces and
 * hyphens are ignored, and Crockford's look-alikes are mapped (o → 0, i and l → 1). Hash the canonical form.
 */
export function normalizeRecoveryCode(code: string): string | null {
  if (typeof code !== 'string' || code.length > 64) return null;
  const symbols = code
    .toLowerCase()
    .replace(/[\s-]+/g, '')
    .replace(/o/g, '0')
    .replace(/[il]/g, '1');
  if (symbols.length !== RECOVERY_SYMBOLS || ![...symbols].every((c) => RECOVERY_ALPHABET.includes(c))) return null;
  return groupRecovery(symbols);
}

function groupRecovery(symbols: string): string {
  const groups: string[] = [];
  for (let i = 0; i < symbols.length; i += RECOVERY_GROUP) groups.push(symbols.slice(i, i + RECOVERY_GROUP));
  return groups.join('-');
}

/**
 * Email hint: local part → first character + '***' + last character (just first + '***' when it has at most two
 * characters); domain → first character of the part before the last dot + '***' + the last dot and TLD.
 * 'alice@example.com' → 'a***e@e***.com', 'bo@mail.example.co.uk' → 'b***@m***.uk'. Not an email → '***'.
 */
export function maskEmail(email: string): string {
  if (typeof email !== 'string') return '***';
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return '***';
  const local = [...email.slice(0, at)];
  const domain = email.slice(at + 1);
  const maskedLocal = local.length <= 2 ? `${local[0]}***` : `${local[0]}***${local[local.length - 1]}`;
  const dot = domain.lastIndexOf('.');
  const maskedDomain = dot > 0 ? `${[...domain][0]}***${domain.slice(dot)}` : `${[...domain][0]}***`;
  return `${maskedLocal}@${maskedDomain}`;
}

/**
 * Phone hint: the leading '+' if present, the first two digits, six '*' whatever the real length, and the last four
 * digits: '+4915112345678' → '+49******5678'. With fewer than eight digits only the last two are kept
 * ('+1234567' → '+******67'); with fewer than three digits nothing is ('******'). Separators are dropped.
 */
export function maskPhone(phone: string): string {
  if (typeof phone !== 'string') return '******';
  const plus = phone.trim().startsWith('+') ? '+' : '';
  const digits = phone.replace(/\D/g, '');
  if (digits.length >= 8) return `${plus}${digits.slice(0, 2)}******${digits.slice(-4)}`;
  if (digits.length >= 3) return `${plus}******${digits.slice(-2)}`;
  return '******';
}
