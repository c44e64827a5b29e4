/** TOTP on otplib: RFC 6238 Appendix B SHA-1 vectors, ±1 step window, returned step, the otpauth URI. */
import {
  isTotpSecret,
  matchTotp,
  newTotpSecret,
  otpauthUri,
  totpCode,
  totpStep,
} from '../../../src/modules/identity/security/totp';

// RFC 6238's SHA-1 seed is the ASCII string '12345678901234567890'; this is its Base32 form.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const s = (seconds: number) => seconds * 1000;

describe('TOTP', () => {
  it('uses the RFC secret encoding', () => {
    expect(Buffer.from('12345678901234567890').length).toBe(20);
    expect(isTotpSecret(RFC_SECRET)).toBe(true);
  });

  it.each([
    [59, '287082'], // 8-digit vector 94287082
    [1111111109, '081804'], // 07081804
    [1111111111, '050471'], // 14050471
    [1234567890, '005924'], // 89005924
    [2000000000, '279037'], // 69279037
    [20000000000, '353130'], // 65353130
  ])('RFC 6238 Appendix B, T=%p → %p (last six digits of the SHA-1 vector)', (seconds, code) => {
    expect(totpCode(RFC_SECRET, s(seconds))).toBe(code);
    expect(matchTotp(code, RFC_SECRET, s(seconds))).toBe(Math.floor(seconds / 30));
  });

  it('matches within ±1 step and reports the step the code belongs to', () => {
    const t = s(1234567890); // step 41152263
    const step = Math.floor(1234567890 / 30);
    expect(totpStep(t)).toBe(step);
    const previous = totpCode(RFC_SECRET, t - s(30));
    const next = totpCode(RFC_SECRET, t + s(30));
    const twoAgo = totpCode(RFC_SECRET, t - s(60));
    const twoAhead = totpCode(RFC_SECRET, t + s(60));
    expect(matchTotp('005924', RFC_SECRET, t)).toBe(step);
    expect(matchTotp(previous, RFC_SECRET, t)).toBe(step - 1);
    expect(matchTotp(next, RFC_SECRET, t)).toBe(step + 1);
    expect(matchTotp(twoAgo, RFC_SECRET, t)).toBeNull();
    expect(matchTotp(twoAhead, RFC_SECRET, t)).toBeNull();
  });

  it('the same code keeps matching the same step as time moves within the window (so replays are detectable)', () => {
    const t = s(1234567890);
    const step = Math.floor(1234567890 / 30);
    expect(matchTotp('005924', RFC_SECRET, t + s(30))).toBe(step);
    expect(matchTotp('005924', RFC_SECRET, t - s(30))).toBe(step);
    expect(matchTotp('005924', RFC_SECRET, t + s(60))).toBeNull();
  });

  it('afterStep refuses codes of already-used steps', () => {
    const t = s(1234567890);
    const step = Math.floor(1234567890 / 30);
    expect(matchTotp('005924', RFC_SECRET, t, step - 1)).toBe(step);
    expect(matchTotp('005924', RFC_SECRET, t, step)).toBeNull();
    const next = totpCode(RFC_SECRET, t + s(30));
    expect(matchTotp(next, RFC_SECRET, t, step)).toBe(step + 1);
  });

  it('accepts spaces in the code and refuses malformed codes or secrets', () => {
    const t = s(1234567890);
    expect(matchTotp('005 924', RFC_SECRET, t)).toBe(41152263);
    expect(matchTotp(' 005924 ', RFC_SECRET, t)).toBe(41152263);
    for (const bad of ['05924', '0059245', '00592a', '', '５５５５５５', '-05924', '00592.4']) {
      expect(matchTotp(bad, RFC_SECRET, t)).toBeNull();
    }
    expect(matchTotp(undefined as unknown as string, RFC_SECRET, t)).toBeNull();
    // otplib would derive some key from any string; these are refused instead.
    for (const secret of ['', 'ABC', 'not base32!!', 'gezdgnbvgy3tqojqgezdgnbvgy3tqojq']) {
      expect(isTotpSecret(secret)).toBe(false);
      expect(matchTotp('005924', secret, t)).toBeNull();
      expect(() => totpCode(secret, t)).toThrow(/Base32/);
    }
    expect(matchTotp('005924', RFC_SECRET, Number.NaN)).toBeNull();
  });

  it('does not look before step 0', () => {
    const code = totpCode(RFC_SECRET, 0);
    expect(matchTotp(code, RFC_SECRET, 0)).toBe(0);
    expect(matchTotp(code, RFC_SECRET, s(10))).toBe(0);
  });

  it('creates 160-bit Base32 secrets that work', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/); // 32 × 5 bits = 160 bits
    expect(newTotpSecret()).not.toBe(secret);
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(matchTotp(totpCode(secret, now), secret, now)).toBe(totpStep(now));
  });

  it('builds an otpauth URI that authenticator apps read as SHA-1, 6 digits, 30 s', () => {
    const uri = new URL(otpauthUri(RFC_SECRET, 'alice@example.com', 'Hydra Platform'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Hydra Platform:alice@example.com');
    expect(uri.searchParams.get('secret')).toBe(RFC_SECRET);
    expect(uri.searchParams.get('issuer')).toBe('Hydra Platform');
    // Key URI format: absent parameters mean SHA1, 6 digits, 30 s; present ones must say exactly that.
    expect(uri.searchParams.get('algorithm') ?? 'SHA1').toBe('SHA1');
    expect(uri.searchParams.get('digits') ?? '6').toBe('6');
    expect(uri.searchParams.get('period') ?? '30').toBe('30');
  });

  it('verifies codes of a secret stored before the otplib 13 upgrade (Base32 as RFC 4648, unpadded or padded)', () => {
    // Secrets are 160 random bits as 32 Base32 characters, as otplib 12 made them: the RFC key decodes as before.
    expect(matchTotp('287082', 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', s(59))).toBe(1);
    // Padding is accepted and means the same key (128 bits: 26 characters and 6 '='); 970934 is HOTP(key, 1) by Python's hmac.
    expect(totpCode('GEZDGNBVGY3TQOJQGEZDGNBVGY', s(59))).toBe('970934');
    expect(totpCode('GEZDGNBVGY3TQOJQGEZDGNBVGY======', s(59))).toBe('970934');
    expect(isTotpSecret('GEZDGNBVGY3TQOJQGEZDGNBVG')).toBe(false); // 25 characters: under 128 bits
  });
});
