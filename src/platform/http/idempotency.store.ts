/**
 * The one idempotency store: (caller scope, Idempotency-Key) → the first request's fingerprint and its response,
 * kept in the read-model database (so every node and every restart sees it) for IDEMPOTENCY_TTL_SECONDS.
 */
import { PlatformError, StateConflict } from '../errors';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';

/** A request still in progress this long is taken to have died with its process; a retry may take it over. */
const ABANDONED_AFTER_MS = 60_000;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyBegin = { kind: 'new' } | { kind: 'replay'; response: StoredResponse };

interface Row {
  fingerprint: string;
  state: string;
  status_code: number | null;
  response_body: string | null;
  response_headers: string | null;
  created_at: string | number;
  expires_at: string | number;
}

export class IdempotencyKeyReused extends PlatformError {
  constructor() {
    super('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request; use a new key for a new request.');
  }
}

function isUniqueViolation(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: unknown } } | null)?.driverError;
  const code = driverError?.code ?? (error as { code?: unknown } | null)?.code;
  return code === '23505' || (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT'));
}

export class IdempotencyStore {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly ttlSeconds: number,
  ) {}

  async begin(scope: string, key: string, fingerprint: string, now = Date.now()): Promise<IdempotencyBegin> {
    try {
      return await this.tryBegin(scope, key, fingerprint, now);
    } catch (error) {
      // Two first uses raced past the read (PostgreSQL cannot lock a row that does not exist yet): the loser looks
      // again and now sees the winner's record.
      if (!isUniqueViolation(error)) throw error;
      return this.tryBegin(scope, key, fingerprint, now);
    }
  }

  private tryBegin(scope: string, key: string, fingerprint: string, now: number): Promise<IdempotencyBegin> {
    return this.db.transaction(async (tx) => {
      const rows: Row[] = await tx.query(
        this.db.sql('SELECT fingerprint, state, status_code, response_body, response_headers, created_at, expires_at FROM idempotency_records WHERE scope = ? AND idempotency_key = ?' + (this.db.isPostgres ? ' FOR UPDATE' : '')),
        [scope, key],
      );
      const row = rows[0];
      if (row && Number(row.expires_at) > now) {
        if (row.fingerprint !== fingerprint) throw new IdempotencyKeyReused();
        if (row.state === 'completed') {
          return { kind: 'replay', response: { status: Number(row.status_code), headers: JSON.parse(row.response_headers ?? '{}'), body: row.response_body ?? '' } };
        }
        if (now - Number(row.created_at) < ABANDONED_AFTER_MS) {
          throw new StateConflict('A request with this Idempotency-Key is still in progress; retry shortly.', { retryable: true });
        }
      }
      if (row) await tx.query(this.db.sql('DELETE FROM idempotency_records WHERE scope = ? AND idempotency_key = ?'), [scope, key]);
      await tx.query(
        this.db.sql('INSERT INTO idempotency_records (scope, idempotency_key, fingerprint, state, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)'),
        [scope, key, fingerprint, 'in_progress', now, now + this.ttlSeconds * 1000],
      );
      return { kind: 'new' };
    });
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    await this.db.transaction((tx) =>
      tx.query(this.db.sql("UPDATE idempotency_records SET state = 'completed', status_code = ?, response_body = ?, response_headers = ? WHERE scope = ? AND idempotency_key = ?"), [
        response.status,
        response.body,
        JSON.stringify(response.headers),
        scope,
        key,
      ]),
    );
  }

  /** The request failed: forget the key so the client can retry with it. */
  async abandon(scope: string, key: string): Promise<void> {
    await this.db.transaction((tx) => tx.query(this.db.sql("DELETE FROM idempotency_records WHERE scope = ? AND idempotency_key = ? AND state = 'in_progress'"), [scope, key]));
  }

  async purgeExpired(now = Date.now()): Promise<void> {
    await this.db.transaction((tx) => tx.query(this.db.sql('DELETE FROM idempotency_records WHERE expires_at <= ?'), [now]));
  }
}
