/**
 * The proofs part of `npm run audit` (src/cli/audit.ts parses the arguments and prints):
 *
 * - `prove`: the inclusion or consistency proof the HTTP routes answer (GET /api/v1/audit/proofs/…), assembled by the
 *   same code (`proveInclusion`/`proveConsistency`, src/modules/audit/audit.proofs.ts) from the platform's own
 *   read-model database (the audit-merkle projection: DATA_DIR/read.sqlite, or DATABASE_URL). Unlike the route it
 *   does not wait for the projection: when what is asked may be in the part of the log the tree has not reached, it
 *   says so (with the projection's position and the log's head).
 * - `verify-proof`: checks such a file offline with nothing but the signed checkpoint(s) in it: their shape, that they
 *   are v2, their Ed25519 signature (against the trusted keys when named), then RFC 9162 verification with
 *   `tree_size` and `root_hash` taken from the signed checkpoint only, and for inclusion the leaf hash recomputed from
 *   `event_commitment`. The answer's other members (`tree_size`, `root_hash`, `leaf_hash`, `first_root`…) are
 *   compared with what is signed, and a difference is a failure.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { auditMerkleReadModel, merkleCheckpoint } from '../../projections/audit-merkle/audit-merkle.read-model';
import type { PlatformConfig } from '../platform/config/platform-config';
import { NotFound, PlatformError, StateConflict } from '../platform/errors';
import { CheckpointStore } from '../platform/projections/checkpoint.store';
import { openReadModelDatabase, type ReadModelDatabase } from '../platform/read-model/read-model.datasource';
import { MerkleTreeBehind, MerkleTreeTables, proveConsistency, proveInclusion, type ConsistencyProof, type InclusionProof } from '../modules/audit/audit.proofs';
import { CHECKPOINT_ALG, checkpointShapeProblems, checkSignature, type SignedCheckpoint, type SignedCheckpointV2 } from '../modules/audit/domain/checkpoint';
import { leafHashOfCommitment, verifyConsistency, verifyInclusion } from '../modules/audit/domain/merkle';

const TREE = auditMerkleReadModel.name;
const REBUILD = `npm run projections -- rebuild ${TREE} (the platform stopped) brings it to the log's head`;
const REBUILD_HINT = `npm run projections -- list shows its position and lag; ${REBUILD}`;

export type ProveRequest = { kind: 'inclusion'; eventId: string; treeSize: number | null } | { kind: 'consistency'; first: number; second: number };

/**
 * What `prove` came to: the proof, or why there is none — `not_found` (no such event or checkpoint, or the named tree
 * does not contain the event), `not_yet` (no checkpoint covers the event yet, or the tree is behind the log: a later
 * run may answer), `source` (the stores could not be read).
 */
export type ProveOutcome = { ok: true; proof: InclusionProof | ConsistencyProof } | { ok: false; reason: 'not_found' | 'not_yet' | 'source'; lines: string[] };

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The log's head could not be read (whether the tree is behind depends on it). */
class LogUnreadable extends Error {}

/** The tree as the read-model database holds it, with no waiting: "at the head" is the projection's position vs the log's. */
class StoredMerkleTree extends MerkleTreeTables {
  private behind: { tree: bigint; head: bigint } | null | undefined;

  constructor(db: ReadModelDatabase, private readonly logHead: () => Promise<bigint>) {
    super(db);
  }

  /** Null when the tree has applied the log up to its head; else where each stands. Read once. */
  async lag(): Promise<{ tree: bigint; head: bigint } | null> {
    if (this.behind === undefined) {
      let head: bigint;
      try {
        head = await this.logHead();
      } catch (error) {
        throw new LogUnreadable(message(error));
      }
      const tree = (await new CheckpointStore(this.db).read(TREE))?.position ?? 0n;
      this.behind = tree >= head ? null : { tree, head };
    }
    return this.behind;
  }

  async caughtUp<T>(read: () => Promise<T | null>): Promise<{ value: T | null; atHead: boolean }> {
    const value = await read();
    return { value, atHead: value !== null || (await this.lag()) === null };
  }
}

function behindLine(lag: { tree: bigint; head: bigint }): string {
  return `the ${TREE} projection is behind the log: it has applied the log up to position ${lag.tree}, the log's head is position ${lag.head}.`;
}

/**
 * Assembles the proof from the configured stores. `logHead` reads the log's head position (only called when the
 * answer depends on whether the tree has reached it).
 */
