/**
 * One data key per data subject (crypto-shredding, docs/privacy.md): the personal and secret fields of events are
 * sealed with the key of the person (or binding) they belong to, and erasing a subject destroys its keys, after which
 * those values cannot be read by anyone. The keys live outside the event log, each wrapped (AES-256-GCM) by the master
 * key `PRIVACY_MASTER_KEY` (or `DATA_DIR/privacy-master.key`), which is never stored with them:
 * - embedded: their own SQLite file, `DATA_DIR/subject-keys.sqlite` (mode 0600);
 * - several nodes (issue 29): PostgreSQL tables every node shares (`SUBJECT_KEYS_URL`, by default the PostgreSQL
 *   event store's database), or a node would not open what another sealed.
 * This class is the one cache, batching and wrapping in front of either table (SubjectKeyRows).
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { StartupRefused } from '../security/data-dir';
import { judgeNodeKey, registryPrefix, type NodeKey } from './key-registry';
import type { SubjectKey, SubjectKeyRows } from './subject-key-rows';

export type { SubjectKey, SubjectKeyRows, WrappedKeyRow } from './subject-key-rows';

/** key_store_meta: set once the event log is known to seal its personal and secret fields (fresh, or migrated). */
export const LOG_SEALED = 'log_sealed';
/** key_store_meta: an HMAC of a fixed text under the master key, so a node with another master key is refused. */
const MASTER_KEY_CHECK = 'master_key_check';

/**
 * Keys unwrapped once stay in memory (bounded) for CACHE_TTL_MS: an erasure on this node drops them at once, one on
 * another node sharing the key store is seen here within that time.
 */
const CACHE_LIMIT = 10_000;
const CACHE_TTL_MS = 5_000;

export class SubjectKeyStore {
  private readonly erasedListeners = new Set<(subject: string, kids: string[]) => void>();
  private readonly bySubject = new Map<string, SubjectKey & { at: number }>();
  private readonly byKid = new Map<string, { key: Buffer | null; at: number }>();
  /** Subjects whose key is asked for in this turn of the event loop, and who waits: looked up and made together. */
  private pending = new Map<string, Array<{ resolve: (key: SubjectKey) => void; reject: (error: unknown) => void }>>();
  private flushScheduled = false;

  constructor(readonly rows: SubjectKeyRows, private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the privacy master key must be 32 bytes');
  }

  /**
   * Refuses a master key other than the one this store's keys are wrapped with (nodes sharing a PostgreSQL key store
   * must share PRIVACY_MASTER_KEY; a node that made its own key file would fail every read of another's values).
   */
  async assertMasterKey(): Promise<void> {
    const check = createHmac('sha256', this.masterKey).update('subject-key-store master key check v1').digest('hex');
    if ((await this.rows.meta(MASTER_KEY_CHECK)) === null) {
      // A store made before the check existed: its keys say which master key is right.
      const any = await this.rows.anyKey();
      if (any) {
        try {
          this.unwrap(any.kid, any.wrapped);
        } catch {
          throw this.wrongMasterKey();
        }
      }
    }
    await this.assertRecorded(MASTER_KEY_CHECK, check, () => this.wrongMasterKey());
  }

  /**
   * Refuses a secret other than the one the log was written with, where a difference would silently break it (a node
   * with another IDENTITY_SECRET_KEY names email-claim streams differently, so an address could register twice). The
   * caller passes a value derived from the secret, never the secret; the first node to start records it.
   */
  async assertSharedSecret(variable: string, derived: Buffer): Promise<void> {
    const check = createHmac('sha256', derived).update(`shared secret check v1:${variable}`).digest('hex');
    await this.assertRecorded(`secret_check:${variable}`, check, () =>
      new StartupRefused(
        `${variable} is not the one this log was written with (recorded in ${this.rows.where}): every node of one log must be given the same ${variable}, and it cannot be changed once the log has events (docs/operations.md).`,
      ),
    );
  }

