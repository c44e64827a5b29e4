/**
 * The Merkle tree over the log (issue 50): RFC 9162 section 2.1, exactly, so that any RFC 9162 verifier checks the
 * platform's proofs with nothing but the docs.
 *
 *   leaf input    the 32 bytes of the event's `event_commitment` (hex-decoded); leaf i is the i-th event of the log
 *   leaf hash     SHA-256(0x00 ‖ input)
 *   node hash     SHA-256(0x01 ‖ left ‖ right)
 *   MTH({})       SHA-256("")
 *   MTH(D[n])     for n > 1, with k the largest power of two smaller than n: node hash of MTH(D[0:k]) and MTH(D[k:n])
 *
 * Storage shape. The tree is kept as the hashes of its *perfect subtrees*: node (level, index) covers the leaves
 * [index·2^level, (index+1)·2^level), level 0 being the leaf hashes. A perfect subtree never changes once its last
 * leaf is in, so the store only ever inserts. The *frontier* of a tree of size n is the perfect subtrees on its right
 * edge — one per set bit of n, largest first — whose right fold is the root. Appending a leaf merges the frontier's
 * smallest subtrees like a binary counter carries (`appendLeaf`), and names the nodes that became complete: what a
 * projector inserts.
 *
 * Proofs. Every entry of an inclusion path (2.1.3.1) or a consistency proof (2.1.4.1) is the MTH of a range of leaves
 * D[a:b]. The range is always a perfect subtree, except on the right edge of the tree, where it is the MTH of a range
 * that decomposes into at most log2(n) perfect subtrees of decreasing size (its right fold). So a proof is two steps,
 * which lets the I/O layer fetch everything in one query: `inclusionNodeIds`/`consistencyNodeIds` name the perfect
 * subtrees the proof needs (O(log n) of them), then `inclusionPath`/`consistencyProof` assemble the proof from their
 * hashes through a synchronous `NodeSource` (`nodeSourceOf` builds one from the fetched rows).
 *
 * Verification (`verifyInclusion`, `verifyConsistency`) is RFC 9162 2.1.3.2 and 2.1.4.2 as written (bit operations
 * on the index and size), deliberately sharing no code with the generation above: a bug in one is not repeated in the
 * other, and the tests hold each against the other and both against independent vectors.
 *
 * Sizes and indexes are JavaScript numbers (safe integers: 2^53 events is beyond any log); the generation side uses
 * arithmetic rather than 32-bit bit operators for that reason. Pure (node:crypto SHA-256 only).
 */
import { hash } from 'node:crypto';

export const HASH_BYTES = 32;

/** A perfect subtree: covers the leaves [index·2^level, (index+1)·2^level). */
export interface NodeId {
  readonly level: number;
  readonly index: number;
}

/** A perfect subtree with its hash: a row of the node store. */
export interface StoredNode extends NodeId {
  readonly hash: Buffer;
}

/** The hash of a stored perfect subtree; throws when it is not there (a proof never asks for one that is not). */
export type NodeSource = (level: number, index: number) => Uint8Array;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);
const HEX64 = /^[0-9a-f]{64}$/;

function sha256(...parts: Uint8Array[]): Buffer {
  // One-shot hashing (Node >= 20.12) is about twice as fast as createHash() on the hot path (tree maintenance).
  return hash('sha256', parts.length === 1 ? parts[0] : Buffer.concat(parts), 'buffer') as unknown as Buffer;
}

/** MTH of the empty tree: SHA-256 of the empty string. */
export const EMPTY_ROOT: Buffer = sha256(Buffer.alloc(0));

export function leafHash(input: Uint8Array): Buffer {
  return sha256(LEAF_PREFIX, input);
}

/**
 * The leaf hash of an event: its leaf input is the 32 bytes its commitment spells. Only the canonical spelling (64
 * lowercase hex) is accepted, since the commitment is recomputed by the platform and must map to one leaf.
 */
export function leafHashOfCommitment(eventCommitment: string): Buffer {
  if (!HEX64.test(eventCommitment)) throw new RangeError(`an event commitment is 64 lowercase hex characters, got ${JSON.stringify(eventCommitment)}`);
  return leafHash(Buffer.from(eventCommitment, 'hex'));
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return sha256(NODE_PREFIX, left, right);
}

