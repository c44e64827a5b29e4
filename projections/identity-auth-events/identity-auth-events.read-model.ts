/** Authentication history of each profile: logins, failures, authenticator changes, step-ups, revocations. */
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { Table, TableColumn, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';

export interface AuthEventRow {
  event_id: string;
  position: string;
  profile_uuid: string;
  event_type: string;
  outcome: string;
  authentication_method: string;
  /** What a STEP_UP_ISSUED entry authorises (its purpose); null for every other entry. */
  purpose: string | null;
  /** Why a SESSION_REVOKED / SESSIONS_REVOKED entry's sessions were revoked (LOGOUT, REVOKED_BY_USER, …); null otherwise. */
  reason: string | null;
  device_name: string | null;
  device_platform: string | null;
  session_id: string | null;
  occurred_at: string;
}

export class IdentityAuthEvents1764000001200 implements MigrationInterface {
  name = 'IdentityAuthEvents1764000001200';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, nullable = false) => ({ name, type: 'varchar', length, isNullable: nullable });
    await q.createTable(
      new Table({
        name: 'identity_auth_events',
        columns: [
          { name: 'event_id', type: 'varchar', length: '32', isPrimary: true },
          // Zero-padded global position: orders newest first and serves as the keyset cursor.
          text('position', '20'),
          text('profile_uuid', '32'),
          text('event_type', '32'),
          text('outcome', '16'),
          text('authentication_method', '32'),
          text('device_name', '100', true),
          text('device_platform', '100', true),
          text('session_id', '32', true),
          text('occurred_at', '40'),
        ],
        indices: [{ name: 'idx_identity_auth_events_profile', columnNames: ['profile_uuid', 'position'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('identity_auth_events');
  }
}

/**
 * A step-up's purpose gets its own column; it used to sit in authentication_method. Rows written before move it over
 * and take the method every step-up of that time proved: the password (see STEP_UP_METHOD_BEFORE_RECORDED).
 */
export class IdentityAuthEventsPurpose1764000009600 implements MigrationInterface {
  name = 'IdentityAuthEventsPurpose1764000009600';
  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('identity_auth_events', new TableColumn({ name: 'purpose', type: 'varchar', length: '64', isNullable: true }));
    await q.query(`UPDATE identity_auth_events SET purpose = authentication_method, authentication_method = '${STEP_UP_METHOD_BEFORE_RECORDED}' WHERE event_type = 'STEP_UP_ISSUED'`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE identity_auth_events SET authentication_method = purpose WHERE event_type = 'STEP_UP_ISSUED'`);
    await q.dropColumn('identity_auth_events', 'purpose');
  }
}

/**
 * A revocation's reason gets its own column; it used to sit in authentication_method. Rows written before move it
 * over and take the method the revoked session was opened by (its LOGIN_SUCCEEDED entry); an account-wide revocation
 * (SESSIONS_REVOKED) revokes no one session and has no method: NONE.
 */
export class IdentityAuthEventsReason1764000013100 implements MigrationInterface {
  name = 'IdentityAuthEventsReason1764000013100';
  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('identity_auth_events', new TableColumn({ name: 'reason', type: 'varchar', length: '64', isNullable: true }));
    await q.query(
      `UPDATE identity_auth_events SET reason = authentication_method,
         authentication_method = COALESCE((SELECT l.authentication_method FROM identity_auth_events l
                                           WHERE l.session_id = identity_auth_events.session_id AND l.event_type = 'LOGIN_SUCCEEDED'), '${NO_SESSION_METHOD}')
       WHERE event_type IN ('SESSION_REVOKED', 'SESSIONS_REVOKED')`,
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE identity_auth_events SET authentication_method = reason WHERE event_type IN ('SESSION_REVOKED', 'SESSIONS_REVOKED')`);
    await q.dropColumn('identity_auth_events', 'reason');
  }
}

/** The method of an entry that concerns no one session (an account-wide revocation). */
export const NO_SESSION_METHOD = 'NONE';

/**
 * Step-ups issued before the method was recorded on OneUseTokenIssued: each of them checked the password (and a TOTP
 * code when one was enrolled, which the event did not say), so the history claims only what is certain.
 */
export const STEP_UP_METHOD_BEFORE_RECORDED = 'PASSWORD';

type Row = Omit<AuthEventRow, 'event_id' | 'position' | 'occurred_at' | 'reason'> & { reason?: string };

/** The history entry an event makes, if any. */
function entryFor(event: RecordedEvent): Row | null {
  const d = event.data as Record<string, unknown>;
  // An erased person's device reads as {} (src/platform/privacy/sealing.ts): shown as erased.
  const device = d.device === undefined ? undefined : { name: (d.device as { name?: string }).name ?? ERASED_TEXT, platform: (d.device as { platform?: string }).platform ?? ERASED_TEXT };
  const profile = (d.profile_uuid as string | undefined) ?? event.stream.replace(/^identity-account-/, '');
  switch (event.type) {
    case 'SessionStarted':
      return { profile_uuid: profile, event_type: 'LOGIN_SUCCEEDED', outcome: 'SUCCESS', authentication_method: String(d.authentication_method), purpose: null, device_name: device!.name, device_platform: device!.platform, session_id: String(d.session_id) };
    case 'LoginFailed':
      return { profile_uuid: profile, event_type: 'LOGIN_FAILED', outcome: 'FAILURE', authentication_method: String(d.authentication_method), purpose: null, device_name: device!.name, device_platform: device!.platform, session_id: null };
    case 'AuthenticatorEnrolled':
      return { profile_uuid: profile, event_type: 'TOTP_ENROLLED', outcome: 'SUCCESS', authentication_method: 'TOTP', purpose: null, device_name: null, device_platform: null, session_id: String(d.session_id) };
    case 'AuthenticatorDisabled':
      return { profile_uuid: profile, event_type: 'TOTP_DISABLED', outcome: 'SUCCESS', authentication_method: String(d.method), purpose: null, device_name: null, device_platform: null, session_id: String(d.session_id) };
    case 'OneUseTokenIssued':
      return d.kind === 'STEP_UP'
        ? { profile_uuid: profile, event_type: 'STEP_UP_ISSUED', outcome: 'SUCCESS', authentication_method: String(d.authentication_method ?? STEP_UP_METHOD_BEFORE_RECORDED), purpose: String(d.purpose), device_name: null, device_platform: null, session_id: d.session_id as string | null }
        : null;
    case 'SessionRevoked':
      // The method is the session's own (read from its LOGIN_SUCCEEDED entry by the projector).
      return { profile_uuid: profile, event_type: 'SESSION_REVOKED', outcome: 'SUCCESS', authentication_method: NO_SESSION_METHOD, reason: String(d.reason), purpose: null, device_name: null, device_platform: null, session_id: String(d.session_id) };
    case 'SessionsRevoked':
      return { profile_uuid: profile, event_type: 'SESSIONS_REVOKED', outcome: 'SUCCESS', authentication_method: NO_SESSION_METHOD, reason: String(d.reason), purpose: null, device_name: null, device_platform: null, session_id: null };
    default:
      return null;
  }
}

export class IdentityAuthEventsProjector implements Projector {
  readonly name = 'identity-auth-events';
  readonly handles = ['SessionStarted', 'LoginFailed', 'AuthenticatorEnrolled', 'AuthenticatorDisabled', 'OneUseTokenIssued', 'SessionRevoked', 'SessionsRevoked', 'AccountErased'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    if (event.type === 'AccountErased') {
      // The history stays (what happened, when), without the person's devices.
      await tx.query(portableSql(tx, 'UPDATE identity_auth_events SET device_name = ?, device_platform = ? WHERE profile_uuid = ? AND device_name IS NOT NULL'), [ERASED_TEXT, ERASED_TEXT, String(event.data.profile_uuid)]);
      return;
    }
    const row = entryFor(event);
    if (!row) return;
    if (row.event_type === 'SESSION_REVOKED') {
      // How the revoked session was opened: its sign-in entry, projected before (same stream, earlier position).
      const [login] = await tx.query(portableSql(tx, `SELECT authentication_method FROM identity_auth_events WHERE session_id = ? AND event_type = 'LOGIN_SUCCEEDED'`), [row.session_id]);
      if (login) row.authentication_method = String(login.authentication_method);
    }
    await tx.query(
      portableSql(
        tx,
        `INSERT INTO identity_auth_events (event_id, position, profile_uuid, event_type, outcome, authentication_method, purpose, reason, device_name, device_platform, session_id, occurred_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      [event.event_id, event.position.toString().padStart(20, '0'), row.profile_uuid, row.event_type, row.outcome, row.authentication_method, row.purpose, row.reason ?? null, row.device_name, row.device_platform, row.session_id, event.occurred_at],
    );
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM identity_auth_events');
  }
}

export const identityAuthEventsReadModel: ReadModelDefinition = {
  name: 'identity-auth-events',
  entities: [],
  migrations: [IdentityAuthEvents1764000001200, IdentityAuthEventsPurpose1764000009600, IdentityAuthEventsReason1764000013100],
  projector: IdentityAuthEventsProjector,
};
