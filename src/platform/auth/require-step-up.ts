/**
 * `@RequireStepUp(purpose)`: a route that always needs a fresh step-up authorization of one purpose. An interceptor
 * (not a guard) consumes the body's `step_up_token` — one use, bound to the caller's session and the purpose — so it
 * runs inside the request context (audited as the caller) and after the Idempotency-Key replay check (a retried
 * request replays instead of spending a token). A missing, wrong-purpose, used or expired token is 403
 * STEP_UP_REQUIRED. Routes where step-up is one of several options call the StepUpVerifier themselves.
 */
import { applyDecorators, Inject, Injectable, SetMetadata, UseInterceptors, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { from, switchMap, type Observable } from 'rxjs';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { PlatformError } from '../errors';
import { STEP_UP_VERIFIER, type StepUpVerifier } from './principal';

const STEP_UP_PURPOSE = 'platform:stepUpPurpose';

@Injectable()
export class StepUpInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(STEP_UP_VERIFIER) private readonly verifier: StepUpVerifier,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const purpose = this.reflector.get<string>(STEP_UP_PURPOSE, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!request.principal) throw new PlatformError('UNAUTHENTICATED', 'Authentication required.');
    const body = request.body as { step_up_token?: unknown } | undefined;
    return from(this.verifier.consume(body?.step_up_token, purpose, request.principal)).pipe(switchMap(() => next.handle()));
  }
}

export const RequireStepUp = (purpose: string): MethodDecorator => applyDecorators(SetMetadata(STEP_UP_PURPOSE, purpose), UseInterceptors(StepUpInterceptor));
