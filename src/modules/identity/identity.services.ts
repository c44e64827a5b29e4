/**
 * Identity's infrastructure: password hashing and the sealed TOTP secrets, the principal resolver behind the global
 * auth guard, step-up consumption for other modules, and login throttling.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import type BetterSqlite3 from 'better-sqlite3';
import { RateLimiterPostgres, RateLimiterRes, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { CommandExecutor, type OneUseSpend } from '../../platform/command/command-executor';
import { CLOCK, systemClock, type Clock } from '../../platform/clock';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { PlatformError } from '../../platform/errors';
import { StepUpRequired, type Principal, type PrincipalResolver, type StepUpVerifier } from '../../platform/auth/principal';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { oneUseTokenDecider, TokenRefused } from './domain/access';
import { accountStream, emailClaimStream, sessionStream, tokenStream } from './domain/identity.constants';
import type { EventStore } from '../../platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../platform/privacy/sealing-event-store';
import { PasswordHasher } from './security/password-hasher';
import { loadOrCreateKey, SecretBox } from './security/secret-box';
import { hashToken, normalizeRecoveryCode } from './security/tokens';
import { createHmac } from 'node:crypto';

@Injectable()
export class IdentityCrypto {
  readonly passwords: PasswordHasher;
  readonly secrets: SecretBox;

  private readonly codeKey: Buffer;
  private readonly streamNameKey: Buffer;
  private readonly throttleKey: Buffer;
  /** Derived from the key to show two nodes hold the same one (SubjectKeyStore.assertSharedSecret), not the key. */
  readonly keyCheck: Buffer;

  constructor(@Inject(PLATFORM_CONFIG) config: PlatformConfig) {
    const key = loadOrCreateKey(config.dataDir, config.identitySecretKey);
    this.passwords = new PasswordHasher(config.passwordHashCost);
    this.secrets = new SecretBox(key);
    this.codeKey = createHmac('sha256', key).update('identity/recovery-codes').digest();
    this.streamNameKey = createHmac('sha256', key).update('identity/stream-names').digest();
    this.throttleKey = createHmac('sha256', key).update('identity/throttle-keys').digest();
    this.keyCheck = createHmac('sha256', key).update('identity/key-check').digest();
  }

  /** A throttle counter's key as stored: a keyed hash, so the table never holds an email or an IP address. */
  throttlePseudonym(key: string): string {
    return createHmac('sha256', this.throttleKey).update(key).digest('hex').slice(0, 32);
  }

  /**
   * The stream of the claim on an email address. Stream names are published (Kafka keys, exports), so it is named by a
   * keyed hash of the normalised address (HMAC-SHA-256 under a key derived from IDENTITY_SECRET_KEY): a plain SHA-256
   * of an email is reversed by a dictionary of addresses (docs/privacy.md).
   */
  emailStream(email: string): string {
    return emailClaimStream(createHmac('sha256', this.streamNameKey).update(`email:${email.trim().toLowerCase()}`).digest('hex'));
  }

  /** The stream of a one-use token: named by a keyed hash of the token's hash, so no published name is a token hash. */
  oneUseTokenStream(tokenHash: string): string {
    return tokenStream(createHmac('sha256', this.streamNameKey).update(`token:${tokenHash}`).digest('hex'));
  }

  /** Recovery codes are stored keyed (HMAC), so a copy of the events is no offline oracle for 60-bit codes. */
  recoveryCodeHash(code: string): string | null {
    const normalized = normalizeRecoveryCode(code);
    return normalized ? createHmac('sha256', this.codeKey).update(normalized).digest('hex') : null;
  }
}

interface PrincipalRow {
  session_id: string;
  profile_uuid: string;
  tenant_uuid: string;
  expires_at: string;
  platform_role: 'ADMIN' | null;
}

/** How often a session's last activity is written at most: finer than a minute tells a person nothing more. */
export const SESSION_ACTIVITY_INTERVAL_MS = 60_000;
/** Sessions remembered as recently written; past this the stale ones are forgotten (a later write is harmless). */
const SESSION_ACTIVITY_MEMORY = 10_000;

