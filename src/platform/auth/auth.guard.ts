/**
 * The global auth guard: every route needs a live bearer token unless marked @Public(). Tokens are looked up by
 * their SHA-256 only; the principal becomes the request context's actor and tenant (event metadata, idempotency).
 */
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { PlatformError } from '../errors';
import { IS_PUBLIC } from '../http/public.decorator';
import { bearerToken, PRINCIPAL_RESOLVER, type PrincipalResolver } from './principal';

@Injectable()
export class PlatformAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(PRINCIPAL_RESOLVER) private readonly resolver: PrincipalResolver,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true;
    const token = bearerToken(request);
    if (!token) {
      if (isPublic) return true;
      throw new PlatformError('UNAUTHENTICATED', 'A valid bearer token is required.');
    }
    const principal = await this.resolver.resolve(createHash('sha256').update(token).digest('hex'));
    if (!principal) {
      if (isPublic) return true;
      throw new PlatformError('UNAUTHENTICATED', 'The bearer token is invalid, expired or revoked.');
    }
    request.principal = principal;
    const ctx = request.platformContext;
    ctx.actor = { type: 'profile', reference: principal.profile_uuid };
    ctx.tenant_uuid = principal.tenant_uuid;
    return true;
  }
}
