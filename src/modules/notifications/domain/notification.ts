/**
 * The account notification inbox: the seeds' AccountNotification and AccountNotificationPage, the statuses we define
 * (NotificationStatus: the seeds leave it "not shown"), the types (a domain classification) and their sources (the
 * owning module, which declares them with its rules). Notifications are never written directly: the notification-inbox
 * projector derives them from the events the other modules append (by the rules each module registers, rule-port.ts),
 * and the inbox commands (read, read-all, archive) append events of their own.
 */
import { createHash } from 'node:crypto';

/** UNREAD when it arrives; READ once read (alone or by read-all); ARCHIVED when the account files it away. */
export const NOTIFICATION_STATUSES = ['UNREAD', 'READ', 'ARCHIVED'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/**
 * A notification's type (a domain classification, e.g. SECURITY_NEW_DEVICE_SIGN_IN) and source (the module that owns
 * the event it tells about, e.g. identity). Each module declares its own types with its rules (rule-port.ts), so the
 * set grows with the modules: a client treats them as open strings (docs/notifications.md lists today's).
 */
export type NotificationType = string;
export type NotificationSource = string;
export const NOTIFICATION_TYPE_PATTERN = /^[A-Z][A-Z0-9_]{2,63}$/;
export const NOTIFICATION_SOURCE_PATTERN = /^[a-z][a-z0-9-]{1,31}$/;

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
