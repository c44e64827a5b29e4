/**
 * A second, deliberately naive implementation of the Merkle tree of RFC 9162 section 2.1, written from the RFC's
 * text for the tests only (issue 50: vectors checked "against a second implementation written independently in the
 * test suite"). It imports nothing from src/ and shares no code with src/modules/audit/domain/merkle.ts: it works on
 * lists of leaf *inputs* (the RFC's D[n]), recomputes every MTH from scratch by recursion, slices arrays, and makes
 * no attempt to be fast. The verifiers are the RFC's bit-operation algorithms, step by step, on bigints.
 *
 * Notation (RFC 9162 2.1.1): D[n] is a list of n inputs, D[k1:k2] the sub-list of length k2 − k1 from index k1,
 * ‖ concatenation, and for n > 1, k is the largest power of two smaller than n.
 */
import { createHash } from 'node:crypto';

/** RFC 9162 2.1: HASH is SHA-256 (the hash algorithm of the log, here fixed). */
function HASH(...parts: Buffer[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

/** 2.1.1: the hash of a leaf: HASH(0x00 ‖ d(0)). */
export function leafHash(input: Buffer): Buffer {
  return HASH(Buffer.from([0x00]), input);
}

/** 2.1.1: the hash of an interior node: HASH(0x01 ‖ left ‖ right). */
export function nodeHash(left: Buffer, right: Buffer): Buffer {
  return HASH(Buffer.from([0x01]), left, right);
}

/** 2.1.1: "k is the largest power of two smaller than n (i.e., k < n <= 2k)". */
function largestPowerOfTwoSmallerThan(n: number): number {
  let k = 1;
  while (k * 2 < n) k = k * 2;
  return k;
}

/**
 * 2.1.1 MTH(D[n]):
 *   MTH({}) = HASH()
 *   MTH({d(0)}) = HASH(0x00 ‖ d(0))
 *   MTH(D[n]) = HASH(0x01 ‖ MTH(D[0:k]) ‖ MTH(D[k:n]))   for n > 1
 */
export function mth(leaves: Buffer[]): Buffer {
  const n = leaves.length;
  if (n === 0) return HASH();
  if (n === 1) return leafHash(leaves[0]);
  const k = largestPowerOfTwoSmallerThan(n);
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k, n)));
}

/**
 * 2.1.3.1 PATH(m, D[n]), the inclusion path of the (m+1)th input d(m), 0 <= m < n:
 *   PATH(0, {d(0)}) = {}
 *   PATH(m, D[n]) = PATH(m, D[0:k]) : MTH(D[k:n])       for m < k
 *   PATH(m, D[n]) = PATH(m - k, D[k:n]) : MTH(D[0:k])   for m >= k
 * (":" appends the right-hand node to the left-hand list.)
 */
export function path(m: number, leaves: Buffer[]): Buffer[] {
  const n = leaves.length;
  if (!(Number.isInteger(m) && m >= 0 && m < n)) throw new RangeError(`PATH(${m}, D[${n}]) is not defined`);
  if (n === 1) return [];
  const k = largestPowerOfTwoSmallerThan(n);
  if (m < k) return [...path(m, leaves.slice(0, k)), mth(leaves.slice(k, n))];
  return [...path(m - k, leaves.slice(k, n)), mth(leaves.slice(0, k))];
}

/**
 * 2.1.4.1 SUBPROOF(m, D[n], b):
 *   SUBPROOF(m, D[m], true) = {}
 *   SUBPROOF(m, D[m], false) = {MTH(D[m])}
 *   SUBPROOF(m, D[n], b) = SUBPROOF(m, D[0:k], b) : MTH(D[k:n])             for m <= k
 *   SUBPROOF(m, D[n], b) = SUBPROOF(m - k, D[k:n], false) : MTH(D[0:k])     for m > k
 */
function subproof(m: number, leaves: Buffer[], b: boolean): Buffer[] {
  const n = leaves.length;
  if (m === n) return b ? [] : [mth(leaves)];
  const k = largestPowerOfTwoSmallerThan(n);
  if (m <= k) return [...subproof(m, leaves.slice(0, k), b), mth(leaves.slice(k, n))];
  return [...subproof(m - k, leaves.slice(k, n), false), mth(leaves.slice(0, k))];
}

/**
 * 2.1.4.1 PROOF(m, D[n]) = SUBPROOF(m, D[n], true), defined by the RFC for 0 < m < n. m = n is let through: the
 * same definition gives SUBPROOF(n, D[n], true) = {}, the empty proof.
 */
export function proof(m: number, leaves: Buffer[]): Buffer[] {
  const n = leaves.length;
  if (!(Number.isInteger(m) && m > 0 && m <= n)) throw new RangeError(`PROOF(${m}, D[${n}]) is not defined`);
  return subproof(m, leaves, true);
}

/** LSB(x): "the least significant bit of x" is set. */
function LSB(x: bigint): boolean {
  return (x & 1n) === 1n;
}