export async function proveOffline(config: PlatformConfig, request: ProveRequest, logHead: () => Promise<bigint>): Promise<ProveOutcome> {
  const where = config.databaseUrl ? `the PostgreSQL read-model database (DATABASE_URL, schema ${config.databaseSchema ?? 'public'})` : join(config.dataDir, 'read.sqlite');
  if (!config.databaseUrl && !existsSync(join(config.dataDir, 'read.sqlite'))) {
    return { ok: false, reason: 'source', lines: [`no read-model database at ${where} (DATA_DIR=${config.dataDir}): the ${TREE} projection keeps the Merkle tree there; start the platform once, or run npm run projections -- rebuild ${TREE}`] };
  }
  let db: ReadModelDatabase;
  try {
    // As stored: no migrations (a database without the tree's tables says so below).
    db = await openReadModelDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, schema: config.databaseSchema, readModels: [auditMerkleReadModel], migrate: false });
  } catch (error) {
    return { ok: false, reason: 'source', lines: [`cannot open the read-model database (${where}): ${message(error)}`] };
  }
  const tree = new StoredMerkleTree(db, logHead);
  try {
    const proof = request.kind === 'inclusion' ? await proveInclusion(tree, request.eventId, request.treeSize) : await proveConsistency(tree, request.first, request.second);
    return { ok: true, proof };
  } catch (error) {
    if (error instanceof MerkleTreeBehind) {
      const lag = await tree.lag();
      return { ok: false, reason: 'not_yet', lines: [`${lag ? behindLine(lag) : `the ${TREE} projection is behind the log.`} ${error.what[0].toUpperCase()}${error.what.slice(1)}.`, `This command does not wait for it: run it again once the platform has caught up (${REBUILD_HINT}).`] };
    }
    if (error instanceof NotFound) {
      const newest = await merkleCheckpoint(db, 'latest').catch(() => null);
      const hint = /tree_size/.test(error.message) ? [newest ? `the newest signed checkpoint the tree holds has tree_size ${newest.tree_size}` : 'the tree holds no signed v2 checkpoint yet'] : [];
      const subject = request.kind === 'inclusion' && hint.length === 0 ? `event ${request.eventId}: ` : '';
      return { ok: false, reason: 'not_found', lines: [`${subject}${error.message}`, ...hint] };
    }
    if (error instanceof StateConflict) {
      if (!error.retryable) return { ok: false, reason: 'not_found', lines: [error.message, 'give --tree-size a later checkpoint\'s tree_size, or leave it out for the newest'] };
      const lag = await tree.lag().catch(() => null);
      return {
        ok: false,
        reason: 'not_yet',
        lines: lag
          ? [error.message, `${behindLine(lag)} A checkpoint covering the event may be in the part it has not reached (${REBUILD_HINT}).`]
          : [error.message, 'The running platform signs it; run this again then.'],
      };
    }
    if (error instanceof PlatformError) return { ok: false, reason: 'not_found', lines: [error.message] };
    if (error instanceof LogUnreadable) return { ok: false, reason: 'source', lines: [`cannot read the log's head (to tell whether the tree has reached it): ${error.message}`] };
    const text = message(error);
    const hint = /no such table|does not exist|not in the store/i.test(text) ? [`the ${TREE} tables are missing or incomplete in ${where}: start the platform of this version (it migrates and runs the projection), or ${REBUILD}`] : [];
    return { ok: false, reason: 'source', lines: [`cannot read the Merkle tree from ${where}: ${text}`, ...hint] };
  } finally {
    await db.close();
  }
}

// --------------------------------------------------------------------------------------------------------------------
// verify-proof
// --------------------------------------------------------------------------------------------------------------------

/** The file is not a proof the API or the CLI writes (a usage error: exit 2). */
export class NotAProof extends Error {}

export interface ProofCheckLine {
  /** What was checked, as the file names it (`checkpoint signature`, `audit_path`, `root_hash`…). */
  name: string;
  /** `skip`: not checkable, for a failure named before it (a path with no v2 checkpoint to hold it against). */
  status: 'ok' | 'FAIL' | 'skip';
  detail: string;
}

export interface ProofCheck {
  kind: 'inclusion' | 'consistency';
  title: string;
  checks: ProofCheckLine[];
  holds: boolean;
  conclusion: string;
}

const HEX64 = /^[0-9a-f]{64}$/;
const DECIMAL = /^(0|[1-9]\d{0,19})$/;
const unhex = (h: string): Buffer => Buffer.from(h, 'hex');

