/** Accounts as identity's queries read them: one row per profile, contact, status, authenticator and closure. */
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';

export interface AccountRow {
  profile_uuid: string;
  tenant_uuid: string;
  registration_id: string;
  client_id: string;
  account_type: string;
  email: string;
  email_verified: number;
  phone: string | null;
  phone_verified: number;
  status: string;
  platform_role: string | null;
  totp_enabled: number;
  active_workspace_id: string | null;
  closure_request_uuid: string | null;
  closure_status: string | null;
  closure_reason_code: string | null;
  closure_requested_at: string | null;
  closure_scheduled_for: string | null;
  closure_cancelled_at: string | null;
  closure_completed_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export class IdentityAccounts1764000001000 implements MigrationInterface {
  name = 'IdentityAccounts1764000001000';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length = '200', nullable = true) => ({ name, type: 'varchar', length, isNullable: nullable });
    await q.createTable(
      new Table({
        name: 'identity_accounts',
        columns: [
          { name: 'profile_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('tenant_uuid', '32', false),
          text('registration_id', '32', false),
          text('client_id', '64', false),
          text('account_type', '16', false),
          text('email', '320', false),
          { name: 'email_verified', type: 'integer', default: 0 },
          text('phone', '32'),
          { name: 'phone_verified', type: 'integer', default: 0 },
          text('status', '32', false),
          text('platform_role', '16'),
          { name: 'totp_enabled', type: 'integer', default: 0 },
          text('active_workspace_id', '32'),
          text('closure_request_uuid', '32'),
          text('closure_status', '16'),
          text('closure_reason_code', '64'),
          text('closure_requested_at', '40'),
          text('closure_scheduled_for', '40'),
          text('closure_cancelled_at', '40'),
          text('closure_completed_at', '40'),
          { name: 'version', type: 'integer' },
          text('created_at', '40', false),
          text('updated_at', '40', false),
        ],
        indices: [
          { name: 'idx_identity_accounts_email', columnNames: ['email'] },
          { name: 'idx_identity_accounts_closure_due', columnNames: ['closure_status', 'closure_scheduled_for'] },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('identity_accounts');
  }
}

/** Every account event: the row's version is the stream revision, so each one moves it. */
const ACCOUNT_EVENTS = [
  'AccountRegistered', 'ActivationIssued', 'AccountActivated', 'LoginFailed', 'TotpCodeAccepted', 'SessionsRevoked',
  'AuthenticatorEnrollmentStarted', 'AuthenticatorEnrolled', 'RecoveryCodeUsed', 'AuthenticatorDisabled',
  'ContactChangeRequested', 'ContactChanged', 'ClosureRequested', 'ClosureCancelled', 'ClosureCompleted', 'ActiveWorkspaceSelected', 'AccountErased',
] as const;

export class IdentityAccountsProjector implements Projector {
  readonly name = 'identity-accounts';
  readonly handles = ACCOUNT_EVENTS;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const d = event.data as Record<string, string | null>;
    const profile = event.stream.slice('identity-account-'.length);
    const set = async (columns: Record<string, string | number | null>): Promise<void> => {
      const names = Object.keys(columns);
      await tx.query(
        portableSql(tx, `UPDATE identity_accounts SET ${[...names, 'version', 'updated_at'].map((n) => `${n} = ?`).join(', ')} WHERE profile_uuid = ?`),
        [...Object.values(columns), Number(event.revision), event.occurred_at, profile],
      );
    };
    switch (event.type) {
      case 'AccountRegistered':
        await tx.query(
          portableSql(
            tx,
            `INSERT INTO identity_accounts (profile_uuid, tenant_uuid, registration_id, client_id, account_type, email, email_verified, phone_verified, status, platform_role, totp_enabled, version, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, 0, 0, 'PENDING_ACTIVATION', ?, 0, ?, ?, ?)`,
          ),
          [d.profile_uuid, d.tenant_uuid, d.registration_id, d.client_id, d.account_type, d.email, d.platform_role, Number(event.revision), event.occurred_at, event.occurred_at],
        );
        return;
      case 'AccountActivated':
        return set({ status: 'ACTIVE', email_verified: 1 });
      case 'AuthenticatorEnrolled':
        return set({ totp_enabled: 1 });
      case 'AuthenticatorDisabled':
        return set({ totp_enabled: 0 });
      case 'ContactChanged':
        return d.contact_type === 'email' ? set({ email: d.value, email_verified: 1 }) : set({ phone: d.value, phone_verified: 1 });
      case 'ClosureRequested':
        return set({
          closure_request_uuid: d.request_uuid, closure_status: 'SCHEDULED', closure_reason_code: d.reason_code, closure_requested_at: d.requested_at,
          closure_scheduled_for: d.scheduled_for, closure_cancelled_at: null, closure_completed_at: null,
        });
      case 'ClosureCancelled':
        return set({ closure_status: 'CANCELLED', closure_cancelled_at: d.cancelled_at });
      case 'ClosureCompleted':
        return set({ status: 'CLOSED', closure_status: 'COMPLETED', closure_completed_at: d.completed_at });
      case 'ActiveWorkspaceSelected':
        return set({ active_workspace_id: d.workspace_id });
      case 'AccountErased':
        // The person's contact details go (docs/privacy.md); the row stays, CLOSED, for what refers to the account.
        return set({ email: ERASED_TEXT, phone: null });
      default:
        return set({});
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM identity_accounts');
  }
}

export const identityAccountsReadModel: ReadModelDefinition = {
  name: 'identity-accounts',
  entities: [],
  migrations: [IdentityAccounts1764000001000],
  projector: IdentityAccountsProjector,
};
