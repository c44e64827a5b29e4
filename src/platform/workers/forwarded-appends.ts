/**
 * The log has one writer per process (issue 48): a worker thread's appends are made by the main thread's store, so
 * they join its group commits, its stream heads learn them, and its subscriptions (the engines) read them from its
 * tail. The worker thread keeps its own connection for reads and subscriptions, fed by the commits the main thread
 * announces (worker-threads.service.ts). An append's answer, or its error as the same class, travels back by message.
 */
import type { MessagePort } from 'node:worker_threads';
import { NotFound, PlatformError, RuleViolation, StateConflict, ValidationFailed, VersionConflict, type ErrorCode, type ErrorDetail } from '../errors';
import type {
  AppendResult,
  EventStore,
  EventSubscription,
  ExpectedRevision,
  NewEvent,
  PreparedEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
} from '../event-store/event-store.port';
import type { SqliteEventStore } from '../event-store/sqlite/sqlite.event-store';
import { canonicalTexts, validateAppend } from '../event-store/append-validation';

/** Worker → main: append these for me. */
export interface AppendCall {
  append: number;
  stream: string;
  events: PreparedEvent[];
  expected: ExpectedRevision;
}

/** An error as it crosses threads: enough to raise the same class on the other side. */
interface CarriedError {
  name: string;
  message: string;
  code?: ErrorCode;
  details?: ErrorDetail[];
  retryable?: boolean;
  currentVersion?: bigint | number | null;
  stream?: string;
  expected?: string;
}

/** Main → worker: its answer. */
export type AppendAnswer = { appended: number; result: AppendResult } | { appended: number; failure: CarriedError };

/** The main thread's side: makes a worker thread's append on the log's one writer. */
export async function answerAppend(store: EventStore, call: AppendCall): Promise<AppendAnswer> {
  try {
    if (!store.appendPrepared) throw new Error('the log\'s writer takes no prepared events');
    const result = await store.appendPrepared(call.stream, call.events, call.expected);
    return { appended: call.append, result };
  } catch (error) {
    return { appended: call.append, failure: carried(error) };
  }
}

function carried(error: unknown): CarriedError {
  if (error instanceof VersionConflict) return { name: error.name, message: error.message, stream: error.stream, expected: error.expected, currentVersion: error.currentVersion };
  if (error instanceof PlatformError) return { name: error.name, message: error.message, code: error.code, details: error.details, retryable: error.retryable, currentVersion: error.currentVersion };
  const e = error instanceof Error ? error : new Error(String(error));
  return { name: e.name, message: e.message, code: (e as { code?: ErrorCode }).code };
}

function raised(c: CarriedError): Error {
  switch (c.name) {
    case 'VersionConflict':
      return new VersionConflict(c.stream!, c.expected!, (c.currentVersion as bigint | null | undefined) ?? null);
    case 'ValidationFailed':
      return new ValidationFailed(c.message, c.details);
    case 'StateConflict':
      return new StateConflict(c.message, { details: c.details, currentVersion: c.currentVersion });
    case 'RuleViolation':
      return new RuleViolation(c.message, c.details);
    case 'NotFound':
      return new NotFound(c.message);
  }
  if (c.code && c.name === 'PlatformError') return new PlatformError(c.code, c.message, { details: c.details, retryable: c.retryable, currentVersion: c.currentVersion });
  return Object.assign(new Error(c.message), { name: c.name, code: c.code });
}

/** How long closing waits for the answers to appends in flight. */
const CLOSE_WAIT_MS = 10_000;

/** A worker thread's store: reads and subscriptions on its own connection, appends by the main thread's. */
export class ForwardingEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  private readonly waiting = new Map<number, { resolve(result: AppendResult): void; reject(error: unknown): void }>();
  private next = 0;
  private closed = false;

  constructor(
    readonly local: SqliteEventStore,
    private readonly port: Pick<MessagePort, 'postMessage' | 'on' | 'off'>,
  ) {
    port.on('message', this.onMessage);
    port.on('close', this.onClose);
  }

  private readonly onMessage = (message: unknown): void => {
    if (typeof message !== 'object' || message === null || !('appended' in message)) return;
    const answer = message as AppendAnswer;
    const waiter = this.waiting.get(answer.appended);
    if (!waiter) return;
    this.waiting.delete(answer.appended);
    if ('result' in answer) waiter.resolve(answer.result);
    else waiter.reject(raised(answer.failure));
  };

  private readonly onClose = (): void => {
    // The main thread is gone: the outcome of what was in flight is unknown (its ids make a retry safe).
    for (const w of this.waiting.values()) w.reject(new Error('the main thread, which writes the log, is gone; the append\'s outcome is unknown'));
    this.waiting.clear();
  };

  /**
   * Validated and put in canonical form here, then sent as prepared events: the canonical texts (the hashing's input)
   * are made on this thread's CPU, not the writer's, and what crosses is text, which no realm changes (a structured
   * clone's objects land in the receiver's main realm: under jest, not the test's, whose canonical check refuses them).
   */
  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    let prepared: PreparedEvent[];
    try {
      validateAppend(stream, events, expected);
      const texts = canonicalTexts(events);
      prepared = events.map((e, i) => ({ event_id: e.event_id, type: e.type, occurred_at: e.occurred_at, texts: texts[i] }));
    } catch (error) {
      return Promise.reject(error);
    }
    return this.forward(stream, prepared, expected);
  }

  appendPrepared(stream: string, events: PreparedEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.forward(stream, events, expected);
  }

  private forward(stream: string, events: PreparedEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    const id = ++this.next;
    return new Promise<AppendResult>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.port.postMessage({ append: id, stream, events, expected } satisfies AppendCall);
    });
  }

  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.local.readStream(stream, options);
  }

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.local.readAll(options);
  }

  subscribeToAll(options?: SubscribeOptions): EventSubscription {
    return this.local.subscribeToAll(options);
  }

  headPosition(): Promise<bigint> {
    return this.local.headPosition();
  }

  nextCommit(timeoutMs: number): Promise<void> {
    return this.local.nextCommit(timeoutMs);
  }

  ping(): boolean {
    return this.local.ping();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // What was sent is answered before the connection closes (the main thread stops this thread before its store).
    for (const deadline = Date.now() + CLOSE_WAIT_MS; this.waiting.size > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
    this.onClose();
    this.port.off('message', this.onMessage);
    this.port.off('close', this.onClose);
    await this.local.close();
  }
}
