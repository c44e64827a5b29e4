/**
 * The Merkle tree over the log (src/modules/audit/domain/merkle.ts, RFC 9162 section 2.1), given/when/then: the
 * tree, its proofs and their verification against the independent vectors (test/fixtures/merkle_make_vectors.py,
 * itself checked against the published RFC 6962/9162 vectors); the incremental tree against the recursive MTH for
 * every size 0..130; every inclusion and consistency proof up to 64 leaves, assembled from a node store and verified,
 * and each kind of tampering refused; the node ids a proof reads, O(log n) and only perfect subtrees.
 */
import { createHash } from 'node:crypto';
import vectors from '../fixtures/merkle_vectors.json';
import {
  appendLeaf, appendLeaves, consistencyNodeIds, consistencyProof, EMPTY_ROOT, frontierNodeIds, inclusionNodeIds, inclusionPath, leafHash,
  leafHashOfCommitment, nodeHash, nodeSourceOf, rangeNodeIds, rootAt, rootFromFrontier, rootOf, subtreeRange, verifyConsistency, verifyInclusion,
  type NodeId, type NodeSource, type StoredNode,
} from '../../src/modules/audit/domain/merkle';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const unhex = (s: string): Buffer => Buffer.from(s, 'hex');

/** Event-commitment-like leaves, as the vectors make them: sha256_hex("leaf-<i>"). */
const commitment = (i: number): string => createHash('sha256').update(`leaf-${i}`).digest('hex');
const LEAVES = Array.from({ length: 131 }, (_, i) => leafHashOfCommitment(commitment(i)));

interface Tree {
  frontier: Buffer[];
  size: number;
  nodes: StoredNode[];
}

/** The tree of the first `n` leaves, grown one append at a time, with every node the appends completed. */
function grow(n: number): Tree {
  let tree: Tree = { frontier: [], size: 0, nodes: [] };
  for (const leaf of LEAVES.slice(0, n)) {
    const step = appendLeaf(tree.frontier, tree.size, leaf);
    tree = { frontier: step.frontier, size: step.size, nodes: tree.nodes.concat(step.completed) };
  }
  return tree;
}

const STORE64 = grow(64);

/** The store as a proof of a tree of `size` leaves may read it: only perfect subtrees inside that tree. */
function storeAt(size: number, reads: NodeId[] = []): NodeSource {
  const source = nodeSourceOf(STORE64.nodes);
  return (level, index) => {
    if (subtreeRange({ level, index }).end > size) throw new Error(`node (${level}, ${index}) is outside a tree of ${size}`);
    reads.push({ level, index });
    return source(level, index);
  };
}

/** RFC 9162 PATH and PROOF by their recursive definitions over leaf hashes: a second reference inside the suite. */
function refPath(m: number, d: Buffer[]): Buffer[] {
  if (d.length === 1) return [];
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return m < k ? [...refPath(m, d.slice(0, k)), rootOf(d.slice(k))] : [...refPath(m - k, d.slice(k)), rootOf(d.slice(0, k))];
}
function refSubproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [rootOf(d)];
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return m <= k ? [...refSubproof(m, d.slice(0, k), b), rootOf(d.slice(k))] : [...refSubproof(m - k, d.slice(k), false), rootOf(d.slice(0, k))];
}

const flipped = (h: Uint8Array): Buffer => {
  const copy = Buffer.from(h);
  copy[0] ^= 8;
  return copy;
};