class Checks {
  readonly lines: ProofCheckLine[] = [];
  add(name: string, ok: boolean, detail: string): void {
    this.lines.push({ name, status: ok ? 'ok' : 'FAIL', detail });
  }
  skip(name: string, detail: string): void {
    this.lines.push({ name, status: 'skip', detail });
  }
  get holds(): boolean {
    return this.lines.every((l) => l.status === 'ok');
  }
}

/** Shape, version and signature of a checkpoint named `name` in the file; returns it when it can anchor a proof. */
function checkCheckpoint(checks: Checks, name: string, value: unknown, trusted: readonly string[]): SignedCheckpointV2 | null {
  const problems = checkpointShapeProblems(value);
  if (problems.length > 0) {
    checks.add(name, false, `not a signed checkpoint: ${problems.join('; ')}`);
    return null;
  }
  const cp = value as SignedCheckpoint;
  const status = checkSignature(cp, trusted);
  const signature =
    status === 'valid'
      ? trusted.length > 0
        ? 'valid (trusted key)'
        : "valid with the checkpoint's own key (not independently trusted: name the platform's key with --public-key)"
      : status === 'bad_signature'
        ? 'BAD: the signature does not verify over the signed members (a member or the signature was changed)'
        : status === 'key_mismatch'
          ? 'BAD: key_id is not the thumbprint of public_key'
          : `signed with key ${cp.key_id} (public_key ${cp.public_key}), not with a key given with --public-key`;
  if (cp.alg !== CHECKPOINT_ALG) {
    checks.add(name, false, `${cp.alg} at position ${cp.position}: it signs no Merkle tree head (proofs are against ${CHECKPOINT_ALG} checkpoints)`);
    checks.add(`${name} signature`, status === 'valid', signature);
    return null;
  }
  checks.add(name, true, `${cp.alg}, tree_size ${cp.tree_size}, position ${cp.position}, created ${cp.created_at}, key ${cp.key_id}`);
  checks.add(`${name} signature`, status === 'valid', signature);
  return cp;
}

/** A member of the answer that must equal what the checkpoint signs. */
function checkSigned(checks: Checks, name: string, given: unknown, signed: string, what: string): void {
  if (given === signed) checks.add(name, true, `${signed}, as ${what} signs it`);
  else checks.add(name, false, `${JSON.stringify(given ?? null)} in the file, but ${what} signs ${signed}`);
}

function hashList(checks: Checks, name: string, value: unknown): Buffer[] | null {
  if (!Array.isArray(value)) {
    checks.add(name, false, 'not an array of hashes');
    return null;
  }
  const bad = value.findIndex((h) => typeof h !== 'string' || !HEX64.test(h));
  if (bad >= 0) {
    checks.add(name, false, `element ${bad} is not a hash (64 lowercase hex characters)`);
    return null;
  }
  return (value as string[]).map(unhex);
}

function checkInclusion(p: Record<string, unknown>, trusted: readonly string[]): ProofCheck {
  const checks = new Checks();
  const cp = checkCheckpoint(checks, 'checkpoint', p.checkpoint, trusted);
  const commitmentOk = typeof p.event_commitment === 'string' && HEX64.test(p.event_commitment);
  const leaf = commitmentOk ? leafHashOfCommitment(p.event_commitment as string) : null;
  if (!commitmentOk) checks.add('event_commitment', false, 'not 64 lowercase hex characters');
  else if (p.leaf_hash === leaf!.toString('hex')) checks.add('leaf_hash', true, 'the leaf hash of event_commitment, recomputed (SHA-256 of 0x00 and its 32 bytes)');
  else checks.add('leaf_hash', false, `${JSON.stringify(p.leaf_hash ?? null)} in the file, but the leaf hash of event_commitment is ${leaf!.toString('hex')}`);
  const indexOk = typeof p.leaf_index === 'string' && DECIMAL.test(p.leaf_index);
  if (!indexOk) checks.add('leaf_index', false, 'not a decimal string');
  if (cp) {
    checkSigned(checks, 'tree_size', p.tree_size, cp.tree_size, 'the checkpoint');
    checkSigned(checks, 'root_hash', p.root_hash, cp.root_hash, 'the checkpoint');
  }
  const path = hashList(checks, 'audit_path', p.audit_path);
  if (cp && leaf && indexOk && path) {
    const held = verifyInclusion(BigInt(p.leaf_index as string), BigInt(cp.tree_size), leaf, path, unhex(cp.root_hash));
    checks.add(
      'audit_path',
      held,
      held
        ? `${path.length} hash${path.length === 1 ? '' : 'es'} lead from the leaf of event_commitment (leaf ${p.leaf_index}) to the checkpoint's root_hash (RFC 9162 2.1.3.2)`
        : `does NOT lead from the leaf of event_commitment (leaf ${p.leaf_index}) to the checkpoint's root_hash ${cp.root_hash} in a tree of ${cp.tree_size} leaves (RFC 9162 2.1.3.2)`,
    );
  } else if (path) {
    checks.skip('audit_path', 'not checked: it needs a v2 checkpoint, a well-formed event_commitment and leaf_index');
  }
  const holds = checks.holds;
  return {
    kind: 'inclusion',
    title: `inclusion proof of event ${String(p.event_id)} (position ${String(p.position)}, leaf ${String(p.leaf_index)})`,
    checks: checks.lines,
    holds,
    conclusion: holds
      ? `event_commitment ${String(p.event_commitment)} is leaf ${String(p.leaf_index)} of the log's first ${cp!.tree_size} events, whose tree head the checkpoint signs (position ${cp!.position}).`
      : '',
  };
}

