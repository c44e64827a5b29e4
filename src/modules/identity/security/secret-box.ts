/**
 * Authenticated encryption (AES-256-GCM) for small secrets, such as TOTP seeds, that must be recoverable but must not
 * sit in clear in event data. Sealed form: 'v1.<iv>.<tag>.<ciphertext>', each part base64url without padding, with a
 * fresh random 96-bit IV per seal. An optional context string (e.g. the account id) is bound as additional
 * authenticated data, so a sealed value copied onto another account does not open there.
 */
import { loadOrCreateKey as loadPlatformKey } from '../../../platform/security/key-file';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

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

/** The identity encryption key: IDENTITY_SECRET_KEY, or `<dataDir>/identity.key` created on first start. */
export function loadOrCreateKey(dataDir: string, envValue?: string): Buffer {
  return loadPlatformKey(dataDir, IDENTITY_KEY_FILE, envValue, 'identity encryption key');
}
