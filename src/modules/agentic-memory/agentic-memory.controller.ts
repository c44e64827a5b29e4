/**
 * Agentic memory routes (`/api/v1/agentic-memory/…`, PLATFORM.md section 6, plus the publisher's object review and
 * publishing routes). Every answer is the memory envelope `{success: true, response, meta?}`.
 */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../../platform/auth/principal';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { pageLimit, PageQuery } from '../../platform/http/pagination';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { AddItem, CreateCollection, FileRequest, PublishContext, PublishVersion, ResolveRequest, ReviewItem, UpdateCollection } from './commands';
import type { AgenticMemoryRequestReceipt, AgenticMemoryRequestStatus, MemoryItem } from './domain/collection';
import {
  AgenticMemoryCollectionRequest, AgenticMemoryCollectionUpdate, AgenticMemoryItemRequest, AgenticMemoryQueryRequest, CatalogueQuery, ClarificationRequest, CollectionParam, ContextPublication,
  InboxQuery, ItemListQuery, ObjectParam, RequestParam, ResolveMemoryRequest, ReviewItemRequest, VersionQuery,
} from './dto/agentic-memory.dto';
import { memoryEnvelope, type MemoryEnvelope } from './envelope';
import { GetCollection, GetManifest, GetRequest, ListCollections, ListInbox, ListItems, ListOwnRequests } from './queries';
import { ApiErrors, ApiPendingReadBack } from '../../platform/http/openapi';
import {
  AgenticMemoryCollectionEnvelope, AgenticMemoryCollectionPageEnvelope, AgenticMemoryCollectionReceiptEnvelope, AgenticMemoryInboxPageEnvelope, AgenticMemoryItemEnvelope,
  AgenticMemoryItemPageEnvelope, AgenticMemoryManifestEnvelope, AgenticMemoryRequestReceiptEnvelope, AgenticMemoryRequestStatusEnvelope, AgenticMemoryRequestStatusPageEnvelope,
} from './dto/responses.dto';

const PAGE = { default: 50, max: 200 };
const version = (q: VersionQuery): number | undefined => (q.version === undefined ? undefined : Number(q.version));

