/**
 * GET /api/v1/capabilities: the capability registry (docs/capabilities.md). Public — it is what an agent reads before
 * it has credentials, and it holds nothing of any tenant. Built once per process from the served OpenAPI document and
 * answered as the same bytes with a strong ETag; If-None-Match with it answers 304.
 */
import { Controller, Get, Headers, Res, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { createHash } from 'node:crypto';
import { Capability, declaredApplications } from '../../platform/capabilities/capability';
import { Public } from '../../platform/http/public.decorator';
import { ServedOpenApiDocument } from '../../platform/http/openapi';
import { installPlannedRoutes } from '../../platform/http/planned-routes';
import { CapabilityRegistryResponse } from './dto/capabilities.dto';
import { PLANNED_OPERATIONS } from './planned';
import { buildCapabilityRegistry, type OpenApiDocumentShape } from './registry';

@ApiTags('capabilities')
@Controller('api/v1/capabilities')
export class CapabilitiesController implements OnModuleInit, OnApplicationBootstrap {
  private built: { body: string; etag: string } | null = null;

  constructor(
    private readonly served: ServedOpenApiDocument,
    private readonly adapter: HttpAdapterHost,
  ) {}

  /**
   * Whether the application serves HTTP: an application context (NestFactory.createApplicationContext, as a worker
   * thread boots the modules to run background jobs) has no HTTP adapter, no routes to plan and no OpenAPI document.
   */
  private get servesHttp(): boolean {
    return this.adapter.httpAdapter !== undefined && this.adapter.httpAdapter !== null;
  }

  /** Every planned operation answers 404 NOT_FOUND to anyone, even where a live route's template would catch it. */
  onModuleInit(): void {
    if (this.servesHttp) installPlannedRoutes(this.adapter.httpAdapter.getInstance(), PLANNED_OPERATIONS);
  }

  /** Built at start: a route without its @Capability (or a planned entry already served) stops the app from starting. */
  onApplicationBootstrap(): void {
    // Without HTTP the routes are checked by the HTTP application of the same build, which serves them.
    if (this.servesHttp) this.registry();
  }

  /** The registry's bytes and ETag (the document is set before the app initializes). */
  registry(): { body: string; etag: string } {
    if (!this.built) {
      const document = this.served.document;
      if (!document) throw new Error('the OpenAPI document is not built yet');
      const body = JSON.stringify(buildCapabilityRegistry(document as unknown as OpenApiDocumentShape, declaredApplications(), PLANNED_OPERATIONS));
      this.built = { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
    }
    return this.built;
  }

  @Public()
  @Get()
  @Capability('capability-registry')
  @ApiOperation({ summary: 'What this platform can do: every operation, its contract and business context, generated from the served routes.' })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a registry you hold: 304 when it is still current.' })
  @ApiOkResponse({ type: CapabilityRegistryResponse, headers: { ETag: { description: 'Strong; the same for every node and restart of one build.', schema: { type: 'string' } } } })
  @ApiResponse({ status: 304, description: 'The registry matching If-None-Match is current.' })
  getCapabilities(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): string {
    const { body, etag } = this.registry();
    void reply.header('etag', etag).header('cache-control', 'public, max-age=60');
    if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((t) => t.trim() === etag)) {
      void reply.status(304);
      return '';
    }
    void reply.header('content-type', 'application/json; charset=utf-8');
    return body;
  }
}
