/** AES-256-GCM secret box and the identity key file. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadOrCreateKey, SecretBox, SecretBoxError } from '../../../src/modules/identity/security/secret-box';

const SEALED = /^v1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)$/;

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips, with a fresh IV each time', () => {
    const a = box.seal('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    const b = box.seal('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(a).not.toBe(b);
    expect(box.open(a)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(box.open(b)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(box.open(box.seal(''))).toBe('');
    expect(box.open(box.seal('ünïcode ✓ 😀'))).toBe('ünïcode ✓ 😀');
  });

  it("has the 'v1.<iv>.<tag>.<ct>' shape and does not contain the plaintext", () => {
    const sealed = box.seal('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    const m = SEALED.exec(sealed);
    expect(m).not.toBeNull();
    expect(Buffer.from(m![1]!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(m![2]!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(m![3]!, 'base64url')).toHaveLength(32);
    expect(sealed).not.toContain('GEZDGNBV');
  });

  it('detects tampering with any part', () => {
    const sealed = box.seal('secret value');
    const parts = sealed.split('.');
    for (const index of [1, 2, 3]) {
      const bytes = Buffer.from(parts[index]!, 'base64url');
      bytes[0] ^= 0x01;
      const tampered = [...parts];
      tampered[index] = bytes.toString('base64url');
      expect(() => box.open(tampered.join('.'))).toThrow(SecretBoxError);
    }
    expect(() => box.open(sealed.slice(0, -2))).toThrow(SecretBoxError); // truncated ciphertext
  });

  it('refuses another key and another context', () => {
    const sealed = box.seal('secret value', 'account-1');
    expect(box.open(sealed, 'account-1')).toBe('secret value');
    expect(() => box.open(sealed, 'account-2')).toThrow(/failed authentication/);
    expect(() => box.open(sealed)).toThrow(/failed authentication/);
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'account-1')).toThrow(/failed authentication/);
  });

  it.each(['', 'v1', 'v2.AAAA.AAAA.AAAA', 'v1.AAAA.AAAA', 'v1.a b.c.d', 'v1.AAAAAAAAAAAAAAAA.AAAA.AAAA', 'v1...'])(
    'refuses malformed %p',
    (sealed) => {
      expect(() => box.open(sealed)).toThrow(/malformed/);
    },
  );

  it('requires a 32-byte key and keeps its own copy', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow(SecretBoxError);
    expect(() => new SecretBox('x'.repeat(32) as unknown as Buffer)).toThrow(SecretBoxError);
    const key = randomBytes(32);
    const own = new SecretBox(key);
    const sealed = own.seal('v');
    key.fill(0);
    expect(own.open(sealed)).toBe('v');
  });
});

describe('loadOrCreateKey', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'identity-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates <dataDir>/identity.key (mode 0600, directories created) and reuses it', () => {
    const dataDir = join(dir, 'nested', 'data');
    const key = loadOrCreateKey(dataDir);
    expect(key).toHaveLength(32);
    const file = join(dataDir, 'identity.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(key)).toBe(true);
    expect(loadOrCreateKey(dataDir).equals(key)).toBe(true);
    expect(readdirSync(dataDir)).toEqual(['identity.key']); // no temporary files left behind
    // A box built from the reloaded key opens what the first one sealed.
    expect(new SecretBox(loadOrCreateKey(dataDir)).open(new SecretBox(key).seal('x'))).toBe('x');
  });

  it('uses the environment value when given, without touching the file', () => {
    const raw = randomBytes(32);
    expect(loadOrCreateKey(dir, raw.toString('base64')).equals(raw)).toBe(true);
    expect(loadOrCreateKey(dir, ` ${raw.toString('base64url')}\n`).equals(raw)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('falls back to the file for a blank environment value', () => {
    const key = loadOrCreateKey(dir, '  ');
    expect(loadOrCreateKey(dir).equals(key)).toBe(true);
  });

  it.each([randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), 'not base64 at all!'])(
    'throws a clear error for an environment value that is not 32 bytes: %p',
    (value) => {
      expect(() => loadOrCreateKey(dir, value)).toThrow(/base64 of exactly 32 bytes/);
    },
  );

  it('accepts a raw 32-byte key file and refuses an invalid one', () => {
    const raw = randomBytes(32);
    writeFileSync(join(dir, 'identity.key'), raw, { mode: 0o600 });
    expect(loadOrCreateKey(dir).equals(raw)).toBe(true);
    writeFileSync(join(dir, 'identity.key'), 'short\n');
    expect(() => loadOrCreateKey(dir)).toThrow(/must hold base64 of exactly 32 bytes/);
  });
});
