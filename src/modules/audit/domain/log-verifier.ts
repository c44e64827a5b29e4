/**
 * The offline verifier's logic, pure: feed it the events of the log (or of one stream) in commit order, as they are
 * stored, and it recomputes every event_commitment, every previous_event_commitment link (with the platform's one
 * link check, `checkChainLink`), the order and density of positions, the global chain and the Merkle tree (RFC
 * 9162, over the recomputed commitments), and compares both with signed checkpoints: the global commitment of every
 * checkpoint, and the tree head (`root_hash` at `tree_size`) of every v2 one. The CLI does the reading; this only
 * decides. Breaks are reported in log order.
 */
import { checkChainLink, sha256Hex, type LinkBreak } from '../../../platform/commitments/commitment';
import type { JsonObject } from '../../../platform/commitments/json';
import type { EventMetadata } from '../../../platform/event-store/event-store.port';
import { CHECKPOINT_STREAM, checkpointShapeProblems, checkSignature, treeHeadOf, type SignatureStatus, type SignedCheckpoint } from './checkpoint';
import { foldGlobal, GENESIS, type GlobalChainState } from './global-chain';
import { EMPTY_TREE, foldLeaf, rootHex, type MerkleFrontier } from './merkle';

/** An event as a source read it, before any check. */
export interface AuditEvent {
  position: bigint;
  stream: string;
  revision: bigint;
  event_id: string;
  type: string;
  occurred_at: string;
  /** null when the stored text is not JSON (then `unreadable` holds it). */
  data: JsonObject | null;
  metadata: EventMetadata | null;
  event_commitment: string;
  previous_event_commitment: string | null;
  unreadable?: { data?: string; metadata?: string };
}

export type BreakKind =
  | 'event_commitment'
  | 'previous_event_commitment'
  | 'revision'
  | 'unreadable'
  | 'position_order'
  | 'position_gap'
  | 'checkpoint'
  | 'export';

export interface AuditBreak {
  kind: BreakKind;
  message: string;
  stream: string | null;
  revision: string | null;
  position: string | null;
  event_id: string | null;
  /** The value the verifier computed or required (a hash, or a position/revision for order breaks). */
  expected: string | null;
  /** The value stored. */
  found: string | null;
}

export type Scope = { kind: 'all' } | { kind: 'stream'; stream: string };

export interface VerifyOptions {
  scope: Scope;
  /** The store numbers its events 1, 2, 3… without gaps (SQLite): a missing position is a removed event. */
  densePositions: boolean;
  /** Public keys (base64url) checkpoints must be signed with; empty: each checkpoint's own key is used. */
  trustedKeys?: readonly string[];
  /** How many breaks the report lists (all are counted). */
  maxListed?: number;
}

export interface CheckpointClaim {
  source: 'log' | 'external';
  checkpoint: SignedCheckpoint;
}

export type ChainStatus = 'intact' | 'rewritten' | 'truncated';

export interface CheckpointOutcome {
  source: 'log' | 'external';
  position: string;
  event_count: string;
  created_at: string;
  key_id: string;
  signature: SignatureStatus;
  /** Whether the signing key was one the auditor named (false: only the checkpoint's own key was checked). */
  trusted_key: boolean;
  chain: ChainStatus;
  /** The signed global commitment, and what the log recomputes at that position (null: the log has no event there). */
  expected: string;
  found: string | null;
  /** For `rewritten`: the position of the last checkpoint before it that matched (the change lies after it). */
  intact_until: string | null;
  /** A v2 checkpoint's signed Merkle tree head, and the log's at the same size (null: v1, or no event there). */
  expected_root_hash: string | null;
  found_root_hash: string | null;
}

export interface AuditReport {
  ok: boolean;
  scope: Scope;
  events: number;
  streams: number;
  first_position: string | null;
  last_position: string | null;
  /** The global chain's commitment after the last event (scope `all`). */
  global_commitment: string | null;
  /** The Merkle tree head of all the events read (scope `all`): the root a checkpoint of this log at its end signs. */
  root_hash: string | null;
  break_count: number;
  first_break: AuditBreak | null;
  breaks: AuditBreak[];
  checkpoints: CheckpointOutcome[];
}

