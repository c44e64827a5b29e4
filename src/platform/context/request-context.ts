/**
 * What the platform knows about the request being served, carried through async calls (AsyncLocalStorage) so
 * event metadata and read-your-writes need no plumbing through every handler.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomFillSync } from 'node:crypto';
import type { ActorRef, EventMetadata } from '../event-store/event-store.port';

export interface RequestContext {
  request_id: string;
  correlation_id: string;
  causation_id: string | null;
  actor: ActorRef;
  /** When the actor is an AI agent (workload): the person who answers for it (its binding's owner), else absent. */
  on_behalf_of?: ActorRef;
  tenant_uuid: string | null;
  workspace_uuid: string | null;
  /** Highest commit position appended while serving this request. */
  commit_position: bigint | null;
  /** Event types appended while serving this request (which projections to wait for). */
  appended_types: Set<string>;
  /**
   * A command's answer was given without its read-back (the read models had not caught up in time): the response must
   * go out as 202 even if they catch up before it is sent, since its body is the pending one.
   */
  read_back_pending?: boolean;
  /** The request's Idempotency-Key: ids are then derived from it, so a retried request reproduces them. */
  idempotency?: { scope: string; key: string; fingerprint: string };
  /** How many ids `nextId` has handed out in this request. */
  id_counter: number;
  /** Milliseconds per stage, when SERVER_TIMING is on (observability/server-timing.ts). */
  timing?: StageTiming;
}

export interface StageTiming {
  /** hrtime of the previous mark. */
  last: bigint;
  stages: Map<string, number>;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Identifiers for events and records: 32 hex characters, 48 bits of milliseconds then 80 random bits, so ids made
 * close in time sort close together (index pages stay hot: about half the write-ahead log per append) while a
 * collision needs 2^40 ids in one millisecond. Never a secret: tokens use their own 256-bit randomness.
 */
export const newId = (): string => Date.now().toString(16).padStart(12, '0').slice(-12) + randomHex(10);

// One system call fills randomness for 1,638 ids: a randomBytes call per id cost several percent of an order
// placement. The pool is consumed once, never reused (as `uuid` does with its pool).
const RANDOM_POOL = Buffer.alloc(16_384);
let randomOffset = RANDOM_POOL.length;
function randomHex(bytes: number): string {
  if (randomOffset + bytes > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    randomOffset = 0;
  }
  randomOffset += bytes;
  return RANDOM_POOL.toString('hex', randomOffset - bytes, randomOffset);
}

/** The platform itself (start-up jobs, projections, CLIs): never an HTTP caller. */
/**
 * The id for the next record or event a command creates. Under an Idempotency-Key the n-th id of a request is
 * derived from (caller, key, n): a retry of a request whose response was lost (a crash between append and reply)
 * creates the same ids, so the command executor recognises its own earlier append instead of doing it twice.
 */
export function nextId(): string {
  const ctx = currentContext();
  if (!ctx?.idempotency) return newId();
  return derivedId(ctx, ctx.id_counter++);
}

/** The id `nextId` would hand out `ahead` calls from now, without handing it out. */
export function peekId(ahead: number): string | null {
  const ctx = currentContext();
  return ctx?.idempotency ? derivedId(ctx, ctx.id_counter + ahead) : null;
}

/** Where `nextId` stands, to give back the ids of an attempt that did not happen (`rewindIds`). */
export function idMark(): number {
  return currentContext()?.id_counter ?? 0;
}

export function rewindIds(mark: number): void {
  const ctx = currentContext();
  if (ctx?.idempotency) ctx.id_counter = mark;
}

function derivedId(ctx: RequestContext, n: number): string {
  const { scope, key, fingerprint } = ctx.idempotency!;
  // The fingerprint binds the ids to this exact request: the same key with another body derives other ids.
  return createHash('sha256').update(`${scope}\n${key}\n${fingerprint}\n${n}`).digest('hex').slice(0, 32);
}

export const SYSTEM_ACTOR: ActorRef = { type: 'system', reference: 'platform' };

/** An HTTP caller before (or without) authentication. */
export const ANONYMOUS_ACTOR: ActorRef = { type: 'anonymous', reference: 'anonymous' };

export function createRequestContext(init: Partial<RequestContext> = {}): RequestContext {
  const request_id = init.request_id ?? newId();
  return {
    request_id,
    correlation_id: init.correlation_id ?? request_id,
    causation_id: init.causation_id ?? null,
    actor: init.actor ?? SYSTEM_ACTOR,
    tenant_uuid: init.tenant_uuid ?? null,
    workspace_uuid: init.workspace_uuid ?? null,
    commit_position: null,
    appended_types: new Set(),
    id_counter: 0,
  };
}

export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/** Envelope metadata for events appended now; outside a request the platform itself is the actor. */
export function eventMetadata(overrides: Partial<EventMetadata> = {}): EventMetadata {
  const ctx = currentContext();
  return {
    tenant_uuid: ctx?.tenant_uuid ?? null,
    workspace_uuid: ctx?.workspace_uuid ?? null,
    actor: ctx?.actor ?? SYSTEM_ACTOR,
    correlation_id: ctx?.correlation_id ?? newId(),
    causation_id: ctx?.causation_id ?? null,
    request_id: ctx?.request_id ?? null,
    schema_version: 1,
    // Only for an agent's commands, so every other event's envelope stays exactly as it was.
    ...(ctx?.on_behalf_of ? { on_behalf_of: ctx.on_behalf_of } : {}),
    ...overrides,
  };
}

export function recordAppend(position: bigint, types: Iterable<string>): void {
  const ctx = currentContext();
  if (!ctx) return;
  if (ctx.commit_position === null || position > ctx.commit_position) ctx.commit_position = position;
  for (const t of types) ctx.appended_types.add(t);
}
