/**
 * The Merkle tree over the log (issue 50, docs/plans/merkle-proofs.md step 2; the tree itself: docs/audit.md 1.7 and
 * src/modules/audit/domain/merkle.ts). Leaf i is the i-th event of the log, every event (checkpoint events included):
 * its leaf hash is `leafHashOfCommitment(event_commitment)`. The projector reads every event exactly once, in position
 * order (Projector.handlesAll), so a leaf's index is the number of events before it.
 *
 *   audit_merkle_nodes   the perfect subtrees (level, idx) that are complete, with their hash (64 lowercase hex):
 *                        insert-only, what `appendLeaves` names as completed; leaves are level 0
 *   audit_merkle_state   one row (id 1): the tree's size and its frontier (the hashes of `frontierNodeIds(size)`,
 *                        largest first, comma-separated hex), written in the batch's transaction with its checkpoint
 *   audit_merkle_leaves  which leaf an event is: event_id -> (leaf_index, position, event_commitment). Positions are
 *                        dense on SQLite but not on PostgreSQL (a rolled-back sequence value) nor EventStoreDB (commit
 *                        positions), so the index is recorded, never derived; an inclusion proof starts from an event id
 *   audit_merkle_checkpoints  the signed v2 checkpoints (AuditCheckpointRecorded) by tree_size, as stored: the tree
 *                        heads proofs are given against. A checkpoint comes after every event it covers, so once it is
 *                        here the nodes of its tree are too
 *
 * A batch reads the state once, folds its events, inserts the completed nodes in multi-row INSERTs and writes the state.
 * Proofs read nodes through `merkleNodes` (one query for the ids `inclusionNodeIds`/`consistencyNodeIds` name).
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql, type ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { appendLeaves, leafHashOfCommitment, type NodeId, type StoredNode } from '../../src/modules/audit/domain/merkle';
import { CHECKPOINT_ALG, CHECKPOINT_EVENT_TYPE, isSignedCheckpoint, type SignedCheckpointV2 } from '../../src/modules/audit/domain/checkpoint';

export class AuditMerkle1764000015100 implements MigrationInterface {
  name = 'AuditMerkle1764000015100';
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'audit_merkle_nodes',
        columns: [
          { name: 'level', type: 'integer', isPrimary: true },
          { name: 'idx', type: 'bigint', isPrimary: true },
          { name: 'hash', type: 'varchar', length: '64' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'audit_merkle_state',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'size', type: 'bigint' },
          { name: 'frontier', type: 'text' },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('audit_merkle_state');
    await q.dropTable('audit_merkle_nodes');
  }
}

/** Which leaf each event is (for inclusion proofs, which start from an event id), and the checkpoints by tree size. */
export class AuditMerkleLeaves1764000015200 implements MigrationInterface {
  name = 'AuditMerkleLeaves1764000015200';
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'audit_merkle_leaves',
        columns: [
          { name: 'event_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'leaf_index', type: 'bigint' },
          { name: 'position', type: 'bigint' },
          { name: 'event_commitment', type: 'varchar', length: '64' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'audit_merkle_checkpoints',
        columns: [
          { name: 'tree_size', type: 'bigint', isPrimary: true },
          { name: 'position', type: 'bigint' },
          { name: 'checkpoint', type: 'text' },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('audit_merkle_checkpoints');
    await q.dropTable('audit_merkle_leaves');
  }
}

/** The tree as its state row stores it: size and frontier together (merkle.ts requires them to agree). */
export interface MerkleState {
  size: number;
  frontier: Buffer[];
}

/** Parameters per INSERT: well under SQLite's (32,766) and PostgreSQL's (65,535) limits on a statement's parameters. */
const INSERT_PARAMETERS = 1500;

/** Where the helpers read: a transaction's EntityManager, or a DataSource (ReadModelDatabase.reader). */
type Queryable = Pick<EntityManager, 'query'>;

/** The stored size and frontier (the empty tree before the first event). */
export async function merkleState(db: Queryable): Promise<MerkleState> {
  const rows: Array<{ size: string | number; frontier: string }> = await db.query('SELECT size, frontier FROM audit_merkle_state WHERE id = 1');
  if (rows.length === 0) return { size: 0, frontier: [] };
  const frontier = rows[0].frontier === '' ? [] : rows[0].frontier.split(',').map((h) => Buffer.from(h, 'hex'));
  return { size: Number(rows[0].size), frontier };
}

/** The number of leaves (events) the stored tree holds. */
export async function treeSize(db: Queryable): Promise<number> {
  return (await merkleState(db)).size;
}

/**
 * The stored nodes among `ids`, in one query (those not stored are absent: `nodeSourceOf` names a missing one). Ids
 * are integers (merkle.ts NodeIds), so they go into the query as literals, which keeps it to one statement whatever
 * the count (a proof names at most 2·⌈log2 n⌉ + 1).
 */
export async function merkleNodes(db: Queryable, ids: readonly NodeId[]): Promise<StoredNode[]> {
  if (ids.length === 0) return [];
  for (const id of ids) {
    if (!Number.isSafeInteger(id.level) || !Number.isSafeInteger(id.index) || id.level < 0 || id.index < 0) throw new RangeError(`not a Merkle node id: ${JSON.stringify(id)}`);
  }
  const where = ids.map((id) => `(level = ${id.level} AND idx = ${id.index})`).join(' OR ');
  const rows: Array<{ level: number | string; idx: number | string; hash: string }> = await db.query(`SELECT level, idx, hash FROM audit_merkle_nodes WHERE ${where}`);
  return rows.map((r) => ({ level: Number(r.level), index: Number(r.idx), hash: Buffer.from(r.hash, 'hex') }));
}

/** Where an event is in the tree (null: the projection has not reached it, or no such event). */
export interface MerkleLeaf {
  event_id: string;
  leaf_index: number;
  position: bigint;
  event_commitment: string;
}

export async function merkleLeaf(db: ReadModelDatabase, eventId: string): Promise<MerkleLeaf | null> {
  const rows: Array<{ leaf_index: string | number; position: string | number; event_commitment: string }> = await db.reader.query(
    db.sql('SELECT leaf_index, position, event_commitment FROM audit_merkle_leaves WHERE event_id = ?'),
    [eventId],
  );
  return rows.length === 0 ? null : { event_id: eventId, leaf_index: Number(rows[0].leaf_index), position: BigInt(rows[0].position), event_commitment: rows[0].event_commitment };
}

/**
 * A signed v2 checkpoint the tree holds: the one of `treeSize` leaves, or (`'latest'`) the newest. Null when none
 * (yet): the projection has not passed it, or no checkpoint signs a tree of that size.
 */
export async function merkleCheckpoint(db: ReadModelDatabase, treeSize: number | 'latest'): Promise<SignedCheckpointV2 | null> {
  const rows: Array<{ checkpoint: string }> =
    treeSize === 'latest'
      ? await db.reader.query('SELECT checkpoint FROM audit_merkle_checkpoints ORDER BY tree_size DESC LIMIT 1')
      : await db.reader.query(db.sql('SELECT checkpoint FROM audit_merkle_checkpoints WHERE tree_size = ?'), [treeSize]);
  return rows.length === 0 ? null : (JSON.parse(rows[0].checkpoint) as SignedCheckpointV2);
}

/** Inserts rows, many per statement (parameters gathered in a loop: `flat()` cost a microsecond an event). */
async function insertRows(tx: EntityManager, table: string, columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<number | string>>, conflict = ''): Promise<void> {
  const width = columns.length;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const chunkRows = Math.floor(INSERT_PARAMETERS / width);
  for (let at = 0; at < rows.length; at += chunkRows) {
    const end = Math.min(rows.length, at + chunkRows);
    const params = new Array<number | string>((end - at) * width);
    let k = 0;
    for (let r = at; r < end; r++) for (const value of rows[r]) params[k++] = value;
    await tx.query(portableSql(tx, `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${new Array(end - at).fill(tuple).join(', ')}${conflict}`), params);
  }
}

const NODE_COLUMNS = ['level', 'idx', 'hash'];
const LEAF_COLUMNS = ['event_id', 'leaf_index', 'position', 'event_commitment'];
const CHECKPOINT_COLUMNS = ['tree_size', 'position', 'checkpoint'];

export class AuditMerkleProjector implements Projector {
  readonly name = 'audit-merkle';
  readonly handles: readonly string[] = [];
  readonly handlesAll = true;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    await this.applyBatch([event], tx);
  }

  async applyBatch(events: RecordedEvent[], tx: EntityManager): Promise<void> {
    if (events.length === 0) return;
    const before = await merkleState(tx);
    const after = appendLeaves(before.frontier, before.size, events.map((e) => leafHashOfCommitment(e.event_commitment)));
    await insertRows(tx, 'audit_merkle_nodes', NODE_COLUMNS, after.completed.map((n) => [n.level, n.index, n.hash.toString('hex')]));
    await insertRows(tx, 'audit_merkle_leaves', LEAF_COLUMNS, events.map((e, i) => [e.event_id, before.size + i, e.position.toString(), e.event_commitment]));
    const checkpoints: Array<[string, string, string]> = [];
    for (const e of events) {
      const cp: unknown = e.data;
      if (e.type === CHECKPOINT_EVENT_TYPE && isSignedCheckpoint(cp) && cp.alg === CHECKPOINT_ALG) checkpoints.push([cp.tree_size, e.position.toString(), JSON.stringify(cp)]);
    }
    // One checkpoint per tree size in a log; should one repeat it, the first stays (a proof's anchor never changes).
    await insertRows(tx, 'audit_merkle_checkpoints', CHECKPOINT_COLUMNS, checkpoints, ' ON CONFLICT (tree_size) DO NOTHING');
    const frontier = after.frontier.map((h) => h.toString('hex')).join(',');
    if (before.size === 0) {
      // The empty tree has no state row (none before the first event, none after a reset).
      await tx.query(portableSql(tx, 'INSERT INTO audit_merkle_state (id, size, frontier) VALUES (1, ?, ?)'), [after.size, frontier]);
    } else {
      await tx.query(portableSql(tx, 'UPDATE audit_merkle_state SET size = ?, frontier = ? WHERE id = 1'), [after.size, frontier]);
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM audit_merkle_nodes');
    await tx.query('DELETE FROM audit_merkle_leaves');
    await tx.query('DELETE FROM audit_merkle_checkpoints');
    await tx.query('DELETE FROM audit_merkle_state');
  }
}

export const auditMerkleReadModel: ReadModelDefinition = {
  name: 'audit-merkle',
  entities: [],
  migrations: [AuditMerkle1764000015100, AuditMerkleLeaves1764000015200],
  projector: AuditMerkleProjector,
};
