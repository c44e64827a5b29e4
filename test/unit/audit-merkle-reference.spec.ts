/**
 * The Merkle tree of issue 50 against a second implementation written independently in the test suite
 * (test/support/rfc9162-reference.ts: RFC 9162 section 2.1 transcribed, nothing shared with src/), given/when/then:
 *
 *   1. the reference against the published RFC 6962 / RFC 9162 vectors (the Certificate Transparency corpus, as
 *      test/fixtures/merkle_make_vectors.py quotes it from github.com/transparency-dev/merkle), and the production
 *      code against the same vectors;
 *   2. the reference against test/fixtures/merkle_vectors.json: every tree head, inclusion path and consistency proof
 *      of sizes 1-8 reproduced exactly, every proof accepted by the reference verifiers and every tampered one refused;
 *   3. the reference against the production code (src/modules/audit/domain/merkle.ts) for every size 1..40: roots,
 *      every inclusion path, every consistency proof, and each side's verifiers on the other side's proofs, tampered
 *      or not.
 */
import { createHash } from 'node:crypto';
import vectors from '../fixtures/merkle_vectors.json';
import * as ref from '../support/rfc9162-reference';
import {
  appendLeaf, consistencyProof, inclusionPath, leafHash as prodLeafHash, leafHashOfCommitment, nodeHash as prodNodeHash, nodeSourceOf, rootAt, rootOf, subtreeRange,
  verifyConsistency, verifyInclusion, type NodeSource, type StoredNode,
} from '../../src/modules/audit/domain/merkle';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const unhex = (s: string): Buffer => Buffer.from(s, 'hex');
const hexes = (bs: readonly Uint8Array[]): string[] => bs.map(hex);

/** A copy of `h` with one byte changed. */
const flipped = (h: Uint8Array, at = 0): Buffer => {
  const copy = Buffer.from(h);
  copy[at] ^= 0x10;
  return copy;
};
/** `list` with its element `k` flipped. */
const flippedAt = (list: readonly Buffer[], k: number): Buffer[] => list.map((p, j) => (j === k ? flipped(p, k % 32) : p));

// ------------------------------------------------------------------------------------------------------------------
// 1. The published RFC 6962 / RFC 9162 vectors
// ------------------------------------------------------------------------------------------------------------------

