/**
 * The Merkle tree over the log as a projection (projections/audit-merkle, issue 50 step 2), on SQLite and the local
 * PostgreSQL, run by the ProjectionRunner: every event is a leaf (whatever its type, checkpoint events included), the
 * stored root is RFC 9162's MTH of the log's leaf hashes, proofs assembled from stored nodes verify, and a restart
 * mid-log or a rebuild gives the very same nodes as one incremental run.
 */
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import {
  consistencyNodeIds,
  consistencyProof,
  EMPTY_TREE,
  foldLeaf,
  frontierNodeIds,
  rootAt,
  rootHex,
  inclusionNodeIds,
  inclusionPath,
  leafHashOfCommitment,
  nodeSourceOf,
  rootFromFrontier,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from '../../src/modules/audit/domain/merkle';
import { CHECKPOINT_EVENT_TYPE, CHECKPOINT_STREAM, signCheckpoint, signCheckpointV1, signingKeyFromSeed, type SignedCheckpoint } from '../../src/modules/audit/domain/checkpoint';
import { foldGlobal, GENESIS } from '../../src/modules/audit/domain/global-chain';
import { AuditMerkleProjector, auditMerkleReadModel, merkleCheckpoint, merkleLeaf, merkleNodes, merkleState, treeSize } from '../../projections/audit-merkle/audit-merkle.read-model';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';
import { hex32, newEvent } from '../support/events';

const TYPES = ['LedgerOpened', 'LedgerCredited', CHECKPOINT_EVENT_TYPE, 'SomethingElse'];

describe.each<DatabaseKind>(['sqlite', 'postgres'])('the audit Merkle projection on %s', (kind) => {
  let testDb: TestDatabase;
  let store: SqliteEventStore;
  let db: ReadModelDatabase;
  const runners: ProjectionRunner[] = [];
  let appended = 0;

  beforeEach(async () => {
    testDb = makeTestDatabase(kind);
    store = new SqliteEventStore({ filename: join(testDb.dataDir, 'events.sqlite'), pollIntervalMs: 20 });
    db = await testDb.open([auditMerkleReadModel]);
    appended = 0;
  });

  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await db.close();
    await store.close();
    await testDb.dispose();
  });

  /** Appends `count` events in commits of 1 to 5 events over several streams, of several types. */
  async function append(count: number): Promise<void> {
    const streams = [`s-${hex32()}`, `s-${hex32()}`, `s-${hex32()}`];
    let left = count;
    for (let commit = 0; left > 0; commit++) {
      const n = Math.min(left, 1 + (commit % 5));
      const events = Array.from({ length: n }, () => newEvent(TYPES[appended++ % TYPES.length], { i: appended }));
      await store.append(streams[commit % streams.length], events, 'any');
      left -= n;
    }
  }

  async function logLeaves(): Promise<Buffer[]> {
    const leaves: Buffer[] = [];
    for (let after = 0n; ; ) {
      const page = await store.readAll({ after, maxCount: 100 });
      if (page.length === 0) return leaves;
      for (const e of page) leaves.push(leafHashOfCommitment(e.event_commitment));
      after = page[page.length - 1].position;
    }
  }

  function runner(batchSize: number): ProjectionRunner {
    const r = new ProjectionRunner(store, db, [new AuditMerkleProjector()], { batchSize, retryDelayMs: 20 });
    runners.push(r);
    return r;
  }

  /** Runs until the projector has passed the head, then stops. */
  async function runToHead(r: ProjectionRunner): Promise<void> {
    r.start();
    expect(await r.waitFor(await store.headPosition(), undefined, 10_000)).toBe(true);
    expect(r.status()[0].last_error).toBeNull();
    await r.stop();
  }

  const allNodes = async (): Promise<Array<{ level: number; idx: number; hash: string }>> =>
    ((await db.reader.query('SELECT level, idx, hash FROM audit_merkle_nodes ORDER BY level, idx')) as Array<{ level: number | string; idx: number | string; hash: string }>).map((r) => ({
      level: Number(r.level),
      idx: Number(r.idx),
      hash: r.hash,
    }));

  const storedRoot = async (): Promise<Buffer> => {
    const state = await merkleState(db.reader);
    return rootFromFrontier(state.frontier, state.size);
  };

  it('stores the RFC 9162 tree of every event: root, inclusion paths and consistency proofs from the stored nodes', async () => {
    // Several commits and several runner batches (7 events each), over 64 events.
    await append(20);
    await runToHead(runner(7));
    await append(44);
    await runToHead(runner(7));

    const leaves = await logLeaves();
    expect(leaves).toHaveLength(64);
    expect(await treeSize(db.reader)).toBe(64);
    // A projector of every event is no part of a command's read-your-writes.
    expect(runner(7).projectorsFor(TYPES)).toEqual([]);
    expect((await storedRoot()).equals(rootOf(leaves))).toBe(true);
    // 64 leaves: 127 nodes in all, every perfect subtree.
    expect(await allNodes()).toHaveLength(127);

    for (let n = 1; n <= 64; n++) {
      const root = rootOf(leaves.slice(0, n));
      for (let i = 0; i < n; i++) {
        const source = nodeSourceOf(await merkleNodes(db.reader, inclusionNodeIds(i, n)));
        const path = inclusionPath(i, n, source);
        expect(verifyInclusion(i, n, leaves[i], path, root)).toBe(true);
      }
      for (let m = 1; m <= n; m++) {
        const source = nodeSourceOf(await merkleNodes(db.reader, consistencyNodeIds(m, n)));
        const proof = consistencyProof(m, n, source);
        expect(verifyConsistency(m, n, rootOf(leaves.slice(0, m)), root, proof)).toBe(true);
      }
    }
  }, 120_000);

  it('a restart mid-log and a rebuild give the same nodes and root as one run', async () => {
    await append(37);
    const first = runner(5);
    await runToHead(first);
    expect(await treeSize(db.reader)).toBe(37);
    await append(58);
    // A new runner (another process) resumes from the stored checkpoint and state.
    await runToHead(runner(11));
    const incremental = await allNodes();
    const root = await storedRoot();
    const leaves = await logLeaves();
    expect(leaves).toHaveLength(95);
    // Every event's leaf: its index is the count of events before it, whatever the batches and the restart.
    const log = await store.readAll({ maxCount: 1000 });
    for (const [i, e] of log.entries()) expect(await merkleLeaf(db, e.event_id)).toEqual({ event_id: e.event_id, leaf_index: i, position: e.position, event_commitment: e.event_commitment });
    const leafRows = async (): Promise<unknown[]> => db.reader.query('SELECT event_id, leaf_index, position FROM audit_merkle_leaves ORDER BY leaf_index');
    const incrementalLeaves = await leafRows();
    expect(incrementalLeaves).toHaveLength(95);
    expect(root.equals(rootOf(leaves))).toBe(true);
    expect(incremental.filter((n) => n.level === 0).map((n) => n.hash)).toEqual(leaves.map((l) => l.toString('hex')));

    // From scratch, in other batches: the same tree.
    const rebuilt = await runner(13).rebuild('audit-merkle');
    expect(rebuilt.events).toBe(95);
    expect(await allNodes()).toEqual(incremental);
    expect(await leafRows()).toEqual(incrementalLeaves);
    expect((await storedRoot()).equals(root)).toBe(true);
    expect(await treeSize(db.reader)).toBe(95);

    // And it goes on from there with new events.
    await append(3);
    await runToHead(runner(500));
    expect((await storedRoot()).equals(rootOf(await logLeaves()))).toBe(true);
  }, 60_000);

  it('keeps the signed v2 checkpoints by tree size (the heads proofs are given against); v1 and malformed ones are not heads', async () => {
    const key = signingKeyFromSeed(Buffer.alloc(32, 9));
    /** Signs where the log stands now, as the checkpointer does, and appends it to the checkpoint stream. */
    const checkpointHere = async (version: 1 | 2): Promise<SignedCheckpoint> => {
      let chain = GENESIS;
      let tree = EMPTY_TREE;
      for (const e of await store.readAll({ maxCount: 10_000 })) {
        chain = foldGlobal(chain, e.position, e.event_commitment);
        tree = foldLeaf(tree, e.event_commitment);
      }
      const at = { position: chain.position, event_count: chain.count, global_commitment: chain.commitment!, created_at: '2026-11-28T10:00:00.000Z' };
      const cp = version === 2 ? signCheckpoint({ ...at, root_hash: rootHex(tree) }, key) : signCheckpointV1(at, key);
      await store.append(CHECKPOINT_STREAM, [newEvent(CHECKPOINT_EVENT_TYPE, { ...cp })], 'any');
      return cp;
    };
    await append(10);
    const first = await checkpointHere(2);
    await append(7);
    const old = await checkpointHere(1);
    await append(5);
    const second = await checkpointHere(2);
    await runToHead(runner(4));

    expect(await merkleCheckpoint(db, 10)).toEqual(first);
    expect(await merkleCheckpoint(db, Number((second as { tree_size: string }).tree_size))).toEqual(second);
    expect(await merkleCheckpoint(db, 'latest')).toEqual(second);
    expect(await merkleCheckpoint(db, Number(old.event_count))).toBeNull();
    expect(await merkleCheckpoint(db, 11)).toBeNull();
    // The signed root is the stored tree's at that size.
    const size = Number((second as { tree_size: string }).tree_size);
    expect(rootAt(size, nodeSourceOf(await merkleNodes(db.reader, frontierNodeIds(size)))).toString('hex')).toBe((second as { root_hash: string }).root_hash);
    // A rebuild keeps the same heads.
    await runner(50).rebuild('audit-merkle');
    expect(await merkleCheckpoint(db, 'latest')).toEqual(second);
    expect(await merkleCheckpoint(db, 10)).toEqual(first);
  });

  it('reads nothing for no ids, and the empty tree before the first event', async () => {
    expect(await merkleNodes(db.reader, [])).toEqual([]);
    expect(await treeSize(db.reader)).toBe(0);
    expect(await merkleLeaf(db, hex32())).toBeNull();
    expect(await merkleCheckpoint(db, 'latest')).toBeNull();
    await expect(merkleNodes(db.reader, [{ level: -1, index: 0 }])).rejects.toThrow(RangeError);
  });
});
