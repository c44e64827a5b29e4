/** Arena administration commands: create and schedule seasons, enroll and disqualify participants, cancel. */
import { Inject } from '@nestjs/common';
import { CommandHandler, QueryBus, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CLOCK, type Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/command/command-executor';
import { nextId } from '../../platform/context/request-context';
import { PlatformError } from '../../platform/errors';
import { IsTenantMember } from '../identity/queries/tenant-membership';
import { seasonDecider, seasonStream, type SeasonCommand } from './domain/season';
import type { CreateArenaSeasonRequest } from './dto/arena.dto';
import { ArenaAccess } from './arena-access';

export interface Created {
  id: string;
}

export class CreateArenaSeason {
  constructor(readonly principal: Principal, readonly body: CreateArenaSeasonRequest) {}
}

@CommandHandler(CreateArenaSeason)
export class CreateArenaSeasonHandler implements ICommandHandler<CreateArenaSeason, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: ArenaAccess, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, body }: CreateArenaSeason): Promise<Created> {
    const tenant_uuid = await this.access.tenant(principal);
    const season_uuid = nextId();
    const season = {
      season_uuid, tenant_uuid, name: body.name, markets: [...new Set(body.markets ?? [])].sort(), starts_at: new Date(body.starts_at).toISOString(), ends_at: new Date(body.ends_at).toISOString(),
      created_by_profile_uuid: principal.profile_uuid, created_at: this.clock().toISOString(),
    };
    await this.commands.execute(seasonStream(season_uuid), seasonDecider, { kind: 'CreateSeason', season }, { newStream: true });
    return { id: season_uuid };
  }
}

/** A change of a season of the caller's tenant. */
export type SeasonChange =
  | { kind: 'schedule' | 'cancel'; expected_version: number }
  | { kind: 'enroll'; profile_uuid: string }
  | { kind: 'disqualify'; profile_uuid: string; reason: string };

export class ChangeArenaSeason {
  constructor(readonly principal: Principal, readonly season_uuid: string, readonly change: SeasonChange) {}
}

@CommandHandler(ChangeArenaSeason)
export class ChangeArenaSeasonHandler implements ICommandHandler<ChangeArenaSeason, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: ArenaAccess, private readonly queryBus: QueryBus) {}

  async execute({ principal, season_uuid, change }: ChangeArenaSeason): Promise<Created> {
    const season = await this.access.season(principal, season_uuid);
    const by_profile_uuid = principal.profile_uuid;
    let command: SeasonCommand;
    switch (change.kind) {
      case 'schedule':
        command = { kind: 'ScheduleSeason', by_profile_uuid };
        break;
      case 'cancel':
        command = { kind: 'CancelSeason', by_profile_uuid };
        break;
      case 'enroll':
        // Only a person of the season's tenant takes part; anyone else does not exist here.
        if (!(await this.queryBus.execute(new IsTenantMember(season.tenant_uuid, change.profile_uuid)))) throw new PlatformError('NOT_FOUND', 'No such person in this tenant.');
        command = { kind: 'Enroll', profile_uuid: change.profile_uuid, by_profile_uuid };
        break;
      case 'disqualify':
        command = { kind: 'Disqualify', profile_uuid: change.profile_uuid, reason: change.reason, by_profile_uuid };
    }
    const pinned = change.kind === 'schedule' || change.kind === 'cancel' ? { expectedVersion: BigInt(change.expected_version) } : {};
    await this.commands.execute(seasonStream(season_uuid), seasonDecider, command, pinned);
    return { id: season_uuid };
  }
}
