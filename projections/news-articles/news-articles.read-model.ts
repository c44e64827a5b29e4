/**
 * News articles as the admin list shows them (NewsPublicationSummary, docs/news.md) with their text: one row per
 * article, its record folded with the decider's own `evolve`, a lower-cased search column (title, summary, slug) so
 * `q` matches the same rows on SQLite and PostgreSQL.
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, readRecord, replaceRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { articleDecider, type ArticleEvent, type ArticleState } from '../../src/modules/news/domain/article';

export interface ArticleRow {
  article_uuid: string;
  tenant_uuid: string;
  status: string;
  search_text: string;
  /** SCHEDULED: when the scheduler publishes it (the column it sweeps by). */
  publish_at: string | null;
  updated_at: string;
  state: ArticleState;
}
export const ARTICLES: JsonRecordTable<ArticleRow> = { table: 'news_articles', key: 'article_uuid', columns: ['tenant_uuid', 'status', 'search_text', 'publish_at'] };

export class NewsArticles1764000011800 implements MigrationInterface {
  name = 'NewsArticles1764000011800';
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'news_articles',
        columns: [
          { name: 'article_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'tenant_uuid', type: 'varchar', length: '32' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'search_text', type: 'text' },
          { name: 'publish_at', type: 'varchar', length: '32', isNullable: true },
          { name: 'position', type: 'varchar', length: '20' },
          { name: 'record', type: 'text' },
        ],
        indices: [
          { name: 'idx_news_articles_tenant', columnNames: ['tenant_uuid', 'position'] },
          { name: 'idx_news_articles_due', columnNames: ['status', 'publish_at'] },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('news_articles');
  }
}

const searchOf = (s: ArticleState): string => [s.content?.title, s.content?.summary, s.content?.slug].join('\n').toLowerCase();

export class NewsArticlesProjector implements Projector {
  readonly name = 'news-articles';
  readonly handles = ['NewsArticleDrafted', 'NewsArticleRevised', 'NewsArticleScheduled', 'NewsArticleUnscheduled', 'NewsArticlePublished', 'NewsArticleUnpublished', 'NewsArticleArchived'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const e = { type: event.type, data: event.data } as ArticleEvent;
    const article_uuid = event.stream.slice('news-article-'.length);
    const before = await readRecord(tx, ARTICLES, article_uuid);
    // A replayed event is already folded in: the version tells.
    if (before && BigInt(before.state.version) >= event.revision) return;
    const state = articleDecider.evolve(before?.state ?? articleDecider.initialState(), e);
    const row: ArticleRow = { article_uuid, tenant_uuid: state.article!.tenant_uuid, status: state.status, search_text: searchOf(state), publish_at: state.publish_at, updated_at: event.occurred_at, state };
    if (before) await replaceRecord(tx, ARTICLES, row);
    else await insertRecord(tx, ARTICLES, row, { position: event.position.toString().padStart(20, '0') });
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM news_articles');
  }
}

export const newsArticlesReadModel: ReadModelDefinition = {
  name: 'news-articles',
  entities: [],
  migrations: [NewsArticles1764000011800],
  projector: NewsArticlesProjector,
};
