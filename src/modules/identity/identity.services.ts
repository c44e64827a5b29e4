/**
 * Identity's infrastructure: password hashing and the sealed TOTP secrets, the principal resolver behind the global
 * auth guard, step-up consumption for other modules, and login throttling.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { CommandExecutor, type OneUseSpend } from '../../platform/command/command-executor';
import { CLOCK, systemClock, type Clock } from '../../platform/clock';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { PlatformError } from '../../platform/errors';
import { StepUpRequired, type Principal, type PrincipalResolver, type StepUpVerifier } from '../../platform/auth/principal';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { oneUseTokenDecider, TokenRefused } from './domain/access';
import { sessionStream, tokenStream } from './domain/identity.constants';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { PasswordHasher } from './security/password-hasher';
import { loadOrCreateKey, SecretBox } from './security/secret-box';
import { hashToken, normalizeRecoveryCode } from './security/tokens';
import { createHmac } from 'node:crypto';

@Injectable()
export class IdentityCrypto {
  readonly passwords: PasswordHasher;
  readonly secrets: SecretBox;

  private readonly codeKey: Buffer;

  constructor(@Inject(PLATFORM_CONFIG) config: PlatformConfig) {
    const key = loadOrCreateKey(config.dataDir, config.identitySecretKey);
    this.passwords = new PasswordHasher(config.passwordHashCost);
    this.secrets = new SecretBox(key);
    this.codeKey = createHmac('sha256', key).update('identity/recovery-codes').digest();
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

/**
 * Live session by token hash: active, not expired, on an active account. The session's own stream has the last word
 * on revocation, so a logout holds at once even when the read model lags behind.
 */
@Injectable()
export class SessionPrincipalResolver implements PrincipalResolver {
  constructor(
    private readonly db: ReadModelDatabase,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly activity: SessionActivity,
  ) {}

  async resolve(tokenHash: string): Promise<Principal | null> {
    const rows: PrincipalRow[] = await this.db.reader.query(
      this.db.sql(
        `SELECT s.session_id, s.profile_uuid, s.tenant_uuid, s.expires_at, a.platform_role
         FROM identity_sessions s JOIN identity_accounts a ON a.profile_uuid = s.profile_uuid
         WHERE s.token_hash = ? AND s.status = 'ACTIVE' AND a.status = 'ACTIVE'`,
      ),
      [tokenHash],
    );
    const row = rows[0];
    if (!row || Date.parse(row.expires_at) <= Date.now()) return null;
    const [last] = await this.store.readStream(sessionStream(row.session_id), { direction: 'backwards', maxCount: 1 });
    if (!last || last.type === 'SessionRevoked') return null;
    await this.activity.seen(row.session_id);
    return { session_id: row.session_id, profile_uuid: row.profile_uuid, tenant_uuid: row.tenant_uuid, platform_role: row.platform_role ?? null };
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
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {}

  async authorize(token: unknown, purpose: string, principal: Principal): Promise<OneUseSpend> {
    if (typeof token !== 'string' || !STEP_UP_TOKEN.test(token)) throw new StepUpRequired(purpose);
    const stream = tokenStream(hashToken(token));
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

/**
 * Login throttling per account and per client address: after five failures in a row each further failure locks
 * the key for twice as long as the last (1 s, 2 s, 4 s … up to 15 min), 429 with Retry-After; a success clears the
 * account (the address keeps its count, so one success cannot launder a guessing run). Attempts on the same key run
 * one at a time, so parallel guesses cannot all pass one check. In-process (rate-limiter-flexible's memory store):
 * each node throttles what it sees.
 */
@Injectable()
export class LoginThrottle {
  private readonly failures = new RateLimiterMemory({ keyPrefix: 'login-failures', points: 1_000_000, duration: 3600 });
  private readonly locks = new RateLimiterMemory({ keyPrefix: 'login-locks', points: 1, duration: MAX_LOCK_SECONDS });
  private readonly queues = new Map<string, Promise<unknown>>();

  /** Runs one authentication attempt; an UNAUTHENTICATED failure of `attempt` counts against every key. */
  async attempt<T>(accountKey: string, otherKeys: string[], attempt: () => Promise<T>): Promise<T> {
    const keys = [accountKey, ...otherKeys];
    return this.serialized([...keys].sort(), async () => {
      await this.assertAllowed(keys);
      try {
        const result = await attempt();
        await this.failures.delete(accountKey);
        return result;
      } catch (error) {
        if (error instanceof PlatformError && error.code === 'UNAUTHENTICATED') await this.recordFailure(keys);
        throw error;
      }
    });
  }

  private async assertAllowed(keys: string[]): Promise<void> {
    for (const key of keys) {
      const lock = await this.locks.get(key);
      if (lock && lock.consumedPoints > 1 && lock.msBeforeNext > 0) {
        throw new PlatformError('RATE_LIMITED', 'Too many failed sign-in attempts; retry later.', { retryAfter: Math.ceil(lock.msBeforeNext / 1000) });
      }
    }
  }

  private async recordFailure(keys: string[]): Promise<void> {
    for (const key of keys) {
      const res = await this.failures.penalty(key, 1);
      const beyond = res.consumedPoints - FREE_FAILURES;
      if (beyond > 0) await this.locks.block(key, Math.min(2 ** (beyond - 1), MAX_LOCK_SECONDS));
    }
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
