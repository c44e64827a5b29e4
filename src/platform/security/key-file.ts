/** Secret keys that live in the environment or, for the embedded default, in a file under DATA_DIR. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareDataDir, privateFile, writePrivateFileOnce } from './data-dir';

const KEY_BYTES = 32;

/**
 * A 32-byte secret key. When envValue is given (non-blank) it must be base64 (or base64url) of exactly 32
 * bytes. Otherwise <dataDir>/<fileName> is read, or created with 32 random bytes (stored as a base64 line, mode
 * 0600, directories created with mode 0700). Creation writes a temporary file and hard-links it into place, so two
 * processes starting together never see a half-written key and end up sharing the one that won.
 */
export function loadOrCreateKey(dataDir: string, fileName: string, envValue?: string, label = 'key'): Buffer {
  if (envValue !== undefined && envValue.trim() !== '') {
    const text = envValue.trim();
    // Node's base64 decoder also accepts the URL-safe alphabet; the pattern rejects anything else it would skip.
    const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
    if (key.length !== KEY_BYTES) {
      throw new Error(`${label} from the environment must be base64 of exactly ${KEY_BYTES} bytes (decoded ${key.length})`);
    }
    return key;
  }
  prepareDataDir(dataDir);
  const path = join(dataDir, fileName);
  const existing = readKeyFile(path);
  if (existing) {
    privateFile(path, { create: false }); // a key an earlier version left readable by others
    return existing;
  }

  // Another process may create the key first: then it is theirs that is used.
  writePrivateFileOnce(path, `${randomBytes(KEY_BYTES).toString('base64')}\n`);
  const key = readKeyFile(path);
  if (!key) throw new Error(`${label} file ${path} could not be read after creation`);
  return key;
}

/** The key in the file (a base64 line, or 32 raw bytes), null when the file does not exist; throws when it is invalid. */
/** The key from envValue or <dataDir>/<fileName> when either holds one; null otherwise (nothing is created). */
export function loadKeyIfPresent(dataDir: string, fileName: string, envValue?: string, label = 'key'): Buffer | null {
  if (envValue !== undefined && envValue.trim() !== '') return loadOrCreateKey(dataDir, fileName, envValue, label);
  return readKeyFile(join(dataDir, fileName));
}

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
    throw new Error(`key file ${path} must hold base64 of exactly ${KEY_BYTES} bytes`);
  }
  return key;
}
