/**
 * The checkpointer: one node at a time (the lease `audit:checkpoints` in projection_checkpoints, like the matching
 * engines) folds the global chain over the log in commit order and, every AUDIT_CHECKPOINT_EVERY_EVENTS new events
 * or AUDIT_CHECKPOINT_INTERVAL_MS after the previous checkpoint when fewer arrived, appends a signed checkpoint to
 * the stream `audit-checkpoints` with that stream's expected revision — so even a node that lost its lease without
 * noticing cannot append a second checkpoint for the same place. Nothing new, no checkpoint: checkpoint events do not
 * count as new events, though each is covered by the next checkpoint like any other event.
 *
 * Each checkpoint (v2) also signs the Merkle tree head over the same events (tree_size = event_count, root_hash):
 * the checkpointer folds the tree's frontier in memory beside the global chain (log2(n) hashes of state), so signing
 * never waits for the audit-merkle projection, which keeps the nodes proofs are read from. On resume the frontier at
 * the last checkpoint comes from that projection's nodes when it has passed it, else from a fold of the log.
 *
 * Why the event store: a checkpoint there is chained like every event (its stream chain and the global chain), is
 * replicated and backed up with the log it vouches for, needs no second store, and a relay that reads the log (the
 * Kafka publisher, later) publishes it by reading that one stream. It shares the store's fate, so it cannot prove
 * that the log's tail was not cut off — a copy held elsewhere does (the HTTP endpoint, the Kafka topic, an
 * auditor's file given to `audit verify --checkpoint`).
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { Gauge } from 'prom-client';
import { CLOCK, type Clock } from '../../platform/clock';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { eventMetadata, newId } from '../../platform/context/request-context';
import { VersionConflict } from '../../platform/errors';
import type { EventStore } from '../../platform/event-store/event-store.port';
import type { NodeKey } from '../../platform/privacy/key-registry';
import { RAW_EVENT_STORE } from '../../platform/privacy/sealing-event-store';
import { PeriodicJob } from '../../platform/jobs/periodic-job';
import { MetricsService } from '../../platform/observability/metrics.service';
import { CheckpointStore, leaseDuration, LeaseLost } from '../../platform/projections/checkpoint.store';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { loadKeyIfPresent, loadOrCreateKey } from '../../platform/security/key-file';
import {
  CHECKPOINT_ALG, CHECKPOINT_EVENT_TYPE, CHECKPOINT_STREAM, checkSignature, isSignedCheckpoint, keyIdOf, signCheckpoint, signingKeyFromSeed, type CheckpointSigningKey, type SignedCheckpoint,
} from './domain/checkpoint';
import { foldGlobal, GENESIS, type GlobalChainState } from './domain/global-chain';
import { EMPTY_TREE, foldLeaf, frontierNodeIds, rootFromFrontier, rootHex, type MerkleFrontier } from './domain/merkle';
import { merkleNodes } from '../../../projections/audit-merkle/audit-merkle.read-model';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../../platform/projections/node-identity';

export const CHECKPOINT_LEASE = 'audit:checkpoints';
export const SIGNING_KEY_FILE = 'audit-signing.key';

export type CheckpointerState = 'stopped' | 'running' | 'standby' | 'failing';

interface Fold {
  chain: GlobalChainState;
  /** The Merkle tree over the same events as `chain`. */
  tree: MerkleFrontier;
  /** Events folded since the last checkpoint, checkpoint events left out. */
  pending: number;
  /** Revision of the checkpoint stream's last event (null: none yet). */
  revision: bigint | null;
  /** When the last checkpoint was made (ms, the platform clock). */
  lastAt: number;
}

/** The platform's checkpoint signing key: AUDIT_SIGNING_KEY, or DATA_DIR/audit-signing.key (created on first use, 0600). */
export function loadSigningKey(config: PlatformConfig): CheckpointSigningKey {
  return signingKeyFromSeed(loadOrCreateKey(config.dataDir, SIGNING_KEY_FILE, config.auditSigningKey, 'AUDIT_SIGNING_KEY'));
}

/**
 * This node's signing key and AUDIT_TRUSTED_KEYS as key ids (the checkpoints' `key_id`), for the registry the nodes of
 * one log share: a checkpointer builds only on checkpoints of its own or a trusted key, so every node must trust the
 * keys the others sign with (SubjectKeyStore.assertKeyAmongNodes).
 */
export function auditNodeKey(config: PlatformConfig): NodeKey {
  return {
    variable: 'AUDIT_SIGNING_KEY',
    trustedVariable: 'AUDIT_TRUSTED_KEYS',
    current: loadSigningKey(config).key_id,
    trusted: config.auditTrustedKeys.map(keyIdOf),
    source: config.auditSigningKey ? 'AUDIT_SIGNING_KEY' : `DATA_DIR/${SIGNING_KEY_FILE}, AUDIT_SIGNING_KEY unset`,
  };
}

