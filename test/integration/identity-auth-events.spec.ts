/**
 * The authentication history's step-up entries: the method proved and the purpose each in its own column, for rows
 * written before the split (migration) and for step-up events recorded before the method was (projector fallback).
 */
import { DataSource } from 'typeorm';
import {
  IdentityAuthEvents1764000001200,
  IdentityAuthEventsProjector,
  IdentityAuthEventsPurpose1764000009600,
  IdentityAuthEventsReason1764000013100,
  identityAuthEventsReadModel,
} from '../../projections/identity-auth-events/identity-auth-events.read-model';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type TestDatabase } from '../support/databases';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { hex32 } from '../support/events';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';

describe('identity_auth_events: step-up method and purpose', () => {
  let ds: DataSource;
  beforeEach(async () => {
    ds = new DataSource({ type: 'better-sqlite3', driver: SqliteDatabase, database: ':memory:' });
    await ds.initialize();
  });
  afterEach(async () => ds.destroy());

  const stepUpIssued = (position: bigint, data: Record<string, unknown>): RecordedEvent =>
    ({
      event_id: hex32(),
      type: 'OneUseTokenIssued',
      stream: `identity-token-${'a'.repeat(64)}`,
      position,
      occurred_at: '2026-11-25T10:00:00.000Z',
      data: { kind: 'STEP_UP', purpose: 'ACCOUNT_CLOSURE', profile_uuid: 'p'.repeat(32), session_id: 's'.repeat(32), expires_at: '2026-11-25T10:05:00.000Z', ...data },
    }) as unknown as RecordedEvent;

  it('moves the purpose of rows written before the split out of authentication_method', async () => {
    const q = ds.createQueryRunner();
    await new IdentityAuthEvents1764000001200().up(q);
    const insert = `INSERT INTO identity_auth_events (event_id, position, profile_uuid, event_type, outcome, authentication_method, device_name, device_platform, session_id, occurred_at)
                    VALUES (?, ?, ?, ?, 'SUCCESS', ?, NULL, NULL, NULL, '2026-11-25T10:00:00.000Z')`;
    await q.query(insert, ['1'.repeat(32), '1'.padStart(20, '0'), 'p'.repeat(32), 'STEP_UP_ISSUED', 'ACCOUNT_CLOSURE']);
    await q.query(insert, ['2'.repeat(32), '2'.padStart(20, '0'), 'p'.repeat(32), 'LOGIN_SUCCEEDED', 'PASSWORD_TOTP']);
    await new IdentityAuthEventsPurpose1764000009600().up(q);
    const rows = await q.query('SELECT event_type, authentication_method, purpose FROM identity_auth_events ORDER BY position');
    expect(rows).toEqual([
      { event_type: 'STEP_UP_ISSUED', authentication_method: 'PASSWORD', purpose: 'ACCOUNT_CLOSURE' },
      { event_type: 'LOGIN_SUCCEEDED', authentication_method: 'PASSWORD_TOTP', purpose: null },
    ]);
    await q.release();
  });

  it('projects the recorded method, and the password for step-ups recorded before the method was', async () => {
    const q = ds.createQueryRunner();
    await new IdentityAuthEvents1764000001200().up(q);
    await new IdentityAuthEventsPurpose1764000009600().up(q);
    await new IdentityAuthEventsReason1764000013100().up(q);
    await q.release();
    const projector = new IdentityAuthEventsProjector();
    await projector.apply(stepUpIssued(1n, {}), ds.manager);
    await projector.apply(stepUpIssued(2n, { purpose: 'AUTHENTICATOR_DISABLE', authentication_method: 'PASSWORD_TOTP' }), ds.manager);
    const rows = await ds.query('SELECT event_type, authentication_method, purpose FROM identity_auth_events ORDER BY position');
    expect(rows).toEqual([
      { event_type: 'STEP_UP_ISSUED', authentication_method: 'PASSWORD', purpose: 'ACCOUNT_CLOSURE' },
      { event_type: 'STEP_UP_ISSUED', authentication_method: 'PASSWORD_TOTP', purpose: 'AUTHENTICATOR_DISABLE' },
    ]);
  });
});

/**
 * A revocation's history entry: how the revoked session was opened in authentication_method, why it was revoked in
 * reason. Rows written when the reason sat in authentication_method are moved (migration), on SQLite and PostgreSQL.
 */
