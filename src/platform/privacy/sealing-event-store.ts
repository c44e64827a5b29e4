/**
 * The event store as the modules use it (EVENT_STORE): appends seal each event's personal and secret fields under its
 * subject's key before the adapter stores (and commits to) them; reads, subscriptions included, open them again, so
 * deciders and projectors see clear values (an erased subject's read as ERASED_VALUES). What leaves the platform and
 * what verifies the chain reads the adapter itself (RAW_EVENT_STORE) and publishes committedData: the digest of a
 * sealed value, never the value or its ciphertext.
 */
import type { JsonObject } from '../commitments/json';
import type { AppendResult, EventStore, EventSubscription, ExpectedRevision, NewEvent, ReadAllOptions, ReadStreamOptions, RecordedEvent, SubscribeOptions } from '../event-store/event-store.port';
import { ValidationFailed } from '../errors';
import { unparsedData } from '../event-store/lazy-data';
import { eventDeclaration } from './field-classes';
import { isSealed, SEALED_VALUES, sealEventData, sealingSubject, unsealEventData } from './sealing';
import { LOG_SEALED, type SubjectKeyStore } from './subject-keys';
import { StartupRefused } from '../security/data-dir';

export const RAW_EVENT_STORE = Symbol('RAW_EVENT_STORE');

/**
 * Refuses to open a log these keys do not belong to: a log written before sealing existed (its personal and secret
 * fields in clear, its email and token streams named by plain hashes) must be migrated first, and a log whose key
 * store is missing would seal new values under new keys while the old ones are lost. A fresh log is marked at once.
 */
export async function assertSealedLog(raw: EventStore, keys: SubjectKeyStore): Promise<void> {
  await keys.assertMasterKey();
  if ((await keys.meta(LOG_SEALED)) !== null) return;
  const head = await raw.headPosition();
  if (head === 0n) {
    await keys.setMeta(LOG_SEALED, `fresh at ${new Date().toISOString()}`);
    return;
  }
  throw new StartupRefused(
    `The event log holds ${head} events but the subject keys in ${keys.rows.where} do not know it: either the log was written before personal and secret fields were sealed ` +
      '(stop the platform and run "npm run privacy -- migrate", docs/privacy.md), or the key store of this log was lost (restore it and the privacy master key from backup).',
  );
}

/** The kid an event's sealed values name, or null (nothing sealed). */
const sealedKid = (e: RecordedEvent): string | null => {
  // Large data not parsed yet (lazy-data.ts): its canonical text shows a sealed member without parsing it.
  const text = unparsedData(e);
  if (text !== undefined && !text.includes(`"${SEALED_VALUES}":`)) return null;
  const sealed = (e.data as JsonObject)[SEALED_VALUES];
  return isSealed(sealed) ? sealed.kid : null;
};

export class SealingEventStore implements EventStore {
  /**
   * Events already in canonical form (an engine snapshot) go to the adapter as they are, where it takes them: only of
   * types that declare no personal or secret field, since sealing works on the data itself.
   */
  readonly appendPrepared?: EventStore['appendPrepared'];

  constructor(
    readonly raw: EventStore,
    private readonly keys: SubjectKeyStore,
  ) {
    const prepared = raw.appendPrepared?.bind(raw);
    if (prepared) {
      this.appendPrepared = (stream, events, expected) => {
        const sealable = events.find((e) => eventDeclaration(e.type)?.protectedFields !== false);
        if (sealable) return Promise.reject(new ValidationFailed('Only events of a declared type with no personal or secret field can be appended prepared.', [{ field: 'type', issue: sealable.type }]));
        return prepared(stream, events, expected);
      };
    }
  }

  get kind(): EventStore['kind'] {
    return this.raw.kind;
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    // The subjects' keys first: a new subject's key is made (durably) before anything is sealed with it.
    const subjects = new Set<string>();
    for (const e of events) {
      const subject = sealingSubject({ type: e.type, stream, data: e.data, metadata: e.metadata });
      if (subject !== null) subjects.add(subject);
    }
    if (subjects.size === 0) return this.raw.append(stream, events, expected);
    const made = await this.keys.keysFor(subjects);
    const keys = {
      keyFor: (subject: string) => {
        const key = made.get(subject);
        if (!key) throw new Error('a sealed field names a subject its event did not'); // sealingSubject and sealEventData agree
        return key;
      },
      keyById: () => null,
    };
    const sealed = events.map((e) => {
      const data = sealEventData({ type: e.type, stream, data: e.data, metadata: e.metadata }, keys);
      return data === e.data ? e : { ...e, data };
    });
    return this.raw.append(stream, sealed, expected);
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.openAll(await this.raw.readStream(stream, options));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.openAll(await this.raw.readAll(options));
  }

  subscribeToAll(options?: SubscribeOptions): EventSubscription {
    const inner = this.raw.subscribeToAll(options);
    const openAll = (events: RecordedEvent[]): RecordedEvent[] | Promise<RecordedEvent[]> => this.openAll(events);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const e of inner) yield (await openAll([e]))[0];
      },
      batches(maxSize: number): AsyncIterable<RecordedEvent[]> {
        // A plain mapping iterator, not an async generator: one step of every subscription follows each commit.
        const source = inner.batches(maxSize)[Symbol.asyncIterator]();
        // A batch that cannot be opened ends the subscription too, as the generator's loop did on the way out.
        const failed = async (error: unknown): Promise<never> => {
          await source.return?.();
          throw error;
        };
        const opened = (step: IteratorResult<RecordedEvent[]>): IteratorResult<RecordedEvent[]> | Promise<IteratorResult<RecordedEvent[]>> => {
          if (step.done) return step;
          try {
            const events = openAll(step.value);
            return events instanceof Promise ? events.then((value) => ({ done: false, value }), failed) : { done: false, value: events };
          } catch (error) {
            return failed(error);
          }
        };
        const iterator: AsyncIterator<RecordedEvent[]> = {
          next: () => source.next().then(opened),
          return: () => source.return?.() ?? Promise.resolve({ done: true, value: undefined }),
        };
        return { [Symbol.asyncIterator]: () => iterator };
      },
      close: () => inner.close(),
    };
  }

  headPosition(): Promise<bigint> {
    return this.raw.headPosition();
  }

  nextCommit(timeoutMs: number): Promise<void> {
    return this.raw.nextCommit ? this.raw.nextCommit(timeoutMs) : new Promise((resolve) => setTimeout(resolve, timeoutMs));
  }

  close(): Promise<void> {
    return this.raw.close();
  }

  /** The events with their sealed values opened; the keys they name fetched first (at once when all are cached). */
  private openAll(events: RecordedEvent[]): RecordedEvent[] | Promise<RecordedEvent[]> {
    let kids: Set<string> | undefined;
    for (const e of events) {
      const kid = sealedKid(e);
      if (kid !== null) (kids ??= new Set()).add(kid);
    }
    if (!kids) return events;
    const open = (found: Map<string, Buffer | null>): RecordedEvent[] => {
      const keys = { keyById: (kid: string) => found.get(kid) ?? null };
      return events.map((e) => {
        const data = unsealEventData(e.type, e.data as JsonObject, keys);
        return data === e.data ? e : { ...e, data };
      });
    };
    const found = this.keys.keysById(kids);
    return found instanceof Map ? open(found) : found.then(open);
  }
}
