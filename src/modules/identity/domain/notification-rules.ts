/**
 * Identity's notification rules (registered with the notification inbox, src/modules/notifications/domain/rule-port.ts):
 * security alerts to the account (a new device, a burst of failed sign-ins, authenticator and contact changes,
 * step-ups, revoked sessions, closure), and workspace membership news to the member. Identity also keeps the fact the
 * other modules' rules share: who owns a workspace now (WORKSPACE_FACT).
 */
import { createHash } from 'node:crypto';
import {
  fact, getFact, id32, notifier, streamId, untrusted, words, WORKSPACE_FACT, workspaceOwners,
  type DataOf, type FactKey, type Facts, type FactValue, type InboxChange, type NotificationRules, type SourceEvent, type WorkspaceFact,
} from '../../notifications/domain/rule-port';
import type { AccountEvent, Device } from './account';
import type { OneUseTokenEvent, SessionEvent } from './access';
import type { WorkspaceEvent } from './workspace';
import type { StepUpPurpose } from './identity.constants';

/** A failed-sign-in burst: this many failed attempts (wrong password or code) within the window. */
export const SIGN_IN_BURST_THRESHOLD = 5;
export const SIGN_IN_BURST_WINDOW_MS = 15 * 60 * 1000;
/** Devices remembered per account (the oldest is forgotten past this). */
export const MAX_KNOWN_DEVICES = 50;

/** Session revocations the notification of their cause already tells about (or that the account did itself). */
const REVOCATIONS_TOLD_ELSEWHERE = new Set(['AUTHENTICATOR_DISABLED', 'CONTACT_CHANGED', 'ACCOUNT_CLOSED']);

const PURPOSE_WORDS: Record<StepUpPurpose, string> = {
  MERCHANT_PROFILE_ACTIVATION: 'merchant profile activation',
  COMMERCE_INVOICE_CANCELLATION: 'an invoice cancellation',
  AUTHENTICATOR_DISABLE: 'disabling the authenticator',
  ACCOUNT_CLOSURE: 'account closure',
  ACCOUNT_ERASURE: 'account erasure',
  TRANSFER_COMPLIANCE_CANCELLATION: 'a compliance cancellation of a transfer',
};

// Where the account goes to act (relative URLs on this API, PLATFORM.md section 6).
const HREF = {
  authEvents: '/api/v1/auth/events',
  contact: '/api/v1/identity/contact',
  closure: '/api/v1/identity/closure',
  workspaceMembers: (workspace_uuid: string) => `/api/v1/workspaces/${workspace_uuid}/members`,
};

const STREAM = { account: 'identity-account-', session: 'identity-session-', token: 'identity-token-', workspace: 'identity-workspace-' };

const TYPES = [
  'SECURITY_NEW_DEVICE_SIGN_IN', 'SECURITY_FAILED_SIGN_IN_BURST', 'SECURITY_AUTHENTICATOR_ENROLLED', 'SECURITY_AUTHENTICATOR_DISABLED',
  'SECURITY_STEP_UP_ISSUED', 'SECURITY_SESSION_REVOKED', 'SECURITY_CONTACT_CHANGE_REQUESTED', 'SECURITY_CONTACT_CHANGED',
  'SECURITY_ACCOUNT_CLOSURE_SCHEDULED', 'SECURITY_ACCOUNT_CLOSURE_CANCELLED', 'SECURITY_ACCOUNT_CLOSURE_COMPLETED',
  'WORKSPACE_MEMBER_ADDED', 'WORKSPACE_ROLE_CHANGED', 'WORKSPACE_MEMBER_REMOVED',
] as const;
const notify = notifier('identity', TYPES);

function factsNeeded(e: SourceEvent): FactKey[] {
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'WorkspaceMemberAdded':
    case 'WorkspaceMemberRoleChanged':
    case 'WorkspaceMemberRemoved':
    case 'WorkspaceMemberLeft':
      return id32(d.workspace_uuid) ? [{ scope: WORKSPACE_FACT, key: String(d.workspace_uuid) }] : [];
    case 'SessionStarted':
      return id32(d.profile_uuid) ? [{ scope: 'devices', key: String(d.profile_uuid) }] : [];
    case 'LoginFailed': {
      const profile = streamId(e, STREAM.account);
      return profile ? [{ scope: 'sign-in-failures', key: profile }] : [];
    }
    default:
      return [];
  }
}

// Identity: security alerts

/** The failed sign-ins inside the window ending at `at`, and whether this one makes a burst worth an alert. */
export interface SignInFailures {
  /** Times (RFC 3339) of the failures still inside the window, oldest first. */
  recent: string[];
  /** When the last alert went out (one alert per window). */
  alerted_at: string | null;
}

