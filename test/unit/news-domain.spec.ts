/** The news article decider, given/when/then: the lifecycle, unpublished changes, the scheduler's exactly-once publish. */
import { articleDecider, hasUnpublishedChanges, type ArticleCommand, type ArticleState } from '../../src/modules/news/domain/article';
import { PlatformError } from '../../src/platform/errors';

const T0 = new Date('2026-11-25T10:00:00.000Z');
const ctx = (now = T0) => ({ now, newId: () => '0'.repeat(32) });
const BY = 'e'.repeat(32);
const draft: ArticleCommand = {
  kind: 'DraftArticle', article: { article_uuid: 'a'.repeat(32), tenant_uuid: 'b'.repeat(32), author_profile_uuid: BY, created_at: T0.toISOString() },
  content: { slug: 'hello', title: 'Hello', summary: 'S', body: 'B' }, notify_readers: false,
};

function given(steps: Array<ArticleCommand | [ArticleCommand, Date]>): ArticleState {
  let state = articleDecider.initialState();
  for (const step of steps) {
    const [command, now] = Array.isArray(step) ? step : [step, T0];
    for (const e of articleDecider.decide(command, state, ctx(now))) state = articleDecider.evolve(state, e);
  }
  return state;
}
const refused = (command: ArticleCommand, state: ArticleState, now = T0): string => {
  try {
    articleDecider.decide(command, state, ctx(now));
  } catch (error) {
    return `${(error as PlatformError).code}: ${(error as PlatformError).details.map((d) => d.issue).join(', ')}`;
  }
  return 'accepted';
};

describe('news article', () => {
  it('given a draft, when published, revised and published again, then readers see the old text until the second publish', () => {
    const published = given([draft, { kind: 'PublishArticle', by_profile_uuid: BY }]);
    expect([published.status, published.version, published.published?.title, hasUnpublishedChanges(published)]).toEqual(['PUBLISHED', 1, 'Hello', false]);
    expect(refused({ kind: 'PublishArticle', by_profile_uuid: BY }, published)).toBe('STATE_CONFLICT: PUBLISHED; published again needs unpublished changes');
    const revised = given([draft, { kind: 'PublishArticle', by_profile_uuid: BY }, { kind: 'ReviseArticle', content: { title: 'Hello again', body: undefined }, by_profile_uuid: BY }]);
    expect([revised.content?.title, revised.content?.body, revised.published?.title, hasUnpublishedChanges(revised)]).toEqual(['Hello again', 'B', 'Hello', true]);
    const again = given([draft, { kind: 'PublishArticle', by_profile_uuid: BY }, { kind: 'ReviseArticle', content: { title: 'Hello again' }, by_profile_uuid: BY }, { kind: 'PublishArticle', by_profile_uuid: BY }]);
    expect([again.published?.title, hasUnpublishedChanges(again)]).toEqual(['Hello again', false]);
  });

  it('given a scheduled article, then PublishDue publishes it once, at its instant, and never before', () => {
    const scheduled = given([draft, { kind: 'ScheduleArticle', publish_at: '2026-11-25T11:00:00.000Z', by_profile_uuid: BY }]);
    expect(articleDecider.decide({ kind: 'PublishDue' }, scheduled, ctx(new Date('2026-11-25T10:59:59.999Z')))).toEqual([]);
    const due = articleDecider.decide({ kind: 'PublishDue' }, scheduled, ctx(new Date('2026-11-26T00:00:00.000Z')));
    expect(due.map((e) => [e.type, (e.data as { at: string }).at, (e.data as { scheduled: boolean }).scheduled])).toEqual([['NewsArticlePublished', '2026-11-25T11:00:00.000Z', true]]);
    const after = due.reduce(articleDecider.evolve, scheduled);
    expect(articleDecider.decide({ kind: 'PublishDue' }, after, ctx(new Date('2026-11-26T00:00:00.000Z')))).toEqual([]);
    expect(refused({ kind: 'ScheduleArticle', publish_at: '2026-11-25T10:00:00.000Z', by_profile_uuid: BY }, given([draft]))).toBe('VALIDATION_FAILED: must be in the future');
    expect(given([draft, { kind: 'ScheduleArticle', publish_at: '2026-11-25T11:00:00.000Z', by_profile_uuid: BY }, { kind: 'UnscheduleArticle', by_profile_uuid: BY }])).toMatchObject({ status: 'DRAFT', publish_at: null });
  });

  it('transitions from the wrong state are STATE_CONFLICT naming what they need; archived is final; unknown is 404', () => {
    const archived = given([draft, { kind: 'ArchiveArticle', by_profile_uuid: BY }]);
    expect(archived.status).toBe('ARCHIVED');
    expect(refused({ kind: 'ReviseArticle', content: { title: 'x' }, by_profile_uuid: BY }, archived)).toBe('STATE_CONFLICT: ARCHIVED; revised needs any other status');
    expect(refused({ kind: 'UnpublishArticle', by_profile_uuid: BY }, given([draft]))).toBe('STATE_CONFLICT: DRAFT; unpublished needs PUBLISHED');
    expect(refused({ kind: 'ScheduleArticle', publish_at: '2027-01-01T00:00:00.000Z', by_profile_uuid: BY }, given([draft, { kind: 'PublishArticle', by_profile_uuid: BY }]))).toBe('STATE_CONFLICT: PUBLISHED; scheduled needs DRAFT');
    expect(given([draft, { kind: 'PublishArticle', by_profile_uuid: BY }, { kind: 'UnpublishArticle', by_profile_uuid: BY }])).toMatchObject({ status: 'DRAFT', published: null });
    expect(refused({ kind: 'PublishArticle', by_profile_uuid: BY }, articleDecider.initialState())).toBe('NOT_FOUND: ');
    expect(articleDecider.decide(draft, given([draft]), ctx())).toEqual([]);
  });
});
