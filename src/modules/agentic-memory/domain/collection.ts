/**
 * An agentic memory collection: one stream per collection (`agentic-memory-collection-<collection_uuid>`) holds its
 * settings, its memory objects and their review, its published versions, and the requests agents file with it and
 * their resolution. One stream is one consistency boundary: a version commits to exactly the objects approved when it
 * was decided, a request is resolved once, and every event joins the stream's hash chain (PLATFORM.md section 3).
 *
 * Versions: creating a collection publishes version 1, the empty list. Each later publication takes every approved
 * object (withdrawn ones leave), projects it to what others may see (never its private source id or payload, nor who
 * submitted it), sorts the projections by object_uuid and commits to them: `commitment` is the SHA-256 of the
 * RFC 8785 canonical JSON of that list — the `memories` array exactly as the API shows it. Earlier versions stay
 * readable.
 *
 * Pure: no I/O, no clock (`now` in the decide context), no randomness (ids come in the commands).
 */
import type { DecideContext, Decider } from '../../../platform/command/decider';
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import type { JsonObject, JsonValue } from '../../../platform/commitments/json';
import { PlatformError, RuleViolation } from '../../../platform/errors';
import { CollectionNotFound, type AccessMode, type DiscoveryMode } from './access';
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

// ---------------------------------------------------------------------------------------------------------------
// State

export interface CollectionAggregate {
  core: CollectionCore | null;
  /** The last change readers see: settings or a published version (review work in progress is not one). */
  updated: string | null;
  items: Map<string, MemoryItem>;
  /** Projections of the objects approved now (withdrawn ones leave), whether published yet or not. */
  approved: Map<string, MemoryProjection>;
  versions: MemoryVersion[];
  requests: Map<string, MemoryRequest>;
  open_requests: number;
  /** Open requests per requester (`<type>:<reference>`). */
  open_by_requester: Map<string, number>;
  /** Items pending or approved: rejected and withdrawn ones no longer take room. */
  live_items: number;
}

export const initialCollection = (): CollectionAggregate => ({
  core: null, updated: null, items: new Map(), approved: new Map(), versions: [], requests: new Map(), open_requests: 0, open_by_requester: new Map(), live_items: 0,
});

const requesterKey = (by: ActorRef): string => `${by.type}:${by.reference}`;
const isLive = (state: ItemState | undefined): boolean => state === 'PENDING' || state === 'APPROVED';

/** Evolve owns the state it is given and updates its maps in place (a linear fold, as the binding's). */
export function evolveCollection(s: CollectionAggregate, e: CollectionEvent): CollectionAggregate {
  const next = { ...s };
  switch (e.type) {
    case 'AgenticMemoryCollectionCreated':
      next.core = e.data.collection;
      next.updated = e.data.collection.created;
      return next;
    case 'AgenticMemoryCollectionUpdated':
      if (next.core) next.core = { ...next.core, ...e.data.settings };
      next.updated = e.data.updated;
      return next;
    case 'AgenticMemoryItemAdded':
      next.items.set(e.data.item.object_uuid, e.data.item);
      next.live_items = s.live_items + (isLive(e.data.item.state) ? 1 : 0);
      return next;
    case 'AgenticMemoryItemApproved':
    case 'AgenticMemoryItemRejected':
    case 'AgenticMemoryItemWithdrawn': {
      const d = e.data;
      const item = next.items.get(d.object_uuid);
      if (!item) return next;
      const state: ItemState = e.type === 'AgenticMemoryItemApproved' ? 'APPROVED' : e.type === 'AgenticMemoryItemRejected' ? 'REJECTED' : 'WITHDRAWN';
      const reviewed = { ...item, state, reviewed_at: d.reviewed_at, reviewed_by_profile_uuid: d.reviewed_by_profile_uuid, review_reason: d.reason };
      next.items.set(d.object_uuid, reviewed);
      next.live_items = s.live_items - (isLive(item.state) ? 1 : 0) + (isLive(state) ? 1 : 0);
      if (state === 'APPROVED') next.approved.set(d.object_uuid, projectionOf(reviewed, d.reviewed_at));
      else next.approved.delete(d.object_uuid);
      return next;
    }
    case 'AgenticMemoryVersionPublished': {
      const { collection_uuid: _c, projection_count: _n, ...version } = e.data;
      next.versions = [...s.versions, version];
      next.updated = e.data.published;
      return next;
    }
    case 'AgenticMemoryRequestAccepted':
      next.requests.set(e.data.request.request_uuid, e.data.request);
      next.open_requests = s.open_requests + 1;
      next.open_by_requester.set(requesterKey(e.data.request.requested_by), (s.open_by_requester.get(requesterKey(e.data.request.requested_by)) ?? 0) + 1);
      return next;
    case 'AgenticMemoryRequestResolved': {
      const d = e.data;
      const r = next.requests.get(d.request_uuid);
      if (r) next.requests.set(d.request_uuid, { ...r, state: d.state, resolved: d.resolved, response: d.response, resolved_by_profile_uuid: d.resolved_by_profile_uuid });
      next.open_requests = Math.max(0, s.open_requests - 1);
      if (r) {
        const key = requesterKey(r.requested_by);
        const left = (s.open_by_requester.get(key) ?? 1) - 1;
        if (left > 0) next.open_by_requester.set(key, left);
        else next.open_by_requester.delete(key);
      }
      return next;
    }
  }
}

