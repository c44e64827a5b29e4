/**
 * The account notification inbox: reads and the inbox commands. The notifications themselves come from the
 * notification-inbox projector (projections/notification-inbox), which folds other modules' events.
 */
import { Module } from '@nestjs/common';
import { ArchiveNotificationHandler, MarkAllNotificationsReadHandler, MarkNotificationReadHandler } from './commands';
import { NotificationsController } from './notifications.controller';
import { CountUnreadHandler, GetNotificationHandler, ListNotificationsHandler } from './queries';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [NotificationsController],
  providers: [MarkNotificationReadHandler, MarkAllNotificationsReadHandler, ArchiveNotificationHandler, ListNotificationsHandler, GetNotificationHandler, CountUnreadHandler],
})
export class NotificationsModule {}
