/**
 * The account notification inbox: the seeds' AccountNotification and AccountNotificationPage, the statuses we define
 * (NotificationStatus: the seeds leave it "not shown"), the types (a domain classification) and their sources (the
 * owning module). Notifications are never written directly: the notification-inbox projector derives them from the
 * events the other modules append, and the inbox commands (read, read-all, archive) append events of their own.
 */
import { createHash } from 'node:crypto';

/** UNREAD when it arrives; READ once read (alone or by read-all); ARCHIVED when the account files it away. */
export const NOTIFICATION_STATUSES = ['UNREAD', 'READ', 'ARCHIVED'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** The module that owns the event a notification tells about. */
export const NOTIFICATION_SOURCES = ['identity', 'trading', 'ai-wallets', 'agentic-memory'] as const;
export type NotificationSource = (typeof NOTIFICATION_SOURCES)[number];

export const NOTIFICATION_TYPES = {
  // identity: security alerts
  SECURITY_NEW_DEVICE_SIGN_IN: 'identity',
  SECURITY_FAILED_SIGN_IN_BURST: 'identity',
  SECURITY_AUTHENTICATOR_ENROLLED: 'identity',
  SECURITY_AUTHENTICATOR_DISABLED: 'identity',
  SECURITY_STEP_UP_ISSUED: 'identity',
  SECURITY_SESSION_REVOKED: 'identity',
  SECURITY_CONTACT_CHANGE_REQUESTED: 'identity',
  SECURITY_CONTACT_CHANGED: 'identity',
  SECURITY_ACCOUNT_CLOSURE_SCHEDULED: 'identity',
  SECURITY_ACCOUNT_CLOSURE_CANCELLED: 'identity',
  SECURITY_ACCOUNT_CLOSURE_COMPLETED: 'identity',
  // identity: workspace membership
  WORKSPACE_MEMBER_ADDED: 'identity',
  WORKSPACE_ROLE_CHANGED: 'identity',
  WORKSPACE_MEMBER_REMOVED: 'identity',
  // trading
  ORDER_FILLED: 'trading',
  ORDER_PARTIALLY_FILLED: 'trading',
  ORDER_CANCELLED_BY_PLATFORM: 'trading',
  // AI-agent wallets
  AI_WALLET_APPROVAL_REQUESTED: 'ai-wallets',
  AI_WALLET_INTENT_DENIED: 'ai-wallets',
  AI_WALLET_APPROVAL_EXPIRED: 'ai-wallets',
  AI_WALLET_INTENT_EXPIRED: 'ai-wallets',
  // agentic memory
  MEMORY_REQUEST_RECEIVED: 'agentic-memory',
  MEMORY_REQUEST_ANSWERED: 'agentic-memory',
  MEMORY_REQUEST_DISMISSED: 'agentic-memory',
} as const satisfies Record<string, NotificationSource>;
export type NotificationType = keyof typeof NOTIFICATION_TYPES;

/** The seeds' AccountNotification (camelCase as the seeds spell it); href and reference are omitted when absent. */
export interface AccountNotification {
  notificationUuid: string;
  title: string;
  message: string;
  type: NotificationType;
  source: NotificationSource;
  status: NotificationStatus;
  createdAt: string;
  updatedAt: string;
  href?: string;
  reference?: string;
}

/** The seeds' AccountNotificationPage. */
export interface AccountNotificationPage {
  items: AccountNotification[];
  unreadCount: number;
  limit: number;
  nextCursor?: string;
}

/** What a rule decides a notification says; the projector adds status and keeps createdAt/position of the first write. */
export interface NotificationDraft {
  notification_uuid: string;
  profile_uuid: string;
  type: NotificationType;
  source: NotificationSource;
  title: string;
  message: string;
  href: string | null;
  reference: string | null;
  /** The source event's occurred_at: createdAt on the first write, updatedAt on every write. */
  at: string;
  /** The source event's id and global position (zero-padded to 20 digits: the inbox order). */
  event_id: string;
  position: string;
}

/**
 * A notification id: 32 hex of SHA-256 over its derivation — the source event id and the recipient, or for a
 * notification several events refine (an order's fills in one matching round) the fact they share. The same on
 * every rebuild.
 */
export function notificationId(...parts: string[]): string {
  return createHash('sha256').update(['notification', ...parts].join(':'), 'utf8').digest('hex').slice(0, 32);
}

/** One stream per account holds what the account did to its inbox (read, read-all, archive). */
export const NOTIFICATION_STREAM_PREFIX = 'notifications-account-';
export const notificationStream = (profile_uuid: string): string => `${NOTIFICATION_STREAM_PREFIX}${profile_uuid}`;

/** A relative action URL on this API: a path, never a scheme, host or protocol-relative authority. */
export function isRelativeHref(href: string): boolean {
  return /^\/api\/v1\/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*$/.test(href) && !href.startsWith('//') && !href.includes('://');
}