describe('the Merkle tree against the independent vectors (merkle_make_vectors.py)', () => {
  it('given no leaf, then the root is SHA-256 of the empty string', () => {
    expect(hex(EMPTY_ROOT)).toBe(vectors.empty_tree_hash);
    expect(hex(rootOf([]))).toBe(vectors.empty_tree_hash);
    expect(hex(rootFromFrontier([], 0))).toBe(vectors.empty_tree_hash);
  });

  it('given event commitments, then the leaf hash is SHA-256(0x00 ‖ the 32 bytes they spell)', () => {
    for (const leaf of vectors.leaves) {
      expect(hex(leafHashOfCommitment(leaf.event_commitment))).toBe(leaf.leaf_hash);
      expect(hex(leafHash(unhex(leaf.event_commitment)))).toBe(leaf.leaf_hash);
      expect(leaf.event_commitment).toBe(commitment(leaf.index));
    }
  });

  it('refuses a commitment that is not 64 lowercase hex (one leaf per event)', () => {
    expect(() => leafHashOfCommitment(commitment(0).toUpperCase())).toThrow(RangeError);
    expect(() => leafHashOfCommitment(commitment(0).slice(2))).toThrow(RangeError);
  });

  it.each(vectors.tree_heads.map((t) => [t.tree_size, t.root_hash] as const))('given %d leaves, then every way of computing the root gives the vector', (size, root) => {
    expect(hex(rootOf(LEAVES.slice(0, size)))).toBe(root);
    const tree = grow(size);
    expect(hex(rootFromFrontier(tree.frontier, size))).toBe(root);
    expect(hex(rootAt(size, storeAt(size)))).toBe(root);
  });

  it('assembles every inclusion path of sizes 1-8 from the node store exactly as the vectors, and verifies them', () => {
    for (const v of vectors.inclusion_proofs) {
      const path = inclusionPath(v.leaf_index, v.tree_size, storeAt(v.tree_size));
      expect({ leaf: v.leaf_index, size: v.tree_size, path: path.map(hex) }).toEqual({ leaf: v.leaf_index, size: v.tree_size, path: v.audit_path });
      expect(verifyInclusion(v.leaf_index, v.tree_size, unhex(v.leaf_hash), v.audit_path.map(unhex), unhex(v.root_hash))).toBe(true);
    }
    expect(vectors.inclusion_proofs).toHaveLength(36);
  });

  it('assembles every consistency proof among sizes 1-8 exactly as the vectors, and verifies them', () => {
    for (const v of vectors.consistency_proofs) {
      const proof = consistencyProof(v.first, v.second, storeAt(v.second));
      expect({ first: v.first, second: v.second, proof: proof.map(hex) }).toEqual({ first: v.first, second: v.second, proof: v.consistency_path });
      expect(verifyConsistency(v.first, v.second, unhex(v.first_root), unhex(v.second_root), v.consistency_path.map(unhex))).toBe(true);
    }
    expect(vectors.consistency_proofs).toHaveLength(36);
  });
});

describe('the growing tree (frontier and perfect subtrees)', () => {
  it('given 0..130 leaves appended one at a time, then the frontier root equals the recursive MTH at every size', () => {
    let frontier: Buffer[] = [];
    for (let size = 0; size <= 130; size++) {
      expect(hex(rootFromFrontier(frontier, size))).toBe(hex(rootOf(LEAVES.slice(0, size))));
      frontier = appendLeaf(frontier, size, LEAVES[size]).frontier;
    }
  });

  it('given 130 appends, then the completed nodes are exactly the perfect subtrees, each with its MTH, each inserted once', () => {
    const tree = grow(130);
    const keys = tree.nodes.map((n) => `${n.level}:${n.index}`);
    expect(new Set(keys).size).toBe(keys.length);
    // A tree of n leaves has 2n − popcount(n) perfect subtrees (n leaves, n − 1 merges less the frontier's pending).
    expect(tree.nodes).toHaveLength(2 * 130 - 2);
    for (const n of tree.nodes) {
      const { start, end } = subtreeRange(n);
      expect(end).toBeLessThanOrEqual(130);
      expect(hex(n.hash)).toBe(hex(rootOf(LEAVES.slice(start, end))));
    }
  });

  it('given a restart, when the frontier is read back from the store by frontierNodeIds, then appending goes on to the same roots', () => {
    const before = grow(77);
    const store = nodeSourceOf(before.nodes);
    const readBack = frontierNodeIds(77).map((id) => Buffer.from(store(id.level, id.index)));
    expect(readBack.map(hex)).toEqual(before.frontier.map(hex));
    expect(frontierNodeIds(77).map((id) => id.level)).toEqual([6, 3, 2, 0]); // 77 = 64 + 8 + 4 + 1
    const after = appendLeaves(readBack, 77, LEAVES.slice(77, 130));
    expect(after.size).toBe(130);
    expect(hex(rootFromFrontier(after.frontier, 130))).toBe(hex(rootOf(LEAVES.slice(0, 130))));
    expect([...before.nodes, ...after.completed].map((n) => `${n.level}:${n.index}:${hex(n.hash)}`)).toEqual(grow(130).nodes.map((n) => `${n.level}:${n.index}:${hex(n.hash)}`));
  });

  it('refuses a frontier that does not fit the size, and a leaf hash that is not 32 bytes', () => {
    const tree = grow(5);
    expect(() => appendLeaf(tree.frontier, 7, LEAVES[6])).toThrow(RangeError); // 7 has three set bits, 5 two
    expect(() => rootFromFrontier(tree.frontier, 4)).toThrow(RangeError);
    expect(() => appendLeaf(tree.frontier, 5, Buffer.alloc(31))).toThrow(RangeError);
  });
});

