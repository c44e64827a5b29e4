/**
 * The authentication history's step-up entries: the method proved and the purpose each in its own column, for rows
 * written before the split (migration) and for step-up events recorded before the method was (projector fallback).
 */
import { DataSource } from 'typeorm';
import {
  IdentityAuthEvents1764000001200,
  IdentityAuthEventsProjector,
  IdentityAuthEventsPurpose1764000009600,
} from '../../projections/identity-auth-events/identity-auth-events.read-model';
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
