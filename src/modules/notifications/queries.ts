/** Inbox reads: the caller's notifications (newest first, by status), one notification, the unread count. */
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { NotFound, ValidationFailed } from '../../platform/errors';
import { decodeCursor, encodeCursor } from '../../platform/http/pagination';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { notificationView, type NotificationRow } from '../../../projections/notification-inbox/notification-inbox.read-model';
import type { AccountNotification, AccountNotificationPage, NotificationSource, NotificationStatus, NotificationType } from './domain/notification';

export class NotificationNotFound extends NotFound {
  constructor() {
    super('No such notification.');
  }
}

/** The caller's notification row, or null: another account's notification does not exist for the caller. */
export async function ownNotification(db: ReadModelDatabase, profile_uuid: string, notification_uuid: string): Promise<NotificationRow | null> {
  const rows: NotificationRow[] = await db.reader.query(db.sql('SELECT * FROM notification_inbox WHERE notification_uuid = ? AND profile_uuid = ?'), [notification_uuid, profile_uuid]);
  return rows[0] ?? null;
}

export async function unreadCount(db: ReadModelDatabase, profile_uuid: string): Promise<number> {
  const rows: Array<{ n: number | string }> = await db.reader.query(db.sql("SELECT COUNT(*) AS n FROM notification_inbox WHERE profile_uuid = ? AND status = 'UNREAD'"), [profile_uuid]);
  return Number(rows[0]?.n ?? 0);
}

export class GetNotification {
  constructor(readonly principal: Principal, readonly notification_uuid: string) {}
}

@QueryHandler(GetNotification)
export class GetNotificationHandler implements IQueryHandler<GetNotification, AccountNotification> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, notification_uuid }: GetNotification): Promise<AccountNotification> {
    const row = await ownNotification(this.db, principal.profile_uuid, notification_uuid);
    if (!row) throw new NotificationNotFound();
    return notificationView(row);
  }
}

export class CountUnread {
  constructor(readonly principal: Principal) {}
}

@QueryHandler(CountUnread)
export class CountUnreadHandler implements IQueryHandler<CountUnread, { unreadCount: number }> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal }: CountUnread): Promise<{ unreadCount: number }> {
    return { unreadCount: await unreadCount(this.db, principal.profile_uuid) };
  }
}

export class ListNotifications {
  /** `status` undefined: the inbox (UNREAD and READ); ARCHIVED ones only when asked for. */
  constructor(readonly principal: Principal, readonly status: NotificationStatus | undefined, readonly limit: number, readonly cursor?: string) {}
}

/**
 * Newest first by the position of the event that created each notification (then id): keyset pages, so a page never
 * repeats or skips a notification while new ones arrive (they land before the first page). A cursor carries the
 * filter it was issued for; used with another it is a 400.
 */
@QueryHandler(ListNotifications)
export class ListNotificationsHandler implements IQueryHandler<ListNotifications, AccountNotificationPage> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, status, limit, cursor }: ListNotifications): Promise<AccountNotificationPage> {
    const scope = status ?? 'INBOX';
    const where = ['profile_uuid = ?'];
    const params: unknown[] = [principal.profile_uuid];
    if (status) {
      where.push('status = ?');
      params.push(status);
    } else {
      where.push("status IN ('UNREAD', 'READ')");
    }
    if (cursor) {
      const [position, id, issuedFor] = decodeCursor(cursor, 3).map(String);
      if (issuedFor !== scope || !/^\d{20}$/.test(position) || !/^[0-9a-f]{32}$/.test(id)) {
        throw new ValidationFailed('Invalid cursor.', [{ field: 'cursor', issue: 'not issued for this list and filter' }]);
      }
      where.push('(position < ? OR (position = ? AND notification_uuid < ?))');
      params.push(position, position, id);
    }
    const rows: NotificationRow[] = await this.db.reader.query(
      this.db.sql(`SELECT * FROM notification_inbox WHERE ${where.join(' AND ')} ORDER BY position DESC, notification_uuid DESC LIMIT ?`),
      [...params, limit + 1],
    );
    const taken = rows.slice(0, limit);
    const last = taken[taken.length - 1];
    const page: AccountNotificationPage = { items: taken.map(notificationView), unreadCount: await unreadCount(this.db, principal.profile_uuid), limit };
    if (rows.length > limit && last) page.nextCursor = encodeCursor([last.position, last.notification_uuid, scope]);
    return page;
  }
}
