/**
 * One data key per data subject (crypto-shredding, docs/privacy.md): the personal and secret fields of events are
 * sealed with the key of the person (or binding) they belong to, and erasing a subject destroys its keys, after which
 * those values cannot be read by anyone. The keys live outside the event log, in their own SQLite file
 * (`DATA_DIR/subject-keys.sqlite`, mode 0600), each wrapped (AES-256-GCM) by the master key `PRIVACY_MASTER_KEY`
 * (or `DATA_DIR/privacy-master.key`), which is never stored in the log or the key file.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { prepareDataDir, privateSqliteFiles } from '../security/data-dir';

export interface SubjectKey {
  /** 32 hex: names the key in a sealed value (not the subject). */
  kid: string;
  key: Buffer;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS subject_keys (
  kid TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  wrapped BLOB,
  created_at TEXT NOT NULL,
  erased_at TEXT
);
CREATE INDEX IF NOT EXISTS idx_subject_keys_subject ON subject_keys (subject);
CREATE TABLE IF NOT EXISTS key_store_meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

/** key_store_meta: set once the event log is known to seal its personal and secret fields (fresh, or migrated). */
export const LOG_SEALED = 'log_sealed';

/**
 * Keys unwrapped once stay in memory (bounded) for CACHE_TTL_MS: an erasure on this node drops them at once, one on
 * another node sharing the key store is seen here within that time.
 */
const CACHE_LIMIT = 10_000;
const CACHE_TTL_MS = 5_000;

export class SubjectKeyStore {
  private readonly db: Database.Database;
  private readonly bySubject = new Map<string, SubjectKey & { at: number }>();
  /** Subjects whose first key is being made, and who waits for it: made together, in one durable transaction. */
  private creating = new Map<string, Array<{ resolve: (key: SubjectKey) => void; reject: (error: unknown) => void }>>();
  private flushScheduled = false;
  private readonly byKid = new Map<string, { key: Buffer | null; at: number }>();
  private readonly stmt: {
    current: Database.Statement<[string], { kid: string; wrapped: Buffer }>;
    byKid: Database.Statement<[string], { wrapped: Buffer | null; subject: string }>;
    insert: Database.Statement<[string, string, Buffer, string]>;
    erase: Database.Statement<[string, string]>;
    kidsOf: Database.Statement<[string], { kid: string }>;
  };

  constructor(filename: string, private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the privacy master key must be 32 bytes');
    if (filename !== ':memory:') {
      prepareDataDir(dirname(filename));
      privateSqliteFiles(filename);
    }
    this.db = new Database(filename);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 10000');
    // Deleted content is overwritten with zeros, so an erased key leaves no copy in the file's free pages.
    this.db.pragma('secure_delete = ON');
    this.db.exec(SCHEMA);
    this.stmt = {
      current: this.db.prepare('SELECT kid, wrapped FROM subject_keys WHERE subject = ? AND wrapped IS NOT NULL ORDER BY created_at, kid LIMIT 1'),
      byKid: this.db.prepare('SELECT wrapped, subject FROM subject_keys WHERE kid = ?'),
      insert: this.db.prepare('INSERT INTO subject_keys (kid, subject, wrapped, created_at) VALUES (?, ?, ?, ?)'),
      erase: this.db.prepare('UPDATE subject_keys SET wrapped = NULL, erased_at = ? WHERE subject = ? AND wrapped IS NOT NULL'),
      kidsOf: this.db.prepare('SELECT kid FROM subject_keys WHERE subject = ?'),
    };
  }

  /** The subject's key, created on first use (a subject erased before gets a new key: what it writes later is new). */
  keyFor(subject: string): SubjectKey {
    const known = this.existing(subject);
    if (known) return known;
    const kid = randomBytes(16).toString('hex');
    this.stmt.insert.run(kid, subject, this.wrap(kid, randomBytes(32)), new Date().toISOString());
    // Two processes may create one each at once: the earliest is the subject's key from then on, both stay valid.
    return this.existing(subject)!;
  }