  /**
   * At start, where several nodes share this store: refuses a key of a rotatable variable (PLATFORM_SECRET_KEY,
   * AUDIT_SIGNING_KEY, MEMORY_SIGNING_KEY) the other nodes do not hold or trust (key-registry.ts). One node's own
   * store, in its DATA_DIR, has no other node to disagree with: its keys change as they always did.
   */
  async assertKeyAmongNodes(node: NodeKey): Promise<void> {
    if (this.rows.shared) await this.assertNodeKey(node);
  }

  /** The registry's judgement of the node's key; what it records once accepted. A refused node records nothing. */
  async assertNodeKey(node: NodeKey): Promise<void> {
    const prefix = registryPrefix(node.variable);
    await this.rows.setMeta(`${prefix}first`, node.current); // only into an empty registry: this node is the first
    const verdict = judgeNodeKey(await this.rows.metaStartingWith(prefix), node, this.rows.where);
    if ('refusal' in verdict) throw new StartupRefused(verdict.refusal);
    for (const [name, value] of verdict.record) await this.rows.setMeta(`${prefix}${name}`, value);
  }

  /** Records the check once (the first node's wins) and refuses when the recorded one is another. */
  private async assertRecorded(name: string, check: string, refusal: () => StartupRefused): Promise<void> {
    await this.rows.setMeta(name, check);
    const stored = (await this.rows.meta(name)) ?? '';
    if (stored.length !== check.length || !timingSafeEqual(Buffer.from(stored), Buffer.from(check))) throw refusal();
  }

