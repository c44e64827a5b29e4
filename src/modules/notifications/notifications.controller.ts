/** Notification routes (`/api/v1/notifications…`, PLATFORM.md section 6): the caller's own inbox only. */
import { Capability } from '../../platform/capabilities/capability';
import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../../platform/auth/principal';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { pageLimit } from '../../platform/http/pagination';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { ArchiveNotification, MarkAllNotificationsRead, MarkNotificationRead } from './commands';
import type { AccountNotification, AccountNotificationPage } from './domain/notification';
import { AccountNotificationPageResponse, AccountNotificationResponse, NotificationListQuery, NotificationParam, UnreadCountResponse } from './dto/notifications.dto';
import { CountUnread, GetNotification, ListNotifications } from './queries';

export const NOTIFICATION_PAGE = { default: 50, max: 200 };

@ApiTags('notifications')
@Controller('api/v1/notifications')
export class NotificationsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly runner: ProjectionRunner,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /**
   * A command's answer read back once the inbox projector has folded the command's own event; past the wait the
   * change still happened and the answer is 202 with what the command knows (ProjectionRunner.readBack).
   */
  private readBack<T>(query: object, pending: () => T | Promise<T>): Promise<T> {
    return this.runner.readBack(() => this.queryBus.execute(query), pending, this.config.readYourWritesTimeoutMs);
  }

  @Capability('inbox')
  @Get()
  @ApiOperation({ summary: 'AccountNotificationPage: the caller\'s notifications, newest first; `status` filters (default: UNREAD and READ).' })
  @ApiOkResponse({ type: AccountNotificationPageResponse })
  listNotifications(@Query() q: NotificationListQuery, @CurrentPrincipal() principal: Principal): Promise<AccountNotificationPage> {
    return this.queryBus.execute(new ListNotifications(principal, q.status, pageLimit(q.limit, NOTIFICATION_PAGE), q.cursor));
  }

  @Capability('inbox')
  @Post('read-all')
  @HttpCode(200)
  @ApiOperation({ summary: 'Marks every notification that has arrived READ (archived ones stay ARCHIVED); answers the unread count after.' })
  @ApiOkResponse({ type: UnreadCountResponse })
  async markAllNotificationsRead(@CurrentPrincipal() principal: Principal): Promise<{ unreadCount: number }> {
    await this.commandBus.execute(new MarkAllNotificationsRead(principal));
    // Pending: everything that had arrived is read now.
    return this.readBack(new CountUnread(principal), () => ({ unreadCount: 0 }));
  }

  @Capability('inbox')
  @Get(':notification_uuid')
  @ApiOperation({ summary: 'One AccountNotification of the caller (another account\'s is 404).' })
  @ApiOkResponse({ type: AccountNotificationResponse })
  getNotification(@Param() p: NotificationParam, @CurrentPrincipal() principal: Principal): Promise<AccountNotification> {
    return this.queryBus.execute(new GetNotification(principal, p.notification_uuid));
  }

  @Capability('inbox')
  @Post(':notification_uuid/read')
  @HttpCode(200)
  @ApiOperation({ summary: 'UNREAD → READ (already READ or ARCHIVED: unchanged); answers the AccountNotification.' })
  @ApiOkResponse({ type: AccountNotificationResponse })
  async markNotificationRead(@Param() p: NotificationParam, @CurrentPrincipal() principal: Principal): Promise<AccountNotification> {
    await this.commandBus.execute(new MarkNotificationRead(principal, p.notification_uuid));
    return this.readBack(new GetNotification(principal, p.notification_uuid), async () => {
      const before: AccountNotification = await this.queryBus.execute(new GetNotification(principal, p.notification_uuid));
      return { ...before, status: before.status === 'UNREAD' ? 'READ' : before.status };
    });
  }

  @Capability('inbox')
  @Post(':notification_uuid/archive')
  @HttpCode(200)
  @ApiOperation({ summary: 'Files the notification away (ARCHIVED): out of the default list and the unread count.' })
  @ApiOkResponse({ type: AccountNotificationResponse })
  async archiveNotification(@Param() p: NotificationParam, @CurrentPrincipal() principal: Principal): Promise<AccountNotification> {
    await this.commandBus.execute(new ArchiveNotification(principal, p.notification_uuid));
    return this.readBack(new GetNotification(principal, p.notification_uuid), async () => ({ ...((await this.queryBus.execute(new GetNotification(principal, p.notification_uuid))) as AccountNotification), status: 'ARCHIVED' as const }));
  }
}
