/** scrypt hashing: PHC-like encoding, parameters read back from storage, malformed input never throws. */
import { scryptSync } from 'node:crypto';
import { PasswordHasher } from '../../../src/modules/identity/security/password-hasher';

const unpadded = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');

const FORMAT = /^scrypt\$ln=(\d+),r=(\d+),p=(\d+),nf=kc\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

describe('PasswordHasher', () => {
  const fast = new PasswordHasher(12); // low cost keeps the suite quick; production default is 17

  it('encodes scrypt$ln=…,r=8,p=1,nf=kc$<32-byte salt>$<64-byte key>', async () => {
    const stored = await fast.hash('Correct-Horse1');
    const m = FORMAT.exec(stored);
    expect(m).not.toBeNull();
    expect(m!.slice(1, 4)).toEqual(['12', '8', '1']);
    expect(Buffer.from(m![4]!, 'base64')).toHaveLength(32);
    expect(Buffer.from(m![5]!, 'base64')).toHaveLength(64);
  });

  it('round-trips and refuses a wrong password', async () => {
    const stored = await fast.hash('Correct-Horse1');
    await expect(fast.verify('Correct-Horse1', stored)).resolves.toBe(true);
    await expect(fast.verify('Correct-Horse2', stored)).resolves.toBe(false);
    await expect(fast.verify('', stored)).resolves.toBe(false);
  });

  it('salts: the same password hashes differently each time', async () => {
    const [a, b] = await Promise.all([fast.hash('Correct-Horse1'), fast.hash('Correct-Horse1')]);
    expect(a).not.toBe(b);
  });

  it('treats canonically equivalent Unicode passwords as the same', async () => {
    const stored = await fast.hash('Caf\u00e9-Password-1');
    await expect(fast.verify('Cafe\u0301-Password-1', stored)).resolves.toBe(true);
  });

  it('hashes the NFKC form and records it: compatibility forms match', async () => {
    const stored = await fast.hash('\ufb03-Horse-12'); // 'ﬃ' ligature
    expect(stored).toMatch(/^scrypt\$ln=\d+,r=8,p=1,nf=kc\$/);
    await expect(fast.verify('ffi-Horse-12', stored)).resolves.toBe(true);
    await expect(fast.verify('\uff46\uff46\uff49-Horse-12', stored)).resolves.toBe(true); // full-width 'ｆｆｉ'
    expect(fast.needsRehash(stored)).toBe(false);
  });

  it('still verifies a hash made before NFKC (no nf parameter) with the NFC form it was made from', async () => {
    // Made by the previous release: scrypt of NFC('ﬃ-Horse-12'), N=2^10, no nf parameter.
    const salt = Buffer.alloc(32, 7);
    const key = scryptSync('\ufb03-Horse-12'.normalize('NFC'), salt, 64, { N: 2 ** 10, r: 8, p: 1 });
    const legacy = `scrypt$ln=10,r=8,p=1$${unpadded(salt)}$${unpadded(key)}`;
    await expect(fast.verify('\ufb03-Horse-12', legacy)).resolves.toBe(true);
    await expect(fast.verify('Cafe-Horse-12', legacy)).resolves.toBe(false);
    // NFC keeps the ligature, so its NFKC spelling does not match the legacy hash: verification used NFC.
    await expect(fast.verify('ffi-Horse-12', legacy)).resolves.toBe(false);
    expect(fast.needsRehash(legacy)).toBe(true);
  });

  it('verifies with the parameters in the stored string, whatever the current cost', async () => {
    const stored = await new PasswordHasher(10).hash('Correct-Horse1');
    expect(stored.startsWith('scrypt$ln=10,r=8,p=1,nf=kc$')).toBe(true);
    await expect(fast.verify('Correct-Horse1', stored)).resolves.toBe(true);
    // Changing the recorded cost changes the derived key: the parameters are really used.
    await expect(fast.verify('Correct-Horse1', stored.replace('ln=10', 'ln=11'))).resolves.toBe(false);
    await expect(fast.verify('Correct-Horse1', stored.replace('r=8', 'r=4'))).resolves.toBe(false);
  });

  it('reports hashes that need re-hashing', async () => {
    const current = await fast.hash('Correct-Horse1');
    expect(fast.needsRehash(current)).toBe(false);
    expect(fast.needsRehash(await new PasswordHasher(10).hash('Correct-Horse1'))).toBe(true);
    expect(new PasswordHasher(13).needsRehash(current)).toBe(true);
    expect(fast.needsRehash('garbage')).toBe(true);
  });

  it('returns false, without throwing, for malformed stored values', async () => {
    const good = await fast.hash('Correct-Horse1');
    const [, params, salt, key] = good.split('$') as [string, string, string, string];
    const malformed: unknown[] = [
      '',
      'garbage',
      null,
      undefined,
      42,
      `argon2id$${params}$${salt}$${key}`,
      `scrypt$${params}$${salt}`,
      `scrypt$${params}$${salt}$${key}$extra`,
      `scrypt$ln=12,r=8$${salt}$${key}`,
      `scrypt$ln=40,r=8,p=1$${salt}$${key}`, // cost beyond the accepted bound: refused, not attempted
      `scrypt$ln=0,r=8,p=1$${salt}$${key}`,
      `scrypt$ln=12,r=0,p=1$${salt}$${key}`,
      `scrypt$ln=12,r=99,p=1$${salt}$${key}`,
      `scrypt$${params}$${salt}$${key}!!`,
      `scrypt$${params}$${salt}=$${key}`,
      `scrypt$${params}$${salt}$`,
      `scrypt$${params}$AAAA$${key}`, // salt too short
      `scrypt$${params}$${salt}$AAAA`, // key too short
      'x'.repeat(5000),
    ];
    for (const stored of malformed) {
      await expect(fast.verify('Correct-Horse1', stored as string)).resolves.toBe(false);
    }
    await expect(fast.verify(undefined as unknown as string, good)).resolves.toBe(false);
  });

  it('dummyVerify always resolves false and does comparable work', async () => {
    await expect(fast.dummyVerify('Correct-Horse1')).resolves.toBe(false);
    await expect(fast.dummyVerify(undefined as unknown as string)).resolves.toBe(false);
    // Cost tracks the configured work factor: a much cheaper hasher's dummy is much faster than ours.
    const stored = await fast.hash('Correct-Horse1');
    const time = async (run: () => Promise<unknown>) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 5; i += 1) await run();
      return Number(process.hrtime.bigint() - start);
    };
    const real = await time(() => fast.verify('wrong-password', stored));
    const dummy = await time(() => fast.dummyVerify('wrong-password'));
    const cheap = await time(() => new PasswordHasher(4).dummyVerify('wrong-password'));
    expect(dummy).toBeGreaterThan(real / 4);
    expect(dummy).toBeLessThan(real * 4);
    expect(cheap).toBeLessThan(dummy);
  });

  it('rejects an out-of-range cost at construction', () => {
    expect(() => new PasswordHasher(0)).toThrow(RangeError);
    expect(() => new PasswordHasher(21)).toThrow(RangeError);
    expect(() => new PasswordHasher(12.5)).toThrow(RangeError);
  });

  it('defaults to OWASP cost N=2^17 and can hash at that cost (maxmem is sufficient)', async () => {
    const owasp = new PasswordHasher();
    const stored = await owasp.hash('Correct-Horse1');
    expect(stored.startsWith('scrypt$ln=17,r=8,p=1,nf=kc$')).toBe(true);
    await expect(owasp.verify('Correct-Horse1', stored)).resolves.toBe(true);
    expect(owasp.needsRehash(stored)).toBe(false);
  });
});