/*
 * Copied from test/fixtures/merkle_make_vectors.py (CT_LEAVES, CT_ROOTS, CT_INCLUSION, CT_CONSISTENCY,
 * RFC6962_HASHER), which quotes the Certificate Transparency corpus of github.com/transparency-dev/merkle
 * (testonly/constants.go, proof/verify_test.go, rfc6962/rfc6962_test.go). The consistency proof 6 → 7 is from
 * proof/verify_test.go, where it sits next to the others. Leaf indexes are 0-based (verify_test.go's are 1-based).
 */
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(unhex);
const CT_ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const CT_INCLUSION: Array<[number, number, string[]]> = [
  [0, 1, []],
  [0, 2, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7']],
  [1, 2, ['6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d']],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [1, 5, [
    '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
  ]],
  [0, 8, [
    '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
    '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
  ]],
  [5, 8, [
    'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  ]],
];
const CT_CONSISTENCY: Array<[number, number, string[]]> = [
  [1, 1, []],
  [1, 8, [
    '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
    '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
  ]],
  [6, 8, [
    '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
    'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  ]],
  [2, 5, [
    '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
  ]],
  [6, 7, [
    '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
    'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  ]],
];
const RFC6962_LEAF_HASHES: Array<[Buffer, string]> = [
  [Buffer.alloc(0), '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d'],
  [Buffer.from('L123456'), '395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56'],
];
const RFC6962_NODE_HASH: [Buffer, Buffer, string] = [Buffer.from('N123'), Buffer.from('N456'), 'aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb'];

/** The production tree of the given leaf hashes, grown one append at a time: every node the appends completed. */
function grownNodes(leafHashes: readonly Buffer[]): StoredNode[] {
  let frontier: Buffer[] = [];
  const nodes: StoredNode[] = [];
  leafHashes.forEach((leaf, size) => {
    const step = appendLeaf(frontier, size, leaf);
    frontier = step.frontier;
    nodes.push(...step.completed);
  });
  return nodes;
}

/** A production `NodeSource` that, for a tree of `size` leaves, serves only the perfect subtrees inside it. */
function storeAt(nodes: readonly StoredNode[], size: number): NodeSource {
  const source = nodeSourceOf(nodes);
  return (level, index) => {
    if (subtreeRange({ level, index }).end > size) throw new Error(`node (${level}, ${index}) is outside a tree of ${size}`);
    return source(level, index);
  };
}

describe('given the published RFC 6962 / RFC 9162 vectors (Certificate Transparency corpus)', () => {
  const ctLeafHashes = CT_LEAVES.map((d) => ref.leafHash(d));
  const ctNodes = grownNodes(CT_LEAVES.map((d) => prodLeafHash(d)));

  it('when the reference hashes the RFC 6962 hasher inputs, then it gives the published leaf and node hashes', () => {
    for (const [input, want] of RFC6962_LEAF_HASHES) expect(hex(ref.leafHash(input))).toBe(want);
    expect(hex(ref.nodeHash(RFC6962_NODE_HASH[0], RFC6962_NODE_HASH[1]))).toBe(RFC6962_NODE_HASH[2]);
  });

  it('when the reference computes MTH of the first 0..8 inputs, then it gives the published roots (8 leaves: 5dc9da79…)', () => {
    expect(CT_ROOTS.map((_, n) => hex(ref.mth(CT_LEAVES.slice(0, n))))).toEqual(CT_ROOTS);
    expect(hex(ref.mth(CT_LEAVES))).toBe('5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328');
  });

  it('when the reference computes PATH and PROOF, then they are the published ones, and its verifiers accept them', () => {
    for (const [m, n, want] of CT_INCLUSION) {
      expect({ m, n, path: hexes(ref.path(m, CT_LEAVES.slice(0, n))) }).toEqual({ m, n, path: want });
      expect(ref.verifyInclusion(m, n, ctLeafHashes[m], want.map(unhex), unhex(CT_ROOTS[n]))).toBe(true);
    }
    for (const [m, n, want] of CT_CONSISTENCY) {
      expect({ m, n, proof: hexes(ref.proof(m, CT_LEAVES.slice(0, n))) }).toEqual({ m, n, proof: want });
      expect(ref.verifyConsistency(m, n, unhex(CT_ROOTS[m]), unhex(CT_ROOTS[n]), want.map(unhex))).toBe(true);
    }
  });

  it('when the production code does the same from its node store, then it gives the published hashes, roots and proofs', () => {
    for (const [input, want] of RFC6962_LEAF_HASHES) expect(hex(prodLeafHash(input))).toBe(want);
    expect(hex(prodNodeHash(RFC6962_NODE_HASH[0], RFC6962_NODE_HASH[1]))).toBe(RFC6962_NODE_HASH[2]);
    expect(CT_ROOTS.map((_, n) => hex(rootOf(CT_LEAVES.slice(0, n).map((d) => prodLeafHash(d)))))).toEqual(CT_ROOTS);
    for (const [m, n, want] of CT_INCLUSION) {
      expect({ m, n, path: hexes(inclusionPath(m, n, storeAt(ctNodes, n))) }).toEqual({ m, n, path: want });
      expect(verifyInclusion(m, n, ctLeafHashes[m], want.map(unhex), unhex(CT_ROOTS[n]))).toBe(true);
    }
    for (const [m, n, want] of CT_CONSISTENCY) {
      expect({ m, n, proof: hexes(consistencyProof(m, n, storeAt(ctNodes, n))) }).toEqual({ m, n, proof: want });
      expect(verifyConsistency(m, n, unhex(CT_ROOTS[m]), unhex(CT_ROOTS[n]), want.map(unhex))).toBe(true);
    }
  });
});

// ------------------------------------------------------------------------------------------------------------------
// 2. The reference against test/fixtures/merkle_vectors.json
// ------------------------------------------------------------------------------------------------------------------

/** The vectors' leaf inputs: the 32 bytes each event_commitment spells. */
const VECTOR_INPUTS = vectors.leaves.map((l) => unhex(l.event_commitment));
/** The vectors' tree heads by size (1..8), the root a checkpoint would pair with each size. */
const VECTOR_ROOTS = new Map<number, Buffer>(vectors.tree_heads.map((t) => [t.tree_size, unhex(t.root_hash)]));
const rootOfSize = (n: number): Buffer => {
  const root = VECTOR_ROOTS.get(n);
  if (root === undefined) throw new Error(`no tree head of size ${n} in the vectors`);
  return root;
};

describe('given merkle_vectors.json (sizes 1-8 over known commitments)', () => {
  it('covers every tree size 1-8, every leaf of each, and every pair 1 ≤ first ≤ second ≤ 8', () => {
    expect(vectors.leaves.map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(vectors.tree_heads.map((t) => t.tree_size)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const leafSizePairs: string[] = [];
    const sizePairs: string[] = [];
    for (let n = 1; n <= 8; n++) {
      for (let m = 0; m < n; m++) leafSizePairs.push(`${m}/${n}`);
      for (let m = 1; m <= n; m++) sizePairs.push(`${m}/${n}`);
    }
    expect(vectors.inclusion_proofs.map((v) => `${v.leaf_index}/${v.tree_size}`).sort()).toEqual(leafSizePairs.sort());
    expect(vectors.consistency_proofs.map((v) => `${v.first}/${v.second}`).sort()).toEqual(sizePairs.sort());
  });

  it('when the reference hashes the empty tree and each leaf, then it gives the vectors’ hashes', () => {
    expect(hex(ref.mth([]))).toBe(vectors.empty_tree_hash);
    expect(vectors.empty_tree_hash).toBe(createHash('sha256').digest('hex'));
    for (const leaf of vectors.leaves) {
      expect(leaf.event_commitment).toBe(createHash('sha256').update(`leaf-${leaf.index}`).digest('hex'));
      expect(hex(ref.leafHash(unhex(leaf.event_commitment)))).toBe(leaf.leaf_hash);
    }
  });

  it.each(vectors.tree_heads.map((t) => [t.tree_size, t.root_hash] as const))('given %d leaves, when the reference computes MTH, then it is the vector tree head', (size, root) => {
    expect(hex(ref.mth(VECTOR_INPUTS.slice(0, size)))).toBe(root);
  });

  it('when the reference computes PATH for every leaf of every size, then each is the vector inclusion path, leaf hash and root', () => {
    for (const v of vectors.inclusion_proofs) {
      const d = VECTOR_INPUTS.slice(0, v.tree_size);
      const got = { m: v.leaf_index, n: v.tree_size, leaf: hex(ref.leafHash(d[v.leaf_index])), root: hex(ref.mth(d)), path: hexes(ref.path(v.leaf_index, d)) };
      expect(got).toEqual({ m: v.leaf_index, n: v.tree_size, leaf: v.leaf_hash, root: v.root_hash, path: v.audit_path });
    }
  });

  it('when the reference computes PROOF for every pair of sizes, then each is the vector consistency proof between the vector roots', () => {
    for (const v of vectors.consistency_proofs) {
      const got = {
        m: v.first, n: v.second, first: hex(ref.mth(VECTOR_INPUTS.slice(0, v.first))), second: hex(ref.mth(VECTOR_INPUTS.slice(0, v.second))),
        proof: hexes(ref.proof(v.first, VECTOR_INPUTS.slice(0, v.second))),
      };
      expect(got).toEqual({ m: v.first, n: v.second, first: v.first_root, second: v.second_root, proof: v.consistency_path });
    }
  });
});

describe('given the vector proofs, when the reference verifiers (RFC 9162 2.1.3.2, 2.1.4.2) check them', () => {
  it('then every inclusion proof is accepted', () => {
    const refused = vectors.inclusion_proofs.filter((v) => !ref.verifyInclusion(v.leaf_index, v.tree_size, unhex(v.leaf_hash), v.audit_path.map(unhex), unhex(v.root_hash)));
    expect(refused).toEqual([]);
  });

  it('then every consistency proof is accepted', () => {
    const refused = vectors.consistency_proofs.filter((v) => !ref.verifyConsistency(v.first, v.second, unhex(v.first_root), unhex(v.second_root), v.consistency_path.map(unhex)));
    expect(refused).toEqual([]);
  });

  it('then every tampered inclusion proof is refused: a path element, the leaf or the root flipped, another index, another tree head, a path cut or extended', () => {
    const accepted: string[] = [];
    let probes = 0;
    for (const v of vectors.inclusion_proofs) {
      const [m, n, leaf, path, root] = [v.leaf_index, v.tree_size, unhex(v.leaf_hash), v.audit_path.map(unhex), unhex(v.root_hash)];
      const tampered: Array<[string, boolean]> = [
        ...path.map((_, k): [string, boolean] => [`path[${k}] flipped`, ref.verifyInclusion(m, n, leaf, flippedAt(path, k), root)]),
        ['leaf flipped', ref.verifyInclusion(m, n, flipped(leaf), path, root)],
        ['leaf flipped in its last byte', ref.verifyInclusion(m, n, flipped(leaf, 31), path, root)],
        ['root flipped', ref.verifyInclusion(m, n, leaf, path, flipped(root))],
        ['another leaf of the tree', n > 1 && ref.verifyInclusion(m, n, unhex(vectors.leaves[(m + 1) % n].leaf_hash), path, root)],
        // Every other index, inside the tree or not.
        ...Array.from({ length: 10 }, (_, i): [string, boolean] => [`index ${i}`, i !== m && ref.verifyInclusion(i, n, leaf, path, root)]),
        ['index −1', ref.verifyInclusion(-1, n, leaf, path, root)],
        // Another tree size, paired with its own root (the pair a checkpoint signs).
        ...[1, 2, 3, 4, 5, 6, 7, 8].map((s): [string, boolean] => [`size ${s} with its root`, s !== n && m < s && ref.verifyInclusion(m, s, leaf, path, rootOfSize(s))]),
        // Another tree size of another depth, with this root.
        ['size × 2', ref.verifyInclusion(m, n * 2, leaf, path, root)],
        ['size ÷ 2', ref.verifyInclusion(m, Math.floor(n / 2), leaf, path, root)],
        ['size 0', ref.verifyInclusion(m, 0, leaf, path, root)],
        ['path without its last', path.length > 0 && ref.verifyInclusion(m, n, leaf, path.slice(0, -1), root)],
        ['path without its first', path.length > 0 && ref.verifyInclusion(m, n, leaf, path.slice(1), root)],
        ['path with the root appended', ref.verifyInclusion(m, n, leaf, [...path, root], root)],
        ['path with the leaf prepended', ref.verifyInclusion(m, n, leaf, [leaf, ...path], root)],
        ['path reversed', path.length > 1 && ref.verifyInclusion(m, n, leaf, [...path].reverse(), root)],
      ];
      probes += tampered.length;
      for (const [what, ok] of tampered) if (ok) accepted.push(`leaf ${m} of ${n}: ${what}`);
    }
    expect(accepted).toEqual([]);
    expect(probes).toBeGreaterThan(36 * 30);
  });

  it('then every tampered consistency proof is refused: an element or a root flipped, another first or second tree head, a proof cut, extended or emptied', () => {
    const accepted: string[] = [];
    let probes = 0;
    for (const v of vectors.consistency_proofs) {
      const [m, n, r1, r2, proof] = [v.first, v.second, unhex(v.first_root), unhex(v.second_root), v.consistency_path.map(unhex)];
      const tampered: Array<[string, boolean]> = [
        ...proof.map((_, k): [string, boolean] => [`proof[${k}] flipped`, ref.verifyConsistency(m, n, r1, r2, flippedAt(proof, k))]),
        ['first root flipped', ref.verifyConsistency(m, n, flipped(r1), r2, proof)],
        ['second root flipped', ref.verifyConsistency(m, n, r1, flipped(r2), proof)],
        ['roots swapped', m !== n && ref.verifyConsistency(m, n, r2, r1, proof)],
        // Another first or second tree size, paired with its own root.
        ...[1, 2, 3, 4, 5, 6, 7, 8].map((s): [string, boolean] => [`first ${s} with its root`, s !== m && ref.verifyConsistency(s, n, rootOfSize(s), r2, proof)]),
        ...[1, 2, 3, 4, 5, 6, 7, 8].map((s): [string, boolean] => [`second ${s} with its root`, s !== n && ref.verifyConsistency(m, s, r1, rootOfSize(s), proof)]),
        // Sizes the RFC does not define a proof for.
        ['first 0', ref.verifyConsistency(0, n, r1, r2, proof)],
        ['first > second', ref.verifyConsistency(n + 1, n, r1, r2, proof)],
        ['proof without its last', proof.length > 0 && ref.verifyConsistency(m, n, r1, r2, proof.slice(0, -1))],
        ['proof without its first', proof.length > 0 && ref.verifyConsistency(m, n, r1, r2, proof.slice(1))],
        ['empty proof', m !== n && ref.verifyConsistency(m, n, r1, r2, [])],
        ['proof with the new root appended', ref.verifyConsistency(m, n, r1, r2, [...proof, r2])],
        ['proof with the old root prepended', ref.verifyConsistency(m, n, r1, r2, [r1, ...proof])],
        ['proof reversed', proof.length > 1 && ref.verifyConsistency(m, n, r1, r2, [...proof].reverse())],
      ];
      probes += tampered.length;
      for (const [what, ok] of tampered) if (ok) accepted.push(`${m} → ${n}: ${what}`);
    }
    expect(accepted).toEqual([]);
    expect(probes).toBeGreaterThan(36 * 25);
  });

  it('then the reference refuses to make a path or proof the RFC does not define', () => {
    expect(() => ref.path(3, VECTOR_INPUTS.slice(0, 3))).toThrow(RangeError);
    expect(() => ref.path(-1, VECTOR_INPUTS.slice(0, 3))).toThrow(RangeError);
    expect(() => ref.proof(0, VECTOR_INPUTS.slice(0, 3))).toThrow(RangeError);
    expect(() => ref.proof(4, VECTOR_INPUTS.slice(0, 3))).toThrow(RangeError);
    expect(ref.proof(3, VECTOR_INPUTS.slice(0, 3))).toEqual([]); // SUBPROOF(m, D[m], true) = {}
  });
});

// ------------------------------------------------------------------------------------------------------------------
// 3. The reference against the production code, sizes 1..40
// ------------------------------------------------------------------------------------------------------------------

const N = 40;
/** Event commitments as the vectors make them (sha256_hex("leaf-<i>")); the first 8 are the vectors' leaves. */
const COMMITMENTS = Array.from({ length: N }, (_, i) => createHash('sha256').update(`leaf-${i}`).digest('hex'));
const INPUTS = COMMITMENTS.map(unhex);
const PROD_LEAVES = COMMITMENTS.map((c) => leafHashOfCommitment(c));
const PROD_NODES = grownNodes(PROD_LEAVES);
const REF_ROOTS = Array.from({ length: N + 1 }, (_, n) => ref.mth(INPUTS.slice(0, n)));

describe(`given the production tree (src/modules/audit/domain/merkle.ts) of sizes 1..${N}`, () => {
  it('when both hash the leaves, then the production leaf hash of each commitment is the reference’s', () => {
    expect(hexes(PROD_LEAVES)).toEqual(hexes(INPUTS.map((d) => ref.leafHash(d))));
    expect(hexes(PROD_LEAVES.slice(0, 8))).toEqual(vectors.leaves.map((l) => l.leaf_hash));
  });

  it(`when both compute the root of every size 0..${N}, then production rootOf and rootAt are the reference MTH`, () => {
    expect(hexes(REF_ROOTS.map((_, n) => rootOf(PROD_LEAVES.slice(0, n))))).toEqual(hexes(REF_ROOTS));
    expect(hexes(REF_ROOTS.slice(1).map((_, k) => rootAt(k + 1, storeAt(PROD_NODES, k + 1))))).toEqual(hexes(REF_ROOTS.slice(1)));
    expect(new Set(hexes(REF_ROOTS)).size).toBe(N + 1); // distinct roots: a size mix-up cannot pass unnoticed
  });

  it('when both make the inclusion path of every leaf of every size, then they are equal, and each side’s verifier accepts the other’s', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (let n = 1; n <= N; n++) {
      for (let m = 0; m < n; m++) {
        const mine = ref.path(m, INPUTS.slice(0, n));
        const theirs = inclusionPath(m, n, storeAt(PROD_NODES, n));
        if (hexes(mine).join() !== hexes(theirs).join()) wrong.push(`leaf ${m} of ${n}: paths differ`);
        if (!verifyInclusion(m, n, PROD_LEAVES[m], mine, REF_ROOTS[n])) wrong.push(`leaf ${m} of ${n}: production refuses the reference path`);
        if (!ref.verifyInclusion(m, n, PROD_LEAVES[m], theirs, REF_ROOTS[n])) wrong.push(`leaf ${m} of ${n}: the reference refuses the production path`);
        checked++;
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBe((N * (N + 1)) / 2);
  });

  it('when both make the consistency proof of every pair 1 ≤ m ≤ n, then they are equal, and each side’s verifier accepts the other’s', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (let n = 1; n <= N; n++) {
      for (let m = 1; m <= n; m++) {
        const mine = ref.proof(m, INPUTS.slice(0, n));
        const theirs = consistencyProof(m, n, storeAt(PROD_NODES, n));
        if (hexes(mine).join() !== hexes(theirs).join()) wrong.push(`${m} → ${n}: proofs differ`);
        if (!verifyConsistency(m, n, REF_ROOTS[m], REF_ROOTS[n], mine)) wrong.push(`${m} → ${n}: production refuses the reference proof`);
        if (!ref.verifyConsistency(m, n, REF_ROOTS[m], REF_ROOTS[n], theirs)) wrong.push(`${m} → ${n}: the reference refuses the production proof`);
        checked++;
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBe((N * (N + 1)) / 2);
  });

  it('when both verifiers judge tampered inclusion proofs, then they refuse the same ones, and every tampering the RFC detects', () => {
    const disagree: string[] = [];
    const accepted: string[] = [];
    let sameRootOtherSize = 0;
    for (let n = 1; n <= N; n++) {
      for (let m = 0; m < n; m++) {
        const path = ref.path(m, INPUTS.slice(0, n));
        const leaf = PROD_LEAVES[m];
        const root = REF_ROOTS[n];
        const judge = (what: string, i: number, s: number, l: Buffer, p: Buffer[], r: Buffer): boolean => {
          const a = ref.verifyInclusion(i, s, l, p, r);
          const b = verifyInclusion(i, s, l, p, r);
          if (a !== b) disagree.push(`leaf ${m} of ${n}, ${what}: reference ${a}, production ${b}`);
          return a || b;
        };
        const mustRefuse: Array<[string, boolean]> = [
          ...path.map((_, k): [string, boolean] => [`path[${k}] flipped`, judge(`path[${k}] flipped`, m, n, leaf, flippedAt(path, k), root)]),
          ['leaf flipped', judge('leaf flipped', m, n, flipped(leaf), path, root)],
          ['root flipped', judge('root flipped', m, n, leaf, path, flipped(root))],
          ['path without its last', path.length > 0 && judge('path without its last', m, n, leaf, path.slice(0, -1), root)],
          ['path with the root appended', judge('path with the root appended', m, n, leaf, [...path, root], root)],
        ];
        for (let i = -1; i <= N; i++) if (i !== m) mustRefuse.push([`index ${i}`, judge(`index ${i}`, i, n, leaf, path, root)]);
        for (let s = 1; s <= N; s++) if (s !== n && m < s) mustRefuse.push([`size ${s} with its root`, judge(`size ${s} with its root`, m, s, leaf, path, REF_ROOTS[s])]);
        for (const [what, ok] of mustRefuse) if (ok) accepted.push(`leaf ${m} of ${n}: ${what}`);
        // The path does not commit to the size on its own (RFC 9162: the size and root come as a pair): with this root
        // and another size, some are accepted — by both verifiers alike.
        for (let s = 0; s <= N + 1; s++) if (s !== n && judge(`size ${s} with this root`, m, s, leaf, path, root)) sameRootOtherSize++;
      }
    }
    expect(disagree).toEqual([]);
    expect(accepted).toEqual([]);
    expect(sameRootOtherSize).toBeGreaterThan(0); // leaf 0 of 3 verifies at size 4 with the same root, for one
    expect(ref.verifyInclusion(0, 4, PROD_LEAVES[0], ref.path(0, INPUTS.slice(0, 3)), REF_ROOTS[3])).toBe(true);
  });

  it('when both verifiers judge tampered consistency proofs, then they refuse the same ones, and every tampering the RFC detects', () => {
    const disagree: string[] = [];
    const accepted: string[] = [];
    let sameRootsOtherSizes = 0;
    for (let n = 1; n <= N; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = ref.proof(m, INPUTS.slice(0, n));
        const [r1, r2] = [REF_ROOTS[m], REF_ROOTS[n]];
        const judge = (what: string, f: number, s: number, a1: Buffer, a2: Buffer, p: Buffer[]): boolean => {
          const a = ref.verifyConsistency(f, s, a1, a2, p);
          const b = verifyConsistency(f, s, a1, a2, p);
          if (a !== b) disagree.push(`${m} → ${n}, ${what}: reference ${a}, production ${b}`);
          return a || b;
        };
        const mustRefuse: Array<[string, boolean]> = [
          ...proof.map((_, k): [string, boolean] => [`proof[${k}] flipped`, judge(`proof[${k}] flipped`, m, n, r1, r2, flippedAt(proof, k))]),
          ['first root flipped', judge('first root flipped', m, n, flipped(r1), r2, proof)],
          ['second root flipped', judge('second root flipped', m, n, r1, flipped(r2), proof)],
          ['proof without its last', proof.length > 0 && judge('proof without its last', m, n, r1, r2, proof.slice(0, -1))],
          ['proof with the new root appended', judge('proof with the new root appended', m, n, r1, r2, [...proof, r2])],
          ['empty proof', m !== n && judge('empty proof', m, n, r1, r2, [])],
          // History rewritten: the old tree with leaf 0 replaced is not a prefix of the new one.
          ['rewritten first leaf', judge('rewritten first leaf', m, n, ref.mth([flipped(INPUTS[0]), ...INPUTS.slice(1, m)]), r2, proof)],
        ];
        for (let f = 0; f <= N + 1; f++) if (f !== m) mustRefuse.push([`first ${f} with its root`, judge(`first ${f} with its root`, f, n, REF_ROOTS[Math.min(f, N)], r2, proof)]);
        for (let s = 1; s <= N; s++) if (s !== n) mustRefuse.push([`second ${s} with its root`, judge(`second ${s} with its root`, m, s, r1, REF_ROOTS[s], proof)]);
        for (const [what, ok] of mustRefuse) if (ok) accepted.push(`${m} → ${n}: ${what}`);
        // As for inclusion, the sizes hold only with their roots: with these roots and other sizes, both agree.
        for (let f = 0; f <= N + 1; f++) if (f !== m && judge(`first ${f} with these roots`, f, n, r1, r2, proof)) sameRootsOtherSizes++;
        for (let s = 0; s <= N + 1; s++) if (s !== n && judge(`second ${s} with these roots`, m, s, r1, r2, proof)) sameRootsOtherSizes++;
      }
    }
    expect(disagree).toEqual([]);
    expect(accepted).toEqual([]);
    expect(sameRootsOtherSizes).toBeGreaterThan(0);
  });
});
