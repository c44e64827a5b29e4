/**
 * `@RequireStepUp(purpose)`: a route that always needs a fresh step-up authorization of one purpose. The guard
 * consumes the body's `step_up_token` (one use, bound to the caller's session and the purpose) before the handler
 * runs; a missing, wrong-purpose, used or expired token is 403 STEP_UP_REQUIRED. Routes where step-up is one of
 * several options call the StepUpVerifier themselves.
 */
import { applyDecorators, Inject, Injectable, SetMetadata, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { PlatformError } from '../errors';
import { STEP_UP_VERIFIER, type StepUpVerifier } from './principal';

const STEP_UP_PURPOSE = 'platform:stepUpPurpose';

@Injectable()
export class StepUpGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(STEP_UP_VERIFIER) private readonly verifier: StepUpVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const purpose = this.reflector.get<string>(STEP_UP_PURPOSE, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!request.principal) throw new PlatformError('UNAUTHENTICATED', 'Authentication required.');
    const body = request.body as { step_up_token?: unknown } | undefined;
    await this.verifier.consume(body?.step_up_token, purpose, request.principal);
    return true;
  }
}

export const RequireStepUp = (purpose: string): MethodDecorator => applyDecorators(SetMetadata(STEP_UP_PURPOSE, purpose), UseGuards(StepUpGuard));