/** What an export file's end record says, checked against what was read. */
export interface ExportEnd {
  events: bigint;
  last_position: bigint | null;
  global_commitment: string | null;
}

const HEX64 = /^[0-9a-f]{64}$/;

const KIND_TEXT: Record<LinkBreak['kind'], string> = {
  revision: 'revision out of sequence',
  previous_event_commitment: 'previous_event_commitment does not point at the previous event of the stream',
  event_commitment: "event_commitment does not match the event's content",
};

export class LogVerifier {
  private readonly heads = new Map<string, { revision: bigint; event_commitment: string }>();
  private global: GlobalChainState = GENESIS;
  private tree: MerkleFrontier = EMPTY_TREE;
  private first: bigint | null = null;
  private last: bigint | null = null;
  private count = 0;
  private readonly breaks: AuditBreak[] = [];
  private breakCount = 0;
  private readonly claims: CheckpointClaim[] = [];
  private claimsSorted = true;
  private nextClaim = 0;
  private readonly outcomes: CheckpointOutcome[] = [];
  private lastIntact: bigint | null = null;
  private readonly trustedKeys: readonly string[];
  private readonly maxListed: number;

  constructor(private readonly options: VerifyOptions) {
    this.trustedKeys = options.trustedKeys ?? [];
    this.maxListed = options.maxListed ?? 50;
  }

  /** A checkpoint to hold the log against (scope `all` only); add them all before the first event. */
  addCheckpoint(claim: CheckpointClaim): void {
    if (this.options.scope.kind !== 'all') throw new Error('checkpoints cover the whole log: verify --all');
    if (this.count > 0) throw new Error('add checkpoints before the events');
    this.claims.push(claim);
    this.claimsSorted = false;
  }

  add(e: AuditEvent): void {
    this.sortClaims();
    const scope = this.options.scope;
    if (scope.kind === 'stream' && e.stream !== scope.stream) {
      this.report('export', `an event of stream ${e.stream} in the export of stream ${scope.stream}`, e, scope.stream, e.stream);
    }

    // Commit order: ascending positions, and on a dense store no position missing.
    if (this.last !== null && e.position <= this.last) {
      this.report('position_order', `position ${e.position} comes after position ${this.last}: the log is out of commit order`, e, `> ${this.last}`, e.position.toString());
    } else if (this.options.densePositions && scope.kind === 'all' && e.position !== (this.last ?? 0n) + 1n) {
      const from = (this.last ?? 0n) + 1n;
      const to = e.position - 1n;
      this.report('position_gap', `${from === to ? `position ${from} is` : `positions ${from}–${to} are`} missing (the log goes on at position ${e.position}): events were removed from the log`, null, from.toString(), e.position.toString(), { position: from.toString() });
    }

    // Checkpoints ending on a position the log no longer has.
    if (scope.kind === 'all') this.settleClaims(e.position, false);

    // The stream's chain, with the one shared link check.
    const head = this.heads.get(e.stream) ?? null;
    let commitment = e.event_commitment;
    if (e.data === null || e.metadata === null) {
      const what = e.data === null ? 'data' : 'metadata';
      this.report('unreadable', `the stored ${what} is not JSON`, e, null, (e.data === null ? e.unreadable?.data : e.unreadable?.metadata) ?? null);
    } else {
      const { recomputed, broken } = checkChainLink(
        { stream: e.stream, revision: e.revision, event_id: e.event_id, type: e.type, occurred_at: e.occurred_at, data: e.data, metadata: e.metadata, previous_event_commitment: e.previous_event_commitment, event_commitment: e.event_commitment },
        head,
      );
      commitment = recomputed;
      if (broken) this.reportLink(broken, e, head);
    }
    this.heads.set(e.stream, { revision: e.revision, event_commitment: e.event_commitment });

    if (e.stream === CHECKPOINT_STREAM && e.data !== null) {
      const problems = checkpointShapeProblems(e.data);
      if (problems.length > 0) this.report('checkpoint', `the checkpoint event is malformed: ${problems.join('; ')}`, e, null, null);
    }

    if (this.first === null) this.first = e.position;
    if (this.last === null || e.position > this.last) this.last = e.position;
    this.count++;
    if (scope.kind === 'all') {
      this.global = foldGlobal(this.global, e.position, commitment);
      // A stored commitment that is not even hex (unreadable event, already reported) still takes its leaf's place.
      this.tree = foldLeaf(this.tree, HEX64.test(commitment) ? commitment : sha256Hex(commitment));
      this.settleClaims(e.position, true);
    }
  }