describe('inclusion proofs (RFC 9162 2.1.3)', () => {
  const roots = Array.from({ length: 131 }, (_, n) => rootOf(LEAVES.slice(0, n)));

  it('given every leaf of every size 1..64, then the path assembled from the store is RFC PATH, and verifies', () => {
    for (let n = 1; n <= 64; n++) {
      for (let i = 0; i < n; i++) {
        const path = inclusionPath(i, n, storeAt(n));
        expect(path.map(hex)).toEqual(refPath(i, LEAVES.slice(0, n)).map(hex));
        if (!verifyInclusion(i, n, LEAVES[i], path, roots[n])) throw new Error(`leaf ${i} of ${n} does not verify`);
      }
    }
  });

  it('given a tampered path element, leaf, root, index, size or path length, then verification fails', () => {
    const accepted: string[] = [];
    for (let n = 1; n <= 64; n++) {
      for (let i = 0; i < n; i++) {
        const path = inclusionPath(i, n, storeAt(n));
        const probes: Array<[string, boolean]> = [
          ...path.map((_, k): [string, boolean] => [`path[${k}] flipped`, verifyInclusion(i, n, LEAVES[i], path.map((p, j) => (j === k ? flipped(p) : p)), roots[n])]),
          ['leaf flipped', verifyInclusion(i, n, flipped(LEAVES[i]), path, roots[n])],
          ['another leaf', verifyInclusion(i, n, LEAVES[(i + 1) % 131], path, roots[n])],
          ['root flipped', verifyInclusion(i, n, LEAVES[i], path, flipped(roots[n]))],
          ['empty root', verifyInclusion(i, n, LEAVES[i], path, EMPTY_ROOT)],
          ['index − 1', verifyInclusion(i - 1, n, LEAVES[i], path, roots[n])],
          ['index + 1', verifyInclusion(i + 1, n, LEAVES[i], path, roots[n])],
          ['index ^ 2', verifyInclusion(i ^ 2, n, LEAVES[i], path, roots[n])],
          // The path does not commit to the size: leaf 0 of 3 and of 4 have paths of one shape, so (size, root) hold
          // only as a pair, the signed checkpoint's. Another size with its own root fails; a size of another depth fails.
          ['size + 1 with its root', verifyInclusion(i, n + 1, LEAVES[i], path, roots[n + 1])],
          ['size − 1 with its root', i < n - 1 && verifyInclusion(i, n - 1, LEAVES[i], path, roots[n - 1])],
          ['size × 2', verifyInclusion(i, n * 2, LEAVES[i], path, roots[n])],
          ['size ÷ 2', verifyInclusion(i, Math.floor(n / 2), LEAVES[i], path, roots[n])],
          ['path without its last', path.length > 0 && verifyInclusion(i, n, LEAVES[i], path.slice(0, -1), roots[n])],
          ['path with the root appended', verifyInclusion(i, n, LEAVES[i], [...path, roots[n]], roots[n])],
          ['path with the root prepended', verifyInclusion(i, n, LEAVES[i], [roots[n], ...path], roots[n])],
          ['short path element', path.length > 0 && verifyInclusion(i, n, LEAVES[i], [path[0].subarray(1), ...path.slice(1)], roots[n])],
        ];
        for (const [what, ok] of probes) if (ok) accepted.push(`leaf ${i} of ${n}: ${what}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  it('given a leaf index outside the tree, then there is no path to make and none verifies', () => {
    expect(() => inclusionNodeIds(3, 3)).toThrow(RangeError);
    expect(() => inclusionNodeIds(0, 0)).toThrow(RangeError);
    expect(verifyInclusion(0, 0, LEAVES[0], [], EMPTY_ROOT)).toBe(false);
    expect(verifyInclusion(1, 1, LEAVES[0], [], LEAVES[0])).toBe(false);
    expect(verifyInclusion(-1, 1, LEAVES[0], [], LEAVES[0])).toBe(false);
    expect(verifyInclusion(0.5, 1, LEAVES[0], [], LEAVES[0])).toBe(false);
    expect(verifyInclusion(0, 1, LEAVES[0], [], LEAVES[0])).toBe(true);
    expect(verifyInclusion(0n, 1n, LEAVES[0], [], LEAVES[0])).toBe(true);
  });
});

describe('consistency proofs (RFC 9162 2.1.4)', () => {
  const roots = Array.from({ length: 131 }, (_, n) => rootOf(LEAVES.slice(0, n)));

  it('given every pair 1 ≤ m ≤ n ≤ 64, then the proof assembled from the store is RFC PROOF, and verifies', () => {
    for (let n = 1; n <= 64; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(m, n, storeAt(n));
        expect(proof.map(hex)).toEqual(refSubproof(m, LEAVES.slice(0, n), true).map(hex));
        if (!verifyConsistency(m, n, roots[m], roots[n], proof)) throw new Error(`${m} → ${n} does not verify`);
      }
    }
  });

  it('given a tampered proof element, root, size or proof length, then verification fails', () => {
    const accepted: string[] = [];
    for (let n = 1; n <= 64; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(m, n, storeAt(n));
        const probes: Array<[string, boolean]> = [
          ...proof.map((_, k): [string, boolean] => [`proof[${k}] flipped`, verifyConsistency(m, n, roots[m], roots[n], proof.map((p, j) => (j === k ? flipped(p) : p)))]),
          ['first root flipped', verifyConsistency(m, n, flipped(roots[m]), roots[n], proof)],
          ['second root flipped', verifyConsistency(m, n, roots[m], flipped(roots[n]), proof)],
          ['roots swapped', m !== n && verifyConsistency(m, n, roots[n], roots[m], proof)],
          ['first − 1', verifyConsistency(m - 1, n, roots[m], roots[n], proof)],
          ['first + 1', verifyConsistency(m + 1, n, roots[m], roots[n], proof)],
          // As for inclusion, sizes hold only paired with their roots (the checkpoints').
          ['second + 1 with its root', verifyConsistency(m, n + 1, roots[m], roots[n + 1], proof)],
          ['second − 1 with its root', m < n && verifyConsistency(m, n - 1, roots[m], roots[n - 1], proof)],
          ['first − 1 with its root', m > 1 && verifyConsistency(m - 1, n, roots[m - 1], roots[n], proof)],
          ['first + 1 with its root', m < n && verifyConsistency(m + 1, n, roots[m + 1], roots[n], proof)],
          ['second × 2', verifyConsistency(m, n * 2, roots[m], roots[n], proof)],
          ['proof without its last', proof.length > 0 && verifyConsistency(m, n, roots[m], roots[n], proof.slice(0, -1))],
          ['proof with a hash appended', verifyConsistency(m, n, roots[m], roots[n], [...proof, roots[n]])],
          ['proof with a hash prepended', verifyConsistency(m, n, roots[m], roots[n], [roots[m], ...proof])],
          // A log that rewrote history: leaf 0 changed, so the old root is not a prefix of the new tree.
          ['rewritten first leaf', verifyConsistency(m, n, rootOf([LEAVES[130], ...LEAVES.slice(1, m)]), roots[n], proof)],
        ];
        for (const [what, ok] of probes) if (ok) accepted.push(`${m} → ${n}: ${what}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  it('given equal sizes, then only the empty proof and equal roots hold; size 0 and reversed sizes are refused', () => {
    expect(verifyConsistency(5, 5, roots[5], roots[5], [])).toBe(true);
    expect(verifyConsistency(5, 5, roots[5], roots[6], [])).toBe(false);
    expect(verifyConsistency(5, 5, roots[5], roots[5], [roots[5]])).toBe(false);
    expect(verifyConsistency(0, 5, EMPTY_ROOT, roots[5], [])).toBe(false);
    expect(verifyConsistency(6, 5, roots[6], roots[5], [])).toBe(false);
    expect(() => consistencyNodeIds(0, 5)).toThrow(RangeError);
    expect(() => consistencyNodeIds(6, 5)).toThrow(RangeError);
  });
});

describe('the node ids a proof reads', () => {
  const sortIds = (ids: NodeId[]): string[] => ids.map((id) => `${id.level}:${id.index}`).sort();
  const ceilLog2 = (n: number): number => (n <= 1 ? 0 : Math.ceil(Math.log2(n)));
  const perfectWithin = (ids: NodeId[], size: number): boolean => ids.every((id) => Number.isInteger(id.index) && id.index >= 0 && subtreeRange(id).end <= size);

  it('given every inclusion proof up to 300 leaves, then it reads at most 2·⌈log2 n⌉ perfect subtrees of the tree, exactly those it names', () => {
    for (let n = 1; n <= 300; n++) {
      for (let i = 0; i < n; i++) {
        const ids = inclusionNodeIds(i, n);
        if (ids.length > 2 * ceilLog2(n) || !perfectWithin(ids, n)) throw new Error(`leaf ${i} of ${n}: ${JSON.stringify(ids)}`);
      }
    }
    const reads: NodeId[] = [];
    inclusionPath(5, 61, storeAt(61, reads));
    expect(sortIds(reads)).toEqual(sortIds(inclusionNodeIds(5, 61)));
  });

  it('given every consistency proof up to 300 leaves, then it reads at most 2·⌈log2 n⌉ + 1 perfect subtrees of the new tree, exactly those it names', () => {
    for (let n = 1; n <= 300; n++) {
      for (let m = 1; m <= n; m++) {
        const ids = consistencyNodeIds(m, n);
        if (ids.length > 2 * ceilLog2(n) + 1 || !perfectWithin(ids, n)) throw new Error(`${m} → ${n}: ${JSON.stringify(ids)}`);
      }
    }
    const reads: NodeId[] = [];
    consistencyProof(13, 61, storeAt(61, reads));
    expect(sortIds(reads)).toEqual(sortIds(consistencyNodeIds(13, 61)));
  });

  it('given a million-leaf tree, then a proof still names a few dozen nodes, and the frontier one per set bit', () => {
    expect(inclusionNodeIds(123_456, 1_000_000).length).toBeLessThanOrEqual(40);
    expect(consistencyNodeIds(999_999, 1_000_000).length).toBeLessThanOrEqual(41);
    expect(frontierNodeIds(1_000_000)).toHaveLength(7); // 1,000,000 has 7 set bits
    expect(rangeNodeIds(0, 2 ** 40 + 3).map((id) => id.level)).toEqual([40, 1, 0]);
  });

  it('folds a right-edge range from its perfect subtrees to the MTH of the range', () => {
    // Leaves [48, 61) of a 61-leaf tree: 8 + 4 + 1, folded right to left.
    expect(rangeNodeIds(48, 61)).toEqual([{ level: 3, index: 6 }, { level: 2, index: 14 }, { level: 0, index: 60 }]);
    const source = storeAt(61);
    const folded = nodeHash(source(3, 6), nodeHash(source(2, 14), source(0, 60)));
    expect(hex(folded)).toBe(hex(rootOf(LEAVES.slice(48, 61))));
  });
});
