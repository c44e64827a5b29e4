/**
 * A collection's records, events and the projection of an approved object (with the commitment of a version):
 * types, constants and pure helpers (see collection.ts).
 */
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import type { JsonObject, JsonValue } from '../../../platform/commitments/json';
import type { AccessMode, DiscoveryMode } from './access';
import type { Classification, ObjectType } from './objects';

export const COLLECTION_STREAM_PREFIX = 'agentic-memory-collection-';
export const collectionStream = (collection_uuid: string): string => `${COLLECTION_STREAM_PREFIX}${collection_uuid}`;
/** Slugs are unique per tenant: the first append to this stream (expected: no stream) claims one. */
export const slugStream = (tenant_uuid: string, slug: string): string => `agentic-memory-slug-${tenant_uuid}-${slug}`;

/** Knowledge capabilities: the kinds of request a collection accepts. Nothing else (no wallet, trade or payment). */
export const KNOWLEDGE_CAPABILITIES = ['QUERY', 'CLARIFY', 'PROPOSE'] as const;
export type RequestType = (typeof KNOWLEDGE_CAPABILITIES)[number];
export const REQUEST_TYPES = KNOWLEDGE_CAPABILITIES;
/** A label for the reviewer; it changes no authority and no order. */
export const PRIORITIES = ['LOW', 'NORMAL', 'HIGH', 'URGENT'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const REQUEST_STATES = ['OPEN', 'ANSWERED', 'DISMISSED'] as const;
export type RequestState = (typeof REQUEST_STATES)[number];
export const ITEM_STATES = ['PENDING', 'APPROVED', 'REJECTED', 'WITHDRAWN'] as const;
export type ItemState = (typeof ITEM_STATES)[number];
/** Who brought an object in: the publishing workspace itself, or an agent's context publication. */
export type Origin = 'PUBLISHER' | 'AGENT_PUBLICATION';

export const MAX_OBJECTS_PER_COLLECTION = 10_000;
export const MAX_OPEN_REQUESTS = 10_000;
/** One caller's open requests on a collection: no single agent can fill the owner's inbox (or, proposing, its items). */
export const MAX_OPEN_REQUESTS_PER_REQUESTER = 25;

// ---------------------------------------------------------------------------------------------------------------
// Records

export interface Publisher {
  workspace_uuid: string;
  name: string;
}

export interface CollectionSettings {
  title: string;
  description: string;
  category: string;
  access_mode: AccessMode;
  discovery_mode: DiscoveryMode;
  capabilities: RequestType[];
  /** SELECTED_WORKSPACES: members of these workspaces have access. */
  selected_workspaces: string[];
  /** INVITE_ONLY: these profiles have access. */
  invited_principals: string[];
}

export interface CollectionCore extends CollectionSettings {
  collection_uuid: string;
  tenant_uuid: string;
  workspace_uuid: string;
  slug: string | null;
  publisher: Publisher;
  created: string;
  created_by_profile_uuid: string;
}

/** What a memory object says (the seeds' ContextObject, normalized). */
export interface MemoryObject {
  object_type: ObjectType;
  topic: string;
  title: string;
  summary: string;
  classification: Classification;
  /** 0.0 to 1.0, metadata only: it decides nothing. */
  confidence: number | null;
  content: JsonObject | null;
  source_refs: string[];
  source_memory_commitment: string | null;
}

export interface ActorRef {
  type: string;
  reference: string;
}

/** The owner's view of an object: with its private provenance, which no projection carries. */
export interface MemoryItem extends MemoryObject {
  object_uuid: string;
  collection_uuid: string;
  origin: Origin;
  /** The PROPOSE request of the publication that brought it in. */
  request_uuid: string | null;
  submitted_by: ActorRef;
  /** Private: the id of the record it was drawn from in the publisher's own systems. */
  source_id: string | null;
  /** Private: material the publisher keeps with the object. */
  payload: JsonObject | null;
  state: ItemState;
  created: string;
  reviewed_at: string | null;
  reviewed_by_profile_uuid: string | null;
  review_reason: string | null;
}

/** An approved object as others see it: no private source id, payload, request or submitter. */
export interface MemoryProjection extends MemoryObject {
  object_uuid: string;
  origin: Origin;
  approved: string;
}

export interface MemoryVersion {
  version: number;
  commitment: string;
  object_uuids: string[];
  published: string;
  published_by_profile_uuid: string;
}

export interface MemoryRequest {
  request_uuid: string;
  collection_uuid: string;
  request_type: RequestType;
  question: string;
  priority: Priority;
  /** CLARIFY: the published object asked about. */
  object_uuid: string | null;
  agent_action_rationale_commitment: string | null;
  human_approval_commitment: string | null;
  /** PROPOSE by context publication: the objects it added (pending review). */
  proposed_object_uuids: string[];
  requested_by: ActorRef;
  state: RequestState;
  created: string;
  resolved: string | null;
  response: string | null;
  resolved_by_profile_uuid: string | null;
}

// ---------------------------------------------------------------------------------------------------------------
// Events

export interface ItemReviewData {
  collection_uuid: string;
  object_uuid: string;
  reviewed_at: string;
  reviewed_by_profile_uuid: string;
  reason: string | null;
}

export interface VersionPublishedData extends MemoryVersion {
  collection_uuid: string;
  projection_count: number;
}

export interface RequestResolvedData {
  collection_uuid: string;
  request_uuid: string;
  state: 'ANSWERED' | 'DISMISSED';
  response: string;
  resolved: string;
  resolved_by_profile_uuid: string;
}

export type CollectionEvent =
  | { type: 'AgenticMemoryCollectionCreated'; data: { collection: CollectionCore } }
  | { type: 'AgenticMemoryCollectionUpdated'; data: { collection_uuid: string; settings: CollectionSettings; updated: string; updated_by_profile_uuid: string } }
  | { type: 'AgenticMemoryItemAdded'; data: { item: MemoryItem } }
  | { type: 'AgenticMemoryItemApproved' | 'AgenticMemoryItemRejected' | 'AgenticMemoryItemWithdrawn'; data: ItemReviewData }
  | { type: 'AgenticMemoryVersionPublished'; data: VersionPublishedData }
  | { type: 'AgenticMemoryRequestAccepted'; data: { request: MemoryRequest } }
  | { type: 'AgenticMemoryRequestResolved'; data: RequestResolvedData };

export const COLLECTION_EVENT_TYPES = [
  'AgenticMemoryCollectionCreated', 'AgenticMemoryCollectionUpdated', 'AgenticMemoryItemAdded', 'AgenticMemoryItemApproved', 'AgenticMemoryItemRejected',
  'AgenticMemoryItemWithdrawn', 'AgenticMemoryVersionPublished', 'AgenticMemoryRequestAccepted', 'AgenticMemoryRequestResolved',
] as const;

// ---------------------------------------------------------------------------------------------------------------
// Projections and commitments

/** The public projection of an approved object; its members in the order the API shows them. */
export function projectionOf(item: MemoryItem, approved: string): MemoryProjection {
  return {
    object_uuid: item.object_uuid,
    object_type: item.object_type,
    origin: item.origin,
    topic: item.topic,
    title: item.title,
    summary: item.summary,
    classification: item.classification,
    confidence: item.confidence,
    content: item.content,
    source_refs: item.source_refs,
    source_memory_commitment: item.source_memory_commitment,
    approved,
  };
}

/** Projections in their canonical order (by object_uuid). */
export const canonicalOrder = (projections: MemoryProjection[]): MemoryProjection[] => [...projections].sort((a, b) => (a.object_uuid < b.object_uuid ? -1 : a.object_uuid > b.object_uuid ? 1 : 0));

/** SHA-256 (hex) of the RFC 8785 canonical JSON of the projection list in canonical order. */
export function projectionsCommitment(projections: MemoryProjection[]): string {
  return sha256Hex(canonicalJson(canonicalOrder(projections) as unknown as JsonValue));
}

export const EMPTY_COLLECTION_COMMITMENT = projectionsCommitment([]);