  /** Completes the run; `end` is an export file's end record (undefined: not read from a file; null: missing). */
  finish(end?: ExportEnd | null): AuditReport {
    this.sortClaims();
    const all = this.options.scope.kind === 'all';
    if (end === null) {
      this.report('export', 'the export file has no end record: it was cut off', null, 'an end record', 'end of file');
    } else if (end) {
      if (end.events !== BigInt(this.count)) {
        this.report('export', `the export's end record counts ${end.events} events, the file holds ${this.count}`, null, end.events.toString(), String(this.count));
      }
      if (all && end.global_commitment !== this.global.commitment) {
        this.report('export', "the export's end record names another global commitment than its events recompute", null, this.global.commitment, end.global_commitment);
      }
    }
    if (all) {
      for (; this.nextClaim < this.claims.length; this.nextClaim++) {
        const claim = this.claims[this.nextClaim];
        const cp = claim.checkpoint;
        const outcome = this.outcome(claim, 'truncated', null, null);
        this.report(
          'checkpoint',
          `${claim.source} checkpoint at position ${cp.position} (${cp.event_count} events) is past the end of the log, which ends ` +
            `${this.last === null ? 'empty' : `at position ${this.last} after ${this.count} events`}: events were removed from the end of the log`,
          null,
          cp.global_commitment,
          null,
          { position: cp.position },
        );
        this.outcomes.push(outcome);
      }
    }
    return {
      ok: this.breakCount === 0,
      scope: this.options.scope,
      events: this.count,
      streams: this.heads.size,
      first_position: this.first?.toString() ?? null,
      last_position: this.last?.toString() ?? null,
      global_commitment: all ? this.global.commitment : null,
      root_hash: all ? rootHex(this.tree) : null,
      break_count: this.breakCount,
      first_break: this.breaks[0] ?? null,
      breaks: this.breaks,
      checkpoints: this.outcomes,
    };
  }

  private sortClaims(): void {
    if (this.claimsSorted) return;
    this.claims.sort((a, b) => cmp(BigInt(a.checkpoint.position), BigInt(b.checkpoint.position)));
    this.claimsSorted = true;
  }

  /** Where the global chain stands (for an export's end record). */
  get globalState(): GlobalChainState {
    return this.global;
  }

