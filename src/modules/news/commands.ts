/** News administration commands: draft, revise, schedule, unschedule, publish, unpublish, archive. */
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CommandExecutor } from '../../platform/command/command-executor';
import { nextId } from '../../platform/context/request-context';
import { readRecord } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { CLOCK, type Clock } from '../../platform/clock';
import { Inject } from '@nestjs/common';
import { ARTICLES } from '../../../projections/news-articles/news-articles.read-model';
import { articleDecider, ArticleNotFound, articleStream, type ArticleCommand } from './domain/article';
import type { DraftNewsArticleRequest, ReviseNewsArticleRequest } from './dto/news.dto';
import { NewsAccess, type NewsNeed } from './news-access';

export interface Created {
  id: string;
}

export class DraftNewsArticle {
  constructor(readonly principal: Principal, readonly body: DraftNewsArticleRequest) {}
}

@CommandHandler(DraftNewsArticle)
export class DraftNewsArticleHandler implements ICommandHandler<DraftNewsArticle, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: NewsAccess, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, body }: DraftNewsArticle): Promise<Created> {
    const tenant_uuid = await this.access.tenant(principal, 'draft');
    const article_uuid = nextId();
    const { slug, title, summary } = body;
    await this.commands.execute(
      articleStream(article_uuid),
      articleDecider,
      { kind: 'DraftArticle', article: { article_uuid, tenant_uuid, author_profile_uuid: principal.profile_uuid, created_at: this.clock().toISOString() }, content: { slug, title, summary, body: body.body }, notify_readers: body.notify_readers ?? false },
      { newStream: true },
    );
    return { id: article_uuid };
  }
}

/** A change of an article of the caller's tenant (404 for another tenant's), at the version the caller read. */
export type ArticleChange =
  | { kind: 'revise'; body: ReviseNewsArticleRequest }
  | { kind: 'schedule'; expected_version: number; publish_at: string }
  | { kind: 'unschedule' | 'publish' | 'unpublish' | 'archive'; expected_version: number };

export class ChangeNewsArticle {
  constructor(readonly principal: Principal, readonly article_uuid: string, readonly change: ArticleChange) {}
}

@CommandHandler(ChangeNewsArticle)
export class ChangeNewsArticleHandler implements ICommandHandler<ChangeNewsArticle, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: NewsAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, article_uuid, change }: ChangeNewsArticle): Promise<Created> {
    const need: NewsNeed = change.kind === 'revise' ? 'draft' : 'publish';
    const tenant = await this.access.tenant(principal, need);
    const row = await readRecord(this.db.reader.manager, ARTICLES, article_uuid);
    if (!row || row.tenant_uuid !== tenant) throw new ArticleNotFound();
    const by_profile_uuid = principal.profile_uuid;
    let command: ArticleCommand;
    let expected: number;
    switch (change.kind) {
      case 'revise': {
        const { expected_version, notify_readers, ...content } = change.body;
        command = { kind: 'ReviseArticle', content, ...(notify_readers !== undefined ? { notify_readers } : {}), by_profile_uuid };
        expected = expected_version;
        break;
      }
      case 'schedule':
        command = { kind: 'ScheduleArticle', publish_at: new Date(change.publish_at).toISOString(), by_profile_uuid };
        expected = change.expected_version;
        break;
      default: {
        const kinds = { unschedule: 'UnscheduleArticle', publish: 'PublishArticle', unpublish: 'UnpublishArticle', archive: 'ArchiveArticle' } as const;
        command = { kind: kinds[change.kind], by_profile_uuid };
        expected = change.expected_version;
      }
    }
    await this.commands.execute(articleStream(article_uuid), articleDecider, command, { expectedVersion: BigInt(expected) });
    return { id: article_uuid };
  }
}
