/**
 * Which events become which notifications, for whom — the pure core of the notification-inbox projector.
 *
 * The projector is a thin shell around two functions: `factsNeeded(event)` names the few facts an event needs from
 * earlier events (the owner of a binding, an order's side and size, the devices an account has signed in from, …),
 * the projector loads them from its own table, and `plan(event, facts)` answers the changes: notifications to write,
 * facts to remember or forget, statuses to change. Facts come only from events this projector folded itself, never
 * from another read model (those advance on their own), and every id and timestamp comes from the event — so a
 * rebuild from zero writes the same rows.
 *
 * What is never copied: token hashes, one-time codes, TOTP secrets, recovery codes, password hashes, the new contact
 * address itself (only the masked hint identity made), question and answer texts. Text a client chose passes
 * `untrusted()` (bounded, scrubbed of anything secret-shaped).
 */
import { createHash } from 'node:crypto';
import type { AccountEvent, Device } from '../../identity/domain/account';
import type { OneUseTokenEvent, SessionEvent } from '../../identity/domain/access';
import type { WorkspaceEvent } from '../../identity/domain/workspace';
import type { MarketEvent } from '../../trading/domain/market';
import type { EngineCancelCode, OrderCancelledData, OrderFilledData, OrderOpenedData, TradeExecutedData } from '../../trading/domain/engine-events';
import type { AiWalletApproval, AiWalletBindingCore, AiWalletIntent } from '../../ai-wallets/domain/binding';
import type { CollectionCore, MemoryRequest, RequestResolvedData } from '../../agentic-memory/domain/collection';
import { notificationId, NOTIFICATION_TYPES, type NotificationDraft, type NotificationType } from './notification';
import type { InboxEvent } from './inbox';
import { plainDecimal, shortRef, untrusted, words } from './text';

// ---------------------------------------------------------------------------------------------------------------
// The shell's vocabulary

