/**
 * Where a request's time goes, as a `Server-Timing` header (W3C Server Timing; browsers' developer tools and the
 * latency benchmark read it): each stage's milliseconds, from the request's first byte to the answer leaving the
 * handlers. Off unless SERVER_TIMING=true: stage times tell an observer things about the server (how long a token
 * lookup took) that a production API has no reason to publish.
 *
 * Stages, in order: parse (body and hooks, until the route), auth, idempotency (X-Min-Position and the key's
 * record), validation, decide (load and fold the stream, decide; again on a retried conflict), append (and its
 * commit wait), engine (a cancel's wait for the matching engines' decisions and the order list to show them),
 * read-back (the handler reading its answer from the read models), serialize (the rest of the handler and the body's
 * JSON), read-your-writes (the wait for projections before the answer), idempotency-record (keeping
 * the answer under its key). A stage a request did not reach is absent.
 */
import { currentContext, type RequestContext, type StageTiming } from '../context/request-context';

export function startTiming(ctx: RequestContext): void {
  ctx.timing = { last: process.hrtime.bigint(), stages: new Map() };
}

/** Charges the time since the previous mark to `stage` (stages reached more than once add up). */
export function markStage(stage: string, ctx: RequestContext | undefined = currentContext()): void {
  const timing = ctx?.timing;
  if (!timing) return;
  const now = process.hrtime.bigint();
  timing.stages.set(stage, (timing.stages.get(stage) ?? 0) + Number(now - timing.last) / 1e6);
  timing.last = now;
}

export function serverTimingHeader(timing: StageTiming): string {
  return [...timing.stages].map(([stage, ms]) => `${stage};dur=${ms.toFixed(3)}`).join(', ');
}
