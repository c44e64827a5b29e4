/** The collection aggregate and its evolve: what a collection stream folds to (see collection.ts). */
import { ActorRef, CollectionCore, CollectionEvent, ItemState, MemoryItem, MemoryProjection, MemoryRequest, MemoryVersion, projectionOf } from './collection-records';

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

/** How open requests are counted per requester (one agent cannot fill the inbox). */
export const requesterKey = (by: ActorRef): string => `${by.type}:${by.reference}`;
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

