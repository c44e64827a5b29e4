/**
 * Memory-hard password hashing with Node's scrypt, OWASP parameters (N=2^17, r=8, p=1), stored in a PHC-like string:
 *   scrypt$ln=17,r=8,p=1$<salt base64, unpadded>$<key base64, unpadded>
 * verify() reads the parameters from the stored string, so hashes made with other costs (tests, older settings) still
 * verify, and needsRehash() tells the caller to re-hash on the next successful login.
 * Passwords are NFKC-normalised before hashing (NIST SP 800-63B 5.1.1.2), so the same password typed on different
 * systems, or with a compatibility form of a character (full-width letters, ligatures), matches. Hashes made before
 * NFKC carry no `nf` parameter and were made from the NFC form: they keep verifying that way, and needsRehash() is
 * true for them. New hashes record `nf=kc`:
 *   scrypt$ln=17,r=8,p=1,nf=kc$<salt>$<key>
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const SCHEME = 'scrypt';
const BLOCK_SIZE = 8; // r
const PARALLELISM = 1; // p
const SALT_BYTES = 32;
const KEY_BYTES = 64;
// Bounds for parameters read back from storage: a corrupted or hostile string must not make us allocate gigabytes.
const MIN_LN = 1;
const MAX_LN = 20;
const MAX_R = 32;
const MAX_P = 16;
const MIN_SALT_BYTES = 16;
const MIN_KEY_BYTES = 16;
const MAX_KEY_BYTES = 128;
const B64 = /^[A-Za-z0-9+/]+$/;

/** The Unicode normalisation a stored hash was made from: NFKC today, NFC for hashes made before it. */
type Normalization = 'NFKC' | 'NFC';

interface ScryptParams {
  normalization: Normalization;
  ln: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

export class PasswordHasher {
  private dummySalt: Buffer | undefined;

  constructor(private readonly costLog2 = 17) {
    if (!Number.isInteger(costLog2) || costLog2 < MIN_LN || costLog2 > MAX_LN) {
      throw new RangeError(`scrypt cost log2 must be an integer from ${MIN_LN} to ${MAX_LN}, got ${costLog2}`);
    }
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await derive(password, 'NFKC', salt, this.costLog2, BLOCK_SIZE, PARALLELISM, KEY_BYTES);
    return `${SCHEME}$ln=${this.costLog2},r=${BLOCK_SIZE},p=${PARALLELISM},nf=kc$${b64(salt)}$${b64(key)}`;
  }

  /** true only when the password matches; a malformed stored value yields false, never an exception. */
  async verify(password: string, stored: string): Promise<boolean> {
    const params = parse(stored);
    if (!params || typeof password !== 'string') return false;
    try {
      const key = await derive(password, params.normalization, params.salt, params.ln, params.r, params.p, params.key.length);
      return timingSafeEqual(key, params.key);
    } catch {
      return false;
    }
  }

  /** Performs the same work as verify() at the current cost, for unknown accounts, so timing does not reveal them. */
  async dummyVerify(password: string): Promise<false> {
    this.dummySalt ??= randomBytes(SALT_BYTES);
    const expected = Buffer.alloc(KEY_BYTES);
    try {
      const key = await derive(typeof password === 'string' ? password : '', 'NFKC', this.dummySalt, this.costLog2, BLOCK_SIZE, PARALLELISM, KEY_BYTES);
      timingSafeEqual(key, expected);
    } catch {
      // Same outcome as a failed verify.
    }
    return false;
  }

  /** true when the stored value is malformed or was made with parameters other than the current ones. */
  needsRehash(stored: string): boolean {
    const params = parse(stored);
    return (
      !params ||
      params.normalization !== 'NFKC' ||
      params.ln !== this.costLog2 ||
      params.r !== BLOCK_SIZE ||
      params.p !== PARALLELISM ||
      params.salt.length !== SALT_BYTES ||
      params.key.length !== KEY_BYTES
    );
  }
}

function derive(password: string, normalization: Normalization, salt: Buffer, ln: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  const N = 2 ** ln;
  // Node's default maxmem (32 MiB) is below what N=2^17, r=8 needs (128 * N * r = 128 MiB); allow twice that.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize(normalization), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function parse(stored: unknown): ScryptParams | null {
  if (typeof stored !== 'string' || stored.length > 1024) return null;
  const parts = stored.split('$');
  if (parts.length !== 4 || parts[0] !== SCHEME) return null;
  const [, paramText, saltText, keyText] = parts as [string, string, string, string];
  const match = /^ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})(,nf=kc)?$/.exec(paramText);
  if (!match) return null;
  const ln = Number(match[1]);
  const r = Number(match[2]);
  const p = Number(match[3]);
  if (ln < MIN_LN || ln > MAX_LN || r < 1 || r > MAX_R || p < 1 || p > MAX_P) return null;
  const salt = unb64(saltText);
  const key = unb64(keyText);
  if (!salt || !key || salt.length < MIN_SALT_BYTES || key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) return null;
  return { normalization: match[4] ? 'NFKC' : 'NFC', ln, r, p, salt, key };
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}

/** Strict decoding: Buffer.from(…, 'base64') silently skips junk, so require a canonical round trip. */
function unb64(text: string): Buffer | null {
  if (!B64.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return b64(bytes) === text ? bytes : null;
}
