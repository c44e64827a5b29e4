/** The subject keys of one embedded node: `DATA_DIR/subject-keys.sqlite`, mode 0600, erased keys overwritten. */
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { SqliteDatabase } from '../sqlite-driver';
import { prepareDataDir, privateSqliteFiles } from '../security/data-dir';
import type { SubjectKeyRows, WrappedKeyRow } from './subject-key-rows';
import { SubjectKeyStore } from './subject-keys';

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

/** How long a statement waits for another connection's lock (another thread's or process's) before it fails. */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * Emptying the WAL after an erasure waits for other connections' reads and writes, which are single rows here:
 * a few short tries (within about half a second in all) rather than the statements' 10 s, whose wait would hold up
 * this thread before the same answer.
 */
const TRUNCATE_ATTEMPTS = 20;
const TRUNCATE_WAIT_MS = 20;
const TRUNCATE_PAUSE_MS = 5;

export class SqliteSubjectKeyRows implements SubjectKeyRows {
  readonly where: string;
  readonly shared = false;
  private readonly db: Database.Database;
  private readonly stmt: {
    current: Database.Statement<[string], { kid: string; wrapped: Buffer }>;
    byKid: Database.Statement<[string], { wrapped: Buffer | null }>;
    insert: Database.Statement<[string, string, Buffer, string]>;
    erase: Database.Statement<[string, string]>;
    kidsOf: Database.Statement<[string], { kid: string }>;
    any: Database.Statement<[], { kid: string; wrapped: Buffer }>;
    meta: Database.Statement<[string], { value: string }>;
    metaStartingWith: Database.Statement<[string, string], { name: string; value: string }>;
    setMeta: Database.Statement<[string, string]>;
  };

  constructor(filename: string) {
    this.where = filename === ':memory:' ? 'memory' : filename;
    if (filename !== ':memory:') {
      prepareDataDir(dirname(filename));
      privateSqliteFiles(filename);
    }
    this.db = new SqliteDatabase(filename);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Deleted content is overwritten with zeros, so an erased key leaves no copy in the file's free pages.
    this.db.pragma('secure_delete = ON');
    this.db.exec(SCHEMA);
    this.stmt = {
      current: this.db.prepare('SELECT kid, wrapped FROM subject_keys WHERE subject = ? AND wrapped IS NOT NULL ORDER BY created_at, kid LIMIT 1'),
      byKid: this.db.prepare('SELECT wrapped FROM subject_keys WHERE kid = ?'),
      insert: this.db.prepare('INSERT INTO subject_keys (kid, subject, wrapped, created_at) VALUES (?, ?, ?, ?)'),
      erase: this.db.prepare('UPDATE subject_keys SET wrapped = NULL, erased_at = ? WHERE subject = ? AND wrapped IS NOT NULL'),
      kidsOf: this.db.prepare('SELECT kid FROM subject_keys WHERE subject = ?'),
      any: this.db.prepare('SELECT kid, wrapped FROM subject_keys WHERE wrapped IS NOT NULL LIMIT 1'),
      meta: this.db.prepare('SELECT value FROM key_store_meta WHERE name = ?'),
      metaStartingWith: this.db.prepare('SELECT name, value FROM key_store_meta WHERE substr(name, 1, length(?)) = ?'),
      setMeta: this.db.prepare('INSERT OR IGNORE INTO key_store_meta (name, value) VALUES (?, ?)'),
    };
  }

  async currentOf(subjects: string[]): Promise<Map<string, { kid: string; wrapped: Buffer }>> {
    const out = new Map<string, { kid: string; wrapped: Buffer }>();
    for (const subject of subjects) {
      const row = this.stmt.current.get(subject);
      if (row) out.set(subject, row);
    }
    return out;
  }

  async byKids(kids: string[]): Promise<Map<string, Buffer | null>> {
    const out = new Map<string, Buffer | null>();
    for (const kid of kids) {
      const row = this.stmt.byKid.get(kid);
      if (row) out.set(kid, row.wrapped);
    }
    return out;
  }

  async insertFirst(rows: WrappedKeyRow[]): Promise<void> {
    // IMMEDIATE: the write lock before the read, so another connection's key committed in between cannot make the
    // insert fail (SQLITE_BUSY_SNAPSHOT) nor be missed by the read; that connection waits instead.
    this.db.transaction(() => {
      for (const r of rows) if (!this.stmt.current.get(r.subject)) this.stmt.insert.run(r.kid, r.subject, r.wrapped, r.created_at);
    }).immediate();
  }

  /** `walTruncated` false: other connections kept the WAL busy, and a page image of the erased keys may be in it still. */
  async erase(subject: string, at: string): Promise<{ kids: string[]; changes: number; walTruncated: boolean }> {
    const kids = this.stmt.kidsOf.all(subject).map((r) => r.kid);
    const changes = this.stmt.erase.run(at, subject).changes;
    const walTruncated = changes === 0 || this.truncateWal();
    if (!walTruncated) {
      process.emitWarning(`${this.where}: the write-ahead log could not be emptied after an erasure (other connections kept it busy); it keeps the erased keys' page images until the next checkpoint`, { code: 'SUBJECT_KEYS_WAL_KEPT' });
    }
    return { kids, changes, walTruncated };
  }

  /**
   * Folds the write-ahead log into the file and empties it, so no page image of an erased key stays in it. It cannot
   * while another connection reads or writes: tried again a few times. False when every try found it busy.
   */
  private truncateWal(): boolean {
    this.db.pragma(`busy_timeout = ${TRUNCATE_WAIT_MS}`);
    try {
      for (let attempt = 1; attempt <= TRUNCATE_ATTEMPTS; attempt++) {
        if (attempt > 1) pause(TRUNCATE_PAUSE_MS);
        const [outcome] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
        if (outcome.busy === 0) return true;
      }
      return false;
    } finally {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  async anyKey(): Promise<{ kid: string; wrapped: Buffer } | null> {
    return this.stmt.any.get() ?? null;
  }

  async meta(name: string): Promise<string | null> {
    return this.stmt.meta.get(name)?.value ?? null;
  }

  async metaStartingWith(prefix: string): Promise<Map<string, string>> {
    return new Map(this.stmt.metaStartingWith.all(prefix, prefix).map((r) => [r.name.slice(prefix.length), r.value]));
  }

  async setMeta(name: string, value: string): Promise<void> {
    this.stmt.setMeta.run(name, value);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** Blocks this thread: the erasure's retries are rare and short, and the connection is synchronous anyway. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** A store in its own SQLite file (one node's DATA_DIR, a CLI, a test). */
export function subjectKeysInFile(filename: string, masterKey: Buffer): SubjectKeyStore {
  return new SubjectKeyStore(new SqliteSubjectKeyRows(filename), masterKey);
}
