/**
 * Authenticated encryption (AES-256-GCM) for small secrets, such as TOTP seeds, that must be recoverable but must not
 * sit in clear in event data. Sealed form: 'v1.<iv>.<tag>.<ciphertext>', each part base64url without padding, with a
 * fresh random 96-bit IV per seal. An optional context string (e.g. the account id) is bound as additional
 * authenticated data, so a sealed value copied onto another account does not open there.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]*$/;
export const IDENTITY_KEY_FILE = 'identity.key';

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) {
      throw new SecretBoxError(`SecretBox key must be ${KEY_BYTES} bytes`);
    }
    this.key = Buffer.from(key); // own copy: later changes to the caller's buffer must not change our key
  }

  seal(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${ciphertext.toString('base64url')}`;
  }

  /** Throws SecretBoxError when the value is malformed, was tampered with, or was sealed with another key/context. */
  open(sealed: string, context = ''): string {
    const parts = typeof sealed === 'string' ? sealed.split('.') : [];
    if (parts.length !== 4 || parts[0] !== VERSION || !parts.slice(1).every((part) => B64URL.test(part))) {
      throw new SecretBoxError('sealed secret is malformed');
    }
    const iv = Buffer.from(parts[1]!, 'base64url');
    const tag = Buffer.from(parts[2]!, 'base64url');
    const ciphertext = Buffer.from(parts[3]!, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('sealed secret is malformed');
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed secret failed authentication (tampered, or another key or context)');
    }
  }
}

/**
 * The identity encryption key. When envValue is given (non-blank) it must be base64 (or base64url) of exactly 32
 * bytes. Otherwise <dataDir>/identity.key is read, or created with 32 random bytes (stored as a base64 line, mode
 * 0600, directories created with mode 0700). Creation writes a temporary file and hard-links it into place, so two
 * processes starting together never see a half-written key and end up sharing the one that won.
 */
export function loadOrCreateKey(dataDir: string, envValue?: string): Buffer {
  if (envValue !== undefined && envValue.trim() !== '') {
    const text = envValue.trim();
    // Node's base64 decoder also accepts the URL-safe alphabet; the pattern rejects anything else it would skip.
    const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
    if (key.length !== KEY_BYTES) {
      throw new Error(`identity encryption key from the environment must be base64 of exactly ${KEY_BYTES} bytes (decoded ${key.length})`);
    }
    return key;
  }
  const path = join(dataDir, IDENTITY_KEY_FILE);
  const existing = readKeyFile(path);
  if (existing) return existing;

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(temp, 0o600); // the umask cannot add bits, but be explicit about the final mode
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process created the key first: use theirs.
  } finally {
    unlinkSync(temp);
  }
  const key = readKeyFile(path);
  if (!key) throw new Error(`identity encryption key file ${path} could not be read after creation`);
  return key;
}

/** The key in the file (a base64 line, or 32 raw bytes), null when the file does not exist; throws when it is invalid. */
function readKeyFile(path: string): Buffer | null {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (content.length === KEY_BYTES) return content;
  const text = content.toString('utf8').trim();
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) {
    throw new Error(`identity encryption key file ${path} must hold base64 of exactly ${KEY_BYTES} bytes`);
  }
  return key;
}
