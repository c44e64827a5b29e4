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
import { canonicalJson } from '../../../platform/commitments/commitment';
import type { JsonObject } from '../../../platform/commitments/json';
import { PlatformError, RuleViolation } from '../../../platform/errors';
import { CollectionNotFound } from './access';
import { ActorRef, CollectionCore, CollectionEvent, CollectionSettings, EMPTY_COLLECTION_COMMITMENT, ItemState, KNOWLEDGE_CAPABILITIES, MAX_OBJECTS_PER_COLLECTION, MAX_OPEN_REQUESTS, MAX_OPEN_REQUESTS_PER_REQUESTER, MemoryItem, MemoryObject, MemoryRequest, Origin, Priority, RequestType, canonicalOrder, projectionsCommitment } from './collection-records';
import { CollectionAggregate, evolveCollection, initialCollection, latestVersion, requesterKey } from './collection-state';

export * from './collection-records';
export * from './collection-state';
export * from './collection-wire';

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

