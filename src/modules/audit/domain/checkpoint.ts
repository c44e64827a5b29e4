/**
 * Signed checkpoints: every N events or T seconds the platform signs where the global chain stands, so the log can
 * be checked against a statement held outside the store (the HTTP endpoint, the Kafka topic, an auditor's file).
 *
 * The statement (v2, what the platform signs now) is the object
 *   { "alg": "audit-checkpoint-v2", "position", "event_count", "global_commitment", "tree_size", "root_hash",
 *     "created_at", "key_id" }
 * where `tree_size` equals `event_count` and `root_hash` is the RFC 9162 Merkle tree head of the log's first
 * `tree_size` events (merkle.ts, docs/audit.md 1.7), against which inclusion and consistency proofs are checked.
 * v1 (`audit-checkpoint-v1`, the same without `tree_size` and `root_hash`) is what earlier versions signed; a log
 * holding v1 checkpoints still verifies. The signature is Ed25519 (RFC 8032, pure) over the UTF-8 bytes of the
 * statement's RFC 8785 canonical JSON (exactly the statement's members). `public_key`
 * is the raw 32-byte public key in base64url (a JWK's `x`), `key_id` its RFC 7638 JWK thumbprint (base64url SHA-256
 * of `{"crv":"Ed25519","kty":"OKP","x":"<public_key>"}`), `signature` the 64-byte signature in base64url. The signed
 * checkpoint is the statement plus `public_key` and `signature`; it is what the checkpoint event's data holds, what
 * `GET /api/v1/audit/checkpoints/latest` answers and what `audit verify --checkpoint` reads. Pure (Node's crypto).
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../../../platform/commitments/commitment';

/** What earlier versions signed: the global chain only. */
export const CHECKPOINT_ALG_V1 = 'audit-checkpoint-v1';
/** What the platform signs: the global chain and the Merkle tree head. */
export const CHECKPOINT_ALG = 'audit-checkpoint-v2';
/** The stream the checkpoints are appended to (chained like every stream, and part of the global chain). */
export const CHECKPOINT_STREAM = 'audit-checkpoints';
export const CHECKPOINT_EVENT_TYPE = 'AuditCheckpointRecorded';

interface CheckpointStatementMembers {
  /** Global position of the last event the checkpoint covers (decimal). */
  position: string;
  /** How many events of the log the checkpoint covers, that event included (decimal). */
  event_count: string;
  /** The global chain's commitment at that event. */
  global_commitment: string;
  created_at: string;
  key_id: string;
}

export interface CheckpointStatementV1 extends CheckpointStatementMembers {
  alg: typeof CHECKPOINT_ALG_V1;
}

export interface CheckpointStatementV2 extends CheckpointStatementMembers {
  alg: typeof CHECKPOINT_ALG;
  /** The Merkle tree's size: the number of leaves, equal to `event_count` (decimal). */
  tree_size: string;
  /** RFC 9162 MTH of the first `tree_size` events' leaves (64 lowercase hex). */
  root_hash: string;
}

export type CheckpointStatement = CheckpointStatementV1 | CheckpointStatementV2;

interface Signature {
  public_key: string;
  signature: string;
}

export type SignedCheckpointV1 = CheckpointStatementV1 & Signature;
export type SignedCheckpointV2 = CheckpointStatementV2 & Signature;
export type SignedCheckpoint = SignedCheckpointV1 | SignedCheckpointV2;

export interface CheckpointSigningKey {
  privateKey: KeyObject;
  public_key: string;
  key_id: string;
}

/** DER prefix of a PKCS #8 Ed25519 private key (RFC 8410): the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function keyIdOf(publicKey: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${publicKey}"}`).digest('base64url');
}

/** The signing key from its 32-byte seed (what AUDIT_SIGNING_KEY and DATA_DIR/audit-signing.key hold). */
export function signingKeyFromSeed(seed: Buffer): CheckpointSigningKey {
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const public_key = createPublicKey(privateKey).export({ format: 'jwk' }).x as string;
  return { privateKey, public_key, key_id: keyIdOf(public_key) };
}

/** The bytes the signature covers: the statement's members only, by its `alg`. */
export function signedBytes(statement: CheckpointStatement): Buffer {
  const { alg, position, event_count, global_commitment, created_at, key_id } = statement;
  const members =
    statement.alg === CHECKPOINT_ALG
      ? { alg, position, event_count, global_commitment, tree_size: statement.tree_size, root_hash: statement.root_hash, created_at, key_id }
      : { alg, position, event_count, global_commitment, created_at, key_id };
  return Buffer.from(canonicalJson(members), 'utf8');
}

/** Signs a v2 checkpoint: the global chain and the Merkle tree head at the same event (`event_count` leaves). */
export function signCheckpoint(
  at: { position: bigint; event_count: bigint; global_commitment: string; root_hash: string; created_at: string },
  key: CheckpointSigningKey,
): SignedCheckpointV2 {
  const statement: CheckpointStatementV2 = {
    alg: CHECKPOINT_ALG,
    position: at.position.toString(),
    event_count: at.event_count.toString(),
    global_commitment: at.global_commitment,
    tree_size: at.event_count.toString(),
    root_hash: at.root_hash,
    created_at: at.created_at,
    key_id: key.key_id,
  };
  return { ...statement, public_key: key.public_key, signature: sign(null, signedBytes(statement), key.privateKey).toString('base64url') };
}

