/**
 * The inbox's own events (read, read-all, archive: src/modules/notifications/domain/inbox.ts) as changes of the
 * notification rows. Always composed with the modules' rules by the notification-inbox projector.
 */
import { INBOX_EVENT_TYPES, type InboxEvent } from './inbox';
import { NOTIFICATION_STREAM_PREFIX } from './notification';
import { streamId, type InboxChange, type NotificationRules, type SourceEvent } from './rule-port';

function plan(e: SourceEvent): InboxChange[] {
  const profile = streamId(e, NOTIFICATION_STREAM_PREFIX);
  if (!profile) return [];
  const ev = { type: e.type, data: e.data } as unknown as InboxEvent;
  switch (ev.type) {
    case 'NotificationRead':
      return [{ kind: 'read', profile_uuid: profile, notification_uuid: ev.data.notification_uuid, at: ev.data.read_at }];
    case 'NotificationsAllRead':
      return [{ kind: 'read-all', profile_uuid: profile, at: ev.data.read_at }];
    case 'NotificationArchived':
      return [{ kind: 'archive', profile_uuid: profile, notification_uuid: ev.data.notification_uuid, at: ev.data.archived_at }];
    default:
      return [];
  }
}

export const inboxNotificationRules: NotificationRules = {
  source: 'notifications',
  types: [],
  handles: INBOX_EVENT_TYPES,
  factScopes: [],
  plan,
};
