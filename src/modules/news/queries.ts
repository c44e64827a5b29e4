/** News administration reads: the caller's tenant's articles (AdminNewsArticlePage of NewsPublicationSummary) and one article. */
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { containsPattern, readRecord, recordPage } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { ARTICLES, type ArticleRow } from '../../../projections/news-articles/news-articles.read-model';
import { ArticleNotFound, hasUnpublishedChanges } from './domain/article';
import { NEWS_PAGE, type AdminNewsListQuery } from './dto/news.dto';
import type { NewsArticle, NewsPublicationSummary } from './dto/responses.dto';
import { NewsAccess } from './news-access';

export function summaryOf(r: ArticleRow): NewsPublicationSummary {
  const s = r.state;
  const a = s.article!;
  const c = s.content!;
  return {
    article_uuid: a.article_uuid, tenant_uuid: a.tenant_uuid, slug: c.slug, title: c.title, summary: c.summary, status: s.status, version: s.version, author_profile_uuid: a.author_profile_uuid,
    publish_at: s.publish_at, published_at: s.status === 'PUBLISHED' ? s.published_at : null, has_unpublished_changes: hasUnpublishedChanges(s), notify_readers: s.notify_readers,
    created_at: a.created_at, updated_at: r.updated_at,
  };
}

const articleOf = (r: ArticleRow): NewsArticle => ({ ...summaryOf(r), body: r.state.content!.body, published: r.state.published });

export class GetNewsArticle {
  constructor(readonly principal: Principal, readonly article_uuid: string) {}
}

@QueryHandler(GetNewsArticle)
export class GetNewsArticleHandler implements IQueryHandler<GetNewsArticle> {
  constructor(private readonly db: ReadModelDatabase, private readonly access: NewsAccess) {}

  async execute({ principal, article_uuid }: GetNewsArticle): Promise<NewsArticle> {
    const tenant = await this.access.tenant(principal, 'draft');
    const row = await readRecord(this.db.reader.manager, ARTICLES, article_uuid);
    if (!row || row.tenant_uuid !== tenant) throw new ArticleNotFound();
    return articleOf(row);
  }
}

export class ListNewsArticles {
  constructor(readonly principal: Principal, readonly query: AdminNewsListQuery) {}
}

@QueryHandler(ListNewsArticles)
export class ListNewsArticlesHandler implements IQueryHandler<ListNewsArticles> {
  constructor(private readonly db: ReadModelDatabase, private readonly access: NewsAccess) {}

  async execute({ principal, query }: ListNewsArticles): Promise<object> {
    const tenant = await this.access.tenant(principal, 'draft');
    if (query.limit !== undefined && Number(query.limit) === 0) return { items: [], limit: 0 };
    const where: Array<[string, unknown]> = [['tenant_uuid = ?', tenant]];
    if (query.status) where.push(['status = ?', query.status]);
    if (query.q) where.push([`search_text LIKE ? ESCAPE '\\'`, containsPattern(query.q)]);
    const scope = JSON.stringify(['news', tenant, query.status ?? null, query.q ?? null]);
    const { records, ...page } = await recordPage<ArticleRow>(this.db, ARTICLES.table, where, query, NEWS_PAGE, scope);
    return { items: records.map(summaryOf), ...page };
  }
}