/**
 * A session's last activity (`last_seen_at` of the authentication history) without an event per request: a plain
 * row per session in `identity_session_activity`, written on an authenticated request at most once a minute per
 * session. This node remembers when it last wrote each session and skips writes within the minute; nodes share the
 * table, and the upsert only ever moves the time forward, so two nodes serving one session cannot move it back.
 * Activity is operational state, not a fact of the log: it is not replayed, a rebuild of the sessions read model
 * keeps it, and it may lag the truth by up to a minute.
 */
@Injectable()
export class SessionActivity {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly db: ReadModelDatabase,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {}

  async seen(session_id: string): Promise<void> {
    const now = this.clock();
    const at = now.getTime();
    const last = this.written.get(session_id);
    if (last !== undefined && at - last < SESSION_ACTIVITY_INTERVAL_MS) return;
    this.written.set(session_id, at);
    if (this.written.size > SESSION_ACTIVITY_MEMORY) this.forgetStale(at);
    await this.db.transaction((tx) =>
      tx.query(
        this.db.sql(
          `INSERT INTO identity_session_activity (session_id, last_seen_at) VALUES (?, ?)
           ON CONFLICT (session_id) DO UPDATE SET last_seen_at = excluded.last_seen_at
           WHERE excluded.last_seen_at > identity_session_activity.last_seen_at`,
        ),
        [session_id, now.toISOString()],
      ),
    );
  }

  private forgetStale(at: number): void {
    for (const [session_id, written] of this.written) if (at - written >= SESSION_ACTIVITY_INTERVAL_MS) this.written.delete(session_id);
  }
}

/** Token hashes whose session row a node keeps at once (SESSION_CACHE_MS); past this the oldest go first. */
const SESSION_ROWS_KEPT = 10_000;

/** The projectors behind a session's row: kept rows must hold the account's newest event in both. */
const SESSION_ROW_PROJECTORS = ['identity-accounts', 'identity-sessions'];

/**
 * Live session by token hash: active, not expired, on an active account. The session's own stream has the last word
 * on revocation, so a logout holds at once even when the read model lags behind or the row is reused.
 *
 * The row (session and account: about a tenth of an authenticated request's CPU) is reused while its account's
 * stream has no newer event and for at most SESSION_CACHE_MS: what revokes every session of a profile (closure,
 * contact change, disabled authenticator) is an event on that stream, which ends the reuse at once; from then on the
 * row is read again on every request, as without reuse, until both projectors behind it hold the account's newest
 * event. Only rows that let a request in are kept; an unknown token reads the database every time.
 */
@Injectable()
export class SessionPrincipalResolver implements PrincipalResolver {
  private readonly rows = new Map<string, { row: PrincipalRow; readAt: number; accountRevision: bigint }>();
  private readonly cacheMs: number;

  constructor(
    private readonly db: ReadModelDatabase,
    @Inject(RAW_EVENT_STORE) private readonly store: EventStore,
    private readonly activity: SessionActivity,
    private readonly projections: ProjectionRunner,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    this.cacheMs = config.sessionCacheMs;
  }

  async resolve(tokenHash: string): Promise<Principal | null> {
    // The reuse bound is a duration on this machine's clock; a session's expiry is the platform clock's.
    const now = Date.now();
    const row = (await this.keptRow(tokenHash, now)) ?? (await this.readRow(tokenHash, now));
    if (!row || Date.parse(row.expires_at) <= this.clock().getTime()) return null;
    const [last] = await this.store.readStream(sessionStream(row.session_id), { direction: 'backwards', maxCount: 1 });
    if (!last || last.type === 'SessionRevoked') {
      this.rows.delete(tokenHash);
      return null;
    }
    await this.activity.seen(row.session_id);
    return { session_id: row.session_id, profile_uuid: row.profile_uuid, tenant_uuid: row.tenant_uuid, platform_role: row.platform_role ?? null };
  }

  private async keptRow(tokenHash: string, now: number): Promise<PrincipalRow | undefined> {
    const kept = this.rows.get(tokenHash);
    if (kept === undefined) return undefined;
    // A clock set back ends the reuse too: the bound is never stretched.
    if (now - kept.readAt < this.cacheMs && now >= kept.readAt) {
      const head = await this.accountHead(kept.row.profile_uuid);
      if (head?.revision === kept.accountRevision) return kept.row;
    }
    this.rows.delete(tokenHash);
    return undefined;
  }

