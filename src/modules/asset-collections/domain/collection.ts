/**
 * An asset collection (pure decider), one stream per collection (`asset-collection-<uuid>`; version = revision):
 * a catalogue entry platform admins register with a metadata object. `metadata_hash` is the SHA-256 (lowercase hex)
 * of the RFC 8785 canonical JSON of the metadata as stored, so any client can recompute it from the metadata it reads.
 * `image_uri` (https: or ipfs: only) is a pointer, not proof of anything.
 *
 * Lifecycle: DRAFT → ACTIVE ⇄ SUSPENDED → RETIRED (final). Only ACTIVE collections are admitted to the public listing.
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import type { JsonObject } from '../../../platform/commitments/json';
import { PlatformError, StateConflict } from '../../../platform/errors';

export const collectionStream = (collection_uuid: string): string => `asset-collection-${collection_uuid}`;
export const COLLECTION_STATUSES = ['DRAFT', 'ACTIVE', 'SUSPENDED', 'RETIRED'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
export const COLLECTION_TRANSITIONS = ['activate', 'suspend', 'reinstate', 'retire'] as const;
export type CollectionTransition = (typeof COLLECTION_TRANSITIONS)[number];
const MOVES: Record<CollectionTransition, { from: CollectionStatus; to: CollectionStatus }> = {
  activate: { from: 'DRAFT', to: 'ACTIVE' },
  suspend: { from: 'ACTIVE', to: 'SUSPENDED' },
  reinstate: { from: 'SUSPENDED', to: 'ACTIVE' },
  retire: { from: 'SUSPENDED', to: 'RETIRED' },
};

/** The SHA-256 of the RFC 8785 canonical JSON of the metadata (lowercase hex). */
export const metadataHashOf = (metadata: JsonObject): string => sha256Hex(canonicalJson(metadata));

export interface CollectionCore {
  collection_uuid: string;
  name: string;
  description: string;
  category_code: string;
  metadata: JsonObject;
  metadata_hash: string;
  image_uri: string | null;
  created_at: string;
  created_by_profile_uuid: string;
}

export type CollectionEvent =
  | { type: 'AssetCollectionRegistered'; data: { collection: CollectionCore } }
  | { type: 'AssetCollectionStatusChanged'; data: { collection_uuid: string; transition: CollectionTransition; from: CollectionStatus; to: CollectionStatus; by_profile_uuid: string; at: string } };

export interface CollectionState {
  collection: CollectionCore | null;
  status: CollectionStatus;
  updated_at: string | null;
  version: number;
}

export type CollectionCommand =
  | { kind: 'RegisterCollection'; collection: CollectionCore }
  | { kind: 'ChangeStatus'; transition: CollectionTransition; by_profile_uuid: string };

export class CollectionNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such asset collection.');
  }
}

export const collectionDecider: Decider<CollectionCommand, CollectionState, CollectionEvent> = {
  initialState: () => ({ collection: null, status: 'DRAFT', updated_at: null, version: -1 }),
  evolve(state, event) {
    const version = state.version + 1;
    if (event.type === 'AssetCollectionRegistered') return { collection: event.data.collection, status: 'DRAFT', updated_at: event.data.collection.created_at, version };
    return { ...state, status: event.data.to, updated_at: event.data.at, version };
  },
  decide(command, state, ctx: DecideContext) {
    if (command.kind === 'RegisterCollection') return state.collection ? [] : [{ type: 'AssetCollectionRegistered', data: { collection: command.collection } }];
    if (!state.collection) throw new CollectionNotFound();
    const move = MOVES[command.transition];
    if (state.status !== move.from) {
      throw new StateConflict(`A ${state.status} collection cannot ${command.transition}.`, { details: [{ field: 'status', issue: `${state.status}; ${command.transition} needs ${move.from}` }] });
    }
    return [{ type: 'AssetCollectionStatusChanged', data: { collection_uuid: state.collection.collection_uuid, transition: command.transition, from: move.from, to: move.to, by_profile_uuid: command.by_profile_uuid, at: ctx.now.toISOString() } }];
  },
};
