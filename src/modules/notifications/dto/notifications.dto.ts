/** Requests of the notification routes: the id in the path, the list's filter and page. */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, Matches } from 'class-validator';
import { PageQuery } from '../../../platform/http/pagination';
import { Optional } from '../../../platform/http/validation';
import { NOTIFICATION_SOURCE_PATTERN, NOTIFICATION_STATUSES, NOTIFICATION_TYPE_PATTERN, type AccountNotification, type AccountNotificationPage, type NotificationSource, type NotificationStatus, type NotificationType } from '../domain/notification';
import { HEX32_ID, hex32Param } from '../../../platform/http/api-properties';

export class NotificationParam {
  @ApiProperty(hex32Param('The notification'))
  @Matches(/^[0-9a-f]{32}$/, { message: 'notification_uuid must be 32 lowercase hex characters' })
  notification_uuid!: string;
}

export class NotificationListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: NOTIFICATION_STATUSES, description: 'Only notifications in this status; omitted: UNREAD and READ (the inbox without the archive).' })
  @Optional()
  @IsIn(NOTIFICATION_STATUSES, { message: `status must be one of ${NOTIFICATION_STATUSES.join(', ')}` })
  status?: NotificationStatus;
}

/** The seeds' AccountNotification as answered (response DTO: the OpenAPI schema, checked against every e2e answer). */
@ApiSchema({ name: 'AccountNotification' })
export class AccountNotificationResponse implements AccountNotification {
  @ApiProperty(HEX32_ID) notificationUuid!: string;
  @ApiProperty() title!: string;
  @ApiProperty() message!: string;
  // Open strings, not enums: each module declares its own types, and a client generated today must not break on a
  // module's new type tomorrow (docs/notifications.md lists today's).
  @ApiProperty({ type: 'string', pattern: NOTIFICATION_TYPE_PATTERN.source, example: 'SECURITY_NEW_DEVICE_SIGN_IN', description: 'Domain event classification; the set grows as modules add notifications (see docs/notifications.md).' }) type!: NotificationType;
  @ApiProperty({ type: 'string', pattern: NOTIFICATION_SOURCE_PATTERN.source, example: 'identity', description: 'The module that owns the event (identity, trading, ai-wallets, agentic-memory, …).' }) source!: NotificationSource;
  @ApiProperty({ enum: NOTIFICATION_STATUSES }) status!: NotificationStatus;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiPropertyOptional({ description: 'Relative action URL (not an authority); omitted when none.' }) href?: string;
  @ApiPropertyOptional({ description: 'Domain identifier; omitted when none.' }) reference?: string;
}

/** The seeds' AccountNotificationPage. */
@ApiSchema({ name: 'AccountNotificationPage' })
export class AccountNotificationPageResponse implements AccountNotificationPage {
  @ApiProperty({ type: [AccountNotificationResponse] }) items!: AccountNotificationResponse[];
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) unreadCount!: number;
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0 }) limit!: number;
  @ApiPropertyOptional({ description: 'Opaque; omitted when the list is complete.' }) nextCursor?: string;
}

/** The answer of read-all: the unread count after. */
@ApiSchema({ name: 'UnreadCount' })
export class UnreadCountResponse {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) unreadCount!: number;
}
