/** The subject-key store's rows (subject-keys.ts), kept by one of two tables: a SQLite file or PostgreSQL. */

export interface SubjectKey {
  /** 32 hex: names the key in a sealed value (not the subject). */
  kid: string;
  key: Buffer;
}

export interface WrappedKeyRow {
  kid: string;
  subject: string;
  wrapped: Buffer;
  created_at: string;
}

/** Where the wrapped keys are kept: rows only; nothing here sees a key in clear. */
export interface SubjectKeyRows {
  readonly where: string;
  /** Several nodes share these rows (PostgreSQL), rather than one node's own file. */
  readonly shared: boolean;
  /** Each subject's current key: its earliest not erased (two nodes may make one each at once; both stay valid). */
  currentOf(subjects: string[]): Promise<Map<string, { kid: string; wrapped: Buffer }>>;
  /** The wrapped keys these kids name, null where erased; a kid never made is absent. */
  byKids(kids: string[]): Promise<Map<string, Buffer | null>>;
  /** Stores new keys, skipping a subject that has a current key by then; durably, in one transaction. */
  insertFirst(rows: WrappedKeyRow[]): Promise<void>;
  /** Destroys every key of the subject; the kids it had and how many were destroyed now. */
  erase(subject: string, at: string): Promise<{ kids: string[]; changes: number }>;
  /** Any one wrapped key (to check a master key against a store made before the check existed). */
  anyKey(): Promise<{ kid: string; wrapped: Buffer } | null>;
  meta(name: string): Promise<string | null>;
  /** The facts whose names start with the prefix, by name without it (a registry of rows, key-registry.ts). */
  metaStartingWith(prefix: string): Promise<Map<string, string>>;
  /** Records a fact once; an existing one is kept (several nodes may start together). */
  setMeta(name: string, value: string): Promise<void>;
  close(): Promise<void>;
}
