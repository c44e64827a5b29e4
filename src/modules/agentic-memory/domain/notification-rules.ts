/**
 * Agentic memory's notification rules (registered with the notification inbox,
 * src/modules/notifications/domain/rule-port.ts): a new request in a collection's inbox for the publisher (the owners
 * of the collection's workspace at the time, from the shared WORKSPACE_FACT), and its answer or dismissal for the
 * person who asked.
 */
import {
  fact, getFact, id32, notifier, recipients, streamId, untrusted, workspaceNamedBy, workspaceRecipients,
  type FactKey, type Facts, type InboxChange, type InWorkspace, type NotificationRules, type SourceEvent,
} from '../../notifications/domain/rule-port';
import type { CollectionCore, MemoryRequest, RequestResolvedData } from './collection';

interface CollectionFact extends InWorkspace {
  title: string;
}

const HREF = {
  memoryInbox: (collection_uuid: string) => `/api/v1/agentic-memory/collections/${collection_uuid}/inbox`,
  memoryRequest: (request_uuid: string) => `/api/v1/agentic-memory/requests/${request_uuid}`,
};
const STREAM = { collection: 'agentic-memory-collection-' };
const TYPES = ['MEMORY_REQUEST_RECEIVED', 'MEMORY_REQUEST_ANSWERED', 'MEMORY_REQUEST_DISMISSED'] as const;
const notify = notifier('agentic-memory', TYPES);

function factsNeeded(e: SourceEvent, known: Facts): FactKey[] {
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'AgenticMemoryCollectionUpdated':
      return [{ scope: 'collection', key: String(d.collection_uuid) }];
    case 'AgenticMemoryRequestAccepted': {
      const collection = String((d.request as MemoryRequest | undefined)?.collection_uuid);
      return [{ scope: 'collection', key: collection }, ...workspaceNamedBy(known, 'collection', collection)];
    }
    case 'AgenticMemoryRequestResolved':
      return [{ scope: 'memory-request', key: String(d.request_uuid) }];
    default:
      return [];
  }
}

// Agentic memory: a new request for the publisher, the resolution for the requester

interface MemoryRequestFact {
  requester: string;
  collection: string;
  title: string;
  request_type: string;
}

function plan(e: SourceEvent, facts: Facts): InboxChange[] {
  if (!streamId(e, STREAM.collection)) return [];
  switch (e.type) {
    case 'AgenticMemoryCollectionCreated': {
      const c = e.data.collection as CollectionCore;
      if (!id32(c?.collection_uuid)) return [];
      return [fact('collection', c.collection_uuid, { workspace: c.workspace_uuid, title: untrusted(c.title, 80, 'a collection') } satisfies CollectionFact)];
    }
    case 'AgenticMemoryCollectionUpdated': {
      const d = e.data as { collection_uuid: string; settings: { title?: unknown } };
      const known = getFact(facts, 'collection', d.collection_uuid) as CollectionFact | undefined;
      if (!known || d.settings?.title === undefined) return [];
      return [fact('collection', d.collection_uuid, { ...known, title: untrusted(d.settings.title, 80, 'a collection') })];
    }
    case 'AgenticMemoryRequestAccepted': {
      const r = e.data.request as MemoryRequest;
      if (!id32(r?.request_uuid)) return [];
      const collection = getFact(facts, 'collection', r.collection_uuid) as CollectionFact | undefined;
      const title = collection?.title ?? 'a collection';
      const requester = r.requested_by?.type === 'profile' ? id32(r.requested_by.reference) : null;
      const changes: InboxChange[] = [];
      if (requester) changes.push(fact('memory-request', r.request_uuid, { requester, collection: r.collection_uuid, title, request_type: r.request_type } satisfies MemoryRequestFact));
      // The publisher (the workspace's owners) learns of requests from others; one's own request needs no alert.
      for (const owner of recipients(...(collection ? workspaceRecipients(facts, collection) : [])).filter((p) => p !== requester)) {
        changes.push(
          notify(e, owner, {
            type: 'MEMORY_REQUEST_RECEIVED',
            title: 'New request in your memory inbox',
            message: `A new ${untrusted(r.request_type, 16)} request (priority ${untrusted(r.priority, 16)}) arrived for "${title}" and waits for review.`,
            href: HREF.memoryInbox(r.collection_uuid),
            reference: r.request_uuid,
          }),
        );
      }
      return changes;
    }
    case 'AgenticMemoryRequestResolved': {
      const d = e.data as unknown as RequestResolvedData;
      const request = getFact(facts, 'memory-request', d.request_uuid) as MemoryRequestFact | undefined;
      if (!request || !id32(d.request_uuid)) return [];
      const answered = d.state === 'ANSWERED';
      return [
        fact('memory-request', d.request_uuid, null),
        notify(e, request.requester, {
          type: answered ? 'MEMORY_REQUEST_ANSWERED' : 'MEMORY_REQUEST_DISMISSED',
          title: answered ? 'Your memory request was answered' : 'Your memory request was dismissed',
          message: `Your ${untrusted(request.request_type, 16)} request to "${request.title}" was ${answered ? 'answered' : 'dismissed'} by the publisher. Open it to read the response.`,
          href: HREF.memoryRequest(d.request_uuid),
          reference: d.request_uuid,
        }),
      ];
    }
    default:
      return [];
  }
}

export const agenticMemoryNotificationRules: NotificationRules = {
  source: 'agentic-memory',
  types: TYPES,
  handles: ['AgenticMemoryCollectionCreated', 'AgenticMemoryCollectionUpdated', 'AgenticMemoryRequestAccepted', 'AgenticMemoryRequestResolved'],
  factScopes: ['collection', 'memory-request'],
  factsNeeded,
  plan,
};
