/** The privacy class of every field of the asset-collection events (docs/privacy.md): a public catalogue, nothing personal. */
import { declareEventClasses } from '../../../platform/privacy/field-classes';
import type { CollectionEvent } from './collection';

export const ASSET_COLLECTION_EVENT_CLASSES = declareEventClasses<CollectionEvent>('asset-collections', {
  AssetCollectionRegistered: {
    collection: {
      collection_uuid: 'public', name: 'public', description: 'public', category_code: 'public', metadata: 'public', metadata_hash: 'public', image_uri: 'public', created_at: 'public',
      created_by_profile_uuid: 'internal',
    },
  },
  AssetCollectionStatusChanged: { collection_uuid: 'public', transition: 'public', from: 'public', to: 'public', by_profile_uuid: 'internal', at: 'public' },
});
