/**
 * Proofs for auditors (issue 50, docs/audit.md section 6): RFC 9162 inclusion and consistency proofs against the tree
 * heads of signed v2 checkpoints, read from the audit-merkle projection in O(log n) rows — the leaf, the checkpoint,
 * and the perfect subtrees the proof names, in one query each. Every answer carries the signed checkpoint(s): a proof
 * alone does not fix the tree it belongs to, so a verifier takes tree_size and root_hash from the checkpoint after
 * checking its signature, never from the answer's other members.
 *
 * The projection may be behind the log (the checkpointer signs without waiting for it): when what a request names is
 * not there yet, the handler waits for the projection to reach the log's head (as read-your-writes does), then
 * answers from what is there. The assembly (`proveInclusion`, `proveConsistency`) is shared with the offline CLI
 * (`npm run audit -- prove`, src/cli/audit-proofs.ts), which reads the same tables through its own MerkleTreeView.
 */
import { Inject, Injectable } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { NotFound, PlatformError, StateConflict, ValidationFailed } from '../../platform/errors';
import type { EventStore } from '../../platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../platform/privacy/sealing-event-store';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { merkleCheckpoint, merkleLeaf, merkleNodes, type MerkleLeaf } from '../../../projections/audit-merkle/audit-merkle.read-model';
import { AuditAccess } from './audit.queries';
import type { SignedCheckpointV2 } from './domain/checkpoint';
import { consistencyNodeIds, consistencyProof, inclusionNodeIds, inclusionPath, leafHashOfCommitment, nodeSourceOf, type NodeId, type StoredNode } from './domain/merkle';

const TREE = 'audit-merkle';

export interface InclusionProof {
  event_id: string;
  position: string;
  leaf_index: string;
  tree_size: string;
  event_commitment: string;
  leaf_hash: string;
  root_hash: string;
  audit_path: string[];
  checkpoint: SignedCheckpointV2;
}

export interface ConsistencyProof {
  first: string;
  second: string;
  first_root: string;
  second_root: string;
  consistency_path: string[];
  first_checkpoint: SignedCheckpointV2;
  second_checkpoint: SignedCheckpointV2;
}

export class GetInclusionProof {
  constructor(readonly principal: Principal, readonly eventId: string, readonly treeSize: number | null) {}
}

export class GetConsistencyProof {
  constructor(readonly principal: Principal, readonly first: number, readonly second: number) {}
}

/**
 * What a proof reads of the tree: the route's MerkleTreeReader (which waits for the projection to catch up with the
 * log) and the CLI's (`npm run audit -- prove`, which reads the stores as they are and says when the tree is behind).
 */
export interface MerkleTreeView {
  /**
   * Reads `read`; when it finds nothing, may bring the tree to the log's head first and read again. Returns the value
   * and whether the tree is known to be at the head (so "nothing" is final).
   */
  caughtUp<T>(read: () => Promise<T | null>): Promise<{ value: T | null; atHead: boolean }>;
  leaf(eventId: string): Promise<MerkleLeaf | null>;
  checkpoint(treeSize: number | 'latest'): Promise<SignedCheckpointV2 | null>;
  nodes(ids: readonly NodeId[]): Promise<StoredNode[]>;
}

/** The tree's tables as the read-model database holds them: what the route's reader and the CLI's both read. */
export abstract class MerkleTreeTables implements MerkleTreeView {
  constructor(protected readonly db: ReadModelDatabase) {}

  abstract caughtUp<T>(read: () => Promise<T | null>): Promise<{ value: T | null; atHead: boolean }>;

  leaf(eventId: string): Promise<MerkleLeaf | null> {
    return merkleLeaf(this.db, eventId);
  }

  checkpoint(treeSize: number | 'latest'): Promise<SignedCheckpointV2 | null> {
    return merkleCheckpoint(this.db, treeSize);
  }

  nodes(ids: readonly NodeId[]): Promise<StoredNode[]> {
    return merkleNodes(this.db.reader, ids);
  }
}

