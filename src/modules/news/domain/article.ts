/**
 * A news article of a tenant (pure decider), one stream per article (`news-article-<uuid>`); its version is the
 * stream's revision, so an edit pinned to a version (`expected_version`) that changed is a 409 VERSION_CONFLICT with
 * the current one (CommandExecutor).
 *
 * States: DRAFT → SCHEDULED (a publish instant in the future) → PUBLISHED → ARCHIVED; SCHEDULED → DRAFT (unschedule);
 * PUBLISHED → DRAFT (unpublish). A revision of a PUBLISHED article is kept as unpublished changes: readers keep the
 * published text until it is published again. Publishing a SCHEDULED article when its instant has come is the
 * scheduler's PublishDue, decided on the stream: a second run, or a person's publish first, finds nothing to do, so
 * each scheduled article is published exactly once.
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { PlatformError, StateConflict, ValidationFailed } from '../../../platform/errors';

export const articleStream = (article_uuid: string): string => `news-article-${article_uuid}`;
export const ARTICLE_STATUSES = ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'] as const;
export type ArticleStatus = (typeof ARTICLE_STATUSES)[number];

/** What a writer edits. */
export interface ArticleContent {
  slug: string;
  title: string;
  summary: string;
  body: string;
}

export interface ArticleCore {
  article_uuid: string;
  tenant_uuid: string;
  author_profile_uuid: string;
  created_at: string;
}

export type ArticleEvent =
  | { type: 'NewsArticleDrafted'; data: { article: ArticleCore; content: ArticleContent; notify_readers: boolean } }
  | { type: 'NewsArticleRevised'; data: { article_uuid: string; content: ArticleContent; notify_readers: boolean; by_profile_uuid: string; at: string } }
  | { type: 'NewsArticleScheduled'; data: { article_uuid: string; publish_at: string; by_profile_uuid: string; at: string } }
  | { type: 'NewsArticleUnscheduled'; data: { article_uuid: string; by_profile_uuid: string; at: string } }
  | { type: 'NewsArticlePublished'; data: { article_uuid: string; tenant_uuid: string; content: ArticleContent; notify_readers: boolean; scheduled: boolean; by_profile_uuid: string | null; at: string } }
  | { type: 'NewsArticleUnpublished'; data: { article_uuid: string; by_profile_uuid: string; at: string } }
  | { type: 'NewsArticleArchived'; data: { article_uuid: string; by_profile_uuid: string; at: string } };

export interface ArticleState {
  article: ArticleCore | null;
  status: ArticleStatus;
  content: ArticleContent | null;
  /** What readers see while PUBLISHED (null otherwise). */
  published: ArticleContent | null;
  notify_readers: boolean;
  publish_at: string | null;
  published_at: string | null;
  version: number;
}

export type ArticleCommand =
  | { kind: 'DraftArticle'; article: ArticleCore; content: ArticleContent; notify_readers: boolean }
  | { kind: 'ReviseArticle'; content: Partial<ArticleContent>; notify_readers?: boolean; by_profile_uuid: string }
  | { kind: 'ScheduleArticle'; publish_at: string; by_profile_uuid: string }
  | { kind: 'UnscheduleArticle'; by_profile_uuid: string }
  | { kind: 'PublishArticle'; by_profile_uuid: string }
  /** The scheduler: publishes a SCHEDULED article whose instant has come; nothing otherwise. */
  | { kind: 'PublishDue' }
  | { kind: 'UnpublishArticle'; by_profile_uuid: string }
  | { kind: 'ArchiveArticle'; by_profile_uuid: string };

export class ArticleNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such news article.');
  }
}

const sameContent = (a: ArticleContent | null, b: ArticleContent | null): boolean => a !== null && b !== null && a.slug === b.slug && a.title === b.title && a.summary === b.summary && a.body === b.body;

/** Whether a PUBLISHED article has revisions readers do not see yet. */
export const hasUnpublishedChanges = (s: Pick<ArticleState, 'status' | 'content' | 'published'>): boolean => s.status === 'PUBLISHED' && !sameContent(s.content, s.published);

function evolve(state: ArticleState, event: ArticleEvent): ArticleState {
  const s = { ...state, version: state.version + 1 };
  switch (event.type) {
    case 'NewsArticleDrafted':
      return { ...s, article: event.data.article, status: 'DRAFT', content: event.data.content, notify_readers: event.data.notify_readers };
    case 'NewsArticleRevised':
      return { ...s, content: event.data.content, notify_readers: event.data.notify_readers };
    case 'NewsArticleScheduled':
      return { ...s, status: 'SCHEDULED', publish_at: event.data.publish_at };
    case 'NewsArticleUnscheduled':
      return { ...s, status: 'DRAFT', publish_at: null };
    case 'NewsArticlePublished':
      return { ...s, status: 'PUBLISHED', published: event.data.content, publish_at: null, published_at: event.data.at };
    case 'NewsArticleUnpublished':
      return { ...s, status: 'DRAFT', published: null };
    case 'NewsArticleArchived':
      return { ...s, status: 'ARCHIVED', publish_at: null };
  }
}