function checkConsistency(p: Record<string, unknown>, trusted: readonly string[]): ProofCheck {
  const checks = new Checks();
  const a = checkCheckpoint(checks, 'first_checkpoint', p.first_checkpoint, trusted);
  const b = checkCheckpoint(checks, 'second_checkpoint', p.second_checkpoint, trusted);
  if (a) {
    checkSigned(checks, 'first', p.first, a.tree_size, 'first_checkpoint');
    checkSigned(checks, 'first_root', p.first_root, a.root_hash, 'first_checkpoint');
  }
  if (b) {
    checkSigned(checks, 'second', p.second, b.tree_size, 'second_checkpoint');
    checkSigned(checks, 'second_root', p.second_root, b.root_hash, 'second_checkpoint');
  }
  const path = hashList(checks, 'consistency_path', p.consistency_path);
  if (a && b && path) {
    const [m, n] = [BigInt(a.tree_size), BigInt(b.tree_size)];
    const held = verifyConsistency(m, n, unhex(a.root_hash), unhex(b.root_hash), path);
    checks.add(
      'consistency_path',
      held,
      held
        ? `${path.length} hash${path.length === 1 ? '' : 'es'}: the tree of ${a.tree_size} leaves is a prefix of the tree of ${b.tree_size} leaves (RFC 9162 2.1.4.2)`
        : m > n
          ? `the first checkpoint's tree (${a.tree_size} leaves) is larger than the second's (${b.tree_size})`
          : `does NOT prove that the tree of ${a.tree_size} leaves (root ${a.root_hash}) is a prefix of the tree of ${b.tree_size} leaves (root ${b.root_hash}) (RFC 9162 2.1.4.2)`,
    );
  } else if (path) {
    checks.skip('consistency_path', 'not checked: it needs two v2 checkpoints');
  }
  const holds = checks.holds;
  return {
    kind: 'consistency',
    title: `consistency proof from tree_size ${String(p.first)} to tree_size ${String(p.second)}`,
    checks: checks.lines,
    holds,
    conclusion: holds
      ? `the log of ${b!.tree_size} events (checkpoint at position ${b!.position}) extends the log of ${a!.tree_size} events (checkpoint at position ${a!.position}): its first ${a!.tree_size} events are unchanged.`
      : '',
  };
}

/** Checks an inclusion or consistency proof as the API or `prove` wrote it; `trusted`: the keys named (none: each checkpoint's own). */
export function checkProof(value: unknown, trusted: readonly string[]): ProofCheck {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new NotAProof('not a JSON object');
  const p = value as Record<string, unknown>;
  if ('audit_path' in p || 'checkpoint' in p) return checkInclusion(p, trusted);
  if ('consistency_path' in p || 'first_checkpoint' in p || 'second_checkpoint' in p) return checkConsistency(p, trusted);
  throw new NotAProof('neither an inclusion proof (audit_path, checkpoint) nor a consistency proof (consistency_path, first_checkpoint, second_checkpoint)');
}

/** The short human report of `verify-proof`. */
export function proofReport(check: ProofCheck, source: string): string[] {
  const lines = [`audit verify-proof: ${check.title} from ${source}`];
  for (const c of check.checks) lines.push(`  ${c.status.padEnd(4)}  ${c.name}: ${c.detail}`);
  const failed = check.checks.filter((c) => c.status === 'FAIL').map((c) => c.name);
  lines.push(check.holds ? `HOLDS: ${check.conclusion}` : `DOES NOT HOLD: ${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.join(', ')}`);
  return lines;
}
