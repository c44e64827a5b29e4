/**
 * Inbox commands: read one, read all, archive one. Each appends to the account's own inbox stream; the
 * notification-inbox projector folds the events into the read model (no handler writes a row).
 */
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CommandExecutor } from '../../platform/command/command-executor';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { inboxDecider } from './domain/inbox';
import { notificationStream, type NotificationStatus } from './domain/notification';
import { NotificationNotFound, ownNotification, unreadCount } from './queries';

export class MarkNotificationRead {
  constructor(readonly principal: Principal, readonly notification_uuid: string) {}
}

@CommandHandler(MarkNotificationRead)
export class MarkNotificationReadHandler implements ICommandHandler<MarkNotificationRead> {
  constructor(private readonly commands: CommandExecutor, private readonly db: ReadModelDatabase) {}

  async execute({ principal, notification_uuid }: MarkNotificationRead): Promise<void> {
    const row = await ownNotification(this.db, principal.profile_uuid, notification_uuid);
    if (!row) throw new NotificationNotFound();
    await this.commands.execute(notificationStream(principal.profile_uuid), inboxDecider, {
      kind: 'MarkRead', profile_uuid: principal.profile_uuid, notification_uuid, status: row.status as NotificationStatus,
    });
  }
}

export class MarkAllNotificationsRead {
  constructor(readonly principal: Principal) {}
}

@CommandHandler(MarkAllNotificationsRead)
export class MarkAllNotificationsReadHandler implements ICommandHandler<MarkAllNotificationsRead> {
  constructor(private readonly commands: CommandExecutor, private readonly db: ReadModelDatabase) {}

  async execute({ principal }: MarkAllNotificationsRead): Promise<void> {
    const unread = await unreadCount(this.db, principal.profile_uuid);
    await this.commands.execute(notificationStream(principal.profile_uuid), inboxDecider, { kind: 'MarkAllRead', profile_uuid: principal.profile_uuid, unread });
  }
}

export class ArchiveNotification {
  constructor(readonly principal: Principal, readonly notification_uuid: string) {}
}

@CommandHandler(ArchiveNotification)
export class ArchiveNotificationHandler implements ICommandHandler<ArchiveNotification> {
  constructor(private readonly commands: CommandExecutor, private readonly db: ReadModelDatabase) {}

  async execute({ principal, notification_uuid }: ArchiveNotification): Promise<void> {
    const row = await ownNotification(this.db, principal.profile_uuid, notification_uuid);
    if (!row) throw new NotificationNotFound();
    await this.commands.execute(notificationStream(principal.profile_uuid), inboxDecider, {
      kind: 'Archive', profile_uuid: principal.profile_uuid, notification_uuid, status: row.status as NotificationStatus,
    });
  }
}
