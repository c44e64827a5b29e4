/**
 * The agentic memory commands. Each one checks the caller against the collection's stream (its settings as they
 * are, not as a read model last saw them), then decides on that stream through the CommandExecutor, so every event
 * is appended with the expected revision and joins the stream's hash chain.
 */
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CommandExecutor } from '../../platform/command/command-executor';
import { CreditsGate } from '../../platform/credits/credits-gate';
import type { JsonObject } from '../../platform/commitments/json';
import { currentContext, nextId } from '../../platform/context/request-context';
import { PlatformError } from '../../platform/errors';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import type { RequestRow } from '../../../projections/agentic-memory-requests/agentic-memory-requests.read-model';
import { CollectionNotFound, type AccessMode, type DiscoveryMode, type Need } from './domain/access';
import {
  collectionDecider, collectionStream, receiptOf, slugStream, slugDecider, statusOf, type AgenticMemoryRequestReceipt, type AgenticMemoryRequestStatus, type CollectionAggregate,
  type CollectionCommand, type CollectionSettings, type MemoryItem, type MemoryObject, type Priority, type RequestType,
} from './domain/collection';
import type { Classification, ObjectType } from './domain/objects';
import type {
  AgenticMemoryCollectionRequest, AgenticMemoryCollectionUpdate, AgenticMemoryItemRequest, AgenticMemoryQueryRequest, ClarificationRequest, ContextObject, ContextPublication,
  ResolveMemoryRequest,
} from './dto/agentic-memory.dto';
import { MemoryAccess } from './memory-access';

/** A memory object in the domain's terms (absent optional fields become null / empty). */
export function memoryObject(o: ContextObject): MemoryObject {
  return {
    object_type: o.object_type as ObjectType,
    topic: o.topic,
    title: o.title,
    summary: o.summary,
    classification: o.classification as Classification,
    confidence: o.confidence ?? null,
    content: (o.content as JsonObject | undefined) ?? null,
    source_refs: o.source_refs ?? [],
    source_memory_commitment: o.source_memory_commitment ?? null,
  };
}

/**
 * Runs `command` on the collection `ref` names after checking `need` against the stream's own settings. The id or
 * slug is resolved through the read model only for slugs; an id goes straight to its stream.
 */
async function onCollection(
  commands: CommandExecutor,
  access: MemoryAccess,
  principal: Principal,
  ref: string,
  need: Need,
  command: (state: CollectionAggregate) => CollectionCommand,
): Promise<{ state: CollectionAggregate; appended: number }> {
  const facts = await access.facts(principal);
  const collection_uuid = /^[0-9a-f]{32}$/.test(ref) ? ref : (await access.row(principal, ref))?.collection_uuid;
  if (!collection_uuid) throw new CollectionNotFound();
  const stream = collectionStream(collection_uuid);
  const { state } = await commands.load(stream, collectionDecider);
  if (!state.core) throw new CollectionNotFound();
  access.check(state.core, facts, need);
  // Checked again inside the decision, on the state the append's expected revision pins: a request racing the
  // owner's removal of the caller from the audience is refused, not accepted after it.
  const guarded: typeof collectionDecider = {
    ...collectionDecider,
    decide: (c, s, ctx) => {
      if (!s.core) throw new CollectionNotFound();
      access.check(s.core, facts, need);
      return collectionDecider.decide(c, s, ctx);
    },
  };
  const outcome = await commands.execute(stream, guarded, command(state));
  return { state: outcome.state, appended: outcome.events.length };
}

// ---------------------------------------------------------------------------------------------------------------
// Collections

export class CreateCollection {
  constructor(readonly principal: Principal, readonly body: AgenticMemoryCollectionRequest) {}
}

@CommandHandler(CreateCollection)
export class CreateCollectionHandler implements ICommandHandler<CreateCollection, string> {
  constructor(private readonly commands: CommandExecutor, private readonly access: MemoryAccess) {}