  private async readRow(tokenHash: string, now: number): Promise<PrincipalRow | undefined> {
    // The row says whose account it is; it is kept only as read again once both projectors hold the account's newest
    // event, so that read shows it (or something newer, which the next request's head check then sees).
    const read = () =>
      this.db.reader.query(
        this.db.sql(
          `SELECT s.session_id, s.profile_uuid, s.tenant_uuid, s.expires_at, a.platform_role
           FROM identity_sessions s JOIN identity_accounts a ON a.profile_uuid = s.profile_uuid
           WHERE s.token_hash = ? AND s.status = 'ACTIVE' AND a.status = 'ACTIVE'`,
        ),
        [tokenHash],
      ) as Promise<PrincipalRow[]>;
    const [row] = await read();
    if (row === undefined || this.cacheMs === 0) return row;
    const head = await this.accountHead(row.profile_uuid);
    if (head === undefined || !(await this.projections.waitFor(head.position, SESSION_ROW_PROJECTORS, 0))) return row;
    const [again] = await read();
    if (again === undefined || again.profile_uuid !== row.profile_uuid) return again;
    this.rows.set(tokenHash, { row: again, readAt: now, accountRevision: head.revision });
    if (this.rows.size > SESSION_ROWS_KEPT) this.rows.delete(this.rows.keys().next().value as string);
    return again;
  }

  private async accountHead(profile_uuid: string): Promise<{ revision: bigint; position: bigint } | undefined> {
    const [last] = await this.store.readStream(accountStream(profile_uuid), { direction: 'backwards', maxCount: 1 });
    return last && { revision: last.revision, position: last.position };
  }
}

const STEP_UP_TOKEN = /^hcsu_[A-Za-z0-9_-]{43}$/;

/**
 * Step-up tokens are one-use: spending appends OneUseTokenConsumed on the token's own stream under its revision, which
 * succeeds once even under concurrency. `authorize` only reads (a dry run of the same decision); the spend happens in
 * CommandExecutor right before the authorised action's append, and a failed append gives the token back.
 */
@Injectable()
export class StepUpService implements StepUpVerifier {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {}

  async authorize(token: unknown, purpose: string, principal: Principal): Promise<OneUseSpend> {
    if (typeof token !== 'string' || !STEP_UP_TOKEN.test(token)) throw new StepUpRequired(purpose);
    const stream = this.crypto.oneUseTokenStream(hashToken(token));
    const consume = { kind: 'ConsumeToken', expect: { kind: 'STEP_UP', purpose, session_id: principal.session_id } } as const;
    await this.refusedAsStepUp(purpose, async () => {
      const { state } = await this.commands.load(stream, oneUseTokenDecider);
      oneUseTokenDecider.decide(consume, state, { now: this.clock(), newId: () => '' });
    });
    return {
      spend: () => this.refusedAsStepUp(purpose, async () => void (await this.commands.execute(stream, oneUseTokenDecider, consume))),
      release: async () => void (await this.commands.execute(stream, oneUseTokenDecider, { kind: 'ReleaseToken' })),
    };
  }

  private async refusedAsStepUp(purpose: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (error instanceof TokenRefused) throw new StepUpRequired(purpose);
      throw error;
    }
  }
}

const FREE_FAILURES = 5;
const MAX_LOCK_SECONDS = 15 * 60;
const SOURCE_WINDOW_SECONDS = 15 * 60;

/**
 * Where throttle counters live: the read-model database, so every node of a deployment shares them (PostgreSQL:
 * rate-limiter-flexible's RateLimiterPostgres on the read models' pool; SQLite: its RateLimiterSQLite on the read
 * models' writer connection, each operation run through ReadModelDatabase.transaction, which serializes it with the
 * projectors' transactions: better-sqlite3 is synchronous, and a second connection waiting for the writer's lock
 * would block the event loop that lock's holder needs to finish). The table is `identity_throttle` (migration in
 * projections/identity-sessions); expired rows are swept now and then.
 */
@Injectable()
export class ThrottleStore {
  private writes = 0;

