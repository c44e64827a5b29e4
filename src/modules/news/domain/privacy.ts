/**
 * The privacy class of every field of the news events (docs/privacy.md). An article is the tenant's publication,
 * written for its readers: its text is internal (not a person's private words), its ids and instants too.
 */
import { declareEventClasses } from '../../../platform/privacy/field-classes';
import type { ArticleEvent } from './article';

export const NEWS_EVENT_CLASSES = declareEventClasses<ArticleEvent>('news', {
  NewsArticleDrafted: { article: 'internal', content: 'internal', notify_readers: 'internal' },
  NewsArticleRevised: { article_uuid: 'internal', content: 'internal', notify_readers: 'internal', by_profile_uuid: 'internal', at: 'internal' },
  NewsArticleScheduled: { article_uuid: 'internal', publish_at: 'internal', by_profile_uuid: 'internal', at: 'internal' },
  NewsArticleUnscheduled: { article_uuid: 'internal', by_profile_uuid: 'internal', at: 'internal' },
  NewsArticlePublished: { article_uuid: 'internal', tenant_uuid: 'internal', content: 'internal', notify_readers: 'internal', scheduled: 'internal', by_profile_uuid: 'internal', at: 'internal' },
  NewsArticleUnpublished: { article_uuid: 'internal', by_profile_uuid: 'internal', at: 'internal' },
  NewsArticleArchived: { article_uuid: 'internal', by_profile_uuid: 'internal', at: 'internal' },
});