  async execute({ principal, body }: CreateCollection): Promise<string> {
    const workspace = await this.access.publishingWorkspace(principal, body.workspace_uuid);
    const ctx = currentContext();
    if (ctx) ctx.workspace_uuid = workspace.workspace_id;
    const collection_uuid = nextId();
    if (body.slug) {
      await this.commands.execute(slugStream(workspace.tenant_uuid, body.slug), slugDecider, { kind: 'ClaimSlug', tenant_uuid: workspace.tenant_uuid, slug: body.slug, collection_uuid });
    }
    await this.commands.execute(collectionStream(collection_uuid), collectionDecider, {
      kind: 'CreateCollection',
      core: {
        collection_uuid,
        tenant_uuid: workspace.tenant_uuid,
        workspace_uuid: workspace.workspace_id,
        slug: body.slug ?? null,
        publisher: { workspace_uuid: workspace.workspace_id, name: workspace.name },
        created_by_profile_uuid: principal.profile_uuid,
        title: body.title,
        description: body.description,
        category: body.category,
        access_mode: body.access_mode as AccessMode,
        discovery_mode: body.discovery_mode as DiscoveryMode,
        capabilities: body.capabilities as RequestType[],
        selected_workspaces: body.selected_workspaces ?? [],
        invited_principals: body.invited_principals ?? [],
      },
    });
    return collection_uuid;
  }
}

export class UpdateCollection {
  constructor(readonly principal: Principal, readonly ref: string, readonly body: AgenticMemoryCollectionUpdate) {}
}

@CommandHandler(UpdateCollection)
export class UpdateCollectionHandler implements ICommandHandler<UpdateCollection, string> {
  constructor(private readonly commands: CommandExecutor, private readonly access: MemoryAccess) {}

  async execute({ principal, ref, body }: UpdateCollection): Promise<string> {
    const changes: Partial<CollectionSettings> = {
      title: body.title,
      description: body.description,
      category: body.category,
      access_mode: body.access_mode as AccessMode | undefined,
      discovery_mode: body.discovery_mode as DiscoveryMode | undefined,
      capabilities: body.capabilities as RequestType[] | undefined,
      selected_workspaces: body.selected_workspaces,
      invited_principals: body.invited_principals,
    };
    const { state } = await onCollection(this.commands, this.access, principal, ref, 'manage', () => ({ kind: 'UpdateCollection', changes, by_profile_uuid: principal.profile_uuid }));
    return state.core!.collection_uuid;
  }
}

export class PublishVersion {
  constructor(readonly principal: Principal, readonly ref: string) {}
}

@CommandHandler(PublishVersion)
export class PublishVersionHandler implements ICommandHandler<PublishVersion, { collection_uuid: string; version: number }> {
  constructor(private readonly commands: CommandExecutor, private readonly access: MemoryAccess) {}