  /**
   * Evaluates the checkpoints that end before `position` (`reached` false: the log has no event where they end) or
   * at it (`reached` true: compare with the chain just folded).
   */
  private settleClaims(position: bigint, reached: boolean): void {
    while (this.nextClaim < this.claims.length) {
      const claim = this.claims[this.nextClaim];
      const cp = claim.checkpoint;
      const at = BigInt(cp.position);
      if (reached ? at !== position : at >= position) return;
      this.nextClaim++;
      if (!reached) {
        this.report('checkpoint', `${claim.source} checkpoint at position ${at}: the log has no event at that position any more: history up to it was rewritten${this.since()}`, null, cp.global_commitment, null, { position: cp.position });
        this.outcomes.push(this.outcome(claim, 'rewritten', null, null));
        continue;
      }
      const found = this.global.commitment;
      const chainHolds = found === cp.global_commitment && this.global.count === BigInt(cp.event_count);
      const head = treeHeadOf(cp);
      const foundRoot = head === null ? null : rootHex(this.tree);
      const rootHolds = head === null || (head.root_hash === foundRoot && head.tree_size === this.tree.size.toString());
      const intact = chainHolds && rootHolds;
      const outcome = this.outcome(claim, intact ? 'intact' : 'rewritten', found, foundRoot);
      this.outcomes.push(outcome);
      if (!chainHolds) {
        const counts = this.global.count === BigInt(cp.event_count) ? '' : ` (${cp.event_count} events signed, ${this.global.count} in the log up to it)`;
        this.report('checkpoint', `${claim.source} checkpoint at position ${at}: the global chain differs from the signed one: history up to it was rewritten${this.since()}${counts}`, null, cp.global_commitment, found, { position: cp.position });
      } else if (!rootHolds) {
        this.report('checkpoint', `${claim.source} checkpoint at position ${at}: the Merkle tree head differs from the signed one (tree_size ${head!.tree_size}, the log has ${this.tree.size} leaves up to it): the signed root_hash is not the log's`, null, head!.root_hash, foundRoot, { position: cp.position });
      } else if (outcome.signature === 'valid') {
        this.lastIntact = at;
      }
    }
  }

  private since(): string {
    return this.lastIntact === null ? '' : ` after position ${this.lastIntact} (the last checkpoint that matched)`;
  }

  private outcome(claim: CheckpointClaim, chain: ChainStatus, found: string | null, foundRoot: string | null): CheckpointOutcome {
    const cp = claim.checkpoint;
    const signature = checkSignature(cp, this.trustedKeys);
    if (signature !== 'valid') {
      const text: Record<Exclude<SignatureStatus, 'valid'>, string> = {
        bad_signature: 'its signature does not verify with its public key',
        key_mismatch: 'its key_id is not the thumbprint of its public key',
        untrusted_key: `it is signed with key ${cp.key_id}, not with a trusted key`,
      };
      this.report('checkpoint', `${claim.source} checkpoint at position ${cp.position}: ${text[signature]}`, null, null, cp.signature, { position: cp.position });
    }
    return {
      source: claim.source,
      position: cp.position,
      event_count: cp.event_count,
      created_at: cp.created_at,
      key_id: cp.key_id,
      signature,
      trusted_key: this.trustedKeys.length > 0 && signature === 'valid',
      chain,
      expected: cp.global_commitment,
      found,
      intact_until: chain === 'rewritten' && this.lastIntact !== null ? this.lastIntact.toString() : null,
      expected_root_hash: treeHeadOf(cp)?.root_hash ?? null,
      found_root_hash: foundRoot,
    };
  }

  private reportLink(b: LinkBreak, e: AuditEvent, head: { revision: bigint; event_commitment: string } | null): void {
    let message = KIND_TEXT[b.kind];
    if (b.kind === 'revision') {
      message =
        b.expected_revision !== undefined && e.revision > b.expected_revision
          ? `revision ${e.revision} found where revision ${b.expected_revision} was expected: ${b.expected_revision === e.revision - 1n ? `revision ${b.expected_revision} is` : `revisions ${b.expected_revision}–${e.revision - 1n} are`} missing or out of order`
          : `revision ${e.revision} found after revision ${head?.revision ?? 'none'}: events of the stream are out of order or repeated`;
      message += ' (expected/found: the previous link)';
    } else if (b.kind === 'previous_event_commitment') {
      message += head ? ` (revision ${head.revision})` : ' (revision 0 must have null)';
    } else {
      message += ' (expected: recomputed, found: stored)';
    }
    this.report(b.kind, message, e, b.expected, b.found);
  }

  private report(kind: BreakKind, message: string, e: AuditEvent | null, expected: string | null, found: string | null, at: { position?: string } = {}): void {
    this.breakCount++;
    if (this.breaks.length >= this.maxListed) return;
    this.breaks.push({
      kind,
      message,
      stream: e?.stream ?? null,
      revision: e ? e.revision.toString() : null,
      position: e ? e.position.toString() : (at.position ?? null),
      event_id: e?.event_id ?? null,
      expected,
      found,
    });
  }
}

function cmp(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
