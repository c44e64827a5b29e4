/** The privacy class of every field of the notification inbox's events (docs/privacy.md): ids and times only. */
import { declareEventClasses } from '../../../platform/privacy/field-classes';
import type { InboxEvent } from './inbox';

export const INBOX_EVENT_CLASSES = declareEventClasses<InboxEvent>('notifications', {
  NotificationRead: { profile_uuid: 'internal', notification_uuid: 'internal', read_at: 'internal' },
  NotificationsAllRead: { profile_uuid: 'internal', read_at: 'internal' },
  NotificationArchived: { profile_uuid: 'internal', notification_uuid: 'internal', archived_at: 'internal' },
});
