/** The asset-collection decider, given/when/then: registration once, the lifecycle, the metadata hash. */
import { collectionDecider, metadataHashOf, type CollectionCommand, type CollectionState } from '../../src/modules/asset-collections/domain/collection';
import { PlatformError } from '../../src/platform/errors';

const ctx = { now: new Date('2026-11-25T10:00:00.000Z'), newId: () => '0'.repeat(32) };
const BY = 'e'.repeat(32);
const register: CollectionCommand = {
  kind: 'RegisterCollection',
  collection: { collection_uuid: 'c'.repeat(32), name: 'N', description: 'D', category_code: 'ART', metadata: { b: 1, a: [true, null] }, metadata_hash: metadataHashOf({ b: 1, a: [true, null] }), image_uri: null, created_at: ctx.now.toISOString(), created_by_profile_uuid: BY },
};
const move = (transition: 'activate' | 'suspend' | 'reinstate' | 'retire'): CollectionCommand => ({ kind: 'ChangeStatus', transition, by_profile_uuid: BY });
function given(commands: CollectionCommand[]): CollectionState {
  return commands.reduce((s, c) => collectionDecider.decide(c, s, ctx).reduce(collectionDecider.evolve, s), collectionDecider.initialState());
}

describe('asset collection', () => {
  it('given a registration, then it is DRAFT once; the hash is SHA-256 of the canonical JSON (keys sorted)', () => {
    const s = given([register, register]);
    expect([s.status, s.version]).toEqual(['DRAFT', 0]);
    expect(metadataHashOf({ b: 1, a: [true, null] })).toBe(metadataHashOf({ a: [true, null], b: 1 }));
    expect(metadataHashOf({ a: 1 })).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
  });

  it('walks DRAFT → ACTIVE ⇄ SUSPENDED → RETIRED; any other move is a STATE_CONFLICT naming what it needs', () => {
    expect(given([register, move('activate'), move('suspend'), move('reinstate'), move('suspend'), move('retire')])).toMatchObject({ status: 'RETIRED', version: 5 });
    const refusal = (commands: CollectionCommand[], c: CollectionCommand): unknown => {
      try {
        collectionDecider.decide(c, given(commands), ctx);
        return 'accepted';
      } catch (error) {
        return [(error as PlatformError).code, (error as PlatformError).details];
      }
    };
    expect(refusal([register], move('suspend'))).toEqual(['STATE_CONFLICT', [{ field: 'status', issue: 'DRAFT; suspend needs ACTIVE' }]]);
    expect(refusal([register, move('activate')], move('retire'))).toEqual(['STATE_CONFLICT', [{ field: 'status', issue: 'ACTIVE; retire needs SUSPENDED' }]]);
    expect(refusal([], move('activate'))).toEqual(['NOT_FOUND', []]);
  });
});
