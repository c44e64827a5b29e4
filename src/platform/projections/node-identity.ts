/**
 * Who holds a lease: a node's stable identity and its incarnation. A lease owner is `<node id>#<incarnation>`, the
 * incarnation a 16-digit number that grows with every start of the node. A node that restarts with the same identity
 * (after a crash, `kill -9`) takes the leases its earlier incarnation still holds at once, instead of waiting up to
 * LEASE_MS for them to expire: that incarnation is gone, and if it is not (two processes given one NODE_ID), its next
 * renewal or checkpoint write names an owner that no longer holds the row and fails (fencing), so it stands by.
 *
 * NODE_ID names the node (a pod or host name in a cluster); without it, the node's id is kept in DATA_DIR/node.id,
 * created on first start, so the embedded single node is the same node across restarts. One-off tools (the
 * projections and Kafka CLIs) take a random identity of their own: they never displace the server.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareDataDir, writePrivateFileOnce } from '../security/data-dir';

/** Nest token of this process's LeaseOwnerIdentity (platform.module.ts). */
export const NODE_IDENTITY = Symbol('NODE_IDENTITY');

export const NODE_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const INCARNATION_DIGITS = 16;
const NODE_ID_FILE = 'node.id';

export interface LeaseOwnerIdentity {
  nodeId: string;
  incarnation: bigint;
  /** What the lease rows record as their owner. */
  owner: string;
  /** The server's share of the jobs among the live nodes (src/platform/jobs/node-membership.ts); tools have none. */
  jobs?: JobAssignment;
}

/** How a job found its lease gone (platform_leases_lost_total's `how`). */
export type LeaseLoss = 'write_refused' | 'renewal';

/** A job's loop as the node's assignment drives it. */
export interface JobControl {
  /** Stop running it and let its lease go: another node is to run it. */
  handOff(): void;
  /** Try its lease now: it is this node's to run. */
  wake(): void;
  /** Its lease is gone (another node holds it): stop without releasing, stand by. */
  lose(): void;
  /** Whether it runs here now (holding its lease, or taking it). */
  readonly running: boolean;
}

/** Which single-writer jobs this node runs: its share among the live nodes (src/platform/jobs/node-membership.ts). */
export interface JobAssignment {
  /** A job this node can run; `control` lets the assignment start and stop it (a sweep has none). Returns the detach. */
  attach(job: string, control?: JobControl): () => void;
  /** Whether this node is to run the job now (its share); false: another live node is. */
  mayTake(job: string): Promise<boolean>;
  /** Lease owners known to be gone (a crashed node): their leases may be taken at once. */
  goneOwners(): readonly string[];
  /** Whether this node holds the job's lease as of its last renewal, or took it since. */
  holds(job: string): boolean;
  tookLease(job: string): void;
  letGo(job: string): void;
  /** The job found its lease gone: a write refused by fencing (another holder's), or a renewal that found it moved. */
  lostLease(job: string, how: LeaseLoss): void;
  /** Whether this node was the only live one at its last heartbeat (nobody else waits on what it announces). */
  alone(): boolean;
  /** The lease clock (ms): the database's where nodes share one, so hosts' clocks that differ do not bend leases. */
  now(): number;
}

export function leaseOwner(nodeId: string, incarnation: bigint): string {
  return `${nodeId}#${incarnation.toString().padStart(INCARNATION_DIGITS, '0')}`;
}

export function identityOf(nodeId: string, incarnation: bigint): LeaseOwnerIdentity {
  return { nodeId, incarnation, owner: leaseOwner(nodeId, incarnation) };
}

/** The node id and incarnation an owner names, or null for an owner of another shape (a tool, an older version). */
export function parseLeaseOwner(owner: string | null): { nodeId: string; incarnation: bigint } | null {
  const match = owner === null ? null : /^([A-Za-z0-9._-]{1,64})#(\d{16})$/.exec(owner);
  return match ? { nodeId: match[1], incarnation: BigInt(match[2]) } : null;
}

/** True when `owner` is an earlier incarnation of this node: its lease may be taken at once. */
export function isEarlierIncarnation(owner: string | null, me: LeaseOwnerIdentity): boolean {
  const parsed = parseLeaseOwner(owner);
  return parsed !== null && parsed.nodeId === me.nodeId && parsed.incarnation < me.incarnation;
}

/**
 * This start's incarnation: the clock in milliseconds, or one past the highest incarnation of this node any lease row
 * still names, whichever is larger (so a clock set back does not make a restart look older than the crash it follows).
 */
export function nextIncarnation(nodeId: string, ownersSeen: Iterable<string | null>, nowMs: number): bigint {
  let next = BigInt(nowMs);
  for (const owner of ownersSeen) {
    const parsed = parseLeaseOwner(owner);
    if (parsed && parsed.nodeId === nodeId && parsed.incarnation >= next) next = parsed.incarnation + 1n;
  }
  return next;
}

/** NODE_ID when set; else the id kept in DATA_DIR/node.id, created (0600) on first start. */
export function loadOrCreateNodeId(dataDir: string, configured?: string): string {
  if (configured !== undefined && configured !== '') return configured;
  const path = join(dataDir, NODE_ID_FILE);
  const existing = readNodeId(path);
  if (existing) return existing;
  prepareDataDir(dataDir);
  writePrivateFileOnce(path, `node-${randomBytes(6).toString('hex')}\n`);
  const created = readNodeId(path);
  if (!created) throw new Error(`${path} could not be read after creation`);
  return created;
}

function readNodeId(path: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!NODE_ID_PATTERN.test(text)) throw new Error(`${path} does not hold a node id (1-64 of A-Z a-z 0-9 . _ -); remove it to have a new one made`);
  return text;
}

/** A random identity for a one-off tool or a test: it displaces nobody, and nobody displaces it. */
export function transientIdentity(): LeaseOwnerIdentity {
  return identityOf(`tool-${process.pid}-${randomBytes(6).toString('hex')}`, BigInt(Date.now()));
}
