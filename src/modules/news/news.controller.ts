/**
 * News administration (`/api/v1/admin/news`, PLATFORM.md section 6): the caller's tenant's articles. A command's
 * answer is the article read back once the read model holds it (read-your-writes), or 202 with its id.
 */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../../platform/auth/principal';
import { TenantRoleRequired } from '../../platform/auth/tenant-role';
import { CommandAnswers } from '../../platform/http/command-answers';
import { ApiPendingReadBack } from '../../platform/http/openapi';
import { ChangeNewsArticle, DraftNewsArticle, type ArticleChange } from './commands';
import { AdminNewsListQuery, ArticleParam, DraftNewsArticleRequest, NewsTransitionRequest, ReviseNewsArticleRequest, ScheduleNewsArticleRequest } from './dto/news.dto';
import { AdminNewsArticlePage, NewsArticle, NewsCommandReceipt } from './dto/responses.dto';
import { DRAFTING, PUBLISHING } from './news-access';
import { GetNewsArticle, ListNewsArticles } from './queries';

@ApiTags('news')
@Controller('api/v1/admin/news')
export class NewsController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly answers: CommandAnswers,
  ) {}

  private change(principal: Principal, article_uuid: string, change: ArticleChange): Promise<object> {
    return this.answers.act(new ChangeNewsArticle(principal, article_uuid, change), (id) => new GetNewsArticle(principal, id));
  }

  @Capability('articles', { exposure: 'restricted' })
  @TenantRoleRequired(DRAFTING)
  @Get()
  @ApiOperation({ summary: 'Your tenant\'s articles, newest first (moderators and admins): AdminNewsListQuery → AdminNewsArticlePage.' })
  @ApiOkResponse({ type: AdminNewsArticlePage })
  listNewsArticles(@Query() query: AdminNewsListQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListNewsArticles(principal, query));
  }

  @Capability('articles', { exposure: 'restricted' })
  @TenantRoleRequired(DRAFTING)
  @Post()
  @ApiOperation({ summary: 'Draft an article (tenant moderators and admins).' })
  @ApiCreatedResponse({ type: NewsArticle })
  @ApiPendingReadBack(NewsCommandReceipt)
  draftNewsArticle(@Body() body: DraftNewsArticleRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.answers.act(new DraftNewsArticle(principal, body), (id) => new GetNewsArticle(principal, id));
  }

  @Capability('articles', { exposure: 'restricted' })
  @TenantRoleRequired(DRAFTING)
  @Get(':article_uuid')
  @ApiOperation({ summary: 'One article of your tenant, with its text and what readers see.' })
  @ApiOkResponse({ type: NewsArticle })
  getNewsArticle(@Param() p: ArticleParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetNewsArticle(principal, p.article_uuid));
  }

  @Capability('articles', { exposure: 'restricted' })
  @TenantRoleRequired(DRAFTING)
  @Post(':article_uuid/revise')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revise an article (moderators and admins); a PUBLISHED one keeps the change as unpublished until published again.' })
  @ApiOkResponse({ type: NewsArticle })
  @ApiPendingReadBack(NewsCommandReceipt)
  reviseNewsArticle(@Param() p: ArticleParam, @Body() body: ReviseNewsArticleRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.article_uuid, { kind: 'revise', body });
  }

  @Capability('articles', { exposure: 'restricted' })
  @TenantRoleRequired(PUBLISHING)
  @Post(':article_uuid/schedule')
  @HttpCode(200)
  @ApiOperation({ summary: 'Schedule a DRAFT for publishing at publish_at (admins).' })
  @ApiOkResponse({ type: NewsArticle })
  @ApiPendingReadBack(NewsCommandReceipt)
  scheduleNewsArticle(@Param() p: ArticleParam, @Body() body: ScheduleNewsArticleRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.article_uuid, { kind: 'schedule', expected_version: body.expected_version, publish_at: body.publish_at });
  }

  @Capability('articles', { exposure: 'restricted' })
  @TenantRoleRequired(PUBLISHING)
  @Post(':article_uuid/unschedule')
  @HttpCode(200)
  @ApiOperation({ summary: 'Back to DRAFT from SCHEDULED (admins).' })
  @ApiOkResponse({ type: NewsArticle })
  @ApiPendingReadBack(NewsCommandReceipt)
  unscheduleNewsArticle(@Param() p: ArticleParam, @Body() body: NewsTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.article_uuid, { kind: 'unschedule', expected_version: body.expected_version });
  }

  @Capability('articles', { exposure: 'restricted' })
  @TenantRoleRequired(PUBLISHING)
  @Post(':article_uuid/publish')
  @HttpCode(200)
  @ApiOperation({ summary: 'Publish now (admins): a DRAFT, a SCHEDULED article, or a PUBLISHED one\'s unpublished changes.' })
  @ApiOkResponse({ type: NewsArticle })
  @ApiPendingReadBack(NewsCommandReceipt)
  publishNewsArticle(@Param() p: ArticleParam, @Body() body: NewsTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.article_uuid, { kind: 'publish', expected_version: body.expected_version });
  }

  @Capability('articles', { exposure: 'restricted' })
  @TenantRoleRequired(PUBLISHING)
  @Post(':article_uuid/unpublish')
  @HttpCode(200)
  @ApiOperation({ summary: 'Back to DRAFT from PUBLISHED (admins).' })
  @ApiOkResponse({ type: NewsArticle })
  @ApiPendingReadBack(NewsCommandReceipt)
  unpublishNewsArticle(@Param() p: ArticleParam, @Body() body: NewsTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.article_uuid, { kind: 'unpublish', expected_version: body.expected_version });
  }

  @Capability('articles', { exposure: 'restricted' })
  @TenantRoleRequired(PUBLISHING)
  @Post(':article_uuid/archive')
  @HttpCode(200)
  @ApiOperation({ summary: 'Archive a DRAFT or PUBLISHED article (admins); archived is final.' })
  @ApiOkResponse({ type: NewsArticle })
  @ApiPendingReadBack(NewsCommandReceipt)
  archiveNewsArticle(@Param() p: ArticleParam, @Body() body: NewsTransitionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.change(principal, p.article_uuid, { kind: 'archive', expected_version: body.expected_version });
  }
}
