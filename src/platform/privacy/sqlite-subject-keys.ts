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
    this.db.pragma('busy_timeout = 10000');
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
    this.db.transaction(() => {
      for (const r of rows) if (!this.stmt.current.get(r.subject)) this.stmt.insert.run(r.kid, r.subject, r.wrapped, r.created_at);
    })();
  }

  async erase(subject: string, at: string): Promise<{ kids: string[]; changes: number }> {
    const kids = this.stmt.kidsOf.all(subject).map((r) => r.kid);
    const changes = this.stmt.erase.run(at, subject).changes;
    // The write-ahead log is folded into the file and emptied, so no page image of the key stays in it.
    if (changes > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return { kids, changes };
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

/** A store in its own SQLite file (one node's DATA_DIR, a CLI, a test). */
export function subjectKeysInFile(filename: string, masterKey: Buffer): SubjectKeyStore {
  return new SubjectKeyStore(new SqliteSubjectKeyRows(filename), masterKey);
}
