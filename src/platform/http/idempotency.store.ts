/**
 * The one idempotency store: (caller scope, Idempotency-Key) → the first request's fingerprint and its response,
 * kept in the read-model database (so every node and every restart sees it) for IDEMPOTENCY_TTL_SECONDS.
 */
import { createHmac } from 'node:crypto';
import type { PlatformConfig } from '../config/platform-config';
import { PlatformError, StateConflict } from '../errors';
import { secretKeyId, type NodeKey } from '../privacy/key-registry';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';
import { loadOrCreateKey } from '../security/key-file';

/** A request still in progress this long is taken to have died with its process; a retry may take it over. */
const ABANDONED_AFTER_MS = 60_000;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** `fingerprint`: what the request goes by, the first attempt's when a retry takes over an abandoned one. */
export type IdempotencyBegin = { kind: 'new'; fingerprint: string } | { kind: 'replay'; response: StoredResponse };

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

/**
 * A request's fingerprints: HMAC-SHA-256 of its method, URL and body under PLATFORM_SECRET_KEY (keyed: bodies hold
 * passwords, and a plain hash would be a fast offline guessing oracle), then under each PLATFORM_TRUSTED_SECRET_KEYS
 * key. While a rotation rolls over the nodes (docs/operations.md 10.1) some make fingerprints under the old key and
 * some under the new one; each trusts the other, so a retry through either node is recognised.
 */
export class RequestFingerprints {
  constructor(
    private readonly keys: readonly Buffer[],
    /** Where the current key came from, for a refusal at start. */
    private readonly source = 'PLATFORM_SECRET_KEY',
  ) {}

  /** PLATFORM_SECRET_KEY, or DATA_DIR/platform.key (made on first start), and the trusted ones. */
  static load(config: PlatformConfig): RequestFingerprints {
    const current = loadOrCreateKey(config.dataDir, 'platform.key', config.platformSecretKey, 'PLATFORM_SECRET_KEY');
    const trusted = config.platformTrustedSecretKeys.map((k) => Buffer.from(k, 'base64'));
    return new RequestFingerprints([current, ...trusted], config.platformSecretKey ? 'PLATFORM_SECRET_KEY' : 'DATA_DIR/platform.key, PLATFORM_SECRET_KEY unset');
  }

  /** The current key's first: a new record keeps it. */
  of(method: string, url: string, body: Buffer): string[] {
    return this.keys.map((key) => createHmac('sha256', key).update(`${method} ${url}\n`).update(body).digest('hex'));
  }

  /** The keys as ids, for the registry the nodes of one log share (SubjectKeyStore.assertKeyAmongNodes). */
  get nodeKey(): NodeKey {
    const [current, ...trusted] = this.keys.map(secretKeyId);
    return { variable: 'PLATFORM_SECRET_KEY', trustedVariable: 'PLATFORM_TRUSTED_SECRET_KEYS', current, trusted, source: this.source };
  }
}

export class IdempotencyStore {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly ttlSeconds: number,
  ) {}

  /** `fingerprints`: the request's under each key this node holds or trusts, its current key's first (RequestFingerprints). */
  async begin(scope: string, key: string, fingerprints: string | readonly string[], now = Date.now()): Promise<IdempotencyBegin> {
    const mine = typeof fingerprints === 'string' ? [fingerprints] : fingerprints;
    try {
      return await this.tryBegin(scope, key, mine, now);
    } catch (error) {
      // Two first uses raced past the read (PostgreSQL cannot lock a row that does not exist yet): the loser looks
      // again and now sees the winner's record.
      if (!isUniqueViolation(error)) throw error;
      return this.tryBegin(scope, key, mine, now);
    }
  }

  private tryBegin(scope: string, key: string, fingerprints: readonly string[], now: number): Promise<IdempotencyBegin> {
    return this.db.transaction(async (tx) => {
      const rows: Row[] = await tx.query(
        this.db.sql('SELECT fingerprint, state, status_code, response_body, response_headers, created_at, expires_at FROM idempotency_records WHERE scope = ? AND idempotency_key = ?' + (this.db.isPostgres ? ' FOR UPDATE' : '')),
        [scope, key],
      );
      const row = rows[0];
      let fingerprint = fingerprints[0];
      if (row && Number(row.expires_at) > now) {
        if (!fingerprints.includes(row.fingerprint)) throw new IdempotencyKeyReused();
        // The first attempt's, whichever key made it: a retry taking it over derives the same ids (nextId).
        fingerprint = row.fingerprint;
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
      return { kind: 'new', fingerprint };
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
