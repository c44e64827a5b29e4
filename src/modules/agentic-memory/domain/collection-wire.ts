/** The seeds' records a collection answers with ("no extra fields"), from its records. */
import type { AccessMode, DiscoveryMode } from './access';
import { ActorRef, CollectionCore, MemoryProjection, MemoryRequest, MemoryVersion, Priority, Publisher, RequestState, RequestType, canonicalOrder } from './collection-records';

// ---------------------------------------------------------------------------------------------------------------
// Wire shapes (the seeds' records, "no extra fields")

export interface AgenticMemoryCollectionResponse {
  collection_uuid: string;
  title: string;
  description: string;
  category: string;
  version: number;
  commitment: string;
  access_mode: AccessMode;
  discovery_mode: DiscoveryMode;
  publisher: Publisher;
  capabilities: RequestType[];
  memories: MemoryProjection[];
  slug: string | null;
  updated: string;
}

export function collectionResponse(core: CollectionCore, updated: string, version: Pick<MemoryVersion, 'version' | 'commitment'>, memories: MemoryProjection[]): AgenticMemoryCollectionResponse {
  return {
    collection_uuid: core.collection_uuid,
    title: core.title,
    description: core.description,
    category: core.category,
    version: version.version,
    commitment: version.commitment,
    access_mode: core.access_mode,
    discovery_mode: core.discovery_mode,
    publisher: core.publisher,
    capabilities: core.capabilities,
    memories: canonicalOrder(memories),
    slug: core.slug,
    updated,
  };
}

export interface AgenticMemoryRequestReceipt {
  request_uuid: string;
  collection_uuid: string;
  request_type: RequestType;
  state: 'OPEN';
}

export const receiptOf = (r: MemoryRequest): AgenticMemoryRequestReceipt => ({ request_uuid: r.request_uuid, collection_uuid: r.collection_uuid, request_type: r.request_type, state: 'OPEN' });

export interface AgenticMemoryRequestStatus {
  request_uuid: string;
  collection_uuid: string;
  request_type: RequestType;
  question: string;
  state: RequestState;
  created: string;
  resolved: string | null;
  response: string | null;
}

export const statusOf = (r: MemoryRequest): AgenticMemoryRequestStatus => ({
  request_uuid: r.request_uuid, collection_uuid: r.collection_uuid, request_type: r.request_type, question: r.question, state: r.state, created: r.created, resolved: r.resolved, response: r.response,
});

/** What the publishing workspace reviews: the status the requester sees, and what came with the request. */
export interface AgenticMemoryInboxEntry {
  request: AgenticMemoryRequestStatus;
  priority: Priority;
  object_uuid: string | null;
  agent_action_rationale_commitment: string | null;
  human_approval_commitment: string | null;
  proposed_object_uuids: string[];
  requested_by: ActorRef;
  resolved_by_profile_uuid: string | null;
}

export const inboxEntryOf = (r: MemoryRequest): AgenticMemoryInboxEntry => ({
  request: statusOf(r), priority: r.priority, object_uuid: r.object_uuid, agent_action_rationale_commitment: r.agent_action_rationale_commitment,
  human_approval_commitment: r.human_approval_commitment, proposed_object_uuids: r.proposed_object_uuids, requested_by: r.requested_by, resolved_by_profile_uuid: r.resolved_by_profile_uuid,
});

