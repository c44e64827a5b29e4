/**
 * Identity's authenticator (TOTP) commands: enrollment, its confirmation with the first code (ten recovery codes,
 * shown once), and disablement by a recovery code or a step-up. As the other identity handlers: the secret is sealed
 * before it reaches an event, codes reach the decider as outcomes.
 */
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../../platform/auth/principal';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { nextId } from '../../../platform/context/request-context';
import { ValidationFailed } from '../../../platform/errors';
import { accountDecider } from '../domain/account';
import { accountStream, ENROLLMENT_TTL_SECONDS, SERVICE_NAME } from '../domain/identity.constants';
import { IdentityCrypto, StepUpService } from '../identity.services';
import { newRecoveryCodes } from '../security/tokens';
import { matchTotp, newTotpSecret, otpauthUri } from '../security/totp';


export class StartAuthenticatorEnrollment {
  constructor(readonly principal: Principal, readonly issuer: string | undefined, readonly label: string | undefined) {}
}

@CommandHandler(StartAuthenticatorEnrollment)
export class StartAuthenticatorEnrollmentHandler implements ICommandHandler<StartAuthenticatorEnrollment> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
  ) {}

  async execute({ principal, issuer, label }: StartAuthenticatorEnrollment): Promise<object> {
    const secret = newTotpSecret();
    const enrollment_id = nextId();
    const finalIssuer = issuer ?? SERVICE_NAME;
    const finalLabel = label ?? SERVICE_NAME;
    await this.commands.execute(accountStream(principal.profile_uuid), accountDecider, {
      kind: 'StartEnrollment',
      enrollment_id,
      session_id: principal.session_id,
      secret_sealed: this.crypto.secrets.seal(secret, principal.profile_uuid),
      issuer: finalIssuer,
      label: finalLabel,
    });
    return { enrollment_id, secret, otpauth_uri: otpauthUri(secret, finalLabel, finalIssuer), label: finalLabel, expires_in: ENROLLMENT_TTL_SECONDS };
  }
}

export class ConfirmAuthenticatorEnrollment {
  constructor(readonly principal: Principal, readonly enrollment_id: string, readonly code: string) {}
}

@CommandHandler(ConfirmAuthenticatorEnrollment)
export class ConfirmAuthenticatorEnrollmentHandler implements ICommandHandler<ConfirmAuthenticatorEnrollment> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
  ) {}

  async execute({ principal, enrollment_id, code }: ConfirmAuthenticatorEnrollment): Promise<object> {
    const stream = accountStream(principal.profile_uuid);
    const { state } = await this.commands.load(stream, accountDecider);
    const pending = state.enrollment;
    const secret = pending && pending.enrollment_id === enrollment_id ? this.crypto.secrets.open(pending.secret_sealed, principal.profile_uuid) : null;
    const totp_step = secret ? matchTotp(code, secret, this.commands.now().getTime(), state.totp.last_step) : null;
    const recovery_codes = newRecoveryCodes(10);
    await this.commands.execute(stream, accountDecider, {
      kind: 'ConfirmEnrollment',
      enrollment_id,
      session_id: principal.session_id,
      totp_step,
      recovery_code_hashes: recovery_codes.map((r) => this.crypto.recoveryCodeHash(r)!),
    });
    return {
      status: 'ENABLED',
      recovery_codes,
      warning: 'Store these ten recovery codes now: they are shown once, and each works once.',
    };
  }
}

export class DisableAuthenticator {
  constructor(readonly principal: Principal, readonly recovery_code: string | undefined, readonly step_up_token: string | undefined) {}
}

@CommandHandler(DisableAuthenticator)
export class DisableAuthenticatorHandler implements ICommandHandler<DisableAuthenticator, { status: string; sessions_revoked: boolean }> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly stepUp: StepUpService,
    private readonly crypto: IdentityCrypto,
  ) {}

  async execute({ principal, recovery_code, step_up_token }: DisableAuthenticator): Promise<{ status: string; sessions_revoked: boolean }> {
    if ((recovery_code === undefined) === (step_up_token === undefined)) {
      throw new ValidationFailed('Supply exactly one of recovery_code and step_up_token.', [
        { field: recovery_code === undefined ? 'recovery_code' : 'step_up_token', issue: 'exactly one authorization method is required' },
      ]);
    }
    const stream = accountStream(principal.profile_uuid);
    if (step_up_token !== undefined) {
      // Spent only with the disablement's own append: a refused disablement keeps the token.
      const spend = await this.stepUp.authorize(step_up_token, 'AUTHENTICATOR_DISABLE', principal);
      await this.commands.execute(stream, accountDecider, { kind: 'DisableAuthenticator', method: 'STEP_UP', session_id: principal.session_id }, { spend });
    } else {
      await this.commands.execute(stream, accountDecider, {
        kind: 'DisableAuthenticator',
        method: 'RECOVERY_CODE',
        session_id: principal.session_id,
        recovery_code_hash: this.crypto.recoveryCodeHash(recovery_code!) ?? 'invalid',
      });
    }
    return { status: 'DISABLED', sessions_revoked: true };
  }
}
