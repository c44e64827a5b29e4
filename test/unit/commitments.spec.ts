/**
 * The audit-chain commitment against vectors computed independently of this code base
 * (test/fixtures/make_commitment_vectors.py, its own RFC 8785 implementation; see "how" in the fixture).
 */
import vectors from '../fixtures/commitments.json';
import { canonicalJson, committedData, commitmentPreimage, eventCommitment, eventCommitmentOf, sha256Hex, verifyStreamChain, COMMITMENT_ALG } from '../../src/platform/commitments/commitment';
import type { CommittedFields } from '../../src/platform/commitments/commitment';

interface Vector {
  name: string;
  input: Omit<CommittedFields, 'revision'> & { alg: string; revision: number };
  canonical: string;
  event_commitment: string;
  /** Data as stored, holding sealed values (docs/privacy.md); `input.data` is its committed form. */
  stored_data?: Record<string, unknown>;
}

const all = vectors.vectors as unknown as Vector[];
const fields = (v: Vector) => {
  const { alg: _alg, revision, ...rest } = v.input;
  return { ...rest, revision: BigInt(revision) };
};

describe('event commitments (sha256-jcs-v1)', () => {
  it('has enough independent vectors', () => {
    expect(vectors.alg).toBe(COMMITMENT_ALG);
    expect(all.length).toBeGreaterThanOrEqual(6);
  });

  it.each(all.map((v) => [v.name, v] as const))('canonicalizes and hashes vector %s', (_name, v) => {
    expect(canonicalJson(v.input)).toBe(v.canonical);
    expect(sha256Hex(v.canonical)).toBe(v.event_commitment);
    expect(eventCommitment(fields(v))).toBe(v.event_commitment);
  });

  it('commits to sealed values by their digest: the data as stored and its committed form give the vector\'s commitment', () => {
    const sealed = all.filter((v) => v.stored_data);
    expect(sealed.map((v) => v.name)).toEqual(['sealed-values']);
    for (const v of sealed) {
      expect(eventCommitment({ ...fields(v), data: v.stored_data as never })).toBe(v.event_commitment);
      expect(committedData(v.stored_data as never)).toEqual(v.input.data);
    }
  });

  it('verifies the vectors that form a chain, and finds a broken link', () => {
    const chain = all.filter((v) => v.name.startsWith('chain-')).map((v) => ({ ...fields(v), event_commitment: v.event_commitment }));
    expect(chain.length).toBeGreaterThanOrEqual(3);
    expect(verifyStreamChain(chain)).toBeNull();

    const reordered = [chain[0], chain[2], chain[1]];
    expect(verifyStreamChain(reordered)).toMatchObject({ index: 1 });
    const edited = chain.map((e, i) => (i === 1 ? { ...e, type: 'Edited' } : e));
    expect(verifyStreamChain(edited)).toMatchObject({ index: 1, reason: expect.stringContaining('event_commitment') });
  });

  it('does not depend on key insertion order', () => {
    const v = all[0];
    const reversed = Object.fromEntries(Object.entries(v.input).reverse());
    expect(canonicalJson(reversed)).toBe(v.canonical);
  });
});

describe('the append path', () => {
  it('commits the same from canonical pieces as from the whole preimage', () => {
    for (const v of all) {
      const f = fields(v);
      expect(sha256Hex(canonicalJson(commitmentPreimage(f)))).toBe(v.event_commitment);
      expect(eventCommitmentOf(f, canonicalJson(f.data), canonicalJson(f.metadata))).toBe(v.event_commitment);
    }
  });
});
