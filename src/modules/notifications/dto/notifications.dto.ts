/** Requests of the notification routes: the id in the path, the list's filter and page. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, Matches } from 'class-validator';
import { PageQuery } from '../../../platform/http/pagination';
import { Optional } from '../../../platform/http/validation';
import { NOTIFICATION_STATUSES, type NotificationStatus } from '../domain/notification';

export class NotificationParam {
  @ApiProperty({ description: 'The notification (32 lowercase hex characters).', pattern: '^[0-9a-f]{32}$', example: '0123456789abcdef0123456789abcdef' })
  @Matches(/^[0-9a-f]{32}$/, { message: 'notification_uuid must be 32 lowercase hex characters' })
  notification_uuid!: string;
}

export class NotificationListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: NOTIFICATION_STATUSES, description: 'Only notifications in this status; omitted: UNREAD and READ (the inbox without the archive).' })
  @Optional()
  @IsIn(NOTIFICATION_STATUSES, { message: `status must be one of ${NOTIFICATION_STATUSES.join(', ')}` })
  status?: NotificationStatus;
}
