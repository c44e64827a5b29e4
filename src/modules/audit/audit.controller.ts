/** Audit routes (`/api/v1/audit/…`, PLATFORM.md section 6): raw events with commitments, checkpoints, the AUDITOR role. */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PlatformAdminOnly, type Principal } from '../../platform/auth/principal';
import { pageLimit } from '../../platform/http/pagination';
import { GrantAuditor, RevokeAuditor } from './audit.commands';
import { GetLatestCheckpoint, ListAuditors, ListStreamEvents } from './audit.queries';
import { GetConsistencyProof, GetInclusionProof } from './audit.proofs';
import { ConsistencyProofQuery, GrantAuditorRequest, InclusionProofQuery, ProfileParam, RevokeAuditorRequest, StreamEventsQuery, StreamParam } from './dto/audit.dto';
import { ApiErrors } from '../../platform/http/openapi';
import { AuditCheckpointResponse, AuditConsistencyProofResponse, AuditEventPageResponse, AuditInclusionProofResponse, AuditorGrantResponse, AuditorListResponse, AuditorRevocationResponse } from './dto/responses.dto';

const PAGE = { default: 100, max: 1000 };

@ApiTags('audit')
@Controller('api/v1/audit')
export class AuditController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Capability('audit-trail', { exposure: 'restricted' })
  @Get('checkpoints/latest')
  @ApiOperation({ summary: 'The newest signed checkpoint of the global chain, with its public key (AUDITOR or platform admin).' })
  @ApiErrors(404)
  @ApiOkResponse({ type: AuditCheckpointResponse })
  getLatestCheckpoint(@CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetLatestCheckpoint(principal));
  }

  @Capability('audit-trail', { exposure: 'restricted' })
  @Get('proofs/inclusion')
  @ApiOperation({
    summary: "RFC 9162 inclusion proof of an event against a signed checkpoint's Merkle tree head (AUDITOR or platform admin).",
    description:
      'Default: the newest checkpoint (409 STATE_CONFLICT, retryable, while none covers the event yet). With tree_size: that checkpoint (404 if none has it). Verify the checkpoint\'s signature, then the path against its tree_size and root_hash (docs/audit.md 6).',
  })
  @ApiErrors(404, 409)
  @ApiOkResponse({ type: AuditInclusionProofResponse })
  getInclusionProof(@Query() q: InclusionProofQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetInclusionProof(principal, q.event_id, q.tree_size === undefined ? null : Number(q.tree_size)));
  }

  @Capability('audit-trail', { exposure: 'restricted' })
  @Get('proofs/consistency')
  @ApiOperation({
    summary: 'RFC 9162 consistency proof between two signed checkpoints\' tree heads: the newer log extends the older one (AUDITOR or platform admin).',
    description: 'first and second are the tree_size of two checkpoints (404 if either is none\'s), first ≤ second. Verify both signatures, then the path (docs/audit.md 6).',
  })
  @ApiErrors(404)
  @ApiOkResponse({ type: AuditConsistencyProofResponse })
  getConsistencyProof(@Query() q: ConsistencyProofQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetConsistencyProof(principal, Number(q.first), Number(q.second)));
  }

  @Capability('audit-trail', { exposure: 'restricted' })
  @Get('streams/:stream/events')
  @ApiOperation({ summary: "A stream's raw events with their commitments, oldest first, paged (AUDITOR or platform admin)." })
  @ApiOkResponse({ type: AuditEventPageResponse })
  listStreamEvents(@Param() p: StreamParam, @Query() q: StreamEventsQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListStreamEvents(principal, p.stream, pageLimit(q.limit, PAGE), q.cursor));
  }

  @Capability('auditors', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Get('auditors')
  @ApiOperation({ summary: 'Profiles holding the AUDITOR role (platform admin).' })
  @ApiOkResponse({ type: AuditorListResponse })
  listAuditors(@CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListAuditors(principal));
  }

  @Capability('auditors', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('auditors')
  @ApiOperation({ summary: 'Grant the AUDITOR role to a profile (platform admin); granting it again changes nothing.' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: AuditorGrantResponse })
  grantAuditor(@Body() body: GrantAuditorRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new GrantAuditor(principal, body.profile_uuid, body.reason ?? ''));
  }

  @Capability('auditors', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('auditors/:profile_uuid/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke the AUDITOR role (platform admin).' })
  @ApiOkResponse({ type: AuditorRevocationResponse })
  revokeAuditor(@Param() p: ProfileParam, @Body() body: RevokeAuditorRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new RevokeAuditor(principal, p.profile_uuid, body?.reason ?? ''));
  }
}