  constructor(
    private readonly db: ReadModelDatabase,
    private readonly crypto: IdentityCrypto,
  ) {}

  limiter(keyPrefix: string, points: number, durationSeconds: number): RateLimiterAbstract {
    const common = { keyPrefix, points, duration: durationSeconds, tableName: THROTTLE_TABLE, tableCreated: true, clearExpiredByTimeout: false };
    let limiter: RateLimiterAbstract;
    if (this.db.isPostgres) {
      const schema = (this.db.writer.options as { schema?: string }).schema;
      limiter = new RateLimiterPostgres({ ...common, storeClient: this.db.writer, storeType: 'typeorm', ...(schema ? { schemaName: schema } : {}) });
    } else {
      limiter = new SerializedSqliteLimiter(this.db, common);
    }
    // Counters are kept by accounts' emails, recipients and client addresses: personal data (docs/privacy.md), so the
    // stored key is a keyed hash of it. Every store operation derives its key through getKey.
    const stored = limiter.getKey.bind(limiter);
    limiter.getKey = (key: string) => stored(this.crypto.throttlePseudonym(key));
    return limiter;
  }

  /** Forgets counters that expired over an hour ago, about once in 200 writes. */
  async sweep(now: number): Promise<void> {
    if (++this.writes % 200 !== 0) return;
    await this.db.transaction((tx) => tx.query(this.db.sql(`DELETE FROM ${THROTTLE_TABLE} WHERE expire < ?`), [now - 3_600_000]));
  }
}

/** The store operations rate-limiter-flexible's SQLite limiter implements (not in its type declarations). */
interface SqliteLimiterInternals {
  _upsert(...args: unknown[]): Promise<unknown>;
  _get(...args: unknown[]): Promise<unknown>;
  _delete(...args: unknown[]): Promise<unknown>;
}
const sqliteStore = RateLimiterSQLite.prototype as unknown as SqliteLimiterInternals;

/** RateLimiterSQLite on the read models' writer connection, each store operation inside the writer's turn. */
class SerializedSqliteLimiter extends RateLimiterSQLite {
  constructor(
    private readonly db: ReadModelDatabase,
    options: { keyPrefix: string; points: number; duration: number; tableName: string; tableCreated: boolean; clearExpiredByTimeout: boolean },
  ) {
    const driver = db.writer.driver as unknown as { databaseConnection: BetterSqlite3.Database };
    super({ ...options, storeClient: driver.databaseConnection, storeType: 'better-sqlite3' });
  }

  _upsert(...args: unknown[]): Promise<unknown> {
    return this.db.transaction(() => sqliteStore._upsert.apply(this, args));
  }

  _get(...args: unknown[]): Promise<unknown> {
    return this.db.transaction(() => sqliteStore._get.apply(this, args));
  }

  _delete(...args: unknown[]): Promise<unknown> {
    return this.db.transaction(() => sqliteStore._delete.apply(this, args));
  }
}

const THROTTLE_TABLE = 'identity_throttle';

const retryAfter = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * Sign-in throttling, per account and per source together:
 * - the account: after five failures in a row each further one locks it for twice as long as the last (1 s, 2 s,
 *   4 s … up to 15 min); a success clears it;
 * - the source (client address, behind TRUSTED_PROXIES): a coarse ceiling of LOGIN_SOURCE_FAILURE_LIMIT failures
 *   per 15 minutes, high enough that one guesser behind a shared address does not lock out everyone behind it, low
 *   enough that spraying many accounts from one address stops; a success does not clear it.
 * 429 RATE_LIMITED with Retry-After. Counters are shared by the deployment's nodes (ThrottleStore); attempts on the
 * same key run one at a time per node, so parallel guesses on one node cannot all pass one check.
 */
@Injectable()
export class LoginThrottle {
  private readonly accountFailures: RateLimiterAbstract;
  private readonly accountLocks: RateLimiterAbstract;
  private readonly sourceFailures: RateLimiterAbstract;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: ThrottleStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {
    this.accountFailures = store.limiter('login-account-failures', 1_000_000, 3600);
    this.accountLocks = store.limiter('login-account-locks', 1, MAX_LOCK_SECONDS);
    this.sourceFailures = store.limiter('login-source-failures', config.loginSourceFailureLimit, SOURCE_WINDOW_SECONDS);
  }