/** The parts of a recorded event the rules read (position zero-padded to 20 digits). */
export interface SourceEvent {
  event_id: string;
  type: string;
  stream: string;
  position: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

export type FactScope = 'devices' | 'sign-in-failures' | 'market' | 'order' | 'binding' | 'workspace' | 'collection' | 'memory-request';
export interface FactKey {
  scope: FactScope;
  key: string;
}
export type FactValue = Record<string, unknown>;
/** Loaded facts by `factId`; a missing key is a fact never recorded (or forgotten). */
export type Facts = ReadonlyMap<string, FactValue>;
export const factId = (k: FactKey): string => `${k.scope}/${k.key}`;

export type InboxChange =
  | { kind: 'notify'; draft: NotificationDraft }
  | { kind: 'fact'; scope: FactScope; key: string; value: FactValue | null }
  | { kind: 'read'; profile_uuid: string; notification_uuid: string; at: string }
  | { kind: 'read-all'; profile_uuid: string; at: string }
  | { kind: 'archive'; profile_uuid: string; notification_uuid: string; at: string };

// ---------------------------------------------------------------------------------------------------------------
// Constants

/** A failed-sign-in burst: this many failed attempts (wrong password or code) within the window. */
export const SIGN_IN_BURST_THRESHOLD = 5;
export const SIGN_IN_BURST_WINDOW_MS = 15 * 60 * 1000;
/** Devices remembered per account (the oldest is forgotten past this). */
export const MAX_KNOWN_DEVICES = 50;

/** Session revocations the notification of their cause already tells about (or that the account did itself). */
const REVOCATIONS_TOLD_ELSEWHERE = new Set(['AUTHENTICATOR_DISABLED', 'CONTACT_CHANGED', 'ACCOUNT_CLOSED']);
/** Cancellations the account asked for: not notified. Every other engine reason is the platform's doing. */
const USER_CANCELS = new Set<string>(['USER_REQUEST', 'CANCEL_ALL']);
/** After these an order gets no more engine events (a reduce-only cut leaves the rest of the order live). */
const FINAL_CANCELS_EXCEPT = new Set<string>(['REDUCE_ONLY_EXCEEDS_POSITION']);

export const CANCEL_EXPLANATIONS: Record<Exclude<EngineCancelCode, 'USER_REQUEST' | 'CANCEL_ALL'>, string> = {
  IOC_REMAINDER: 'the unfilled rest of an immediate-or-cancel order does not wait in the book',
  FOK_UNFILLABLE: 'a fill-or-kill order could not be filled completely at once',
  BOOK_OR_CANCEL_WOULD_TRADE: 'a book-or-cancel order would have traded on entry',
  SELF_TRADE_PREVENTION: 'it would have traded with another order of yours (self-trade prevention)',
  MARKET_ORDER_NO_LIQUIDITY: 'the market had no liquidity for a market order',
  REDUCE_ONLY_NO_POSITION: 'a reduce-only order found no position to reduce',
  REDUCE_ONLY_EXCEEDS_POSITION: 'a reduce-only order was larger than your position; the excess was cancelled',
  ENGINE_REJECTED: 'the matching engine could not take it',
};

const STEP_UP_PURPOSES: Record<string, string> = {
  MERCHANT_PROFILE_ACTIVATION: 'merchant profile activation',
  COMMERCE_INVOICE_CANCELLATION: 'an invoice cancellation',
  AUTHENTICATOR_DISABLE: 'disabling the authenticator',
  ACCOUNT_CLOSURE: 'account closure',
};

// Where the account goes to act (relative URLs on this API, PLATFORM.md section 6).
const HREF = {
  authEvents: '/api/v1/auth/events',
  contact: '/api/v1/identity/contact',
  closure: '/api/v1/identity/closure',
  order: (order_uuid: string) => `/api/v1/api/v1/mtf/order_meta?order_uuid=${order_uuid}`,
  approvals: (binding_uuid: string) => `/api/v1/ai-wallets/bindings/${binding_uuid}/approvals?state=PENDING`,
  intent: (intent_uuid: string) => `/api/v1/ai-wallets/intents/${intent_uuid}`,
  memoryInbox: (collection_uuid: string) => `/api/v1/agentic-memory/collections/${collection_uuid}/inbox`,
  memoryRequest: (request_uuid: string) => `/api/v1/agentic-memory/requests/${request_uuid}`,
  workspaceMembers: (workspace_uuid: string) => `/api/v1/workspaces/${workspace_uuid}/members`,
};

export const HANDLED_EVENT_TYPES = [
  // identity
  'SessionStarted', 'LoginFailed', 'AuthenticatorEnrolled', 'AuthenticatorDisabled', 'OneUseTokenIssued', 'SessionRevoked', 'SessionsRevoked',
  'ContactChangeRequested', 'ContactChanged', 'ClosureRequested', 'ClosureCancelled', 'ClosureCompleted', 'WorkspaceCreated',
  'WorkspaceMemberAdded', 'WorkspaceMemberRoleChanged', 'WorkspaceMemberRemoved', 'WorkspaceMemberLeft',
  // trading
  'MarketCreated', 'OrderOpened', 'TradeExecuted', 'OrderFilled', 'OrderCancelled',
  // AI-agent wallets
  'AiWalletBindingCreated', 'AiWalletApprovalRequested', 'AiWalletIntentDenied', 'AiWalletIntentExpired',
  // agentic memory
  'AgenticMemoryCollectionCreated', 'AgenticMemoryCollectionUpdated', 'AgenticMemoryRequestAccepted', 'AgenticMemoryRequestResolved',
  // the inbox's own
  'NotificationRead', 'NotificationsAllRead', 'NotificationArchived',
] as const;

const PREFIX = {
  account: 'identity-account-',
  session: 'identity-session-',
  token: 'identity-token-',
  workspace: 'identity-workspace-',
  market: 'mtf-market-',
  engine: 'mtf-engine-',
  binding: 'ai-wallet-binding-',
  collection: 'agentic-memory-collection-',
  inbox: 'notifications-account-',
};
const from = (e: SourceEvent, prefix: string): string | null => (e.stream.startsWith(prefix) ? e.stream.slice(prefix.length) : null);
const HEX32 = /^[0-9a-f]{32}$/;
const id32 = (v: unknown): string | null => (typeof v === 'string' && HEX32.test(v) ? v : null);

// ---------------------------------------------------------------------------------------------------------------
// Facts an event needs

type Data<T> = T extends { data: infer D } ? D : never;
type OfType<U, K> = Data<Extract<U, { type: K }>>;

/**
 * The facts `plan` reads for an event. Called again with what was loaded, for facts named by facts (a binding's or a
 * collection's workspace, whose owners are the recipients today, not when the binding was made); the projector stops
 * when nothing new is named.
 */
export function factsNeeded(e: SourceEvent, known: Facts = new Map()): FactKey[] {
  const d = e.data as Record<string, any>;
  const workspaceOf = (scope: FactScope, key: unknown): FactKey[] => {
    const workspace = id32(get(known, scope, String(key))?.workspace);
    return workspace ? [{ scope: 'workspace', key: workspace }] : [];
  };
  switch (e.type) {
    case 'WorkspaceMemberAdded':
    case 'WorkspaceMemberRoleChanged':
    case 'WorkspaceMemberRemoved':
    case 'WorkspaceMemberLeft':
      return id32(d.workspace_uuid) ? [{ scope: 'workspace', key: d.workspace_uuid }] : [];
    case 'SessionStarted':
      return id32(d.profile_uuid) ? [{ scope: 'devices', key: d.profile_uuid }] : [];
    case 'LoginFailed': {
      const profile = from(e, PREFIX.account);
      return profile ? [{ scope: 'sign-in-failures', key: profile }] : [];
    }
    case 'TradeExecuted': {
      const t = d as TradeExecutedData;
      return [{ scope: 'order', key: t.maker_order_uuid }, { scope: 'order', key: t.taker_order_uuid }, { scope: 'market', key: t.market_uuid }];
    }
    case 'OrderFilled':
    case 'OrderCancelled':
      return [{ scope: 'order', key: String(d.order_uuid) }, { scope: 'market', key: String(d.market_uuid) }];
    case 'AiWalletApprovalRequested': {
      const binding = String((d.approval as AiWalletApproval | undefined)?.binding_uuid);
      return [{ scope: 'binding', key: binding }, ...workspaceOf('binding', binding)];
    }
    case 'AiWalletIntentDenied': {
      const binding = String((d.intent as AiWalletIntent | undefined)?.binding_uuid);
      return [{ scope: 'binding', key: binding }, ...workspaceOf('binding', binding)];
    }
    case 'AiWalletIntentExpired':
      return [{ scope: 'binding', key: String(d.binding_uuid) }, ...workspaceOf('binding', d.binding_uuid)];
    case 'AgenticMemoryCollectionUpdated':
      return [{ scope: 'collection', key: String(d.collection_uuid) }];
    case 'AgenticMemoryRequestAccepted': {
      const collection = String((d.request as MemoryRequest | undefined)?.collection_uuid);
      return [{ scope: 'collection', key: collection }, ...workspaceOf('collection', collection)];
    }
    case 'AgenticMemoryRequestResolved':
      return [{ scope: 'memory-request', key: String(d.request_uuid) }];
    default:
      return [];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The plan

interface Content {
  type: NotificationType;
  title: string;
  message: string;
  href: string | null;
  reference: string | null;
}

/** A notification for one recipient of the event, its id derived from the event id (or `idParts` when given). */
function notify(e: SourceEvent, profile_uuid: string, content: Content, idParts?: string[]): InboxChange {
  return {
    kind: 'notify',
    draft: {
      notification_uuid: notificationId(...(idParts ?? [e.event_id, profile_uuid])),
      profile_uuid,
      type: content.type,
      source: NOTIFICATION_TYPES[content.type],
      title: content.title,
      message: content.message,
      href: content.href,
      reference: content.reference,
      at: e.occurred_at,
      event_id: e.event_id,
      position: e.position,
    },
  };
}

const fact = (scope: FactScope, key: string, value: FactValue | null): InboxChange => ({ kind: 'fact', scope, key, value });
const get = (facts: Facts, scope: FactScope, key: unknown): FactValue | undefined => facts.get(factId({ scope, key: String(key) }));

export function plan(e: SourceEvent, facts: Facts): InboxChange[] {
  switch (e.type) {
    case 'SessionStarted':
    case 'LoginFailed':
    case 'AuthenticatorEnrolled':
    case 'AuthenticatorDisabled':
    case 'OneUseTokenIssued':
    case 'SessionRevoked':
    case 'SessionsRevoked':
    case 'ContactChangeRequested':
    case 'ContactChanged':
    case 'ClosureRequested':
    case 'ClosureCancelled':
    case 'ClosureCompleted':
    case 'WorkspaceCreated':
    case 'WorkspaceMemberAdded':
    case 'WorkspaceMemberRoleChanged':
    case 'WorkspaceMemberRemoved':
    case 'WorkspaceMemberLeft':
      return identity(e, facts);
    case 'MarketCreated':
    case 'OrderOpened':
    case 'TradeExecuted':
    case 'OrderFilled':
    case 'OrderCancelled':
      return trading(e, facts);
    case 'AiWalletBindingCreated':
    case 'AiWalletApprovalRequested':
    case 'AiWalletIntentDenied':
    case 'AiWalletIntentExpired':
      return aiWallets(e, facts);
    case 'AgenticMemoryCollectionCreated':
    case 'AgenticMemoryCollectionUpdated':
    case 'AgenticMemoryRequestAccepted':
    case 'AgenticMemoryRequestResolved':
      return memory(e, facts);
    case 'NotificationRead':
    case 'NotificationsAllRead':
    case 'NotificationArchived':
      return inbox(e);
    default:
      return [];
  }
}

// ---------------------------------------------------------------------------------------------------------------
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

function identity(e: SourceEvent, facts: Facts): InboxChange[] {
  const account = from(e, PREFIX.account);
  switch (e.type) {
    case 'SessionStarted': {
      if (!from(e, PREFIX.session)) return [];
      const d = e.data as OfType<SessionEvent, 'SessionStarted'>;
      if (!id32(d.profile_uuid)) return [];
      const known = ((get(facts, 'devices', d.profile_uuid)?.known as string[] | undefined) ?? []).slice();
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
      const d = e.data as OfType<AccountEvent, 'LoginFailed'>;
      // Wrong password or code; a missing code (the first step of a two-step sign-in) and inactive accounts are not attacks.
      if (d.reason !== 'BAD_PASSWORD' && d.reason !== 'BAD_TOTP') return [];
      const { state, alert } = foldSignInFailure(get(facts, 'sign-in-failures', account) as SignInFailures | undefined, e.occurred_at);
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
      const d = e.data as OfType<AccountEvent, 'AuthenticatorEnrolled'>;
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
      const d = e.data as OfType<AccountEvent, 'AuthenticatorDisabled'>;
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
      if (!from(e, PREFIX.token)) return [];
      const d = e.data as OfType<OneUseTokenEvent, 'OneUseTokenIssued'>;
      // Activation and contact-change tokens go to the mailbox: only step-ups are authorizations to tell about.
      if (d.kind !== 'STEP_UP' || !id32(d.profile_uuid)) return [];
      const purpose = (d.purpose && STEP_UP_PURPOSES[d.purpose]) ?? words(d.purpose);
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
      if (!from(e, PREFIX.session)) return [];
      const d = e.data as OfType<SessionEvent, 'SessionRevoked'>;
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
      const d = e.data as OfType<AccountEvent, 'SessionsRevoked'>;
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
      const d = e.data as OfType<AccountEvent, 'ContactChangeRequested'>;
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
      const d = e.data as OfType<AccountEvent, 'ContactChanged'>;
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
      const d = e.data as OfType<AccountEvent, 'ClosureRequested'>;
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
      const d = e.data as OfType<AccountEvent, 'ClosureCancelled'>;
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
      const d = e.data as OfType<AccountEvent, 'ClosureCompleted'>;
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
      if (!from(e, PREFIX.workspace)) return [];
      const d = e.data as OfType<WorkspaceEvent, 'WorkspaceCreated'>;
      return id32(d.workspace_uuid) && id32(d.owner_profile_uuid)
        ? [fact('workspace', d.workspace_uuid, { owners: [d.owner_profile_uuid], name: untrusted(d.name, 80, 'a workspace') } satisfies WorkspaceFact)]
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

interface WorkspaceFact {
  owners: string[];
  name: string;
}

/** A workspace's owners now; facts recorded before membership changes existed carry a single `owner`. */
function workspaceOwners(facts: Facts, workspace_uuid: unknown): string[] | null {
  const f = get(facts, 'workspace', String(workspace_uuid));
  if (!f) return null;
  if (Array.isArray(f.owners)) return f.owners.filter((p): p is string => typeof p === 'string');
  return typeof f.owner === 'string' ? [f.owner] : [];
}

const ROLE_WORDS: Record<string, string> = { OWNER: 'an owner', ADMIN: 'an admin', MEMBER: 'a member' };

function workspaceMembership(e: SourceEvent, facts: Facts): InboxChange[] {
  if (!from(e, PREFIX.workspace)) return [];
  const d = e.data as { workspace_uuid: string; profile_uuid: string; role: string; previous_role?: string };
  const known = get(facts, 'workspace', d.workspace_uuid);
  if (!known || !id32(d.profile_uuid)) return [];
  const name = typeof known.name === 'string' ? known.name : 'a workspace';
  const owners = new Set(workspaceOwners(facts, d.workspace_uuid));
  const stays = e.type === 'WorkspaceMemberAdded' || e.type === 'WorkspaceMemberRoleChanged';
  if (stays && d.role === 'OWNER') owners.add(d.profile_uuid);
  else owners.delete(d.profile_uuid);
  const changes: InboxChange[] = [fact('workspace', d.workspace_uuid, { owners: [...owners], name } satisfies WorkspaceFact)];
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

// ---------------------------------------------------------------------------------------------------------------
// Trading: fills, partial fills, the platform's cancellations

interface OrderFact {
  profile: string;
  side: string;
  order_type: string;
  size: string;
  market: string;
}

/** "your buy limit order for 0.02 BTC-PERP", or "your order" when the engine's opening was never seen. */
function describeOrder(order: OrderFact | undefined, symbol: string | undefined): string {
  if (!order) return 'your order';
  return `your ${words(order.side)} ${words(order.order_type, '-')} order for ${plainDecimal(order.size)} ${symbol ?? 'contracts'}`;
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function trading(e: SourceEvent, facts: Facts): InboxChange[] {
  if (e.type === 'MarketCreated') {
    if (!from(e, PREFIX.market)) return [];
    const d = e.data as unknown as OfType<MarketEvent, 'MarketCreated'>;
    return id32(d.market_uuid) ? [fact('market', d.market_uuid, { symbol: untrusted(d.market_symbol, 64) })] : [];
  }
  if (!from(e, PREFIX.engine)) return [];
  const symbolOf = (market: unknown): string | undefined => get(facts, 'market', market)?.symbol as string | undefined;
  const orderOf = (order_uuid: unknown): OrderFact | undefined => get(facts, 'order', order_uuid) as OrderFact | undefined;
  switch (e.type) {
    case 'OrderOpened': {
      const d = e.data as unknown as OrderOpenedData;
      if (!id32(d.order_uuid) || !id32(d.profile_uuid)) return [];
      return [fact('order', d.order_uuid, { profile: d.profile_uuid, side: d.side, order_type: d.order_type, size: d.size, market: d.market_uuid } satisfies OrderFact)];
    }
    case 'TradeExecuted': {
      const d = e.data as unknown as TradeExecutedData;
      const symbol = symbolOf(d.market_uuid);
      const changes: InboxChange[] = [];
      for (const side of [
        { order_uuid: d.maker_order_uuid, profile: d.maker_profile_uuid, remaining: d.maker_remaining },
        { order_uuid: d.taker_order_uuid, profile: d.taker_profile_uuid, remaining: d.taker_remaining },
      ]) {
        // Filled completely: OrderFilled follows in the same append and says so.
        if (!id32(side.order_uuid) || !id32(side.profile) || !/[1-9]/.test(side.remaining)) continue;
        const order = orderOf(side.order_uuid);
        const remaining = plainDecimal(side.remaining);
        const filled = order ? ` ${plainDecimal(subtract(order.size, side.remaining))} filled,` : '';
        // One notification per order and matching round (one engine input): later trades of the round refine it.
        changes.push(
          notify(
            e,
            side.profile,
            {
              type: 'ORDER_PARTIALLY_FILLED',
              title: 'Order partially filled',
              message: `${capital(describeOrder(order, symbol))} was partially filled:${filled} ${remaining} remaining.`,
              href: HREF.order(side.order_uuid),
              reference: side.order_uuid,
            },
            ['order-round', side.order_uuid, String(d.input_position)],
          ),
        );
      }
      return changes;
    }
    case 'OrderFilled': {
      const d = e.data as unknown as OrderFilledData;
      if (!id32(d.order_uuid) || !id32(d.profile_uuid)) return [];
      const order = orderOf(d.order_uuid);
      return [
        fact('order', d.order_uuid, null),
        notify(
          e,
          d.profile_uuid,
          { type: 'ORDER_FILLED', title: 'Order filled', message: `${capital(describeOrder(order, symbolOf(d.market_uuid)))} was filled.`, href: HREF.order(d.order_uuid), reference: d.order_uuid },
          // The round's partial-fill notification (if this round had one) becomes the fill.
          ['order-round', d.order_uuid, String(d.input_position)],
        ),
      ];
    }
    case 'OrderCancelled': {
      const d = e.data as unknown as OrderCancelledData;
      if (!id32(d.order_uuid) || !id32(d.profile_uuid)) return [];
      const order = orderOf(d.order_uuid);
      const changes: InboxChange[] = FINAL_CANCELS_EXCEPT.has(d.reason) ? [] : [fact('order', d.order_uuid, null)];
      if (USER_CANCELS.has(d.reason)) return changes;
      const why = CANCEL_EXPLANATIONS[d.reason as keyof typeof CANCEL_EXPLANATIONS] ?? 'the platform cancelled it';
      const code = /^\d{2}_CancelReason_[A-Za-z]+$/.test(d.cancel_reason) ? ` (${d.cancel_reason})` : '';
      changes.push(
        notify(e, d.profile_uuid, {
          type: 'ORDER_CANCELLED_BY_PLATFORM',
          title: 'Order cancelled by the platform',
          message: `${capital(describeOrder(order, symbolOf(d.market_uuid)))} was cancelled by the platform, ${plainDecimal(d.remaining)} unfilled: ${why}${code}.`,
          href: HREF.order(d.order_uuid),
          reference: d.order_uuid,
        }),
      );
      return changes;
    }
    default:
      return [];
  }
}

/** a − b for decimal strings, exactly (18 fractional digits at most, as the engine writes them). */
function subtract(a: string, b: string): string {
  const scale = (v: string): bigint => {
    const [i, f = ''] = v.split('.');
    return BigInt(i) * 10n ** 18n + BigInt((f + '0'.repeat(18)).slice(0, 18));
  };
  try {
    const v = scale(a) - scale(b);
    const sign = v < 0n ? '-' : '';
    const abs = v < 0n ? -v : v;
    return `${sign}${abs / 10n ** 18n}.${(abs % 10n ** 18n).toString().padStart(18, '0')}`;
  } catch {
    return '?';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// AI-agent wallets: approvals waiting, denials, expiries — for the binding's owner and the workspace's owner

interface BindingFact {
  owner: string;
  /** The binding's workspace: its owners at the time of each notification are recipients. */
  workspace?: string;
  /** Facts recorded before workspaces had several members: the owner when the binding was made. */
  workspace_owner?: string | null;
  label: string;
}

/** The owners of the binding's (or collection's) workspace now, or the owner recorded with an older fact. */
const ownersFor = (facts: Facts, f: { workspace?: string; workspace_owner?: string | null }): string[] =>
  (f.workspace ? workspaceOwners(facts, f.workspace) : null) ?? (f.workspace_owner ? [f.workspace_owner] : []);

function recipients(...profiles: Array<string | null | undefined>): string[] {
  return [...new Set(profiles.filter((p): p is string => typeof p === 'string' && HEX32.test(p)))];
}

function aiWallets(e: SourceEvent, facts: Facts): InboxChange[] {
  if (!from(e, PREFIX.binding)) return [];
  switch (e.type) {
    case 'AiWalletBindingCreated': {
      const b = e.data.binding as AiWalletBindingCore;
      if (!id32(b?.binding_uuid)) return [];
      return [fact('binding', b.binding_uuid, { owner: b.owner_profile_uuid, workspace: b.workspace_uuid, label: untrusted(b.agent_label, 60, 'an agent') } satisfies BindingFact)];
    }
    case 'AiWalletApprovalRequested': {
      const a = e.data.approval as AiWalletApproval;
      const binding = get(facts, 'binding', a?.binding_uuid) as BindingFact | undefined;
      if (!binding || !id32(a.approval_uuid)) return [];
      return recipients(binding.owner, ...ownersFor(facts, binding)).map((p) =>
        notify(e, p, {
          type: 'AI_WALLET_APPROVAL_REQUESTED',
          title: 'An agent payment waits for your approval',
          message: `Agent "${binding.label}" asks to move ${plainDecimal(a.amount)} ${untrusted(a.asset_code, 16)} to ${shortRef(a.destination_reference)}. Approve or reject it before ${untrusted(a.expires_at, 40)}.`,
          href: HREF.approvals(a.binding_uuid),
          reference: a.approval_uuid,
        }),
      );
    }
    case 'AiWalletIntentDenied': {
      const i = e.data.intent as AiWalletIntent;
      const binding = get(facts, 'binding', i?.binding_uuid) as BindingFact | undefined;
      if (!binding || !id32(i.intent_uuid)) return [];
      return recipients(binding.owner, ...ownersFor(facts, binding), i.requested_by_profile_uuid).map((p) =>
        notify(e, p, {
          type: 'AI_WALLET_INTENT_DENIED',
          title: 'Agent intent denied',
          message: `The policy denied agent "${binding.label}" a ${words(i.intent_type)} of ${plainDecimal(i.amount)} ${untrusted(i.asset_code, 16)} to ${shortRef(i.destination_reference)}: ${words(i.decision_code)} (${untrusted(i.decision_code, 40)}).`,
          href: HREF.intent(i.intent_uuid),
          reference: i.intent_uuid,
        }),
      );
    }
    case 'AiWalletIntentExpired': {
      const d = e.data as { binding_uuid: string; intent_uuid: string; approval_uuid: string | null; expired_at: string };
      const binding = get(facts, 'binding', d.binding_uuid) as BindingFact | undefined;
      if (!binding || !id32(d.intent_uuid)) return [];
      const approval = id32(d.approval_uuid);
      const content: Content = approval
        ? {
            type: 'AI_WALLET_APPROVAL_EXPIRED',
            title: 'Agent approval expired',
            message: `An approval request of agent "${binding.label}" expired without a decision; the intent will not execute and its budget reservation was released.`,
            href: HREF.intent(d.intent_uuid),
            reference: approval,
          }
        : {
            type: 'AI_WALLET_INTENT_EXPIRED',
            title: 'Agent intent expired',
            message: `An accepted intent of agent "${binding.label}" expired before it was settled; its budget reservation was released.`,
            href: HREF.intent(d.intent_uuid),
            reference: d.intent_uuid,
          };
      return recipients(binding.owner, ...ownersFor(facts, binding)).map((p) => notify(e, p, content));
    }
    default:
      return [];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Agentic memory: a new request for the publisher, the resolution for the requester

interface CollectionFact {
  /** The collection's workspace: its owners at the time of each request are told. */
  workspace?: string;
  /** Facts recorded before workspaces had several members: the owner when the collection was made. */
  workspace_owner?: string | null;
  title: string;
}

interface MemoryRequestFact {
  requester: string;
  collection: string;
  title: string;
  request_type: string;
}

function memory(e: SourceEvent, facts: Facts): InboxChange[] {
  if (!from(e, PREFIX.collection)) return [];
  switch (e.type) {
    case 'AgenticMemoryCollectionCreated': {
      const c = e.data.collection as CollectionCore;
      if (!id32(c?.collection_uuid)) return [];
      return [fact('collection', c.collection_uuid, { workspace: c.workspace_uuid, title: untrusted(c.title, 80, 'a collection') } satisfies CollectionFact)];
    }
    case 'AgenticMemoryCollectionUpdated': {
      const d = e.data as { collection_uuid: string; settings: { title?: unknown } };
      const known = get(facts, 'collection', d.collection_uuid) as CollectionFact | undefined;
      if (!known || d.settings?.title === undefined) return [];
      return [fact('collection', d.collection_uuid, { ...known, title: untrusted(d.settings.title, 80, 'a collection') })];
    }
    case 'AgenticMemoryRequestAccepted': {
      const r = e.data.request as MemoryRequest;
      if (!id32(r?.request_uuid)) return [];
      const collection = get(facts, 'collection', r.collection_uuid) as CollectionFact | undefined;
      const title = collection?.title ?? 'a collection';
      const requester = r.requested_by?.type === 'profile' ? id32(r.requested_by.reference) : null;
      const changes: InboxChange[] = [];
      if (requester) changes.push(fact('memory-request', r.request_uuid, { requester, collection: r.collection_uuid, title, request_type: r.request_type } satisfies MemoryRequestFact));
      // The publisher (the workspace's owners) learns of requests from others; one's own request needs no alert.
      for (const owner of recipients(...(collection ? ownersFor(facts, collection) : [])).filter((p) => p !== requester)) {
        changes.push(
          notify(e, owner, {
            type: 'MEMORY_REQUEST_RECEIVED',
            title: 'New request in your memory inbox',
            message: `A new ${untrusted(r.request_type, 16)} request (priority ${untrusted(r.priority, 16)}) arrived for "${title}" and waits for review.`,
            href: HREF.memoryInbox(r.collection_uuid),
            reference: r.request_uuid,
          }),
        );
      }
      return changes;
    }
    case 'AgenticMemoryRequestResolved': {
      const d = e.data as unknown as RequestResolvedData;
      const request = get(facts, 'memory-request', d.request_uuid) as MemoryRequestFact | undefined;
      if (!request || !id32(d.request_uuid)) return [];
      const answered = d.state === 'ANSWERED';
      return [
        fact('memory-request', d.request_uuid, null),
        notify(e, request.requester, {
          type: answered ? 'MEMORY_REQUEST_ANSWERED' : 'MEMORY_REQUEST_DISMISSED',
          title: answered ? 'Your memory request was answered' : 'Your memory request was dismissed',
          message: `Your ${untrusted(request.request_type, 16)} request to "${request.title}" was ${answered ? 'answered' : 'dismissed'} by the publisher. Open it to read the response.`,
          href: HREF.memoryRequest(d.request_uuid),
          reference: d.request_uuid,
        }),
      ];
    }
    default:
      return [];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The inbox's own events

function inbox(e: SourceEvent): InboxChange[] {
  const profile = from(e, PREFIX.inbox);
  if (!profile) return [];
  const ev = { type: e.type, data: e.data } as unknown as InboxEvent;
  switch (ev.type) {
    case 'NotificationRead':
      return [{ kind: 'read', profile_uuid: profile, notification_uuid: ev.data.notification_uuid, at: ev.data.read_at }];
    case 'NotificationsAllRead':
      return [{ kind: 'read-all', profile_uuid: profile, at: ev.data.read_at }];
    case 'NotificationArchived':
      return [{ kind: 'archive', profile_uuid: profile, notification_uuid: ev.data.notification_uuid, at: ev.data.archived_at }];
  }
}
