/**
 * Arena administration (`/api/v1/admin/arena`, PLATFORM.md section 6): trading competitions of the caller's tenant.
 * Every answer is the seeds' ArenaAdminResponse envelope, exactly `{ "success": true, "data": … }`; a command's data is
 * the season read back (read-your-writes), or `{ id }` with 202 when the read model has not caught up in time.
 */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../../platform/auth/principal';
import { TenantRoleRequired } from '../../platform/auth/tenant-role';
import { CommandAnswers } from '../../platform/http/command-answers';
import { ApiErrors, ApiPendingReadBack } from '../../platform/http/openapi';
import { PageQuery } from '../../platform/http/pagination';
import { ChangeArenaSeason, CreateArenaSeason, type SeasonChange } from './commands';
import { ArenaTransitionRequest, CreateArenaSeasonRequest, DisqualifyArenaParticipantRequest, EnrollArenaParticipantRequest, ParticipantParam, SeasonParam } from './dto/arena.dto';
import { ARENA_COMMAND_ANSWER, ARENA_LIST_ANSWER, ARENA_SEASON_ANSWER, ArenaAdminResponse, ArenaCommandReceipt, ArenaMarketPosition, ArenaSeason, ArenaSeasonList } from './dto/responses.dto';
import { GetArenaSeason, ListArenaSeasons } from './queries';
import { ADMINISTERING } from './arena-access';

const envelope = async (data: Promise<object>): Promise<{ success: true; data: object }> => ({ success: true, data: await data });

@ApiTags('arena')
@ApiExtraModels(ArenaMarketPosition, ArenaSeason, ArenaSeasonList, ArenaCommandReceipt)
@Controller('api/v1/admin/arena')
export class ArenaController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly answers: CommandAnswers,
  ) {}

  private change(principal: Principal, season_uuid: string, change: SeasonChange): Promise<object> {
    return envelope(this.answers.act(new ChangeArenaSeason(principal, season_uuid, change), (id) => new GetArenaSeason(principal, id)));
  }

  @Capability('seasons', { exposure: 'restricted' })
  @TenantRoleRequired(ADMINISTERING)
  @Get()
  @ApiOperation({ summary: 'Your tenant\'s arena seasons, newest first (tenant owner and admins).' })
  @ApiOkResponse({ type: ArenaAdminResponse, description: ARENA_LIST_ANSWER })
  listArenaSeasons(@Query() query: PageQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return envelope(this.queryBus.execute(new ListArenaSeasons(principal, query)));
  }

  @Capability('seasons', { exposure: 'restricted' })
  @TenantRoleRequired(ADMINISTERING)
  @Post('seasons')
  @ApiOperation({ summary: 'Create a season (DRAFT): a name, its window, the markets whose trades count.' })
  @ApiCreatedResponse({ type: ArenaAdminResponse, description: ARENA_COMMAND_ANSWER })
  @ApiPendingReadBack(ArenaAdminResponse)
  createArenaSeason(@Body() body: CreateArenaSeasonRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return envelope(this.answers.act(new CreateArenaSeason(principal, body), (id) => new GetArenaSeason(principal, id)));
  }

  @Capability('seasons', { exposure: 'restricted' })
  @TenantRoleRequired(ADMINISTERING)
  @Get('seasons/:season_uuid')
  @ApiOperation({ summary: 'A season with its leaderboard (realised P&L, trades, markets), frozen at its end position once it settles.' })
  @ApiOkResponse({ type: ArenaAdminResponse, description: ARENA_SEASON_ANSWER })
  getArenaSeason(@Param() p: SeasonParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return envelope(this.queryBus.execute(new GetArenaSeason(principal, p.season_uuid)));
  }

  @Capability('seasons', { exposure: 'restricted' })
  @TenantRoleRequired(ADMINISTERING)
  @Post('seasons/:season_uuid/schedule')
  @HttpCode(200)
  @ApiOperation({ summary: 'DRAFT → SCHEDULED (starts_at in the future); the arena clock starts it at starts_at and settles it at ends_at.' })
  @ApiOkResponse({ type: ArenaAdminResponse, description: ARENA_COMMAND_ANSWER })
  @ApiPendingReadBack(ArenaAdminResponse)
  scheduleArenaSeason(@Param() p: SeasonParam, @Body() body: ArenaTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.season_uuid, { kind: 'schedule', expected_version: body.expected_version });
  }

  @Capability('seasons', { exposure: 'restricted' })
  @TenantRoleRequired(ADMINISTERING)
  @Post('seasons/:season_uuid/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a DRAFT, SCHEDULED or LIVE season; its standings stop where they are.' })
  @ApiOkResponse({ type: ArenaAdminResponse, description: ARENA_COMMAND_ANSWER })
  @ApiPendingReadBack(ArenaAdminResponse)
  cancelArenaSeason(@Param() p: SeasonParam, @Body() body: ArenaTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.season_uuid, { kind: 'cancel', expected_version: body.expected_version });
  }

  @Capability('seasons', { exposure: 'restricted' })
  @TenantRoleRequired(ADMINISTERING)
  @Post('seasons/:season_uuid/participants')
  @HttpCode(200)
  @ApiOperation({ summary: 'Enroll a person of the tenant (DRAFT, SCHEDULED or LIVE); their trades count from then on while the season is LIVE.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: ArenaAdminResponse, description: ARENA_COMMAND_ANSWER })
  @ApiPendingReadBack(ArenaAdminResponse)
  enrollArenaParticipant(@Param() p: SeasonParam, @Body() body: EnrollArenaParticipantRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.season_uuid, { kind: 'enroll', profile_uuid: body.profile_uuid });
  }

  @Capability('seasons', { exposure: 'restricted' })
  @TenantRoleRequired(ADMINISTERING)
  @Post('seasons/:season_uuid/participants/:profile_uuid/disqualify')
  @HttpCode(200)
  @ApiOperation({ summary: 'Disqualify a participant, with a reason: their trades stop counting and they leave the ranking.' })
  @ApiOkResponse({ type: ArenaAdminResponse, description: ARENA_COMMAND_ANSWER })
  @ApiPendingReadBack(ArenaAdminResponse)
  disqualifyArenaParticipant(@Param() p: ParticipantParam, @Body() body: DisqualifyArenaParticipantRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.season_uuid, { kind: 'disqualify', profile_uuid: p.profile_uuid, reason: body.reason });
  }
}
