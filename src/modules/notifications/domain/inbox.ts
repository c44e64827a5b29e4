/**
 * What an account does to its own inbox: one stream per account (`notifications-account-<profile_uuid>`). Reading,
 * reading everything and archiving are commands whose events the notification-inbox projector folds like any other,
 * so a rebuild from zero reproduces every status. Pure: no I/O, no clock (`now` in the decide context).
 *
 * The notifications themselves live in other modules' streams (the projector derives them), so the handler passes
 * in what the read model says about the one the command is about (that it is the caller's, and its status); the
 * stream's own state catches reads and archives the read model has not folded yet.
 */
import type { Decider } from '../../../platform/command/decider';
import type { NotificationStatus } from './notification';

export type InboxEvent =
  | { type: 'NotificationRead'; data: { profile_uuid: string; notification_uuid: string; read_at: string } }
  | { type: 'NotificationsAllRead'; data: { profile_uuid: string; read_at: string } }
  | { type: 'NotificationArchived'; data: { profile_uuid: string; notification_uuid: string; archived_at: string } };

export const INBOX_EVENT_TYPES = ['NotificationRead', 'NotificationsAllRead', 'NotificationArchived'] as const;

export type InboxCommand =
  | { kind: 'MarkRead'; profile_uuid: string; notification_uuid: string; status: NotificationStatus }
  /** `unread`: how many UNREAD notifications the read model shows the account now. */
  | { kind: 'MarkAllRead'; profile_uuid: string; unread: number }
  | { kind: 'Archive'; profile_uuid: string; notification_uuid: string; status: NotificationStatus };

export interface InboxState {
  /** Notifications this stream has read or archived (the read model may not show it yet). */
  read: Set<string>;
  archived: Set<string>;
}

export const initialInbox = (): InboxState => ({ read: new Set(), archived: new Set() });

/** Evolve owns the state it is given and updates its sets in place (a linear fold). */
export function evolveInbox(s: InboxState, e: InboxEvent): InboxState {
  if (e.type === 'NotificationRead') s.read.add(e.data.notification_uuid);
  else if (e.type === 'NotificationArchived') s.archived.add(e.data.notification_uuid);
  return s;
}

export const inboxDecider: Decider<InboxCommand, InboxState, InboxEvent> = {
  initialState: initialInbox,
  evolve: evolveInbox,
  decide(c, s, { now }) {
    const at = now.toISOString();
    switch (c.kind) {
      case 'MarkRead':
        // Reading what is read or archived changes nothing: the same answer again, no event.
        if (c.status !== 'UNREAD' || s.read.has(c.notification_uuid) || s.archived.has(c.notification_uuid)) return [];
        return [{ type: 'NotificationRead', data: { profile_uuid: c.profile_uuid, notification_uuid: c.notification_uuid, read_at: at } }];
      case 'MarkAllRead':
        // Everything that arrived before this event becomes READ when the projector folds it (log order decides).
        if (c.unread <= 0) return [];
        return [{ type: 'NotificationsAllRead', data: { profile_uuid: c.profile_uuid, read_at: at } }];
      case 'Archive':
        if (c.status === 'ARCHIVED' || s.archived.has(c.notification_uuid)) return [];
        return [{ type: 'NotificationArchived', data: { profile_uuid: c.profile_uuid, notification_uuid: c.notification_uuid, archived_at: at } }];
    }
  },
};