/** Signs a v1 checkpoint: only to make the logs of earlier versions in tests and vectors. */
export function signCheckpointV1(
  at: { position: bigint; event_count: bigint; global_commitment: string; created_at: string },
  key: CheckpointSigningKey,
): SignedCheckpointV1 {
  const statement: CheckpointStatementV1 = {
    alg: CHECKPOINT_ALG_V1,
    position: at.position.toString(),
    event_count: at.event_count.toString(),
    global_commitment: at.global_commitment,
    created_at: at.created_at,
    key_id: key.key_id,
  };
  return { ...statement, public_key: key.public_key, signature: sign(null, signedBytes(statement), key.privateKey).toString('base64url') };
}

/** The Merkle tree head a checkpoint signs (null: a v1 checkpoint, which signs none). */
export function treeHeadOf(cp: SignedCheckpoint): { tree_size: string; root_hash: string } | null {
  return cp.alg === CHECKPOINT_ALG ? { tree_size: cp.tree_size, root_hash: cp.root_hash } : null;
}

const B64URL = /^[A-Za-z0-9_-]+$/;
const DECIMAL = /^(0|[1-9]\d{0,19})$/;
const HEX64 = /^[0-9a-f]{64}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** Unpadded base64url of exactly `bytes` bytes, in its one canonical spelling. */
function isBase64url(s: string, bytes: number): boolean {
  if (!B64URL.test(s)) return false;
  const decoded = Buffer.from(s, 'base64url');
  return decoded.length === bytes && decoded.toString('base64url') === s;
}

/** The problems of a value that should be a signed checkpoint (empty when it has the shape). */
export function checkpointShapeProblems(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return ['not a JSON object'];
  const v = value as Record<string, unknown>;
  const problems: string[] = [];
  const need = (field: string, ok: (s: string) => boolean, what: string): void => {
    if (typeof v[field] !== 'string' || !ok(v[field] as string)) problems.push(`${field} must be ${what}`);
  };
  need('alg', (s) => s === CHECKPOINT_ALG || s === CHECKPOINT_ALG_V1, `"${CHECKPOINT_ALG}" (or "${CHECKPOINT_ALG_V1}")`);
  need('position', (s) => DECIMAL.test(s), 'a decimal string');
  need('event_count', (s) => DECIMAL.test(s), 'a decimal string');
  need('global_commitment', (s) => HEX64.test(s), '64 lowercase hex characters');
  if (v.alg === CHECKPOINT_ALG) {
    need('tree_size', (s) => s === v.event_count, 'a decimal string equal to event_count');
    need('root_hash', (s) => HEX64.test(s), '64 lowercase hex characters');
  } else if (v.alg === CHECKPOINT_ALG_V1 && ('tree_size' in v || 'root_hash' in v)) {
    problems.push(`a ${CHECKPOINT_ALG_V1} checkpoint signs no tree head: tree_size and root_hash belong to ${CHECKPOINT_ALG}`);
  }
  need('created_at', (s) => RFC3339.test(s), 'an RFC 3339 UTC timestamp');
  need('key_id', (s) => B64URL.test(s), 'base64url');
  need('public_key', (s) => isBase64url(s, 32), 'base64url (unpadded) of 32 bytes');
  need('signature', (s) => isBase64url(s, 64), 'base64url (unpadded) of 64 bytes');
  return problems;
}

export function isSignedCheckpoint(value: unknown): value is SignedCheckpoint {
  return checkpointShapeProblems(value).length === 0;
}

export type SignatureStatus = 'valid' | 'bad_signature' | 'key_mismatch' | 'untrusted_key';

/**
 * Checks a checkpoint's signature with its own public key, and that key against the trusted ones (base64url public
 * keys; an empty list trusts the checkpoint's own key, which proves integrity but not origin).
 */
export function checkSignature(cp: SignedCheckpoint, trustedKeys: readonly string[] = []): SignatureStatus {
  if (keyIdOf(cp.public_key) !== cp.key_id) return 'key_mismatch';
  let ok = false;
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: cp.public_key }, format: 'jwk' });
    ok = verify(null, signedBytes(cp), key, Buffer.from(cp.signature, 'base64url'));
  } catch {
    ok = false;
  }
  if (!ok) return 'bad_signature';
  if (trustedKeys.length > 0 && !trustedKeys.includes(cp.public_key)) return 'untrusted_key';
  return 'valid';
}

/** A public key given by an auditor: base64url (as published) or a PEM SPKI block; returns base64url. */
export function normalizePublicKey(text: string): string {
  const t = text.trim();
  if (t.startsWith('-----BEGIN')) {
    const key = createPublicKey(t);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('the public key is not an Ed25519 key');
    return key.export({ format: 'jwk' }).x as string;
  }
  if (!isBase64url(t, 32)) throw new Error('a public key is base64url of 32 bytes (or a PEM block)');
  return t;
}