export function foldSignInFailure(state: SignInFailures | undefined, at: string): { state: SignInFailures; alert: number | null } {
  const now = Date.parse(at);
  const recent = [...(state?.recent ?? []), at].filter((t) => now - Date.parse(t) < SIGN_IN_BURST_WINDOW_MS).slice(-SIGN_IN_BURST_THRESHOLD * 4);
  const last = state?.alerted_at ?? null;
  const quiet = last === null || now - Date.parse(last) >= SIGN_IN_BURST_WINDOW_MS;
  if (recent.length >= SIGN_IN_BURST_THRESHOLD && quiet) return { state: { recent, alerted_at: at }, alert: recent.length };
  return { state: { recent, alerted_at: last }, alert: null };
}

/** "Chrome 124" → "Chrome", "macOS 14" → "macOS": a browser or OS update is not a new device. */
const family = (text: string | undefined): string => (text ?? '').replace(/(\s+v?\d[\w.]*)+$/i, '').trim();

/** A device as the account knows it: client and platform families, versions left out. */
export const deviceKey = (device: Partial<Device> | undefined): string =>
  createHash('sha256').update(`${family(device?.name)}\n${family(device?.platform)}`, 'utf8').digest('hex').slice(0, 32);

function plan(e: SourceEvent, facts: Facts): InboxChange[] {
  const account = streamId(e, STREAM.account);
  switch (e.type) {
    case 'SessionStarted': {
      if (!streamId(e, STREAM.session)) return [];
      const d = e.data as DataOf<SessionEvent, 'SessionStarted'>;
      if (!id32(d.profile_uuid)) return [];
      const known = ((getFact(facts, 'devices', d.profile_uuid)?.known as string[] | undefined) ?? []).slice();
      const key = deviceKey(d.device);
      if (known.includes(key)) return [];
      const remember = fact('devices', d.profile_uuid, { known: [...known, key].slice(-MAX_KNOWN_DEVICES) });
      // The account's first device is where it started; an alert is for a device beside the known ones.
      if (known.length === 0) return [remember];
      const device = `${untrusted(d.device?.name, 60, 'an unknown client')} on ${untrusted(d.device?.platform, 60, 'an unknown platform')}`;
      return [
        remember,
        notify(e, d.profile_uuid, {
          type: 'SECURITY_NEW_DEVICE_SIGN_IN',
          title: 'New sign-in from a new device',
          message: `Your account was signed in from ${device}, a device not seen on this account before. If this was not you, revoke the session and change your password.`,
          href: HREF.authEvents,
          reference: id32(d.session_id),
        }),
      ];
    }
    case 'LoginFailed': {
      if (!account) return [];
      const d = e.data as DataOf<AccountEvent, 'LoginFailed'>;
      // Wrong password or code; a missing code (the first step of a two-step sign-in) and inactive accounts are not attacks.
      if (d.reason !== 'BAD_PASSWORD' && d.reason !== 'BAD_TOTP') return [];
      const { state, alert } = foldSignInFailure(getFact(facts, 'sign-in-failures', account) as SignInFailures | undefined, e.occurred_at);
      const changes: InboxChange[] = [fact('sign-in-failures', account, state as unknown as FactValue)];
      if (alert !== null) {
        changes.push(
          notify(e, account, {
            type: 'SECURITY_FAILED_SIGN_IN_BURST',
            title: 'Repeated failed sign-ins',
            message: `There were ${alert} failed sign-in attempts on your account within ${SIGN_IN_BURST_WINDOW_MS / 60_000} minutes. If this was not you, change your password and enable an authenticator.`,
            href: HREF.authEvents,
            reference: account,
          }),
        );
      }
      return changes;
    }
    case 'AuthenticatorEnrolled': {
      if (!account) return [];
      const d = e.data as DataOf<AccountEvent, 'AuthenticatorEnrolled'>;
      return [
        notify(e, account, {
          type: 'SECURITY_AUTHENTICATOR_ENROLLED',
          title: 'Authenticator enabled',
          message: 'An authenticator app (TOTP) was enrolled on your account: signing in now needs its code. If this was not you, contact support at once.',
          href: HREF.authEvents,
          reference: id32(d.enrollment_id),
        }),
      ];
    }
    case 'AuthenticatorDisabled': {
      if (!account) return [];
      const d = e.data as DataOf<AccountEvent, 'AuthenticatorDisabled'>;
      const how = d.method === 'RECOVERY_CODE' ? 'with a recovery code' : 'with a step-up authorization';
      return [
        notify(e, account, {
          type: 'SECURITY_AUTHENTICATOR_DISABLED',
          title: 'Authenticator disabled',
          message: `The authenticator (TOTP) of your account was disabled ${how}, and all sessions were signed out. If this was not you, change your password at once.`,
          href: HREF.authEvents,
          reference: id32(d.session_id),
        }),
      ];
    }
    case 'OneUseTokenIssued': {
      if (!streamId(e, STREAM.token)) return [];
      const d = e.data as DataOf<OneUseTokenEvent, 'OneUseTokenIssued'>;
      // Activation and contact-change tokens go to the mailbox: only step-ups are authorizations to tell about.
      if (d.kind !== 'STEP_UP' || !id32(d.profile_uuid)) return [];
      const purpose = (d.purpose && PURPOSE_WORDS[d.purpose as StepUpPurpose]) ?? words(d.purpose);
      return [
        notify(e, d.profile_uuid, {
          type: 'SECURITY_STEP_UP_ISSUED',
          title: 'Step-up authorization issued',
          message: `A one-use step-up authorization for ${purpose} was issued to one of your sessions after ${d.authentication_method === 'PASSWORD_TOTP' ? 'your password and an authenticator code were' : 'your password was'} confirmed; it expires at ${untrusted(d.expires_at, 40)}.`,
          href: HREF.authEvents,
          reference: id32(d.session_id),
        }),
      ];
    }
    case 'SessionRevoked': {
      if (!streamId(e, STREAM.session)) return [];
      const d = e.data as DataOf<SessionEvent, 'SessionRevoked'>;
      // Signing out of the session one is using is not news.
      if (d.reason === 'LOGOUT' || !id32(d.profile_uuid)) return [];
      const message =
        d.reason === 'REVOKED_BY_USER'
          ? 'One of your sessions was signed out from another of your sessions. If this was not you, change your password.'
          : `One of your sessions was signed out (${words(d.reason)}).`;
      return [notify(e, d.profile_uuid, { type: 'SECURITY_SESSION_REVOKED', title: 'Session signed out', message, href: HREF.authEvents, reference: id32(d.session_id) })];
    }
    case 'SessionsRevoked': {
      if (!account) return [];
      const d = e.data as DataOf<AccountEvent, 'SessionsRevoked'>;
      if (REVOCATIONS_TOLD_ELSEWHERE.has(d.reason)) return [];
      return [
        notify(e, account, {
          type: 'SECURITY_SESSION_REVOKED',
          title: 'All sessions signed out',
          message: `All sessions of your account were signed out (${words(d.reason)}).`,
          href: HREF.authEvents,
          reference: account,
        }),
      ];
    }
    case 'ContactChangeRequested': {
      if (!account) return [];
      const d = e.data as DataOf<AccountEvent, 'ContactChangeRequested'>;
      const what = d.contact_type === 'phone' ? 'phone number' : 'email address';
      return [
        notify(e, account, {
          type: 'SECURITY_CONTACT_CHANGE_REQUESTED',
          title: 'Contact change requested',
          message: `A change of your ${what} to ${untrusted(d.target_hint, 60, 'a new address')} was requested. It takes effect only once confirmed from the new ${what}; if this was not you, change your password.`,
          href: HREF.contact,
          reference: account,
        }),
      ];
    }
    case 'ContactChanged': {
      if (!account) return [];
      const d = e.data as DataOf<AccountEvent, 'ContactChanged'>;
      const what = d.contact_type === 'phone' ? 'phone number' : 'email address';
      return [
        notify(e, account, {
          type: 'SECURITY_CONTACT_CHANGED',
          title: 'Contact details changed',
          message: `The ${what} of your account was changed, and all sessions were signed out.`,
          href: HREF.contact,
          reference: account,
        }),
      ];
    }
    case 'ClosureRequested': {
      if (!account) return [];
      const d = e.data as DataOf<AccountEvent, 'ClosureRequested'>;
      return [
        notify(e, account, {
          type: 'SECURITY_ACCOUNT_CLOSURE_SCHEDULED',
          title: 'Account closure scheduled',
          message: `Your account is scheduled to close at ${untrusted(d.scheduled_for, 40)}. Cancel the closure before then to keep it.`,
          href: HREF.closure,
          reference: id32(d.request_uuid),
        }),
      ];
    }
    case 'ClosureCancelled': {
      if (!account) return [];
      const d = e.data as DataOf<AccountEvent, 'ClosureCancelled'>;
      return [
        notify(e, account, {
          type: 'SECURITY_ACCOUNT_CLOSURE_CANCELLED',
          title: 'Account closure cancelled',
          message: 'The scheduled closure of your account was cancelled; the account stays open.',
          href: HREF.closure,
          reference: id32(d.request_uuid),
        }),
      ];
    }
    case 'ClosureCompleted': {
      if (!account) return [];
      const d = e.data as DataOf<AccountEvent, 'ClosureCompleted'>;
      return [
        notify(e, account, {
          type: 'SECURITY_ACCOUNT_CLOSURE_COMPLETED',
          title: 'Account closed',
          message: 'Your account was closed as scheduled, and all sessions were signed out.',
          href: HREF.closure,
          reference: id32(d.request_uuid),
        }),
      ];
    }
    case 'WorkspaceCreated': {
      if (!streamId(e, STREAM.workspace)) return [];
      const d = e.data as DataOf<WorkspaceEvent, 'WorkspaceCreated'>;
      return id32(d.workspace_uuid) && id32(d.owner_profile_uuid)
        ? [fact(WORKSPACE_FACT, d.workspace_uuid, { owners: [d.owner_profile_uuid], name: untrusted(d.name, 80, 'a workspace') } satisfies WorkspaceFact)]
        : [];
    }
    case 'WorkspaceMemberAdded':
    case 'WorkspaceMemberRoleChanged':
    case 'WorkspaceMemberRemoved':
    case 'WorkspaceMemberLeft':
      return workspaceMembership(e, facts);
    default:
      return [];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Workspaces: who owns one (the recipients of its agents' and collections' news), and what changed for a member

const ROLE_WORDS: Record<string, string> = { OWNER: 'an owner', ADMIN: 'an admin', MEMBER: 'a member' };

function workspaceMembership(e: SourceEvent, facts: Facts): InboxChange[] {
  if (!streamId(e, STREAM.workspace)) return [];
  const d = e.data as { workspace_uuid: string; profile_uuid: string; role: string; previous_role?: string };
  const known = getFact(facts, WORKSPACE_FACT, d.workspace_uuid);
  if (!known || !id32(d.profile_uuid)) return [];
  const name = typeof known.name === 'string' ? known.name : 'a workspace';
  const owners = new Set(workspaceOwners(facts, d.workspace_uuid));
  const stays = e.type === 'WorkspaceMemberAdded' || e.type === 'WorkspaceMemberRoleChanged';
  if (stays && d.role === 'OWNER') owners.add(d.profile_uuid);
  else owners.delete(d.profile_uuid);
  const changes: InboxChange[] = [fact(WORKSPACE_FACT, d.workspace_uuid, { owners: [...owners], name } satisfies WorkspaceFact)];
  const role = ROLE_WORDS[d.role] ?? words(d.role);
  const common = { href: HREF.workspaceMembers(d.workspace_uuid), reference: d.workspace_uuid };
  // Leaving is the member's own doing: nothing to tell them.
  if (e.type === 'WorkspaceMemberAdded') {
    changes.push(notify(e, d.profile_uuid, { type: 'WORKSPACE_MEMBER_ADDED', title: 'Added to a workspace', message: `You were added to workspace "${name}" as ${role}.`, ...common }));
  } else if (e.type === 'WorkspaceMemberRoleChanged') {
    changes.push(notify(e, d.profile_uuid, { type: 'WORKSPACE_ROLE_CHANGED', title: 'Workspace role changed', message: `You are now ${role} of workspace "${name}" (was ${ROLE_WORDS[d.previous_role ?? ''] ?? 'another role'}).`, ...common }));
  } else if (e.type === 'WorkspaceMemberRemoved') {
    changes.push(notify(e, d.profile_uuid, { type: 'WORKSPACE_MEMBER_REMOVED', title: 'Removed from a workspace', message: `You were removed from workspace "${name}" and no longer see its agent wallets and memory collections.`, href: null, reference: d.workspace_uuid }));
  }
  return changes;
}


export const identityNotificationRules: NotificationRules = {
  source: 'identity',
  types: TYPES,
  handles: [
    'SessionStarted', 'LoginFailed', 'AuthenticatorEnrolled', 'AuthenticatorDisabled', 'OneUseTokenIssued', 'SessionRevoked', 'SessionsRevoked',
    'ContactChangeRequested', 'ContactChanged', 'ClosureRequested', 'ClosureCancelled', 'ClosureCompleted', 'WorkspaceCreated',
    'WorkspaceMemberAdded', 'WorkspaceMemberRoleChanged', 'WorkspaceMemberRemoved', 'WorkspaceMemberLeft',
  ],
  factScopes: ['devices', 'sign-in-failures', WORKSPACE_FACT],
  // Keyed by the account: the devices it signed in from and its failed sign-ins go when it is erased.
  personalFactScopes: ['devices', 'sign-in-failures'],
  factsNeeded,
  plan,
};
