/**
 * Who holds the AUDITOR role: a platform-wide role that reads any stream's raw events and the checkpoints. Platform
 * admins grant and revoke it; the grants are events of one stream (`audit-auditors`), so the role's history is itself
 * in the audited log. Pure decide/evolve.
 */
import { NotFound } from '../../../platform/errors';
import type { Decider } from '../../../platform/command/decider';

export const AUDITORS_STREAM = 'audit-auditors';

export interface AuditorGrant {
  profile_uuid: string;
  granted_at: string;
  granted_by: string;
  reason: string;
}

export type AuditorEvent =
  | { type: 'AuditorGranted'; data: { profile_uuid: string; granted_by: string; reason: string; granted_at: string } }
  | { type: 'AuditorRevoked'; data: { profile_uuid: string; revoked_by: string; reason: string; revoked_at: string } };

export type AuditorCommand =
  | { kind: 'GrantAuditor'; profile_uuid: string; by: string; reason: string }
  | { kind: 'RevokeAuditor'; profile_uuid: string; by: string; reason: string };

export interface AuditorsState {
  auditors: Record<string, AuditorGrant>;
}

export const auditorsDecider: Decider<AuditorCommand, AuditorsState, AuditorEvent> = {
  initialState: () => ({ auditors: {} }),
  evolve(state, e) {
    const auditors = { ...state.auditors };
    if (e.type === 'AuditorGranted') {
      auditors[e.data.profile_uuid] = { profile_uuid: e.data.profile_uuid, granted_at: e.data.granted_at, granted_by: e.data.granted_by, reason: e.data.reason };
    } else {
      delete auditors[e.data.profile_uuid];
    }
    return { auditors };
  },
  decide(c, s, { now }) {
    const held = Object.prototype.hasOwnProperty.call(s.auditors, c.profile_uuid);
    if (c.kind === 'GrantAuditor') {
      // Granting a role that is held already changes nothing (and a retried request writes nothing twice).
      if (held) return [];
      return [{ type: 'AuditorGranted', data: { profile_uuid: c.profile_uuid, granted_by: c.by, reason: c.reason, granted_at: now.toISOString() } }];
    }
    if (!held) throw new NotFound('The profile does not hold the AUDITOR role.');
    return [{ type: 'AuditorRevoked', data: { profile_uuid: c.profile_uuid, revoked_by: c.by, reason: c.reason, revoked_at: now.toISOString() } }];
  },
};

export const isAuditor = (s: AuditorsState, profile_uuid: string): boolean => Object.prototype.hasOwnProperty.call(s.auditors, profile_uuid);