describe.each(['sqlite', 'postgres'] as const)('identity_auth_events on %s: a revocation says its reason apart from the method', (kind) => {
  const P = 'p'.repeat(32);
  const S1 = '1'.repeat(32);
  const S2 = '2'.repeat(32);
  let db: TestDatabase;
  let rm: ReadModelDatabase;
  afterEach(async () => {
    await rm?.close();
    await db?.dispose();
  });

  const recorded = (type: string, stream: string, position: bigint, data: Record<string, unknown>): RecordedEvent =>
    ({ event_id: hex32(), type, stream, position, occurred_at: '2026-11-25T10:00:00.000Z', data }) as unknown as RecordedEvent;
  const started = (position: bigint, session_id: string, authentication_method: string): RecordedEvent =>
    recorded('SessionStarted', `identity-session-${session_id}`, position, {
      session_id, profile_uuid: P, tenant_uuid: '0'.repeat(32), token_hash: 'h'.repeat(64), authentication_method, device: { name: 'Firefox 120', platform: 'Windows 10' }, expires_at: '2026-11-26T10:00:00.000Z',
    });
  const revoked = (position: bigint, session_id: string, reason: string): RecordedEvent =>
    recorded('SessionRevoked', `identity-session-${session_id}`, position, { session_id, profile_uuid: P, reason, revoked_at: '2026-11-25T10:00:00.000Z' });
  const history = (): Promise<unknown[]> =>
    rm.reader.query('SELECT event_type, authentication_method, reason, session_id FROM identity_auth_events ORDER BY position');

  it('moves the reason of rows written before out of authentication_method and puts the session\'s method there', async () => {
    db = makeTestDatabase(kind);
    // The read model as it was before the reason had a column of its own.
    rm = await db.open([{ ...identityAuthEventsReadModel, migrations: [IdentityAuthEvents1764000001200, IdentityAuthEventsPurpose1764000009600] }]);
    const insert = rm.sql(`INSERT INTO identity_auth_events (event_id, position, profile_uuid, event_type, outcome, authentication_method, purpose, device_name, device_platform, session_id, occurred_at)
                    VALUES (?, ?, ?, ?, 'SUCCESS', ?, NULL, NULL, NULL, ?, '2026-11-25T10:00:00.000Z')`);
    await rm.writer.query(insert, [hex32(), '1'.padStart(20, '0'), P, 'LOGIN_SUCCEEDED', 'PASSWORD', S1]);
    await rm.writer.query(insert, [hex32(), '2'.padStart(20, '0'), P, 'LOGIN_SUCCEEDED', 'PASSWORD_TOTP', S2]);
    await rm.writer.query(insert, [hex32(), '3'.padStart(20, '0'), P, 'SESSION_REVOKED', 'REVOKED_BY_USER', S1]);
    await rm.writer.query(insert, [hex32(), '4'.padStart(20, '0'), P, 'SESSION_REVOKED', 'LOGOUT', S2]);
    await rm.writer.query(insert, [hex32(), '5'.padStart(20, '0'), P, 'SESSIONS_REVOKED', 'CONTACT_CHANGED', null]);
    const q = rm.writer.createQueryRunner();
    await new IdentityAuthEventsReason1764000013100().up(q);
    await q.release();
    expect(await history()).toEqual([
      { event_type: 'LOGIN_SUCCEEDED', authentication_method: 'PASSWORD', reason: null, session_id: S1 },
      { event_type: 'LOGIN_SUCCEEDED', authentication_method: 'PASSWORD_TOTP', reason: null, session_id: S2 },
      { event_type: 'SESSION_REVOKED', authentication_method: 'PASSWORD', reason: 'REVOKED_BY_USER', session_id: S1 },
      { event_type: 'SESSION_REVOKED', authentication_method: 'PASSWORD_TOTP', reason: 'LOGOUT', session_id: S2 },
      { event_type: 'SESSIONS_REVOKED', authentication_method: 'NONE', reason: 'CONTACT_CHANGED', session_id: null },
    ]);
  });

  it('projects a revocation with the method its session was opened by and the reason apart', async () => {
    db = makeTestDatabase(kind);
    rm = await db.open([identityAuthEventsReadModel]);
    const projector = new IdentityAuthEventsProjector();
    await rm.writer.transaction(async (tx) => {
      await projector.apply(started(1n, S1, 'PASSWORD_TOTP'), tx);
      await projector.apply(started(2n, S2, 'PASSWORD'), tx);
      await projector.apply(revoked(3n, S1, 'REVOKED_BY_USER'), tx);
      await projector.apply(revoked(4n, S2, 'LOGOUT'), tx);
      await projector.apply(recorded('SessionsRevoked', `identity-account-${P}`, 5n, { reason: 'AUTHENTICATOR_DISABLED', revoked_at: '2026-11-25T10:00:00.000Z' }), tx);
    });
    expect(await history()).toEqual([
      { event_type: 'LOGIN_SUCCEEDED', authentication_method: 'PASSWORD_TOTP', reason: null, session_id: S1 },
      { event_type: 'LOGIN_SUCCEEDED', authentication_method: 'PASSWORD', reason: null, session_id: S2 },
      { event_type: 'SESSION_REVOKED', authentication_method: 'PASSWORD_TOTP', reason: 'REVOKED_BY_USER', session_id: S1 },
      { event_type: 'SESSION_REVOKED', authentication_method: 'PASSWORD', reason: 'LOGOUT', session_id: S2 },
      { event_type: 'SESSIONS_REVOKED', authentication_method: 'NONE', reason: 'AUTHENTICATOR_DISABLED', session_id: null },
    ]);
  });
});
