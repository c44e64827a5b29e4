/** Granting and revoking the AUDITOR role (platform admins only). */
import { CommandHandler, QueryBus, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CommandExecutor } from '../../platform/command/command-executor';
import { GetAccount } from '../identity/queries/identity.queries';
import { AUDITORS_STREAM, auditorsDecider, type AuditorGrant } from './domain/auditors';
import { AuditAccess } from './audit.queries';

export class GrantAuditor {
  constructor(readonly principal: Principal, readonly profile_uuid: string, readonly reason: string) {}
}

@CommandHandler(GrantAuditor)
export class GrantAuditorHandler implements ICommandHandler<GrantAuditor, AuditorGrant & { role: 'AUDITOR' }> {
  constructor(private readonly access: AuditAccess, private readonly commands: CommandExecutor, private readonly queryBus: QueryBus) {}

  async execute(c: GrantAuditor): Promise<AuditorGrant & { role: 'AUDITOR' }> {
    this.access.assertAdmin(c.principal);
    // Identity's public query: an unknown profile is a 404, not a grant nobody can use.
    await this.queryBus.execute(new GetAccount(c.profile_uuid));
    const { state } = await this.commands.execute(AUDITORS_STREAM, auditorsDecider, { kind: 'GrantAuditor', profile_uuid: c.profile_uuid, by: c.principal.profile_uuid, reason: c.reason });
    return { ...state.auditors[c.profile_uuid], role: 'AUDITOR' };
  }
}

export class RevokeAuditor {
  constructor(readonly principal: Principal, readonly profile_uuid: string, readonly reason: string) {}
}

@CommandHandler(RevokeAuditor)
export class RevokeAuditorHandler implements ICommandHandler<RevokeAuditor, { profile_uuid: string; role: null }> {
  constructor(private readonly access: AuditAccess, private readonly commands: CommandExecutor) {}

  async execute(c: RevokeAuditor): Promise<{ profile_uuid: string; role: null }> {
    this.access.assertAdmin(c.principal);
    await this.commands.execute(AUDITORS_STREAM, auditorsDecider, { kind: 'RevokeAuditor', profile_uuid: c.profile_uuid, by: c.principal.profile_uuid, reason: c.reason });
    return { profile_uuid: c.profile_uuid, role: null };
  }
}