export const latestVersion = (s: CollectionAggregate): MemoryVersion | null => (s.versions.length > 0 ? s.versions[s.versions.length - 1] : null);

// ---------------------------------------------------------------------------------------------------------------
// Commands

export type CollectionCommand =
  | { kind: 'CreateCollection'; core: Omit<CollectionCore, 'created'> }
  | { kind: 'UpdateCollection'; changes: Partial<CollectionSettings>; by_profile_uuid: string }
  | { kind: 'AddItem'; object_uuid: string; object: MemoryObject; source_id: string | null; payload: JsonObject | null; by: ActorRef }
  | { kind: 'ReviewItem'; object_uuid: string; action: 'APPROVE' | 'REJECT' | 'WITHDRAW'; by_profile_uuid: string; reason: string | null }
  | { kind: 'PublishVersion'; by_profile_uuid: string }
  | {
      kind: 'FileRequest';
      request_uuid: string;
      request_type: RequestType;
      question: string;
      priority: Priority;
      object_uuid: string | null;
      agent_action_rationale_commitment: string | null;
      requested_by_profile_uuid: string;
    }
  | {
      kind: 'PublishContext';
      request_uuid: string;
      object_uuids: string[];
      objects: MemoryObject[];
      agent_action_rationale_commitment: string;
      human_approval_commitment: string | null;
      requested_by_profile_uuid: string;
    }
  | { kind: 'ResolveRequest'; request_uuid: string; state: 'ANSWERED' | 'DISMISSED'; response: string; by_profile_uuid: string };

const unique = <T>(values: T[]): T[] => [...new Set(values)];

function normalizedSettings(s: CollectionSettings): CollectionSettings {
  return {
    title: s.title,
    description: s.description,
    category: s.category,
    access_mode: s.access_mode,
    discovery_mode: s.discovery_mode,
    // Kept in the allowlist's order, whatever order they came in: equal sets are equal settings.
    capabilities: KNOWLEDGE_CAPABILITIES.filter((c) => s.capabilities.includes(c)),
    selected_workspaces: unique(s.selected_workspaces),
    invited_principals: unique(s.invited_principals),
  };
}

function assertKnowledgeCapabilities(capabilities: string[]): void {
  const other = capabilities.filter((c) => !(KNOWLEDGE_CAPABILITIES as readonly string[]).includes(c));
  if (other.length > 0) throw new RuleViolation('A collection offers knowledge capabilities only.', other.map((c) => ({ field: 'capabilities', issue: `${c} is not one of ${KNOWLEDGE_CAPABILITIES.join(', ')}` })));
}