  async execute({ principal, ref }: PublishVersion): Promise<{ collection_uuid: string; version: number }> {
    const { state } = await onCollection(this.commands, this.access, principal, ref, 'manage', () => ({ kind: 'PublishVersion', by_profile_uuid: principal.profile_uuid }));
    return { collection_uuid: state.core!.collection_uuid, version: state.versions[state.versions.length - 1].version };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Memory objects

export class AddItem {
  constructor(readonly principal: Principal, readonly ref: string, readonly body: AgenticMemoryItemRequest) {}
}

@CommandHandler(AddItem)
export class AddItemHandler implements ICommandHandler<AddItem, MemoryItem> {
  constructor(private readonly commands: CommandExecutor, private readonly access: MemoryAccess) {}

  async execute({ principal, ref, body }: AddItem): Promise<MemoryItem> {
    const object_uuid = nextId();
    const { state } = await onCollection(this.commands, this.access, principal, ref, 'manage', () => ({
      kind: 'AddItem',
      object_uuid,
      object: memoryObject(body),
      source_id: body.source_id ?? null,
      payload: (body.payload as JsonObject | undefined) ?? null,
      by: { type: 'profile', reference: principal.profile_uuid },
    }));
    return state.items.get(object_uuid)!;
  }
}

export class ReviewItem {
  constructor(
    readonly principal: Principal,
    readonly ref: string,
    readonly object_uuid: string,
    readonly action: 'APPROVE' | 'REJECT' | 'WITHDRAW',
    readonly reason: string | null,
  ) {}
}

@CommandHandler(ReviewItem)
export class ReviewItemHandler implements ICommandHandler<ReviewItem, MemoryItem> {
  constructor(private readonly commands: CommandExecutor, private readonly access: MemoryAccess) {}

  async execute({ principal, ref, object_uuid, action, reason }: ReviewItem): Promise<MemoryItem> {
    const { state } = await onCollection(this.commands, this.access, principal, ref, 'manage', () => ({ kind: 'ReviewItem', object_uuid, action, by_profile_uuid: principal.profile_uuid, reason }));
    return state.items.get(object_uuid)!;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

export class FileRequest {
  constructor(readonly principal: Principal, readonly ref: string, readonly body: AgenticMemoryQueryRequest | ({ request_type: 'CLARIFY' } & ClarificationRequest)) {}
}

/** QUERY, PROPOSE (in words) and CLARIFY: a durable receipt in state OPEN; the answer comes when a person resolves it. */
@CommandHandler(FileRequest)
export class FileRequestHandler implements ICommandHandler<FileRequest, AgenticMemoryRequestReceipt> {
  constructor(private readonly commands: CommandExecutor, private readonly access: MemoryAccess, private readonly credits: CreditsGate) {}

  async execute({ principal, ref, body }: FileRequest): Promise<AgenticMemoryRequestReceipt> {
    // An accepted request is billable usage (docs/billing.md): a tenant out of credits gets 402 CREDITS_REQUIRED.
    await this.credits.require({ tenant_uuid: principal.tenant_uuid, usage: 'AgenticMemoryRequestAccepted' });
    const request_uuid = nextId();
    const { state } = await onCollection(this.commands, this.access, principal, ref, 'read', () => ({
      kind: 'FileRequest',
      request_uuid,
      request_type: body.request_type,
      question: body.question,
      priority: (body.priority as Priority | undefined) ?? 'NORMAL',
      object_uuid: 'object_uuid' in body ? body.object_uuid : null,
      agent_action_rationale_commitment: body.agent_action_rationale_commitment ?? null,
      requested_by_profile_uuid: principal.profile_uuid,
    }));
    return receiptOf(state.requests.get(request_uuid)!);
  }
}

export class PublishContext {
  constructor(readonly principal: Principal, readonly ref: string, readonly body: ContextPublication) {}
}

/** A context publication: a PROPOSE request whose objects wait, pending, for the publisher to approve them. */
@CommandHandler(PublishContext)
export class PublishContextHandler implements ICommandHandler<PublishContext, AgenticMemoryRequestReceipt> {
  constructor(private readonly commands: CommandExecutor, private readonly access: MemoryAccess, private readonly credits: CreditsGate) {}

  async execute({ principal, ref, body }: PublishContext): Promise<AgenticMemoryRequestReceipt> {
    await this.credits.require({ tenant_uuid: principal.tenant_uuid, usage: 'AgenticMemoryRequestAccepted' });
    const request_uuid = nextId();
    const object_uuids = body.objects.map(() => nextId());
    const { state } = await onCollection(this.commands, this.access, principal, ref, 'read', () => ({
      kind: 'PublishContext',
      request_uuid,
      object_uuids,
      objects: body.objects.map(memoryObject),
      agent_action_rationale_commitment: body.agent_action_rationale_commitment,
      human_approval_commitment: body.human_approval_commitment ?? null,
      requested_by_profile_uuid: principal.profile_uuid,
    }));
    return receiptOf(state.requests.get(request_uuid)!);
  }
}

export class ResolveRequest {
  constructor(readonly principal: Principal, readonly request_uuid: string, readonly body: ResolveMemoryRequest) {}
}

/**
 * The publisher's answer or dismissal. Only the owner and admins of the publishing workspace resolve, never the
 * requester, and only once. A request the caller cannot see (neither requester nor of the publishing workspace) does
 * not exist for them.
 */
@CommandHandler(ResolveRequest)
export class ResolveRequestHandler implements ICommandHandler<ResolveRequest, AgenticMemoryRequestStatus> {
  constructor(private readonly commands: CommandExecutor, private readonly access: MemoryAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, request_uuid, body }: ResolveRequest): Promise<AgenticMemoryRequestStatus> {
    const notFound = new PlatformError('NOT_FOUND', 'No such agentic memory request.');
    const rows: RequestRow[] = await this.db.reader.query(this.db.sql('SELECT * FROM agentic_memory_requests WHERE request_uuid = ?'), [request_uuid]);
    const row = rows[0];
    if (!row) throw notFound;
    const facts = await this.access.facts(principal);
    const stream = collectionStream(row.collection_uuid);
    const { state } = await this.commands.load(stream, collectionDecider);
    if (!state.core) throw notFound;
    const isRequester = row.requester_reference === principal.profile_uuid;
    try {
      this.access.check(state.core, facts, 'member');
    } catch {
      // Someone outside the publishing workspace: the requester learns why; anyone else never learns it exists.
      if (!isRequester) throw notFound;
      throw new PlatformError('FORBIDDEN', 'The requester cannot resolve its own request: the publishing workspace reviews it.');
    }
    this.access.check(state.core, facts, 'manage');
    const outcome = await this.commands.execute(stream, collectionDecider, { kind: 'ResolveRequest', request_uuid, state: body.state, response: body.response, by_profile_uuid: principal.profile_uuid });
    return statusOf(outcome.state.requests.get(request_uuid)!);
  }
}
