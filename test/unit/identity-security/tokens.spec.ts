/** Tokens, token hashes, constant-time comparison, recovery codes and contact hints. */
import { createHash } from 'node:crypto';
import {
  hashToken,
  maskEmail,
  maskPhone,
  newRecoveryCodes,
  newToken,
  normalizeRecoveryCode,
  RECOVERY_ALPHABET,
  sameSecret,
} from '../../../src/modules/identity/security/tokens';

describe('newToken', () => {
  it.each(['hcat_', 'hcsu_', 'hcct_', 'hcs_', 'custom-'])('prefix %p + 43 base64url characters (256 bits)', (prefix) => {
    const token = newToken(prefix);
    expect(token.startsWith(prefix)).toBe(true);
    const body = token.slice(prefix.length);
    expect(body).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(body, 'base64url')).toHaveLength(32);
  });

  it('never repeats and spreads over the alphabet', () => {
    const tokens = Array.from({ length: 2000 }, () => newToken('hcs_'));
    expect(new Set(tokens).size).toBe(tokens.length);
    const symbols = new Set(tokens.join('').replace(/hcs_/g, ''));
    expect(symbols.size).toBe(64);
  });
});

describe('hashToken', () => {
  it('is lowercase hex SHA-256 of the UTF-8 token', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const token = newToken('hcat_');
    expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('sameSecret', () => {
  it('compares exactly', () => {
    const h = hashToken('x');
    expect(sameSecret(h, h.slice())).toBe(true);
    expect(sameSecret(h, hashToken('y'))).toBe(false);
    expect(sameSecret(h, h.toUpperCase())).toBe(false);
    expect(sameSecret(h, h.slice(0, -1))).toBe(false);
    expect(sameSecret('', '')).toBe(true);
    expect(sameSecret('a', '')).toBe(false);
    expect(sameSecret('é', 'e\u0301')).toBe(false); // no normalisation: secrets are bytes
  });

  it('is false for non-strings', () => {
    expect(sameSecret(undefined as unknown as string, undefined as unknown as string)).toBe(false);
    expect(sameSecret(null as unknown as string, 'null')).toBe(false);
  });
});

describe('recovery codes', () => {
  it('makes ten distinct xxxx-xxxx-xxxx codes from a 32-symbol alphabet (60 bits each)', () => {
    expect(RECOVERY_ALPHABET).toHaveLength(32);
    expect(new Set(RECOVERY_ALPHABET).size).toBe(32);
    expect(RECOVERY_ALPHABET).not.toMatch(/[ilou]/);
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}$/);
    expect(12 * Math.log2(RECOVERY_ALPHABET.length)).toBeGreaterThanOrEqual(60);
  });

  it('honours the count and uses every symbol', () => {
    expect(newRecoveryCodes(0)).toEqual([]);
    const many = newRecoveryCodes(100);
    expect(many).toHaveLength(100);
    expect(new Set(many.join('').replace(/-/g, '')).size).toBe(32);
    expect(() => newRecoveryCodes(-1)).toThrow(RangeError);
    expect(() => newRecoveryCodes(1.5)).toThrow(RangeError);
  });

  it('normalizes what people type to the canonical form', () => {
    const [code] = newRecoveryCodes(1) as [string];
    expect(normalizeRecoveryCode(code)).toBe(code);
    expect(normalizeRecoveryCode(code.toUpperCase())).toBe(code);
    expect(normalizeRecoveryCode(code.replace(/-/g, ''))).toBe(code);
    expect(normalizeRecoveryCode(` ${code.replace(/-/g, ' ')} `)).toBe(code);
    expect(normalizeRecoveryCode('O0IL-abcd-efgh')).toBe('0011-abcd-efgh'); // look-alikes mapped
  });

  it.each(['', 'abcd-efgh', 'abcd-efgh-jkmn-p', 'abcd-efgh-jkmu', 'abcd_efgh_jkmn', 'abcd-efgh-jkm!', 'x'.repeat(100)])(
    'refuses %p',
    (input) => {
      expect(normalizeRecoveryCode(input)).toBeNull();
    },
  );

  it('hashes equal for every typed variant of a code', () => {
    const [code] = newRecoveryCodes(1) as [string];
    expect(hashToken(normalizeRecoveryCode(code.toUpperCase().replace(/-/g, ''))!)).toBe(hashToken(code));
  });
});

describe('maskEmail', () => {
  it.each([
    ['alice@example.com', 'a***e@e***.com'],
    ['bo@mail.example.co.uk', 'b***@m***.uk'],
    ['x@y.io', 'x***@y***.io'],
    ['first.last+tag@localhost', 'f***g@l***'],
    ['émile@exämple.de', 'é***e@e***.de'],
    ['not-an-email', '***'],
    ['@example.com', '***'],
    ['alice@', '***'],
  ])('%p → %p', (email, masked) => {
    expect(maskEmail(email)).toBe(masked);
  });
});

describe('maskPhone', () => {
  it.each([
    ['+4915112345678', '+49******5678'],
    ['+1 (555) 010-9999', '+15******9999'],
    ['015112345678', '01******5678'],
    ['+1234567', '+******67'],
    ['12', '******'],
    ['', '******'],
  ])('%p → %p', (phone, masked) => {
    expect(maskPhone(phone)).toBe(masked);
  });

  it('does not reveal the length of the number', () => {
    expect(maskPhone('+4915112345678')).toHaveLength(maskPhone('+491511234567890').length);
  });
});