@ApiTags('agentic-memory')
@Controller('api/v1/agentic-memory')
export class AgenticMemoryController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly runner: ProjectionRunner,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** Answers read back from the read models wait for the command's own writes first. */
  private readBack(query: object, pending: () => object): Promise<object> {
    return this.runner.readBack(() => this.queryBus.execute(query), () => memoryEnvelope(pending(), { projections_pending: true }), this.config.readYourWritesTimeoutMs);
  }

  // --- collections ------------------------------------------------------------------------------------------------

  @Capability('collections')
  @Post('collections')
  @ApiOperation({ summary: 'Create a collection for a workspace you own or administer; it starts at version 1, the empty list.' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: AgenticMemoryCollectionEnvelope })
  @ApiPendingReadBack(AgenticMemoryCollectionReceiptEnvelope)
  async createCollection(@Body() body: AgenticMemoryCollectionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    const id: string = await this.commandBus.execute(new CreateCollection(principal, body));
    return this.readBack(new GetCollection(principal, id), () => ({ collection_uuid: id }));
  }

  @Capability('collections')
  @Get('collections')
  @ApiOperation({ summary: 'The catalogue: LISTED collections you have access to (or, with workspace_uuid, all of a workspace of yours).' })
  @ApiErrors(404)
  @ApiOkResponse({ type: AgenticMemoryCollectionPageEnvelope })
  listCollections(@Query() q: CatalogueQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListCollections(principal, { workspace_uuid: q.workspace_uuid, category: q.category }, pageLimit(q.limit, PAGE), q.cursor));
  }

  @Capability('collections')
  @Get('collections/:collection')
  @ApiOperation({ summary: 'A collection by id or slug: its approved projections at the current version (or ?version=n).' })
  @ApiOkResponse({ type: AgenticMemoryCollectionEnvelope })
  getCollection(@Param() p: CollectionParam, @Query() q: VersionQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetCollection(principal, p.collection, version(q)));
  }

  @Capability('collections')
  @Patch('collections/:collection')
  @ApiOperation({ summary: 'Change settings, access and discovery, the selected workspaces and the invited principals.' })
  @ApiOkResponse({ type: AgenticMemoryCollectionEnvelope })
  @ApiPendingReadBack(AgenticMemoryCollectionReceiptEnvelope)
  async updateCollection(@Param() p: CollectionParam, @Body() body: AgenticMemoryCollectionUpdate, @CurrentPrincipal() principal: Principal): Promise<object> {
    const id: string = await this.commandBus.execute(new UpdateCollection(principal, p.collection, body));
    return this.readBack(new GetCollection(principal, id), () => ({ collection_uuid: id }));
  }

  @Capability('manifests')
  @Get('collections/:collection/manifest')
  @ApiOperation({ summary: 'The collection manifest (SERVICE_AGENTIC_MEMORY_MANIFEST_V1), with commitments and, when configured, an Ed25519 signature.' })
  @ApiOkResponse({ type: AgenticMemoryManifestEnvelope })
  getManifest(@Param() p: CollectionParam, @Query() q: VersionQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetManifest(principal, p.collection, version(q)));
  }

  @Capability('collections')
  @Post('collections/:collection/publish')
  @HttpCode(200)
  @ApiOperation({ summary: 'Publish the next version: every approved object, committed to by SHA-256 over the canonical projection list.' })
  @ApiOkResponse({ type: AgenticMemoryCollectionEnvelope })
  @ApiPendingReadBack(AgenticMemoryCollectionReceiptEnvelope)
  async publishCollection(@Param() p: CollectionParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    const published: { collection_uuid: string; version: number } = await this.commandBus.execute(new PublishVersion(principal, p.collection));
    return this.readBack(new GetCollection(principal, published.collection_uuid, published.version), () => ({ ...published }));
  }

  // --- memory objects (the publishing workspace) -----------------------------------------------------------------

  @Capability('memory-items')
  @Post('collections/:collection/items')
  @ApiOperation({ summary: 'Add a memory object (pending until approved); source_id and payload stay private.' })
  @ApiCreatedResponse({ type: AgenticMemoryItemEnvelope })
  async addItem(@Param() p: CollectionParam, @Body() body: AgenticMemoryItemRequest, @CurrentPrincipal() principal: Principal): Promise<MemoryEnvelope<MemoryItem>> {
    return memoryEnvelope(await this.commandBus.execute(new AddItem(principal, p.collection, body)));
  }

  @Capability('memory-items')
  @Get('collections/:collection/items')
  @ApiOperation({ summary: "The collection's memory objects as the publishing workspace sees them (with private provenance), oldest first." })
  @ApiOkResponse({ type: AgenticMemoryItemPageEnvelope })
  listItems(@Param() p: CollectionParam, @Query() q: ItemListQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListItems(principal, p.collection, q.state, pageLimit(q.limit, PAGE), q.cursor));
  }

  @Capability('memory-items')
  @Post('collections/:collection/items/:object_uuid/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve a pending memory object for the next version.' })
  @ApiOkResponse({ type: AgenticMemoryItemEnvelope })
  async approveItem(@Param() p: ObjectParam, @Body() body: ReviewItemRequest, @CurrentPrincipal() principal: Principal): Promise<MemoryEnvelope<MemoryItem>> {
    return memoryEnvelope(await this.commandBus.execute(new ReviewItem(principal, p.collection, p.object_uuid, 'APPROVE', body.reason ?? null)));
  }

  @Capability('memory-items')
  @Post('collections/:collection/items/:object_uuid/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a pending memory object.' })
  @ApiOkResponse({ type: AgenticMemoryItemEnvelope })
  async rejectItem(@Param() p: ObjectParam, @Body() body: ReviewItemRequest, @CurrentPrincipal() principal: Principal): Promise<MemoryEnvelope<MemoryItem>> {
    return memoryEnvelope(await this.commandBus.execute(new ReviewItem(principal, p.collection, p.object_uuid, 'REJECT', body.reason ?? null)));
  }

  @Capability('memory-items')
  @Post('collections/:collection/items/:object_uuid/withdraw')
  @HttpCode(200)
  @ApiOperation({ summary: 'Take an approved object out of the next version (published versions keep it).' })
  @ApiOkResponse({ type: AgenticMemoryItemEnvelope })
  async withdrawItem(@Param() p: ObjectParam, @Body() body: ReviewItemRequest, @CurrentPrincipal() principal: Principal): Promise<MemoryEnvelope<MemoryItem>> {
    return memoryEnvelope(await this.commandBus.execute(new ReviewItem(principal, p.collection, p.object_uuid, 'WITHDRAW', body.reason ?? null)));
  }

  // --- requests ---------------------------------------------------------------------------------------------------

  @Capability('requests')
  @Post('collections/:collection/requests')
  @HttpCode(202)
  @ApiOperation({ summary: 'File a QUERY or PROPOSE: 202 with a durable receipt in state OPEN (acceptance is not an answer).' })
  @ApiErrors(402)
  @ApiAcceptedResponse({ type: AgenticMemoryRequestReceiptEnvelope })
  async fileRequest(@Param() p: CollectionParam, @Body() body: AgenticMemoryQueryRequest, @CurrentPrincipal() principal: Principal): Promise<MemoryEnvelope<AgenticMemoryRequestReceipt>> {
    return memoryEnvelope(await this.commandBus.execute(new FileRequest(principal, p.collection, body)));
  }

  @Capability('requests')
  @Get('collections/:collection/requests')
  @ApiOperation({ summary: 'Your own requests to this collection, newest first.' })
  @ApiOkResponse({ type: AgenticMemoryRequestStatusPageEnvelope })
  listOwnRequests(@Param() p: CollectionParam, @Query() q: PageQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListOwnRequests(principal, p.collection, pageLimit(q.limit, PAGE), q.cursor));
  }

  @Capability('requests')
  @Get('collections/:collection/inbox')
  @ApiOperation({ summary: "The publishing workspace's durable inbox: requests in one state (OPEN by default), oldest first." })
  @ApiOkResponse({ type: AgenticMemoryInboxPageEnvelope })
  listRequestInbox(@Param() p: CollectionParam, @Query() q: InboxQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListInbox(principal, p.collection, q.state ?? 'OPEN', pageLimit(q.limit, PAGE), q.cursor));
  }

  @Capability('requests')
  @Post('collections/:collection/clarifications')
  @HttpCode(202)
  @ApiOperation({ summary: 'Ask about a published memory object (ClarificationRequest): 202 with a durable receipt (CLARIFY, OPEN).' })
  @ApiErrors(402)
  @ApiAcceptedResponse({ type: AgenticMemoryRequestReceiptEnvelope })
  async requestClarification(@Param() p: CollectionParam, @Body() body: ClarificationRequest, @CurrentPrincipal() principal: Principal): Promise<MemoryEnvelope<AgenticMemoryRequestReceipt>> {
    return memoryEnvelope(await this.commandBus.execute(new FileRequest(principal, p.collection, { ...body, request_type: 'CLARIFY' })));
  }

  @Capability('publications')
  @Post('collections/:collection/publications')
  @HttpCode(202)
  @ApiOperation({ summary: 'Publish context objects (ContextPublication): they become pending memory objects; 202 with a durable receipt (PROPOSE, OPEN).' })
  @ApiErrors(402)
  @ApiAcceptedResponse({ type: AgenticMemoryRequestReceiptEnvelope })
  async publishContext(@Param() p: CollectionParam, @Body() body: ContextPublication, @CurrentPrincipal() principal: Principal): Promise<MemoryEnvelope<AgenticMemoryRequestReceipt>> {
    return memoryEnvelope(await this.commandBus.execute(new PublishContext(principal, p.collection, body)));
  }

  @Capability('requests')
  @Get('requests/:request_uuid')
  @ApiOperation({ summary: "Poll a request's status (the requester, and the publishing workspace)." })
  @ApiOkResponse({ type: AgenticMemoryRequestStatusEnvelope })
  getRequest(@Param() p: RequestParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetRequest(principal, p.request_uuid));
  }

  @Capability('requests')
  @Post('requests/:request_uuid/resolve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Answer or dismiss a request (the publishing workspace, never the requester, once).' })
  @ApiOkResponse({ type: AgenticMemoryRequestStatusEnvelope })
  async resolveRequest(@Param() p: RequestParam, @Body() body: ResolveMemoryRequest, @CurrentPrincipal() principal: Principal): Promise<MemoryEnvelope<AgenticMemoryRequestStatus>> {
    return memoryEnvelope(await this.commandBus.execute(new ResolveRequest(principal, p.request_uuid, body)));
  }
}