/**
 * 2.1.3.2 Verifying an inclusion proof: `hash` is the leaf hash of the entry, `inclusionPath` its path, `rootHash`
 * the root of the tree of `treeSize` entries.
 */
export function verifyInclusion(leafIndex: number, treeSize: number, hash: Buffer, inclusionPath: Buffer[], rootHash: Buffer): boolean {
  if (!Number.isInteger(leafIndex) || !Number.isInteger(treeSize) || leafIndex < 0 || treeSize < 0) return false;
  // 1. If leaf_index is greater than or equal to tree_size, then fail the proof verification.
  if (leafIndex >= treeSize) return false;
  // 2. Set fn to leaf_index and sn to tree_size - 1.
  let fn = BigInt(leafIndex);
  let sn = BigInt(treeSize) - 1n;
  // 3. Set r to hash.
  let r = hash;
  // 4. For each value p in the inclusion_path array:
  for (const p of inclusionPath) {
    // a. If sn is 0, then stop the iteration and fail the proof verification.
    if (sn === 0n) return false;
    // b. If LSB(fn) is set, or if fn is equal to sn, then:
    if (LSB(fn) || fn === sn) {
      // i. Set r to HASH(0x01 || p || r).
      r = nodeHash(p, r);
      // ii. If LSB(fn) is not set, then right-shift both fn and sn equally until either LSB(fn) is set or fn is 0.
      if (!LSB(fn)) {
        while (!(LSB(fn) || fn === 0n)) {
          fn = fn >> 1n;
          sn = sn >> 1n;
        }
      }
    } else {
      // Otherwise: i. Set r to HASH(0x01 || r || p).
      r = nodeHash(r, p);
    }
    // c. Finally, right-shift both fn and sn one time.
    fn = fn >> 1n;
    sn = sn >> 1n;
  }
  // 5. Compare sn to 0. Compare r against the root_hash. If sn is equal to 0 and r and the root_hash are equal, then
  //    the log has proven the inclusion of hash. Otherwise, fail the proof verification.
  return sn === 0n && r.equals(rootHash);
}

/**
 * 2.1.4.2 Verifying consistency between two tree heads: `first`/`firstHash` and `second`/`secondHash` are the sizes
 * and roots of the two trees, `consistencyPath` the proof. The RFC's algorithm is for 0 < first < second. For
 * first = second it is not run: 2.1.4.1 gives the empty proof there (SUBPROOF(m, D[m], true) = {}), which holds
 * exactly when the two hashes are equal. first = 0 and first > second fail.
 */
export function verifyConsistency(first: number, second: number, firstHash: Buffer, secondHash: Buffer, consistencyPath: Buffer[]): boolean {
  if (!Number.isInteger(first) || !Number.isInteger(second) || first <= 0 || first > second) return false;
  if (first === second) return consistencyPath.length === 0 && firstHash.equals(secondHash);
  // 1. If consistency_path is an empty array, stop and fail the proof verification.
  if (consistencyPath.length === 0) return false;
  // 2. If first is an exact power of 2, then prepend first_hash to the consistency_path array.
  const f = BigInt(first);
  const cp = (f & (f - 1n)) === 0n ? [firstHash, ...consistencyPath] : [...consistencyPath];
  // 3. Set fn to first - 1 and sn to second - 1.
  let fn = f - 1n;
  let sn = BigInt(second) - 1n;
  // 4. If LSB(fn) is set, then right-shift both fn and sn equally until LSB(fn) is not set.
  if (LSB(fn)) {
    while (LSB(fn)) {
      fn = fn >> 1n;
      sn = sn >> 1n;
    }
  }
  // 5. Set both fr and sr to the first value in the consistency_path array.
  let fr = cp[0];
  let sr = cp[0];
  // 6. For each subsequent value c in the consistency_path array:
  for (const c of cp.slice(1)) {
    // a. If sn is 0, then stop the iteration and fail the proof verification.
    if (sn === 0n) return false;
    // b. If LSB(fn) is set, or if fn is equal to sn, then:
    if (LSB(fn) || fn === sn) {
      // i. Set fr to HASH(0x01 || c || fr).  ii. Set sr to HASH(0x01 || c || sr).
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      // iii. If LSB(fn) is not set, then right-shift both fn and sn equally until either LSB(fn) is set or fn is 0.
      if (!LSB(fn)) {
        while (!(LSB(fn) || fn === 0n)) {
          fn = fn >> 1n;
          sn = sn >> 1n;
        }
      }
    } else {
      // Otherwise: i. Set sr to HASH(0x01 || sr || c).
      sr = nodeHash(sr, c);
    }
    // c. Finally, right-shift both fn and sn one time.
    fn = fn >> 1n;
    sn = sn >> 1n;
  }
  // 7. Verify that the fr calculated is equal to the first_hash supplied, that the sr calculated is equal to the
  //    second_hash supplied, and that sn is 0.
  return fr.equals(firstHash) && sr.equals(secondHash) && sn === 0n;
}
