/** Sessions by token hash: what the auth guard reads on every request, and the session list of a profile. */
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';

export interface SessionRow {
  session_id: string;
  token_hash: string;
  profile_uuid: string;
  tenant_uuid: string;
  status: 'ACTIVE' | 'REVOKED';
  authentication_method: string;
  device_name: string;
  device_platform: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoke_reason: string | null;
}

export class IdentitySessions1764000001100 implements MigrationInterface {
  name = 'IdentitySessions1764000001100';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, nullable = false) => ({ name, type: 'varchar', length, isNullable: nullable });
    await q.createTable(
      new Table({
        name: 'identity_sessions',
        columns: [
          { name: 'session_id', type: 'varchar', length: '32', isPrimary: true },
          text('token_hash', '64'),
          text('profile_uuid', '32'),
          text('tenant_uuid', '32'),
          text('status', '16'),
          text('authentication_method', '32'),
          text('device_name', '100'),
          text('device_platform', '100'),
          text('created_at', '40'),
          text('expires_at', '40'),
          text('revoked_at', '40', true),
          text('revoke_reason', '64', true),
        ],
        indices: [
          { name: 'idx_identity_sessions_token', columnNames: ['token_hash'], isUnique: true },
          { name: 'idx_identity_sessions_profile', columnNames: ['profile_uuid', 'status'] },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('identity_sessions');
  }
}

/**
 * Each session's last authenticated request, written by SessionActivity (identity.services.ts) at most once a minute
 * per session. Not projected from events (no event per request): the projector's reset leaves it alone.
 */
export class IdentitySessionActivity1764000009700 implements MigrationInterface {
  name = 'IdentitySessionActivity1764000009700';
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'identity_session_activity',
        columns: [
          { name: 'session_id', type: 'varchar', length: '32', isPrimary: true },
          { name: 'last_seen_at', type: 'varchar', length: '40' },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('identity_session_activity');
  }
}

/**
 * Throttle counters shared by the deployment's nodes (ThrottleStore in identity.services.ts): rate-limiter-flexible's
 * own layout for each database (key, points, expiry in ms). Not projected: a rebuild leaves it alone.
 */
export class IdentityThrottle1764000009900 implements MigrationInterface {
  name = 'IdentityThrottle1764000009900';
  async up(q: QueryRunner): Promise<void> {
    const postgres = q.connection.options.type === 'postgres';
    await q.createTable(
      new Table({
        name: 'identity_throttle',
        columns: [
          { name: 'key', type: postgres ? 'varchar' : 'text', length: postgres ? '255' : undefined, isPrimary: true },
          { name: 'points', type: 'integer', default: 0 },
          { name: 'expire', type: postgres ? 'bigint' : 'integer', isNullable: true },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('identity_throttle');
  }
}

export class IdentitySessionsProjector implements Projector {
  readonly name = 'identity-sessions';
  readonly handles = ['SessionStarted', 'SessionRevoked', 'SessionsRevoked', 'AccountErased'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const d = event.data as Record<string, unknown>;
    if (event.type === 'AccountErased') {
      // An erased person's sessions (all revoked at closure) go with their devices and token hashes.
      const profile = String(d.profile_uuid);
      await tx.query(portableSql(tx, 'DELETE FROM identity_session_activity WHERE session_id IN (SELECT session_id FROM identity_sessions WHERE profile_uuid = ?)'), [profile]);
      await tx.query(portableSql(tx, 'DELETE FROM identity_sessions WHERE profile_uuid = ?'), [profile]);
      return;
    }
    if (event.type === 'SessionStarted') {
      // Replayed after an erasure, the device reads as {} and the token hash as erased: kept unique, never matched.
      const device = d.device as { name?: string; platform?: string };
      const token_hash = d.token_hash === ERASED_TEXT ? `erased:${String(d.session_id)}` : d.token_hash;
      await tx.query(
        portableSql(
          tx,
          `INSERT INTO identity_sessions (session_id, token_hash, profile_uuid, tenant_uuid, status, authentication_method, device_name, device_platform, created_at, expires_at)
           VALUES (?, ?, ?, ?, 'ACTIVE', ?, ?, ?, ?, ?)`,
        ),
        [d.session_id, token_hash, d.profile_uuid, d.tenant_uuid, d.authentication_method, device.name ?? ERASED_TEXT, device.platform ?? ERASED_TEXT, event.occurred_at, d.expires_at],
      );
    } else if (event.type === 'SessionRevoked') {
      await tx.query(portableSql(tx, `UPDATE identity_sessions SET status = 'REVOKED', revoked_at = ?, revoke_reason = ? WHERE session_id = ? AND status = 'ACTIVE'`), [
        d.revoked_at, d.reason, d.session_id,
      ]);
    } else {
      // Every session of the profile at once (closure, contact change, authenticator disabled).
      const profile = event.stream.slice('identity-account-'.length);
      await tx.query(portableSql(tx, `UPDATE identity_sessions SET status = 'REVOKED', revoked_at = ?, revoke_reason = ? WHERE profile_uuid = ? AND status = 'ACTIVE'`), [
        d.revoked_at, d.reason, profile,
      ]);
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM identity_sessions');
  }
}

export const identitySessionsReadModel: ReadModelDefinition = {
  name: 'identity-sessions',
  entities: [],
  migrations: [IdentitySessions1764000001100, IdentitySessionActivity1764000009700, IdentityThrottle1764000009900],
  projector: IdentitySessionsProjector,
};
