/**
 * The privacy class of every field of agentic memory's events (src/platform/privacy/field-classes.ts,
 * docs/privacy.md). A collection and its objects are a workspace's published knowledge (internal: the API shows it to
 * the audience the collection chooses); an object's private provenance (source_id, payload), the questions people
 * ask and the answers and reasons they write are personal.
 */
import { declareEventClasses, type FieldClasses } from '../../../platform/privacy/field-classes';
import type { CollectionEvent, MemoryItem, MemoryRequest, SlugEvent } from './collection';

const ITEM: FieldClasses<MemoryItem> = {
  object_uuid: 'internal', collection_uuid: 'internal', origin: 'internal', request_uuid: 'internal', submitted_by: 'internal', source_id: 'personal', payload: 'personal',
  state: 'internal', created: 'internal', reviewed_at: 'internal', reviewed_by_profile_uuid: 'internal', review_reason: 'personal', object_type: 'internal', topic: 'internal',
  title: 'internal', summary: 'internal', classification: 'internal', confidence: 'internal', content: 'internal', source_refs: 'internal', source_memory_commitment: 'internal',
};

const REQUEST: FieldClasses<MemoryRequest> = {
  request_uuid: 'internal', collection_uuid: 'internal', request_type: 'internal', question: 'personal', priority: 'internal', object_uuid: 'internal',
  agent_action_rationale_commitment: 'internal', human_approval_commitment: 'internal', proposed_object_uuids: 'internal', requested_by: 'internal', state: 'internal',
  created: 'internal', resolved: 'internal', response: 'personal', resolved_by_profile_uuid: 'internal',
};

const REVIEW = { collection_uuid: 'internal', object_uuid: 'internal', reviewed_at: 'internal', reviewed_by_profile_uuid: 'internal', reason: 'personal' } as const;

export const COLLECTION_EVENT_CLASSES = declareEventClasses<CollectionEvent | SlugEvent>('agentic-memory', {
  AgenticMemoryCollectionCreated: { collection: 'internal' },
  AgenticMemoryCollectionUpdated: { collection_uuid: 'internal', settings: 'internal', updated: 'internal', updated_by_profile_uuid: 'internal' },
  AgenticMemoryItemAdded: { item: ITEM },
  AgenticMemoryItemApproved: REVIEW,
  AgenticMemoryItemRejected: REVIEW,
  AgenticMemoryItemWithdrawn: REVIEW,
  AgenticMemoryVersionPublished: { collection_uuid: 'internal', version: 'internal', commitment: 'internal', object_uuids: 'internal', published: 'internal', published_by_profile_uuid: 'internal', projection_count: 'internal' },
  AgenticMemoryRequestAccepted: { request: REQUEST },
  AgenticMemoryRequestResolved: { collection_uuid: 'internal', request_uuid: 'internal', state: 'internal', response: 'personal', resolved: 'internal', resolved_by_profile_uuid: 'internal' },
  AgenticMemorySlugClaimed: { tenant_uuid: 'internal', slug: 'internal', collection_uuid: 'internal', claimed_at: 'internal' },
});
