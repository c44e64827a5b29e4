/**
 * Who joins a tenant: its join policy (INVITATION by default, or OPEN) and its invitations. An invitation is a one-use
 * hcti_ token mailed to the invited address; the tenant's stream keeps only its SHA-256, and the address sealed under
 * the invitation's own key (domain/privacy.ts). A registration into the tenant carrying the token spends it
 * (RegisterAccountHandler); revoking an unspent invitation destroys that key, so the address is erased with it.
 */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../../platform/auth/principal';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { nextId } from '../../../platform/context/request-context';
import { SubjectKeyStore } from '../../../platform/privacy/subject-keys';
import { invitationView, tenantDecider, type JoinPolicy, type TenantActor, type TenantInvitationView } from '../domain/access';
import { ERASED_TEXT } from '../../../platform/privacy/sealing';
import { GLOBAL_TENANT_UUID, tenantStream } from '../domain/identity.constants';
import { invitationSubject } from '../domain/privacy';
import { DELIVERY_PORT, type DeliveryPort } from '../delivery';
import { hashToken, newToken } from '../security/tokens';

const actor = (principal: Principal, tenant_uuid: string): TenantActor => ({
  actor_profile_uuid: principal.profile_uuid,
  actor_is_platform_admin: principal.platform_role === 'ADMIN',
  actor_is_member: principal.tenant_uuid === tenant_uuid,
});

export interface TenantJoinPolicyView {
  tenant_uuid: string;
  join_policy: JoinPolicy;
  /** The tenant's version (its stream's revision) after the change. */
  version: number;
}

export class SetTenantJoinPolicy {
  constructor(readonly principal: Principal, readonly tenant_uuid: string, readonly join_policy: JoinPolicy) {}
}

@CommandHandler(SetTenantJoinPolicy)
export class SetTenantJoinPolicyHandler implements ICommandHandler<SetTenantJoinPolicy, TenantJoinPolicyView> {
  constructor(private readonly commands: CommandExecutor) {}

  async execute(c: SetTenantJoinPolicy): Promise<TenantJoinPolicyView> {
    const outcome = await this.commands.execute(tenantStream(c.tenant_uuid), tenantDecider, {
      kind: 'SetJoinPolicy',
      tenant_uuid: c.tenant_uuid,
      join_policy: c.join_policy,
      is_global: c.tenant_uuid === GLOBAL_TENANT_UUID,
      ...actor(c.principal, c.tenant_uuid),
    });
    return { tenant_uuid: c.tenant_uuid, join_policy: outcome.state.join_policy, version: Number(outcome.version ?? 0n) };
  }
}

export class InviteToTenant {
  constructor(readonly principal: Principal, readonly tenant_uuid: string, readonly email: string) {}
}

@CommandHandler(InviteToTenant)
export class InviteToTenantHandler implements ICommandHandler<InviteToTenant, TenantInvitationView> {
  constructor(
    private readonly commands: CommandExecutor,
    @Inject(DELIVERY_PORT) private readonly delivery: DeliveryPort,
  ) {}

  async execute(c: InviteToTenant): Promise<TenantInvitationView> {
    const email = c.email.trim().toLowerCase();
    const invitation_uuid = nextId();
    const token = newToken('hcti_');
    const now = this.commands.now();
    const outcome = await this.commands.execute(tenantStream(c.tenant_uuid), tenantDecider, {
      kind: 'InviteToTenant',
      tenant_uuid: c.tenant_uuid,
      invitation_uuid,
      email,
      token_hash: hashToken(token),
      is_global: c.tenant_uuid === GLOBAL_TENANT_UUID,
      ...actor(c.principal, c.tenant_uuid),
    });
    const view = invitationView(c.tenant_uuid, invitation_uuid, outcome.state.invitations[invitation_uuid], now);
    // The token leaves the platform only here: to the invited address, with the tenant it is for.
    await this.delivery.deliver({ to: email, channel: 'email', kind: 'TENANT_INVITATION', token, created: view.created_at, tenant_uuid: c.tenant_uuid });
    return view;
  }
}

export class RevokeTenantInvitation {
  constructor(readonly principal: Principal, readonly tenant_uuid: string, readonly invitation_uuid: string) {}
}

/**
 * Revokes an unspent invitation (expired ones too): it can no longer be spent, and its key is destroyed, so the address
 * it was sent to reads as erased from then on (it served only to reach that person). Revoking it again answers the
 * same and destroys the key again if an earlier attempt stopped before that.
 */
@CommandHandler(RevokeTenantInvitation)
export class RevokeTenantInvitationHandler implements ICommandHandler<RevokeTenantInvitation, TenantInvitationView> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly keys: SubjectKeyStore,
  ) {}

  async execute(c: RevokeTenantInvitation): Promise<TenantInvitationView> {
    const outcome = await this.commands.execute(tenantStream(c.tenant_uuid), tenantDecider, {
      kind: 'RevokeTenantInvitation',
      tenant_uuid: c.tenant_uuid,
      invitation_uuid: c.invitation_uuid,
      ...actor(c.principal, c.tenant_uuid),
    });
    await this.keys.erase(invitationSubject(c.invitation_uuid));
    // The address went with the key: the answer says so, as every later read of it will.
    return { ...invitationView(c.tenant_uuid, c.invitation_uuid, outcome.state.invitations[c.invitation_uuid], this.commands.now()), email: ERASED_TEXT };
  }
}
