/**
 * News's notification rules (registered with the notification inbox, src/modules/notifications/domain/rule-port.ts):
 * an article published with `notify_readers` reaches the inbox of every person of its tenant — once per article (a
 * re-publish of revisions does not tell again). The readers of a tenant are kept as a fact from identity's
 * AccountRegistered (the tenant a person registered into).
 */
import type { AccountEvent } from '../../identity/domain/account';
import { fact, getFact, id32, notifier, recipients, untrusted, type FactKey, type Facts, type InboxChange, type NotificationRules, type SourceEvent } from '../../notifications/domain/rule-port';
import type { ArticleEvent } from './article';

const TYPES = ['NEWS_ARTICLE_PUBLISHED'] as const;
const notify = notifier('news', TYPES);
const READERS = 'news-readers';
const TOLD = 'news-article-told';

function factsNeeded(e: SourceEvent): FactKey[] {
  const d = e.data as Record<string, unknown>;
  if (e.type === 'AccountRegistered') return [{ scope: READERS, key: String(d.tenant_uuid) }];
  if (e.type === 'NewsArticlePublished') return [{ scope: READERS, key: String(d.tenant_uuid) }, { scope: TOLD, key: String(d.article_uuid) }];
  return [];
}

function plan(e: SourceEvent, facts: Facts): InboxChange[] {
  if (e.type === 'AccountRegistered') {
    const d = (e as unknown as Extract<AccountEvent, { type: 'AccountRegistered' }>).data;
    const tenant = id32(d.tenant_uuid);
    if (!tenant || !id32(d.profile_uuid)) return [];
    const known = (getFact(facts, READERS, tenant)?.profiles as string[] | undefined) ?? [];
    return [fact(READERS, tenant, { profiles: recipients(...known, d.profile_uuid) })];
  }
  if (e.type !== 'NewsArticlePublished') return [];
  const d = (e as unknown as Extract<ArticleEvent, { type: 'NewsArticlePublished' }>).data;
  const article = id32(d.article_uuid);
  if (!article || !d.notify_readers || getFact(facts, TOLD, article)) return [];
  const readers = (getFact(facts, READERS, d.tenant_uuid)?.profiles as string[] | undefined) ?? [];
  return [
    fact(TOLD, article, { at: e.occurred_at }),
    ...recipients(...readers).map((p) =>
      notify(e, p, { type: 'NEWS_ARTICLE_PUBLISHED', title: untrusted(d.content.title, 200), message: untrusted(d.content.summary, 1000), href: null, reference: article }),
    ),
  ];
}

export const newsNotificationRules: NotificationRules = {
  source: 'news',
  types: TYPES,
  handles: ['AccountRegistered', 'NewsArticlePublished'],
  factScopes: [READERS, TOLD],
  factsNeeded,
  plan,
};