const settingsOf = (c: CollectionCore): CollectionSettings => ({
  title: c.title, description: c.description, category: c.category, access_mode: c.access_mode, discovery_mode: c.discovery_mode,
  capabilities: c.capabilities, selected_workspaces: c.selected_workspaces, invited_principals: c.invited_principals,
});

function requireCapability(core: CollectionCore, type: RequestType): void {
  if (!core.capabilities.includes(type)) {
    throw new RuleViolation(`This collection does not accept ${type} requests.`, [{ field: 'request_type', issue: `offered: ${core.capabilities.join(', ') || 'none (read only)'}` }]);
  }
}

function requireRoomForRequest(s: CollectionAggregate, by: ActorRef): void {
  if (s.open_requests >= MAX_OPEN_REQUESTS) throw new PlatformError('RATE_LIMITED', 'The collection has too many open requests; retry once some are resolved.', { retryAfter: 60 });
  if ((s.open_by_requester.get(requesterKey(by)) ?? 0) >= MAX_OPEN_REQUESTS_PER_REQUESTER) {
    throw new PlatformError('RATE_LIMITED', `You have ${MAX_OPEN_REQUESTS_PER_REQUESTER} open requests on this collection; retry once some are resolved.`, { retryAfter: 60 });
  }
}

function requireRoomForItems(s: CollectionAggregate, n: number): void {
  if (s.live_items + n > MAX_OBJECTS_PER_COLLECTION) throw new RuleViolation(`A collection holds at most ${MAX_OBJECTS_PER_COLLECTION} pending or approved memory objects.`);
}

