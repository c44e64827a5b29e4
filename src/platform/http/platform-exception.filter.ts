/** The one exception filter: every error a handler, guard or pipe throws leaves as the platform's error envelope. */
import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'nestjs-pino';
import { IdempotentReplay } from './command-pipeline';
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

/**
 * Records that carry `idempotent_replay` say so on a replay (PLATFORM.md section 4): the record itself, or the
 * record inside the seeds' envelopes (`response` for trading and agentic memory, `data` for arena).
 */
function markReplay(body: string): string {
  if (!body.includes('"idempotent_replay"')) return body;
  const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  const mark = (v: unknown): unknown => (isRecord(v) && 'idempotent_replay' in v ? { ...v, idempotent_replay: true } : v);
  try {
    const parsed: unknown = JSON.parse(body);
    if (!isRecord(parsed)) return body;
    const marked = mark(parsed) as Record<string, unknown>;
    for (const key of ['response', 'data']) if (key in marked) marked[key] = mark(marked[key]);
    return JSON.stringify(marked);
  } catch {
    return body; // not JSON: replay as stored
  }
}