/** What both proofs read: the tree projection, caught up with the log when what is asked is not there yet. */
@Injectable()
export class MerkleTreeReader extends MerkleTreeTables {
  constructor(
    db: ReadModelDatabase,
    private readonly runner: ProjectionRunner,
    @Inject(RAW_EVENT_STORE) private readonly store: EventStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {
    super(db);
  }

  /**
   * Reads `read`; when it finds nothing, waits once for the tree to reach the log's head and reads again. Returns the
   * value and whether the tree is known to be at the head (so "nothing" is final).
   */
  async caughtUp<T>(read: () => Promise<T | null>): Promise<{ value: T | null; atHead: boolean }> {
    const value = await read();
    if (value !== null) return { value, atHead: true };
    const atHead = await this.runner.waitFor(await this.store.headPosition(), [TREE], this.config.readYourWritesTimeoutMs);
    return { value: await read(), atHead };
  }
}

/** The tree has not reached what a request names (503, retryable); `what` says what may be in the part not reached. */
export class MerkleTreeBehind extends PlatformError {
  constructor(readonly what: string) {
    super('SERVICE_UNAVAILABLE', `The Merkle tree has not caught up with the log yet (${what}); retry shortly.`, { retryAfter: 1 });
  }
}

/**
 * The inclusion proof of `eventId` against the checkpoint of `treeSize` leaves (null: the newest, which must cover the
 * event). Throws NotFound (no such event, no checkpoint of that size), StateConflict (not covered yet: retryable; a
 * tree without the event: final) or MerkleTreeBehind.
 */
export async function proveInclusion(tree: MerkleTreeView, eventId: string, treeSize: number | null): Promise<InclusionProof> {
  const found = await tree.caughtUp(() => tree.leaf(eventId));
  if (found.value === null) {
    if (!found.atHead) throw new MerkleTreeBehind(`event ${eventId} may be in the part it has not reached`);
    throw new NotFound('No event with this event_id in the log.');
  }
  const leaf = found.value;

  const covering = async (): Promise<SignedCheckpointV2 | null> => {
    const cp = await tree.checkpoint(treeSize ?? 'latest');
    // Without a tree_size: only a checkpoint covering the event will do (a newer one may be on its way).
    return cp !== null && (treeSize !== null || Number(cp.tree_size) > leaf.leaf_index) ? cp : null;
  };
  const { value: checkpoint, atHead } = await tree.caughtUp(covering);
  if (checkpoint === null) {
    if (treeSize !== null) {
      if (!atHead) throw new MerkleTreeBehind(`a checkpoint of tree_size ${treeSize} may be in the part it has not reached`);
      throw new NotFound(`No signed checkpoint has tree_size ${treeSize}.`);
    }
    throw new StateConflict(
      `Event ${eventId} (leaf ${leaf.leaf_index}) is not covered by a signed checkpoint yet: the next one comes within AUDIT_CHECKPOINT_EVERY_EVENTS events or AUDIT_CHECKPOINT_INTERVAL_MS.`,
      { retryable: true },
    );
  }
  const size = Number(checkpoint.tree_size);
  if (leaf.leaf_index >= size) {
    throw new StateConflict(`Event ${eventId} is leaf ${leaf.leaf_index}: the tree of checkpoint tree_size ${size} does not contain it; ask for a later checkpoint's tree_size (or none).`);
  }
  const nodes = await tree.nodes(inclusionNodeIds(leaf.leaf_index, size));
  const path = inclusionPath(leaf.leaf_index, size, nodeSourceOf(nodes));
  return {
    event_id: eventId,
    position: leaf.position.toString(),
    leaf_index: leaf.leaf_index.toString(),
    tree_size: checkpoint.tree_size,
    event_commitment: leaf.event_commitment,
    leaf_hash: leafHashOfCommitment(leaf.event_commitment).toString('hex'),
    root_hash: checkpoint.root_hash,
    audit_path: path.map((h) => h.toString('hex')),
    checkpoint,
  };
}

/**
 * The consistency proof between the checkpoints of `first` and `second` leaves. Throws ValidationFailed (first >
 * second), NotFound (no checkpoint of a size) or MerkleTreeBehind.
 */
export async function proveConsistency(tree: MerkleTreeView, first: number, second: number): Promise<ConsistencyProof> {
  if (first > second) throw new ValidationFailed('first must not be larger than second.', [{ field: 'first', issue: 'larger than second' }]);
  const heads: SignedCheckpointV2[] = [];
  for (const size of [first, second]) {
    const { value, atHead } = await tree.caughtUp(() => tree.checkpoint(size));
    if (value === null) {
      if (!atHead) throw new MerkleTreeBehind(`a checkpoint of tree_size ${size} may be in the part it has not reached`);
      throw new NotFound(`No signed checkpoint has tree_size ${size}.`);
    }
    heads.push(value);
  }
  const nodes = await tree.nodes(consistencyNodeIds(first, second));
  const proof = consistencyProof(first, second, nodeSourceOf(nodes));
  return {
    first: first.toString(),
    second: second.toString(),
    first_root: heads[0].root_hash,
    second_root: heads[1].root_hash,
    consistency_path: proof.map((h) => h.toString('hex')),
    first_checkpoint: heads[0],
    second_checkpoint: heads[1],
  };
}

@QueryHandler(GetInclusionProof)
export class GetInclusionProofHandler implements IQueryHandler<GetInclusionProof, InclusionProof> {
  constructor(private readonly access: AuditAccess, private readonly tree: MerkleTreeReader) {}

  async execute({ principal, eventId, treeSize }: GetInclusionProof): Promise<InclusionProof> {
    await this.access.assertAuditor(principal);
    return proveInclusion(this.tree, eventId, treeSize);
  }
}

@QueryHandler(GetConsistencyProof)
export class GetConsistencyProofHandler implements IQueryHandler<GetConsistencyProof, ConsistencyProof> {
  constructor(private readonly access: AuditAccess, private readonly tree: MerkleTreeReader) {}

  async execute({ principal, first, second }: GetConsistencyProof): Promise<ConsistencyProof> {
    await this.access.assertAuditor(principal);
    return proveConsistency(this.tree, first, second);
  }
}