function assertSize(name: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative safe integer, got ${n}`);
}

/** The largest power of two smaller than n (n ≥ 2): where MTH splits. A loop, not log2, which rounds near 2^53. */
export function splitPoint(n: number): number {
  if (!(n >= 2)) throw new RangeError(`a tree of ${n} leaves does not split`);
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH by the recursive definition, over leaf hashes: the reference the stored tree is held against, and rebuilds. */
export function rootOf(leafHashes: readonly Uint8Array[]): Buffer {
  if (leafHashes.length === 0) return EMPTY_ROOT;
  const mth = (start: number, end: number): Buffer => {
    if (end - start === 1) return Buffer.from(leafHashes[start]);
    const k = splitPoint(end - start);
    return nodeHash(mth(start, start + k), mth(start + k, end));
  };
  return mth(0, leafHashes.length);
}

// ------------------------------------------------------------------------------------------------------------------
// Perfect subtrees and ranges
// ------------------------------------------------------------------------------------------------------------------

/** The leaves [start, end) a perfect subtree covers. */
export function subtreeRange(id: NodeId): { start: number; end: number } {
  const width = 2 ** id.level;
  return { start: id.index * width, end: (id.index + 1) * width };
}

/**
 * The perfect subtrees that decompose the leaves [start, end), left to right, each the largest that starts where the
 * previous ended. For the ranges a proof or a root needs (a range that lies in an aligned block it fills more than
 * half of, or the whole tree) they come in strictly decreasing size, and the range's MTH is their right fold:
 * MTH splits at the largest power of two below the length, which is the first subtree's width.
 */
export function rangeNodeIds(start: number, end: number): NodeId[] {
  assertSize('start', start);
  assertSize('end', end);
  if (start > end) throw new RangeError(`the range [${start}, ${end}) is reversed`);
  const ids: NodeId[] = [];
  let at = start;
  while (at < end) {
    let level = 0;
    // Grow while the doubled subtree is still aligned at `at` and still fits.
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= end) level++;
    ids.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return ids;
}

/** MTH of the leaves [start, end) from the stored perfect subtrees (the right fold of `rangeNodeIds`). */
function rangeHash(start: number, end: number, node: NodeSource): Buffer {
  const ids = rangeNodeIds(start, end);
  for (let i = 1; i < ids.length; i++) {
    // Not an MTH-shaped range: the fold would not be its MTH. Proofs and roots never ask for one.
    if (ids[i].level >= ids[i - 1].level) throw new RangeError(`[${start}, ${end}) is not the range of an MTH`);
  }
  let r: Buffer = Buffer.from(node(ids[ids.length - 1].level, ids[ids.length - 1].index));
  for (let i = ids.length - 2; i >= 0; i--) r = nodeHash(node(ids[i].level, ids[i].index), r);
  return r;
}

/** A `NodeSource` over fetched rows; a missing node is an error naming it (the store is behind, or a bug). */
export function nodeSourceOf(nodes: Iterable<StoredNode>): NodeSource {
  const byId = new Map<string, Uint8Array>();
  for (const n of nodes) byId.set(`${n.level}:${n.index}`, n.hash);
  return (level, index) => {
    const h = byId.get(`${level}:${index}`);
    if (h === undefined) throw new Error(`Merkle node (level ${level}, index ${index}) is not in the store`);
    return h;
  };
}

// ------------------------------------------------------------------------------------------------------------------
// The growing tree: frontier and appends
// ------------------------------------------------------------------------------------------------------------------

function popcount(n: number): number {
  let count = 0;
  for (let x = n; x > 0; x = Math.floor(x / 2)) count += x % 2;
  return count;
}

/** The frontier's node ids for a tree of `size` leaves (largest first): how a restart reads the frontier back. */
export function frontierNodeIds(size: number): NodeId[] {
  return rangeNodeIds(0, size);
}

/** The root of a tree of `size` leaves from its frontier (the perfect-subtree hashes of `frontierNodeIds(size)`). */
export function rootFromFrontier(frontier: readonly Uint8Array[], size: number): Buffer {
  assertSize('size', size);
  if (frontier.length !== popcount(size)) throw new RangeError(`a tree of ${size} leaves has a frontier of ${popcount(size)} subtrees, got ${frontier.length}`);
  if (size === 0) return EMPTY_ROOT;
  let r: Buffer = Buffer.from(frontier[frontier.length - 1]);
  for (let i = frontier.length - 2; i >= 0; i--) r = nodeHash(frontier[i], r);
  return r;
}

/** The root of a tree of `size` leaves (for a size the store has passed, e.g. an old checkpoint's) from its nodes. */
export function rootAt(size: number, node: NodeSource): Buffer {
  return rootFromFrontier(frontierNodeIds(size).map((id) => node(id.level, id.index)), size);
}

export interface Appended {
  frontier: Buffer[];
  size: number;
  /** The perfect subtrees the leaf completed, smallest first: the leaf itself (level 0), then each carry. */
  completed: StoredNode[];
}

/**
 * Appends one leaf hash to a tree of `size` leaves given by its frontier. Like incrementing a binary counter: every
 * trailing set bit of `size` is a frontier subtree of that level waiting for a right sibling of equal width, which
 * the new leaf (merged so far) now is.
 */
export function appendLeaf(frontier: readonly Buffer[], size: number, leaf: Buffer): Appended {
  assertSize('size', size);
  if (frontier.length !== popcount(size)) throw new RangeError(`a tree of ${size} leaves has a frontier of ${popcount(size)} subtrees, got ${frontier.length}`);
  if (leaf.length !== HASH_BYTES) throw new RangeError(`a leaf hash is ${HASH_BYTES} bytes, got ${leaf.length}`);
  const next = frontier.slice();
  let current = leaf;
  let level = 0;
  let index = size;
  const completed: StoredNode[] = [{ level, index, hash: current }];
  for (let carry = size; carry % 2 === 1; carry = Math.floor(carry / 2)) {
    current = nodeHash(next.pop() as Buffer, current);
    level += 1;
    index = Math.floor(index / 2);
    completed.push({ level, index, hash: current });
  }
  next.push(current);
  return { frontier: next, size: size + 1, completed };
}

/** `appendLeaf` over a batch (a projector's page of events). */
export function appendLeaves(frontier: readonly Buffer[], size: number, leaves: readonly Buffer[]): Appended {
  let state: Appended = { frontier: frontier.slice(), size, completed: [] };
  const completed: StoredNode[] = [];
  for (const leaf of leaves) {
    state = appendLeaf(state.frontier, state.size, leaf);
    for (const node of state.completed) completed.push(node); // pushed, not concatenated: linear in the batch
  }
  return { frontier: state.frontier, size: state.size, completed };
}

/** A tree held in memory as its frontier only (the checkpointer, the verifier, a migration): no nodes kept. */
export interface MerkleFrontier {
  readonly size: number;
  readonly frontier: readonly Buffer[];
}

export const EMPTY_TREE: MerkleFrontier = { size: 0, frontier: [] };

/** The tree with one more event, given its `event_commitment` (the leaf's input). */
export function foldLeaf(tree: MerkleFrontier, eventCommitment: string): MerkleFrontier {
  const { frontier, size } = appendLeaf(tree.frontier as Buffer[], tree.size, leafHashOfCommitment(eventCommitment));
  return { frontier, size };
}

/** The tree head (MTH) of an in-memory tree, as lowercase hex. */
export function rootHex(tree: MerkleFrontier): string {
  return rootFromFrontier(tree.frontier, tree.size).toString('hex');
}

// ------------------------------------------------------------------------------------------------------------------
// Proof generation (RFC 9162 2.1.3.1 and 2.1.4.1), as ranges of leaves, then node ids, then hashes
// ------------------------------------------------------------------------------------------------------------------

/** A proof entry: the MTH of the leaves [start, end). */
export interface LeafRange {
  readonly start: number;
  readonly end: number;
}

/**
 * PATH(m, D[n]) as ranges, leaf first. The recursion PATH(m, D[n]) = PATH(m, D[0:k]) : MTH(D[k:n]) (m < k) or
 * PATH(m − k, D[k:n]) : MTH(D[0:k]) (m ≥ k) walks from the root down, appending each level's sibling after the
 * deeper ones; walking down iteratively and reversing gives the same order.
 */
export function inclusionRanges(leafIndex: number, treeSize: number): LeafRange[] {
  assertSize('leafIndex', leafIndex);
  assertSize('treeSize', treeSize);
  if (leafIndex >= treeSize) throw new RangeError(`leaf ${leafIndex} is not in a tree of ${treeSize} leaves`);
  const siblings: LeafRange[] = [];
  let lo = 0;
  let n = treeSize;
  let m = leafIndex;
  while (n > 1) {
    const k = splitPoint(n);
    if (m < k) {
      siblings.push({ start: lo + k, end: lo + n });
      n = k;
    } else {
      siblings.push({ start: lo, end: lo + k });
      lo += k;
      n -= k;
      m -= k;
    }
  }
  return siblings.reverse();
}

/**
 * PROOF(m, D[n]) = SUBPROOF(m, D[n], true) as ranges, in proof order, for 1 ≤ m ≤ n (RFC 9162 defines it for
 * 0 < m < n; m = n gives the empty proof, as SUBPROOF(n, D[n], true) does). SUBPROOF(m, D[n], b): for m = n, {} if b
 * else {MTH(D[n])}; for m ≤ k, SUBPROOF(m, D[0:k], b) : MTH(D[k:n]); for m > k, SUBPROOF(m − k, D[k:n], false) :
 * MTH(D[0:k]).
 */
export function consistencyRanges(first: number, second: number): LeafRange[] {
  assertSize('first', first);
  assertSize('second', second);
  if (first < 1 || first > second) throw new RangeError(`no consistency proof from ${first} to ${second} leaves (1 ≤ first ≤ second)`);
  const outer: LeafRange[] = [];
  let lo = 0;
  let n = second;
  let m = first;
  let whole = true; // SUBPROOF's b: still on the path of the original PROOF call (no step to the right taken)
  while (m !== n) {
    const k = splitPoint(n);
    if (m <= k) {
      outer.push({ start: lo + k, end: lo + n });
      n = k;
    } else {
      outer.push({ start: lo, end: lo + k });
      lo += k;
      n -= k;
      m -= k;
      whole = false;
    }
  }
  // The old tree's own subtree is needed when it is not the old root itself (the verifier holds that one).
  if (!whole) outer.push({ start: lo, end: lo + n });
  return outer.reverse();
}

function nodeIdsOf(ranges: readonly LeafRange[]): NodeId[] {
  return ranges.flatMap((r) => rangeNodeIds(r.start, r.end));
}

/** The perfect subtrees `inclusionPath(leafIndex, treeSize, …)` reads: at most 2·⌈log2 n⌉ of them. */
export function inclusionNodeIds(leafIndex: number, treeSize: number): NodeId[] {
  return nodeIdsOf(inclusionRanges(leafIndex, treeSize));
}

/** The perfect subtrees `consistencyProof(first, second, …)` reads: at most 2·⌈log2 n⌉ + 1 of them. */
export function consistencyNodeIds(first: number, second: number): NodeId[] {
  return nodeIdsOf(consistencyRanges(first, second));
}

/** RFC 9162 2.1.3.1: the inclusion path of leaf `leafIndex` in the tree of its first `treeSize` leaves. */
export function inclusionPath(leafIndex: number, treeSize: number, node: NodeSource): Buffer[] {
  return inclusionRanges(leafIndex, treeSize).map((r) => rangeHash(r.start, r.end, node));
}

/** RFC 9162 2.1.4.1: the consistency proof between the trees of the first `first` and `second` leaves. */
export function consistencyProof(first: number, second: number, node: NodeSource): Buffer[] {
  return consistencyRanges(first, second).map((r) => rangeHash(r.start, r.end, node));
}

// ------------------------------------------------------------------------------------------------------------------
// Verification (RFC 9162 2.1.3.2 and 2.1.4.2), transcribed from the RFC's steps; shares nothing with the above
// ------------------------------------------------------------------------------------------------------------------

function isHash(h: unknown): h is Uint8Array {
  return h instanceof Uint8Array && h.length === HASH_BYTES;
}

/** A size or index as an exact integer for bit operations; null when it is none (the proof then fails). */
function asBits(n: number | bigint): bigint | null {
  if (typeof n === 'bigint') return n >= 0n ? n : null;
  return Number.isSafeInteger(n) && n >= 0 ? BigInt(n) : null;
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

function lsb(x: bigint): boolean {
  return (x & 1n) === 1n;
}

/**
 * RFC 9162 2.1.3.2: does `path` prove that `leaf` (a leaf hash) is leaf `leafIndex` of the tree of `treeSize` leaves
 * whose root is `root`? Any malformed input (a hash not 32 bytes, an index outside the tree) is a failed proof.
 * The path does not commit to `treeSize` on its own (leaf 0 of 3 leaves and of 4 has a path of one shape): the size
 * and the root hold as a pair, the one a signed checkpoint states, and a verifier takes both from it.
 */
export function verifyInclusion(leafIndex: number | bigint, treeSize: number | bigint, leaf: Uint8Array, path: readonly Uint8Array[], root: Uint8Array): boolean {
  const index = asBits(leafIndex);
  const size = asBits(treeSize);
  if (index === null || size === null || !isHash(leaf) || !isHash(root) || !path.every(isHash)) return false;
  // 1. leaf_index ≥ tree_size: fail.
  if (index >= size) return false;
  // 2. fn = leaf_index, sn = tree_size − 1.  3. r = hash.
  let fn = index;
  let sn = size - 1n;
  let r: Uint8Array = leaf;
  // 4. For each p in the path:
  for (const p of path) {
    // a. sn = 0: the path is longer than the tree is deep.
    if (sn === 0n) return false;
    // b. p is a left sibling when fn is a right child, or when fn is the last node of its level (sn) and so has no
    //    right sibling; then skip the levels where fn stays the lone last node.
    if (lsb(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!lsb(fn)) {
        while (!lsb(fn) && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    // c. Up one level.
    fn >>= 1n;
    sn >>= 1n;
  }
  // 5. The path must reach the root exactly (sn = 0) and give its hash.
  return sn === 0n && sameHash(r, root);
}

/**
 * RFC 9162 2.1.4.2: does `proof` prove that the tree of `first` leaves with root `firstRoot` is a prefix of the tree
 * of `second` leaves with root `secondRoot`? The RFC's algorithm is for 0 < first < second; for first = second the
 * only proof is the empty one and the roots must be equal (as RFC 9162's generation gives). first = 0 is not defined
 * by the RFC and fails, like any malformed input. As for inclusion, each size holds only with its root (from the
 * same signed checkpoint).
 */
export function verifyConsistency(first: number | bigint, second: number | bigint, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: readonly Uint8Array[]): boolean {
  const m = asBits(first);
  const n = asBits(second);
  if (m === null || n === null || !isHash(firstRoot) || !isHash(secondRoot) || !proof.every(isHash)) return false;
  if (m === 0n || m > n) return false;
  if (m === n) return proof.length === 0 && sameHash(firstRoot, secondRoot);
  // 1. An empty proof proves nothing between different sizes.
  if (proof.length === 0) return false;
  // 2. When first is a power of two the old tree is one perfect subtree of the new one, and the proof omits it.
  const path: Uint8Array[] = (m & (m - 1n)) === 0n ? [firstRoot, ...proof] : [...proof];
  // 3. fn = first − 1, sn = second − 1.
  let fn = m - 1n;
  let sn = n - 1n;
  // 4. Climb while fn is a right child: those levels are inside the first subtree of the proof.
  while (lsb(fn)) {
    fn >>= 1n;
    sn >>= 1n;
  }
  // 5. fr = sr = the first value.
  let fr: Uint8Array = path[0];
  let sr: Uint8Array = path[0];
  // 6. For each subsequent value c:
  for (const c of path.slice(1)) {
    // a. sn = 0: the proof is longer than the new tree is deep.
    if (sn === 0n) return false;
    // b. c is a left sibling (shared by both trees) or a right sibling (only in the new tree).
    if (lsb(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!lsb(fn)) {
        while (!lsb(fn) && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    // c. Up one level.
    fn >>= 1n;
    sn >>= 1n;
  }
  // 7. Both roots recomputed, and the proof reached the new root exactly.
  return sameHash(fr, firstRoot) && sameHash(sr, secondRoot) && sn === 0n;
}