const refuse = (status: ArticleStatus, action: string, allowed: string): StateConflict =>
  new StateConflict(`A ${status} article cannot be ${action}.`, { details: [{ field: 'status', issue: `${status}; ${action} needs ${allowed}` }] });

function decide(command: ArticleCommand, state: ArticleState, ctx: DecideContext): ArticleEvent[] {
  const at = ctx.now.toISOString();
  if (command.kind === 'DraftArticle') {
    if (state.article) return [];
    return [{ type: 'NewsArticleDrafted', data: { article: command.article, content: command.content, notify_readers: command.notify_readers } }];
  }
  const article = state.article;
  if (!article || !state.content) throw new ArticleNotFound();
  const article_uuid = article.article_uuid;
  switch (command.kind) {
    case 'ReviseArticle': {
      if (state.status === 'ARCHIVED') throw refuse(state.status, 'revised', 'any other status');
      // Only the fields the revision names change (an absent one is not a blank).
      const named = Object.fromEntries(Object.entries(command.content).filter(([, v]) => v !== undefined)) as Partial<ArticleContent>;
      const content = { ...state.content, ...named };
      return [{ type: 'NewsArticleRevised', data: { article_uuid, content, notify_readers: command.notify_readers ?? state.notify_readers, by_profile_uuid: command.by_profile_uuid, at } }];
    }
    case 'ScheduleArticle':
      if (state.status !== 'DRAFT') throw refuse(state.status, 'scheduled', 'DRAFT');
      if (Date.parse(command.publish_at) <= ctx.now.getTime()) throw new ValidationFailed('A schedule is for later: publish now instead.', [{ field: 'publish_at', issue: 'must be in the future' }]);
      return [{ type: 'NewsArticleScheduled', data: { article_uuid, publish_at: command.publish_at, by_profile_uuid: command.by_profile_uuid, at } }];
    case 'UnscheduleArticle':
      if (state.status !== 'SCHEDULED') throw refuse(state.status, 'unscheduled', 'SCHEDULED');
      return [{ type: 'NewsArticleUnscheduled', data: { article_uuid, by_profile_uuid: command.by_profile_uuid, at } }];
    case 'PublishArticle':
      if (state.status === 'ARCHIVED') throw refuse(state.status, 'published', 'DRAFT, SCHEDULED or PUBLISHED with unpublished changes');
      if (state.status === 'PUBLISHED' && !hasUnpublishedChanges(state)) throw refuse(state.status, 'published again', 'unpublished changes');
      return [{ type: 'NewsArticlePublished', data: { article_uuid, tenant_uuid: article.tenant_uuid, content: state.content, notify_readers: state.notify_readers, scheduled: false, by_profile_uuid: command.by_profile_uuid, at } }];
    case 'PublishDue':
      if (state.status !== 'SCHEDULED' || state.publish_at === null || Date.parse(state.publish_at) > ctx.now.getTime()) return [];
      // Published at its instant, even when the scheduler runs late (after downtime): readers see when it was due.
      return [{ type: 'NewsArticlePublished', data: { article_uuid, tenant_uuid: article.tenant_uuid, content: state.content, notify_readers: state.notify_readers, scheduled: true, by_profile_uuid: null, at: state.publish_at } }];
    case 'UnpublishArticle':
      if (state.status !== 'PUBLISHED') throw refuse(state.status, 'unpublished', 'PUBLISHED');
      return [{ type: 'NewsArticleUnpublished', data: { article_uuid, by_profile_uuid: command.by_profile_uuid, at } }];
    case 'ArchiveArticle':
      if (state.status !== 'PUBLISHED' && state.status !== 'DRAFT') throw refuse(state.status, 'archived', 'DRAFT or PUBLISHED');
      return [{ type: 'NewsArticleArchived', data: { article_uuid, by_profile_uuid: command.by_profile_uuid, at } }];
  }
}

export const articleDecider: Decider<ArticleCommand, ArticleState, ArticleEvent> = {
  initialState: () => ({ article: null, status: 'DRAFT', content: null, published: null, notify_readers: false, publish_at: null, published_at: null, version: -1 }),
  evolve,
  decide,
};
