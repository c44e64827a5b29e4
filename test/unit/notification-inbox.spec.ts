/** The inbox decider, given/when/then: read, read-all and archive decide events only when something changes. */
import { fold, type DecideContext } from '../../src/platform/command/decider';
import { inboxDecider, type InboxEvent } from '../../src/modules/notifications/domain/inbox';
import { notificationStream } from '../../src/modules/notifications/domain/notification';

const P = 'a'.repeat(32);
const N1 = '1'.repeat(32);
const N2 = '2'.repeat(32);
const now = new Date('2026-11-22T10:00:00.000Z');
const ctx: DecideContext = { now, newId: () => '0'.repeat(32) };
const given = (...events: InboxEvent[]) => fold(inboxDecider, events);

describe('inbox decider', () => {
  it('reads an UNREAD notification once', () => {
    expect(inboxDecider.decide({ kind: 'MarkRead', profile_uuid: P, notification_uuid: N1, status: 'UNREAD' }, given(), ctx)).toEqual([
      { type: 'NotificationRead', data: { profile_uuid: P, notification_uuid: N1, read_at: now.toISOString() } },
    ]);
    const read: InboxEvent = { type: 'NotificationRead', data: { profile_uuid: P, notification_uuid: N1, read_at: now.toISOString() } };
    // The read model may still say UNREAD: the stream knows better.
    expect(inboxDecider.decide({ kind: 'MarkRead', profile_uuid: P, notification_uuid: N1, status: 'UNREAD' }, given(read), ctx)).toEqual([]);
    expect(inboxDecider.decide({ kind: 'MarkRead', profile_uuid: P, notification_uuid: N2, status: 'READ' }, given(read), ctx)).toEqual([]);
    expect(inboxDecider.decide({ kind: 'MarkRead', profile_uuid: P, notification_uuid: N2, status: 'ARCHIVED' }, given(), ctx)).toEqual([]);
  });

  it('archives once, and an archived notification is not read', () => {
    const archived: InboxEvent = { type: 'NotificationArchived', data: { profile_uuid: P, notification_uuid: N1, archived_at: now.toISOString() } };
    expect(inboxDecider.decide({ kind: 'Archive', profile_uuid: P, notification_uuid: N1, status: 'READ' }, given(), ctx)).toEqual([archived]);
    expect(inboxDecider.decide({ kind: 'Archive', profile_uuid: P, notification_uuid: N1, status: 'UNREAD' }, given(archived), ctx)).toEqual([]);
    expect(inboxDecider.decide({ kind: 'Archive', profile_uuid: P, notification_uuid: N2, status: 'ARCHIVED' }, given(), ctx)).toEqual([]);
    expect(inboxDecider.decide({ kind: 'MarkRead', profile_uuid: P, notification_uuid: N1, status: 'UNREAD' }, given(archived), ctx)).toEqual([]);
  });

  it('reads all only when something is unread', () => {
    expect(inboxDecider.decide({ kind: 'MarkAllRead', profile_uuid: P, unread: 0 }, given(), ctx)).toEqual([]);
    expect(inboxDecider.decide({ kind: 'MarkAllRead', profile_uuid: P, unread: 3 }, given(), ctx)).toEqual([{ type: 'NotificationsAllRead', data: { profile_uuid: P, read_at: now.toISOString() } }]);
  });

  it('one stream per account', () => {
    expect(notificationStream(P)).toBe(`notifications-account-${P}`);
  });
});