  /** The subject's current key, from the cache or the store; undefined before its first. */
  private existing(subject: string): SubjectKey | undefined {
    const cached = this.bySubject.get(subject);
    if (cached && Date.now() - cached.at < CACHE_TTL_MS) return { kid: cached.kid, key: cached.key };
    const row = this.stmt.current.get(subject);
    if (!row) return undefined;
    const key = { kid: row.kid, key: this.unwrap(row.kid, row.wrapped) };
    this.remember(subject, key);
    return key;
  }

  /**
   * The subject's key, made on first use like keyFor, but the first keys of the subjects asked for in one turn of the
   * event loop are made in one transaction: one durable write for a burst of new accounts, not one each.
   */
  keyForSoon(subject: string): SubjectKey | Promise<SubjectKey> {
    const known = this.existing(subject);
    if (known) return known;
    return new Promise<SubjectKey>((resolve, reject) => {
      const waiting = this.creating.get(subject);
      if (waiting) waiting.push({ resolve, reject });
      else this.creating.set(subject, [{ resolve, reject }]);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.createPending());
      }
    });
  }

  private createPending(): void {
    this.flushScheduled = false;
    const batch = this.creating;
    this.creating = new Map();
    const now = new Date().toISOString();
    try {
      this.db.transaction(() => {
        for (const subject of batch.keys()) {
          if (this.stmt.current.get(subject)) continue;
          const kid = randomBytes(16).toString('hex');
          this.stmt.insert.run(kid, subject, this.wrap(kid, randomBytes(32)), now);
        }
      })();
    } catch (error) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
      return;
    }
    for (const [subject, waiting] of batch) {
      try {
        const key = this.keyFor(subject);
        for (const w of waiting) w.resolve(key);
      } catch (error) {
        for (const w of waiting) w.reject(error);
      }
    }
  }

  /** The key a sealed value names; null once its subject is erased (or for a kid this store never made). */
  keyById(kid: string): Buffer | null {
    const cached = this.byKid.get(kid);
    if (cached && Date.now() - cached.at < CACHE_TTL_MS) return cached.key;
    const row = this.stmt.byKid.get(kid);
    const key = row?.wrapped ? this.unwrap(kid, row.wrapped) : null;
    if (row) this.byKid.set(kid, { key, at: Date.now() }); // an unknown kid is not cached: another node may have just made it
    return key;
  }

  /** Destroys every key of the subject: what was sealed with them is unreadable from now on. Returns how many. */
  erase(subject: string, at: Date = new Date()): number {
    const kids = this.stmt.kidsOf.all(subject).map((r) => r.kid);
    const changes = this.stmt.erase.run(at.toISOString(), subject).changes;
    this.bySubject.delete(subject);
    for (const kid of kids) this.byKid.set(kid, { key: null, at: Date.now() });
    // The write-ahead log is folded into the file and emptied, so no page image of the key stays in it.
    if (changes > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return changes;
  }

  /** A fact about the log these keys belong to (key_store_meta), or null. */
  meta(name: string): string | null {
    return (this.db.prepare('SELECT value FROM key_store_meta WHERE name = ?').get(name) as { value: string } | undefined)?.value ?? null;
  }

  /** Records a fact once; an existing one is kept (several nodes may start together). */
  setMeta(name: string, value: string): void {
    this.db.prepare('INSERT OR IGNORE INTO key_store_meta (name, value) VALUES (?, ?)').run(name, value);
  }

  close(): void {
    this.db.close();
  }

  private remember(subject: string, key: SubjectKey): void {
    if (this.bySubject.size >= CACHE_LIMIT) this.bySubject.clear();
    if (this.byKid.size >= CACHE_LIMIT) this.byKid.clear();
    const at = Date.now();
    this.bySubject.set(subject, { ...key, at });
    this.byKid.set(key.kid, { key: key.key, at });
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
