/**
 * The command pipeline around every route (PLATFORM.md section 1 and 4), in three places so no per-request wrapper
 * is needed (Nest's interceptor chain binds two async resources and an rxjs pipeline per request, a tenth of a small
 * request's CPU):
 * - `runInRequestContext` (installed by the request lifecycle on every route) runs the whole Nest handler, guards and
 *   pipes included, inside the request context;
 * - `CommandPipelineGuard`, after the auth guard (it needs the caller): waits for X-Min-Position before reads and
 *   applies Idempotency-Key to POSTs;
 * - `settle` (the lifecycle's onSend, before any answer leaves, refusals included): after a command, waits (bounded)
 *   until the projections it affects have passed its commit position (read-your-writes).
 */
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { PLATFORM_CONFIG, type PlatformConfig } from '../config/platform-config';
import { PlatformError, ValidationFailed } from '../errors';
import { ProjectionRunner } from '../projections/projection-runner';
import { IdempotencyStore, RequestFingerprints, type StoredResponse } from './idempotency.store';
import { Reflector } from '@nestjs/core';
import { SECRET_RESPONSE } from './public.decorator';
import { markStage } from '../observability/server-timing';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const POSITION = /^\d{1,20}$/;

/** Thrown to short-circuit a handler with a retained response; the exception filter sends it as it was. */
export class IdempotentReplay extends Error {
  constructor(readonly response: StoredResponse) {
    super('idempotent replay');
  }
}

@Injectable()
export class CommandPipelineGuard implements CanActivate {
  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly runner: ProjectionRunner,
    private readonly idempotency: IdempotencyStore,
    private readonly reflector: Reflector,
    private readonly fingerprints: RequestFingerprints,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const secretResponse = this.reflector.getAllAndOverride<boolean>(SECRET_RESPONSE, [context.getHandler(), context.getClass()]) === true;
    await this.waitForMinPosition(request);
    if (!secretResponse) await this.beginIdempotent(request);
    markStage('idempotency', request.platformContext);
    return true;
  }

  /** Also when the command refused after recording something (a failed login): the answer follows the write. */
  async settle(request: FastifyRequest): Promise<void> {
    const ctx = request.platformContext;
    if (!ctx || ctx.commit_position === null) return;
    if (ctx.read_back_pending) {
      request.projectionsPending = true;
      return;
    }
    const names = this.runner.projectorsFor(ctx.appended_types);
    const reached = await this.runner.waitFor(ctx.commit_position, names, this.config.readYourWritesTimeoutMs);
    if (!reached) request.projectionsPending = true;
  }

  private async waitForMinPosition(request: FastifyRequest): Promise<void> {
    const header = request.headers['x-min-position'];
    if (header === undefined) return;
    if (typeof header !== 'string' || !POSITION.test(header)) {
      throw new ValidationFailed('Invalid X-Min-Position.', [{ field: 'X-Min-Position', issue: 'must be a global position (decimal integer)' }]);
    }
    const reached = await this.runner.waitFor(BigInt(header), undefined, this.config.minPositionTimeoutMs);
    if (!reached) {
      throw new PlatformError('SERVICE_UNAVAILABLE', `The read models have not reached position ${header} yet; retry shortly.`, { retryable: true, retryAfter: 1 });
    }
  }

  private async beginIdempotent(request: FastifyRequest): Promise<void> {
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined) return;
    if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) {
      throw new ValidationFailed('Invalid Idempotency-Key.', [{ field: 'Idempotency-Key', issue: 'must be 1-255 printable ASCII characters' }]);
    }
    const ctx = request.platformContext;
    // Keys are per caller; callers without a principal are told apart by address, so strangers never share keys.
    const scope = ctx.actor.type === 'anonymous' ? `anonymous:${request.ip}` : `${ctx.actor.type}:${ctx.actor.reference}`;
    const begun = await this.idempotency.begin(scope, header, this.fingerprints.of(request.method, request.url, request.rawBody ?? Buffer.alloc(0)));
    if (begun.kind === 'replay') throw new IdempotentReplay(begun.response);
    request.idempotency = { scope, key: header };
    ctx.idempotency = { scope, key: header, fingerprint: begun.fingerprint };
  }
}
