/** The one exception filter: every error a handler, guard or pipe throws leaves as the platform's error envelope. */
import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'nestjs-pino';
import { IdempotentReplay } from './command-pipeline.interceptor';
import { sendError } from './request-lifecycle';

@Catch()
export class PlatformExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (exception instanceof IdempotentReplay) {
      const { status, headers, body } = exception.response;
      for (const [k, v] of Object.entries(headers)) reply.header(k, v);
      reply.header('Idempotent-Replay', 'true');
      void reply.code(status).send(markReplay(body));
      return;
    }
    sendError(reply, request, exception, (error, req) => this.logger.error({ err: error, request_id: req.id, route: req.routeOptions?.url }, 'request failed'));
  }
}

/** Records that carry `idempotent_replay` say so on a replay (PLATFORM.md section 4). */
function markReplay(body: string): string {
  if (!body.includes('"idempotent_replay"')) return body;
  try {
    const parsed = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'idempotent_replay' in parsed) {
      return JSON.stringify({ ...parsed, idempotent_replay: true });
    }
  } catch {
    /* not JSON: replay as stored */
  }
  return body;
}