/**
 * The public keys this platform's checkpoints may carry: its signing key (if one exists yet; nothing is created)
 * and the earlier ones of AUDIT_TRUSTED_KEYS.
 */
export function platformCheckpointKeys(config: PlatformConfig): string[] {
  const seed = loadKeyIfPresent(config.dataDir, SIGNING_KEY_FILE, config.auditSigningKey, 'AUDIT_SIGNING_KEY');
  return [...(seed ? [signingKeyFromSeed(seed).public_key] : []), ...config.auditTrustedKeys];
}

@Injectable()
export class AuditCheckpointer implements OnApplicationBootstrap, OnModuleDestroy {
  state: CheckpointerState = 'stopped';
  lastError: string | null = null;
  private fold: Fold | null = null;
  private key: CheckpointSigningKey | null = null;
  private job: PeriodicJob | null = null;
  private leaseRenewedAt = 0;
  private readonly leases: CheckpointStore;
  private lastPosition: bigint | null = null;

  constructor(
    @Inject(RAW_EVENT_STORE) private readonly store: EventStore,
    private readonly db: ReadModelDatabase,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly logger: Logger,
    metrics: MetricsService,
    @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity,
  ) {
    this.leases = new CheckpointStore(db, identity);
    const self = this;
    new Gauge({
      name: 'platform_audit_checkpoint_position',
      help: 'Global position covered by the newest audit checkpoint this node wrote or resumed from.',
      registers: [metrics.registry],
      collect() {
        this.reset();
        if (self.lastPosition !== null) this.set(Number(self.lastPosition));
      },
    });
    new Gauge({
      name: 'platform_audit_checkpointer_up',
      help: '1 when this node runs the audit checkpointer or stands by for another node, 0 when stopped or failing.',
      labelNames: ['state'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        this.set({ state: self.state }, self.state === 'running' || self.state === 'standby' ? 1 : 0);
      },
    });
  }

  get publicKey(): CheckpointSigningKey | null {
    return this.key;
  }

  onApplicationBootstrap(): void {
    if (!this.config.auditCheckpoints) return;
    this.key = loadSigningKey(this.config);
    this.logger.log({ key_id: this.key.key_id, source: this.config.auditSigningKey ? 'AUDIT_SIGNING_KEY' : `DATA_DIR/${SIGNING_KEY_FILE}` }, 'audit checkpoints are signed with this key');
    this.state = 'standby';
    this.job = new PeriodicJob(
      Math.min(1000, this.config.auditCheckpointIntervalMs),
      () => this.tick(),
      (err) => {
        this.state = 'failing';
        this.fold = null;
        this.lastError = err instanceof Error ? err.message : String(err);
        this.logger.error({ err }, 'audit checkpointer failed; retrying');
      },
    );
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job?.stop();
    this.job = null;
    if (this.state === 'running') await this.leases.release(CHECKPOINT_LEASE).catch(() => undefined);
    this.state = 'stopped';
  }

  /**
   * One round: hold the lease, fold what the log gained, and write the checkpoints that are due. Returns the
   * checkpoints written. Safe to call from tests (the periodic job never runs two rounds at once).
   */
  async tick(): Promise<SignedCheckpoint[]> {
    if (!this.key) this.key = loadSigningKey(this.config);
    if (this.state !== 'running' || Date.now() - this.leaseRenewedAt >= leaseDuration() / 3) {
      try {
        await this.leases.acquire(CHECKPOINT_LEASE);
      } catch (error) {
        if (!(error instanceof LeaseLost)) throw error;
        this.state = 'standby';
        this.fold = null;
        return [];
      }
      this.leaseRenewedAt = Date.now();
      if (this.state !== 'running') this.fold = null; // another node may have written since: resume from the stream
      this.state = 'running';
    }
    const fold = this.fold ?? (this.fold = await this.resume());
    const every = this.config.auditCheckpointEveryEvents;
    const written: SignedCheckpoint[] = [];
    for (;;) {
      while (fold.pending < every) {
        // From the very start of the log until the first event is folded (as the verifier reads it).
        const after = fold.chain.count === 0n ? undefined : fold.chain.position;
        const page = await this.store.readAll({ after, maxCount: Math.min(2000, every - fold.pending + 64) });
        if (page.length === 0) break;
        for (const e of page) {
          fold.chain = foldGlobal(fold.chain, e.position, e.event_commitment);
          fold.tree = foldLeaf(fold.tree, e.event_commitment);
          if (e.stream !== CHECKPOINT_STREAM) fold.pending++;
          if (fold.pending >= every) break;
        }
      }
      const now = this.clock();
      const due = fold.pending >= every || (fold.pending > 0 && now.getTime() - fold.lastAt >= this.config.auditCheckpointIntervalMs);
      if (!due || fold.chain.commitment === null) break;
      const checkpoint = signCheckpoint(
        { position: fold.chain.position, event_count: fold.chain.count, global_commitment: fold.chain.commitment, root_hash: rootHex(fold.tree), created_at: now.toISOString() },
        this.key,
      );
      try {
        const result = await this.store.append(
          CHECKPOINT_STREAM,
          [{ event_id: newId(), type: CHECKPOINT_EVENT_TYPE, data: { ...checkpoint }, metadata: eventMetadata({ actor: { type: 'system', reference: 'audit-checkpointer' } }) }],
          fold.revision ?? 'no_stream',
        );
        fold.revision = result.next_revision;
      } catch (error) {
        if (!(error instanceof VersionConflict)) throw error;
        // Another writer appended a checkpoint: stand by until the lease says otherwise, then resume from the stream.
        this.fold = null;
        this.state = 'standby';
        return written;
      }
      fold.pending = 0;
      fold.lastAt = now.getTime();
      this.lastPosition = fold.chain.position;
      this.lastError = null;
      written.push(checkpoint);
    }
    return written;
  }