export function decideCollection(c: CollectionCommand, s: CollectionAggregate, ctx: DecideContext): CollectionEvent[] {
  const at = ctx.now.toISOString();
  if (c.kind === 'CreateCollection') {
    if (s.core) throw new PlatformError('STATE_CONFLICT', 'This collection already exists.');
    assertKnowledgeCapabilities(c.core.capabilities);
    const collection: CollectionCore = { ...c.core, ...normalizedSettings(c.core), created: at };
    return [
      { type: 'AgenticMemoryCollectionCreated', data: { collection } },
      {
        type: 'AgenticMemoryVersionPublished',
        data: { collection_uuid: collection.collection_uuid, version: 1, commitment: EMPTY_COLLECTION_COMMITMENT, object_uuids: [], projection_count: 0, published: at, published_by_profile_uuid: collection.created_by_profile_uuid },
      },
    ];
  }
  const core = s.core;
  if (!core) throw new CollectionNotFound();

  switch (c.kind) {
    case 'UpdateCollection': {
      const current = settingsOf(core);
      // Absent and null both mean "unchanged" here (the DTO refuses null; a settings field is never nullable).
      const defined = Object.fromEntries(Object.entries(c.changes).filter(([, v]) => v !== undefined && v !== null)) as Partial<CollectionSettings>;
      if (defined.capabilities) assertKnowledgeCapabilities(defined.capabilities);
      const settings = normalizedSettings({ ...current, ...defined });
      if (canonicalJson(settings as unknown as JsonObject) === canonicalJson(normalizedSettings(current) as unknown as JsonObject)) return [];
      return [{ type: 'AgenticMemoryCollectionUpdated', data: { collection_uuid: core.collection_uuid, settings, updated: at, updated_by_profile_uuid: c.by_profile_uuid } }];
    }
    case 'AddItem': {
      if (s.items.has(c.object_uuid)) throw new PlatformError('STATE_CONFLICT', 'This memory object already exists.');
      requireRoomForItems(s, 1);
      return [{ type: 'AgenticMemoryItemAdded', data: { item: newItem(core, c.object_uuid, c.object, 'PUBLISHER', null, c.by, c.source_id, c.payload, at) } }];
    }
    case 'ReviewItem': {
      const item = s.items.get(c.object_uuid);
      if (!item) throw new PlatformError('NOT_FOUND', 'No such memory object in this collection.');
      const from: ItemState = c.action === 'WITHDRAW' ? 'APPROVED' : 'PENDING';
      if (item.state !== from) {
        throw new PlatformError('STATE_CONFLICT', c.action === 'WITHDRAW' ? `Only an approved object can be withdrawn; this one is ${item.state}.` : `The object is already ${item.state}.`);
      }
      const type = c.action === 'APPROVE' ? 'AgenticMemoryItemApproved' : c.action === 'REJECT' ? 'AgenticMemoryItemRejected' : 'AgenticMemoryItemWithdrawn';
      return [{ type, data: { collection_uuid: core.collection_uuid, object_uuid: c.object_uuid, reviewed_at: at, reviewed_by_profile_uuid: c.by_profile_uuid, reason: c.reason } }];
    }
    case 'PublishVersion': {
      const projections = canonicalOrder([...s.approved.values()]);
      const object_uuids = projections.map((p) => p.object_uuid);
      const latest = latestVersion(s);
      if (latest && latest.object_uuids.length === object_uuids.length && latest.object_uuids.every((id, i) => id === object_uuids[i])) {
        throw new PlatformError('STATE_CONFLICT', `Nothing to publish: version ${latest.version} already holds exactly the approved objects.`);
      }
      return [{
        type: 'AgenticMemoryVersionPublished',
        data: {
          collection_uuid: core.collection_uuid, version: (latest?.version ?? 0) + 1, commitment: projectionsCommitment(projections), object_uuids,
          projection_count: projections.length, published: at, published_by_profile_uuid: c.by_profile_uuid,
        },
      }];
    }
    case 'FileRequest': {
      requireCapability(core, c.request_type);
      requireRoomForRequest(s, { type: 'profile', reference: c.requested_by_profile_uuid });
      if (c.request_type === 'CLARIFY') {
        const published = latestVersion(s)?.object_uuids ?? [];
        if (!c.object_uuid || !published.includes(c.object_uuid)) {
          throw new PlatformError('NOT_FOUND', 'No memory object with this id in the published collection.', { details: [{ field: 'object_uuid', issue: 'not in the current published version' }] });
        }
      }
      const request: MemoryRequest = {
        request_uuid: c.request_uuid, collection_uuid: core.collection_uuid, request_type: c.request_type, question: c.question, priority: c.priority,
        object_uuid: c.request_type === 'CLARIFY' ? c.object_uuid : null, agent_action_rationale_commitment: c.agent_action_rationale_commitment, human_approval_commitment: null,
        proposed_object_uuids: [], requested_by: { type: 'profile', reference: c.requested_by_profile_uuid }, state: 'OPEN', created: at, resolved: null, response: null, resolved_by_profile_uuid: null,
      };
      return [{ type: 'AgenticMemoryRequestAccepted', data: { request } }];
    }
    case 'PublishContext': {
      requireCapability(core, 'PROPOSE');
      requireRoomForRequest(s, { type: 'profile', reference: c.requested_by_profile_uuid });
      if (c.objects.length === 0 || c.objects.length !== c.object_uuids.length) throw new RuleViolation('A context publication carries at least one object.');
      requireRoomForItems(s, c.objects.length);
      const by: ActorRef = { type: 'profile', reference: c.requested_by_profile_uuid };
      const request: MemoryRequest = {
        request_uuid: c.request_uuid, collection_uuid: core.collection_uuid, request_type: 'PROPOSE', question: proposalQuestion(c.objects), priority: 'NORMAL', object_uuid: null,
        agent_action_rationale_commitment: c.agent_action_rationale_commitment, human_approval_commitment: c.human_approval_commitment, proposed_object_uuids: c.object_uuids,
        requested_by: by, state: 'OPEN', created: at, resolved: null, response: null, resolved_by_profile_uuid: null,
      };
      return [
        { type: 'AgenticMemoryRequestAccepted', data: { request } },
        ...c.objects.map((object, i): CollectionEvent => ({ type: 'AgenticMemoryItemAdded', data: { item: newItem(core, c.object_uuids[i], object, 'AGENT_PUBLICATION', c.request_uuid, by, null, null, at) } })),
      ];
    }
    case 'ResolveRequest': {
      const r = s.requests.get(c.request_uuid);
      if (!r) throw new PlatformError('NOT_FOUND', 'No such agentic memory request.');
      if (r.requested_by.reference === c.by_profile_uuid) throw new PlatformError('FORBIDDEN', 'The requester cannot resolve its own request: another person of the publishing workspace reviews it.');
      if (r.state !== 'OPEN') throw new PlatformError('STATE_CONFLICT', `The request is already ${r.state}.`);
      const events: CollectionEvent[] = [{
        type: 'AgenticMemoryRequestResolved',
        data: { collection_uuid: core.collection_uuid, request_uuid: r.request_uuid, state: c.state, response: c.response, resolved: at, resolved_by_profile_uuid: c.by_profile_uuid },
      }];
      // A dismissed proposal takes its objects still waiting for review with it.
      if (c.state === 'DISMISSED') {
        for (const id of r.proposed_object_uuids) {
          if (s.items.get(id)?.state !== 'PENDING') continue;
          events.push({ type: 'AgenticMemoryItemRejected', data: { collection_uuid: core.collection_uuid, object_uuid: id, reviewed_at: at, reviewed_by_profile_uuid: c.by_profile_uuid, reason: 'The proposal was dismissed.' } });
        }
      }
      return events;
    }
  }
}