  /** Runs one authentication attempt; an UNAUTHENTICATED failure counts against the account and the source. */
  async attempt<T>(accountKey: string, source: string | null, attempt: () => Promise<T>): Promise<T> {
    const sourceKey = source === null ? null : `source:${source}`;
    return this.serialized(sourceKey ? [accountKey, sourceKey].sort() : [accountKey], async () => {
      await this.assertAllowed(accountKey, sourceKey);
      try {
        const result = await attempt();
        await this.accountFailures.delete(accountKey);
        return result;
      } catch (error) {
        if (error instanceof PlatformError && error.code === 'UNAUTHENTICATED') await this.recordFailure(accountKey, sourceKey);
        throw error;
      }
    });
  }

  private async assertAllowed(accountKey: string, sourceKey: string | null): Promise<void> {
    const lock = await this.accountLocks.get(accountKey);
    if (lock && lock.consumedPoints > 1 && lock.msBeforeNext > 0) {
      throw new PlatformError('RATE_LIMITED', 'Too many failed sign-in attempts for this account; retry later.', { retryAfter: retryAfter(lock.msBeforeNext) });
    }
    if (sourceKey === null) return;
    const source = await this.sourceFailures.get(sourceKey);
    if (source && source.consumedPoints >= this.config.loginSourceFailureLimit && source.msBeforeNext > 0) {
      throw new PlatformError('RATE_LIMITED', 'Too many failed sign-in attempts from this address; retry later.', { retryAfter: retryAfter(source.msBeforeNext) });
    }
  }

  private async recordFailure(accountKey: string, sourceKey: string | null): Promise<void> {
    const res = await this.accountFailures.penalty(accountKey, 1);
    const beyond = res.consumedPoints - FREE_FAILURES;
    if (beyond > 0) await this.accountLocks.block(accountKey, Math.min(2 ** (beyond - 1), MAX_LOCK_SECONDS));
    if (sourceKey !== null) await this.sourceFailures.penalty(sourceKey, 1);
    await this.store.sweep(Date.now());
  }

  /** A keyed queue per key (acquired in sorted order, so two attempts never wait on each other in a cycle). */
  private serialized<T>(keys: string[], work: () => Promise<T>): Promise<T> {
    if (keys.length === 0) return work();
    const [key, ...rest] = keys;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = previous.then(() => this.serialized(rest, work));
    const settled = run.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return run;
  }
}

/**
 * Requests that make the platform send a mail or a message (registration's activation mail, a contact change's
 * confirmation): at most MAIL_ADDRESS_LIMIT_PER_HOUR per recipient address and MAIL_SOURCE_LIMIT_PER_HOUR per
 * source, so nobody mail-bombs an inbox through us. Counted on every request, whether or not an account exists at
 * the address, so the answer is no oracle. 429 RATE_LIMITED with Retry-After. Checked at the HTTP edge, before the
 * command runs.
 */
@Injectable()
export class MailThrottle {
  private readonly perAddress: RateLimiterAbstract;
  private readonly perSource: RateLimiterAbstract;

  constructor(
    private readonly store: ThrottleStore,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
  ) {
    this.perAddress = store.limiter('mail-address', config.mailAddressLimitPerHour, 3600);
    this.perSource = store.limiter('mail-source', config.mailSourceLimitPerHour, 3600);
  }

  async consume(recipient: string, source: string): Promise<void> {
    // The source first: a source past its ceiling does not spend the recipient's allowance.
    await this.take(this.perSource, `source:${source}`, 'Too many requests from this address; retry later.');
    await this.take(this.perAddress, `to:${recipient.trim().toLowerCase()}`, 'Too many messages to this recipient; retry later.');
    await this.store.sweep(Date.now());
  }

  private async take(limiter: RateLimiterAbstract, key: string, message: string): Promise<void> {
    try {
      await limiter.consume(key, 1);
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) throw new PlatformError('RATE_LIMITED', message, { retryAfter: retryAfter(refusal.msBeforeNext) });
      throw refusal;
    }
  }
}
