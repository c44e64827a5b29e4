/**
 * The event store as the modules use it (EVENT_STORE): appends seal each event's personal and secret fields under its
 * subject's key before the adapter stores (and commits to) them; reads, subscriptions included, open them again, so
 * deciders and projectors see clear values (an erased subject's read as ERASED_VALUES). What leaves the platform and
 * what verifies the chain reads the adapter itself (RAW_EVENT_STORE) and publishes committedData: the digest of a
 * sealed value, never the value or its ciphertext.
 */
import type { JsonObject } from '../commitments/json';
import type { AppendResult, EventStore, EventSubscription, ExpectedRevision, NewEvent, ReadAllOptions, ReadStreamOptions, RecordedEvent, SubscribeOptions } from '../event-store/event-store.port';
import { sealEventData, sealingSubject, unsealEventData, type SealingKeys } from './sealing';
import { LOG_SEALED, type SubjectKey, type SubjectKeyStore } from './subject-keys';
import { StartupRefused } from '../security/data-dir';

export const RAW_EVENT_STORE = Symbol('RAW_EVENT_STORE');

/**
 * Refuses to open a log these keys do not belong to: a log written before sealing existed (its personal and secret
 * fields in clear, its email and token streams named by plain hashes) must be migrated first, and a log whose key
 * store is missing would seal new values under new keys while the old ones are lost. A fresh log is marked at once.
 */
export async function assertSealedLog(raw: EventStore, keys: SubjectKeyStore): Promise<void> {
  if (keys.meta(LOG_SEALED) !== null) return;
  const head = await raw.headPosition();
  if (head === 0n) {
    keys.setMeta(LOG_SEALED, `fresh at ${new Date().toISOString()}`);
    return;
  }
  throw new StartupRefused(
    `The event log holds ${head} events but DATA_DIR/subject-keys.sqlite does not know it: either the log was written before personal and secret fields were sealed ` +
      '(stop the platform and run "npm run privacy -- migrate", docs/privacy.md), or the key store of this log was lost (restore DATA_DIR/subject-keys.sqlite and privacy-master.key from backup).',
  );
}

export class SealingEventStore implements EventStore {
  constructor(
    readonly raw: EventStore,
    private readonly keys: SubjectKeyStore,
  ) {}

  get kind(): EventStore['kind'] {
    return this.raw.kind;
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    // The subjects' keys first: a new subject's key is made (durably) before anything is sealed with it.
    const subjects = events.map((e) => sealingSubject({ type: e.type, stream, data: e.data, metadata: e.metadata }));
    const made = new Map<string, SubjectKey>();
    for (const subject of subjects) {
      if (subject === null || made.has(subject)) continue;
      made.set(subject, await this.keys.keyForSoon(subject));
    }
    const keys: SealingKeys = { keyFor: (subject) => made.get(subject) ?? this.keys.keyFor(subject), keyById: (kid) => this.keys.keyById(kid) };
    const sealed = events.map((e) => {
      const data = sealEventData({ type: e.type, stream, data: e.data, metadata: e.metadata }, keys);
      return data === e.data ? e : { ...e, data };
    });
    return this.raw.append(stream, sealed, expected);
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return (await this.raw.readStream(stream, options)).map((e) => this.open(e));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return (await this.raw.readAll(options)).map((e) => this.open(e));
  }

  subscribeToAll(options?: SubscribeOptions): EventSubscription {
    const inner = this.raw.subscribeToAll(options);
    const open = (e: RecordedEvent): RecordedEvent => this.open(e);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const e of inner) yield open(e);
      },
      batches(maxSize: number): AsyncIterable<RecordedEvent[]> {
        const source = inner.batches(maxSize);
        return {
          async *[Symbol.asyncIterator]() {
            for await (const batch of source) yield batch.map(open);
          },
        };
      },
      close: () => inner.close(),
    };
  }

  headPosition(): Promise<bigint> {
    return this.raw.headPosition();
  }

  close(): Promise<void> {
    return this.raw.close();
  }

  private open(e: RecordedEvent): RecordedEvent {
    const data = unsealEventData(e.type, e.data as JsonObject, this.keys);
    return data === e.data ? e : { ...e, data };
  }
}