  /** The subject's key, created on first use (a subject erased before gets a new key: what it writes later is new). */
  keyFor(subject: string): Promise<SubjectKey> {
    const cached = this.cachedFor(subject);
    if (cached) return Promise.resolve(cached);
    return new Promise<SubjectKey>((resolve, reject) => {
      const waiting = this.pending.get(subject);
      if (waiting) waiting.push({ resolve, reject });
      else this.pending.set(subject, [{ resolve, reject }]);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /** The keys of these subjects, made where missing: those asked for in one turn share one lookup and one durable write. */
  async keysFor(subjects: Iterable<string>): Promise<Map<string, SubjectKey>> {
    const out = new Map<string, SubjectKey>();
    const waits: Array<Promise<void>> = [];
    for (const subject of subjects) {
      if (out.has(subject)) continue;
      const cached = this.cachedFor(subject);
      if (cached) out.set(subject, cached);
      else waits.push(this.keyFor(subject).then((key) => void out.set(subject, key)));
    }
    if (waits.length > 0) await Promise.all(waits);
    return out;
  }

  /** The key a sealed value names; null once its subject is erased (or for a kid this store never made). */
  async keyById(kid: string): Promise<Buffer | null> {
    const found = this.keysById([kid]);
    return ((found instanceof Map ? found : await found).get(kid)) ?? null;
  }

  /** The keys these kids name (null: erased or unknown); at once when all are cached, the common case. */
  keysById(kids: Iterable<string>): Map<string, Buffer | null> | Promise<Map<string, Buffer | null>> {
    const out = new Map<string, Buffer | null>();
    let missing: string[] | undefined;
    const now = Date.now();
    for (const kid of kids) {
      if (out.has(kid)) continue;
      const cached = this.byKid.get(kid);
      if (cached && now - cached.at < CACHE_TTL_MS) out.set(kid, cached.key);
      else (missing ??= []).push(kid);
    }
    if (!missing) return out;
    return this.rows.byKids([...new Set(missing)]).then((rows) => {
      const at = Date.now();
      for (const kid of missing!) {
        if (!rows.has(kid)) {
          out.set(kid, null); // not cached: another node may have just made it
          continue;
        }
        const wrapped = rows.get(kid)!;
        const key = wrapped ? this.unwrap(kid, wrapped) : null;
        this.trim();
        this.byKid.set(kid, { key, at });
        out.set(kid, key);
      }
      return out;
    });
  }

  /** Destroys every key of the subject: what was sealed with them is unreadable from now on. Returns how many. */
  async erase(subject: string, at: Date = new Date()): Promise<number> {
    const { kids, changes } = await this.rows.erase(subject, at.toISOString());
    this.forget(subject, kids);
    for (const listener of this.erasedListeners) listener(subject, kids);
    return changes;
  }

  /**
   * Drops what this store holds of an erasure made elsewhere in the process (another thread's store of the same keys):
   * at once, rather than when the cache would have expired.
   */
  forget(subject: string, kids: readonly string[]): void {
    this.bySubject.delete(subject);
    for (const kid of kids) this.byKid.set(kid, { key: null, at: Date.now() });
  }

  /** Calls `listener` after each erasure this store makes, until the returned stop. */
  onErased(listener: (subject: string, kids: string[]) => void): () => void {
    this.erasedListeners.add(listener);
    return () => this.erasedListeners.delete(listener);
  }

  /** A fact about the log these keys belong to (key_store_meta), or null. */
  meta(name: string): Promise<string | null> {
    return this.rows.meta(name);
  }

  setMeta(name: string, value: string): Promise<void> {
    return this.rows.setMeta(name, value);
  }

  close(): Promise<void> {
    return this.rows.close();
  }

  private cachedFor(subject: string): SubjectKey | undefined {
    const cached = this.bySubject.get(subject);
    return cached && Date.now() - cached.at < CACHE_TTL_MS ? { kid: cached.kid, key: cached.key } : undefined;
  }

  /** One lookup for the turn's subjects, one durable write for those without a key, one lookup of what won. */
  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    try {
      const subjects = [...batch.keys()];
      let current = await this.rows.currentOf(subjects);
      const absent = subjects.filter((s) => !current.has(s));
      if (absent.length > 0) {
        const now = new Date().toISOString();
        await this.rows.insertFirst(
          absent.map((subject) => {
            const kid = randomBytes(16).toString('hex');
            return { kid, subject, wrapped: this.wrap(kid, randomBytes(32)), created_at: now };
          }),
        );
        // Two nodes may have made one each at once: the earliest is the subject's key from then on.
        current = new Map([...current, ...(await this.rows.currentOf(absent))]);
      }
      for (const [subject, waiting] of batch) {
        const row = current.get(subject);
        if (!row) {
          for (const w of waiting) w.reject(new Error(`no key could be made for a subject (${this.rows.where})`));
          continue;
        }
        const key = { kid: row.kid, key: this.unwrap(row.kid, row.wrapped) };
        this.remember(subject, key);
        for (const w of waiting) w.resolve(key);
      }
    } catch (error) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
    }
  }

  private trim(): void {
    if (this.bySubject.size >= CACHE_LIMIT) this.bySubject.clear();
    if (this.byKid.size >= CACHE_LIMIT) this.byKid.clear();
  }

  private remember(subject: string, key: SubjectKey): void {
    this.trim();
    const at = Date.now();
    this.bySubject.set(subject, { ...key, at });
    this.byKid.set(key.kid, { key: key.key, at });
  }

  private wrongMasterKey(): StartupRefused {
    return new StartupRefused(
      `The subject keys in ${this.rows.where} are wrapped by another master key: every node sharing them must be given the same PRIVACY_MASTER_KEY (docs/privacy.md, docs/operations.md).`,
    );
  }

  private wrap(kid: string, key: Buffer): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv);
    cipher.setAAD(Buffer.from(`subject-key:${kid}`));
    const body = Buffer.concat([cipher.update(key), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  private unwrap(kid: string, wrapped: Buffer): Buffer {
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey, wrapped.subarray(0, 12));
    decipher.setAAD(Buffer.from(`subject-key:${kid}`));
    decipher.setAuthTag(wrapped.subarray(12, 28));
    return Buffer.concat([decipher.update(wrapped.subarray(28)), decipher.final()]);
  }
}