function newItem(core: CollectionCore, object_uuid: string, o: MemoryObject, origin: Origin, request_uuid: string | null, by: ActorRef, source_id: string | null, payload: JsonObject | null, at: string): MemoryItem {
  return {
    object_uuid, collection_uuid: core.collection_uuid, origin, request_uuid, submitted_by: by, source_id, payload,
    object_type: o.object_type, topic: o.topic, title: o.title, summary: o.summary, classification: o.classification, confidence: o.confidence,
    content: o.content, source_refs: [...new Set(o.source_refs)], source_memory_commitment: o.source_memory_commitment,
    state: 'PENDING', created: at, reviewed_at: null, reviewed_by_profile_uuid: null, review_reason: null,
  };
}

/** What the reviewer reads as a publication's "question": the objects it proposes. */
export function proposalQuestion(objects: MemoryObject[]): string {
  const text = `Proposes ${objects.length} context object${objects.length === 1 ? '' : 's'} for review: ${objects.map((o) => `${o.object_type} "${o.title}"`).join('; ')}`;
  return text.length <= 2000 ? text : `${text.slice(0, 1997)}...`;
}

export const collectionDecider: Decider<CollectionCommand, CollectionAggregate, CollectionEvent> = {
  initialState: initialCollection,
  evolve: evolveCollection,
  decide: decideCollection,
};

// ---------------------------------------------------------------------------------------------------------------
// Slugs

export type SlugEvent = { type: 'AgenticMemorySlugClaimed'; data: { tenant_uuid: string; slug: string; collection_uuid: string; claimed_at: string } };
export type ClaimSlug = { kind: 'ClaimSlug'; tenant_uuid: string; slug: string; collection_uuid: string };

/** A slug belongs to the first collection that claims it; the same collection claiming again decides nothing. */
export const slugDecider: Decider<ClaimSlug, { collection_uuid: string | null }, SlugEvent> = {
  initialState: () => ({ collection_uuid: null }),
  evolve: (_s, e) => ({ collection_uuid: e.data.collection_uuid }),
  decide: (c, s, ctx) => {
    if (s.collection_uuid === c.collection_uuid) return [];
    if (s.collection_uuid !== null) throw new PlatformError('STATE_CONFLICT', 'This slug is taken by another collection.', { details: [{ field: 'slug', issue: 'taken' }] });
    return [{ type: 'AgenticMemorySlugClaimed', data: { tenant_uuid: c.tenant_uuid, slug: c.slug, collection_uuid: c.collection_uuid, claimed_at: ctx.now.toISOString() } }];
  },
};

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