  /** Where the chain stood at the last checkpoint (verified with its own key before it is built on), or genesis. */
  private async resume(): Promise<Fold> {
    const [last] = await this.store.readStream(CHECKPOINT_STREAM, { direction: 'backwards', maxCount: 1 });
    if (!last) return { chain: GENESIS, tree: EMPTY_TREE, pending: 0, revision: null, lastAt: this.clock().getTime() };
    const cp = last.data;
    if (!isSignedCheckpoint(cp) || checkSignature(cp) !== 'valid') {
      throw new Error(`the last audit checkpoint (${CHECKPOINT_STREAM} revision ${last.revision}) is malformed or its signature does not verify: not building on it`);
    }
    // Built on only when signed by this platform: its key, or an earlier one named in AUDIT_TRUSTED_KEYS.
    if (checkSignature(cp, [this.key!.public_key, ...this.config.auditTrustedKeys]) !== 'valid') {
      throw new Error(`the last audit checkpoint (${CHECKPOINT_STREAM} revision ${last.revision}) is signed with key ${cp.key_id}, neither this platform's signing key nor one in AUDIT_TRUSTED_KEYS: not building on it`);
    }
    const tree = await this.treeAt(cp);
    this.lastPosition = BigInt(cp.position);
    return {
      chain: { position: BigInt(cp.position), count: BigInt(cp.event_count), commitment: cp.global_commitment },
      tree,
      pending: 0,
      revision: last.revision,
      lastAt: Date.parse(cp.created_at),
    };
  }

  /**
   * The tree's frontier at a checkpoint: from the audit-merkle projection's nodes when it has passed the checkpoint
   * (one query), else folded from the log's start (the rebuild path, once). A v2 checkpoint's signed root must
   * match either way: the checkpointer does not build on a tree head it cannot reproduce.
   */
  private async treeAt(cp: SignedCheckpoint): Promise<MerkleFrontier> {
    const size = Number(cp.event_count);
    const signed = cp.alg === CHECKPOINT_ALG ? cp.root_hash : null;
    const ids = frontierNodeIds(size);
    const stored = await merkleNodes(this.db.reader, ids).catch((err: unknown) => {
      this.logger.warn({ err }, 'audit checkpointer: the audit-merkle nodes could not be read; folding the tree from the log');
      return [];
    });
    if (stored.length === ids.length) {
      const byId = new Map(stored.map((n) => [`${n.level}:${n.index}`, n.hash]));
      const frontier = ids.map((id) => byId.get(`${id.level}:${id.index}`)!);
      if (signed === null || rootFromFrontier(frontier, size).toString('hex') === signed) return { size, frontier };
      this.logger.warn({ tree_size: size }, 'audit checkpointer: the audit-merkle nodes do not give the signed root; folding the tree from the log');
    }
    let tree = EMPTY_TREE;
    let last: bigint | null = null;
    while (tree.size < size) {
      const page = await this.store.readAll({ after: last ?? undefined, maxCount: Math.min(2000, size - tree.size) });
      if (page.length === 0) break;
      for (const e of page) tree = foldLeaf(tree, e.event_commitment);
      last = page[page.length - 1].position;
    }
    if (tree.size !== size || last?.toString() !== cp.position) {
      throw new Error(`the last audit checkpoint covers ${size} events up to position ${cp.position}, the log has ${tree.size} up to ${last ?? 'none'}: not building on it`);
    }
    if (signed !== null && rootHex(tree) !== signed) {
      throw new Error(`the last audit checkpoint's Merkle root (${signed}) is not the log's (${rootHex(tree)}) at ${size} events: not building on it`);
    }
    return tree;
  }
}
