/**
 * The notification-inbox rules without a database: which events become which notifications, for whom, with which
 * type, source, href and reference; what is never copied (token hashes, codes, the new contact address); the burst
 * and new-device logic; one notification per order and matching round; and that folding the same log twice gives
 * the same inbox (the rebuild promise, at the level of the pure rules). The text helpers are checked at the end.
 */
import { createHash } from 'node:crypto';
import { composeNotificationRules, factId, type FactValue, type InboxChange, type SourceEvent } from '../../src/modules/notifications/domain/rule-port';
import { inboxNotificationRules } from '../../src/modules/notifications/domain/inbox-rules';
import { deviceKey, foldSignInFailure, MAX_KNOWN_DEVICES, SIGN_IN_BURST_THRESHOLD } from '../../src/modules/identity/domain/notification-rules';
import { NOTIFICATION_RULES } from '../../src/notification-rules';
import { isRelativeHref, notificationId, type NotificationDraft } from '../../src/modules/notifications/domain/notification';
import { looksSecretFree, plainDecimal, REDACTED, shortRef, untrusted, words } from '../../src/modules/notifications/domain/text';

const hex = (seed: string): string => createHash('sha256').update(seed).digest('hex').slice(0, 32);
const HASH64 = createHash('sha256').update('a token').digest('hex');
const P1 = hex('profile-1');
const P2 = hex('profile-2');
const P3 = hex('profile-3');
const T0 = Date.parse('2026-11-22T10:00:00.000Z');
// What the projector runs: the inbox's own rules and every module's registered ones.
const RULES = composeNotificationRules([inboxNotificationRules, ...NOTIFICATION_RULES]);
const { factsNeeded, plan } = RULES;
const HANDLED_EVENT_TYPES = RULES.handles;

/** A tiny in-memory projector with the real one's semantics: facts by key, notifications upserted, statuses changed. */
class Inbox {
  facts = new Map<string, FactValue>();
  rows = new Map<string, NotificationDraft & { status: string; created_at: string; updated_at: string }>();
  private position = 0;

  event(type: string, stream: string, data: Record<string, unknown>, at = T0, event_id = hex(`event-${type}-${this.position + 1}-${stream}`)): SourceEvent {
    return { event_id, type, stream, position: String(++this.position).padStart(20, '0'), occurred_at: new Date(at).toISOString(), data };
  }

  apply(e: SourceEvent): InboxChange[] {
    // As the projector: facts may name further facts (a binding's workspace), asked for again with what was loaded.
    const facts = new Map<string, FactValue>();
    for (let round = 0; round < 3; round++) {
      for (const k of factsNeeded(e, facts)) {
        const v = this.facts.get(factId(k));
        if (v) facts.set(factId(k), v);
      }
    }
    const changes = plan(e, facts);
    for (const c of changes) {
      if (c.kind === 'fact') {
        if (c.value === null) this.facts.delete(factId(c));
        else this.facts.set(factId(c), c.value);
      } else if (c.kind === 'notify') {
        const old = this.rows.get(c.draft.notification_uuid);
        this.rows.set(c.draft.notification_uuid, old
          ? { ...old, ...c.draft, position: old.position, event_id: old.event_id, at: old.at, created_at: old.created_at, updated_at: c.draft.at }
          : { ...c.draft, status: 'UNREAD', created_at: c.draft.at, updated_at: c.draft.at });
      } else {
        for (const row of this.rows.values()) {
          if (row.profile_uuid !== c.profile_uuid) continue;
          if (c.kind === 'read-all' && row.status === 'UNREAD') Object.assign(row, { status: 'READ', updated_at: c.at });
          if (c.kind === 'read' && row.notification_uuid === c.notification_uuid && row.status === 'UNREAD') Object.assign(row, { status: 'READ', updated_at: c.at });
          if (c.kind === 'archive' && row.notification_uuid === c.notification_uuid) Object.assign(row, { status: 'ARCHIVED', updated_at: c.at });
        }
      }
    }
    return changes;
  }

  emit(type: string, stream: string, data: Record<string, unknown>, at = T0): NotificationDraft[] {
    return this.apply(this.event(type, stream, data, at)).flatMap((c) => (c.kind === 'notify' ? [c.draft] : []));
  }

  of(profile: string): Array<NotificationDraft & { status: string }> {
    return [...this.rows.values()].filter((r) => r.profile_uuid === profile).sort((a, b) => (a.position < b.position ? 1 : -1));
  }
}

const session = (profile: string, device: { name: string; platform: string }, n: number) => ({
  session_id: hex(`session-${profile}-${n}`), profile_uuid: profile, tenant_uuid: '0'.repeat(32), token_hash: HASH64, authentication_method: 'PASSWORD', device, expires_at: '2026-11-23T10:00:00.000Z',
});
const FIREFOX = { name: 'Firefox 120', platform: 'Linux' };
const SAFARI = { name: 'Mobile Safari 17', platform: 'iOS 17' };

describe('identity rules', () => {
  it('alerts on a device beside the known ones: not the first device, not a known one', () => {
    const inbox = new Inbox();
    expect(inbox.emit('SessionStarted', `identity-session-${hex('s1')}`, session(P1, FIREFOX, 1))).toEqual([]);
    expect(inbox.emit('SessionStarted', `identity-session-${hex('s2')}`, session(P1, FIREFOX, 2))).toEqual([]);
    const [n] = inbox.emit('SessionStarted', `identity-session-${hex('s3')}`, session(P1, SAFARI, 3));
    expect(n).toMatchObject({ profile_uuid: P1, type: 'SECURITY_NEW_DEVICE_SIGN_IN', source: 'identity', href: '/api/v1/auth/events', reference: hex(`session-${P1}-3`) });
    expect(n.message).toContain('Mobile Safari 17 on iOS 17');
    expect(JSON.stringify(n)).not.toContain(HASH64);
    expect(inbox.emit('SessionStarted', `identity-session-${hex('s4')}`, session(P1, SAFARI, 4))).toEqual([]);
    // Another account's first device is its own business.
    expect(inbox.emit('SessionStarted', `identity-session-${hex('s5')}`, session(P2, SAFARI, 5))).toEqual([]);
  });

  it('scrubs secret-shaped text a client put in its User-Agent, and bounds it', () => {
    const inbox = new Inbox();
    inbox.emit('SessionStarted', `identity-session-${hex('x1')}`, session(P1, FIREFOX, 1));
    const sneaky = { name: `curl hcs_${'A'.repeat(43)} 123456`, platform: `x${'y'.repeat(300)}` };
    const [n] = inbox.emit('SessionStarted', `identity-session-${hex('x2')}`, session(P1, sneaky, 2));
    expect(n.message).not.toContain('hcs_');
    expect(n.message).not.toContain('123456');
    expect(n.message).toContain(REDACTED);
    expect(n.message.length).toBeLessThan(400);
  });

  it('remembers at most MAX_KNOWN_DEVICES devices per account', () => {
    const inbox = new Inbox();
    for (let i = 0; i < MAX_KNOWN_DEVICES + 5; i++) inbox.emit('SessionStarted', `identity-session-${hex(`d${i}`)}`, session(P1, { name: `Client-${i}`, platform: 'Linux' }, i));
    expect((inbox.facts.get(`devices/${P1}`)!.known as string[])).toHaveLength(MAX_KNOWN_DEVICES);
    expect(inbox.of(P1)).toHaveLength(MAX_KNOWN_DEVICES + 4);
    expect(deviceKey(FIREFOX)).toBe(deviceKey({ ...FIREFOX }));
    expect(deviceKey(FIREFOX)).not.toBe(deviceKey(SAFARI));
    // A browser or OS update is the same device.
    expect(deviceKey({ name: 'Chrome 124', platform: 'macOS 14' })).toBe(deviceKey({ name: 'Chrome 125', platform: 'macOS 15' }));
    expect(deviceKey({ name: 'Chrome 124', platform: 'macOS 14' })).not.toBe(deviceKey({ name: 'Chrome 124', platform: 'Windows 10' }));
  });

  it('one alert for a burst of failed sign-ins within the window; not for slow failures or missing codes', () => {
    const inbox = new Inbox();
    const account = `identity-account-${P1}`;
    const fail = (reason: string, at: number) => inbox.emit('LoginFailed', account, { reason, device: FIREFOX, authentication_method: 'PASSWORD' }, at);
    for (let i = 0; i < 10; i++) expect(fail('TOTP_REQUIRED', T0 + i)).toEqual([]);
    for (let i = 0; i < SIGN_IN_BURST_THRESHOLD - 1; i++) expect(fail('BAD_PASSWORD', T0 + i * 60_000)).toEqual([]);
    const [alert] = fail('BAD_TOTP', T0 + 4 * 60_000);
    expect(alert).toMatchObject({ profile_uuid: P1, type: 'SECURITY_FAILED_SIGN_IN_BURST', reference: P1, href: '/api/v1/auth/events' });
    expect(alert.message).toContain('5 failed sign-in attempts');
    expect(fail('BAD_PASSWORD', T0 + 5 * 60_000)).toEqual([]);
    // Quiet for the window, then another burst: another alert.
    const later = T0 + 40 * 60_000;
    for (let i = 0; i < 4; i++) expect(fail('BAD_PASSWORD', later + i * 1000)).toEqual([]);
    expect(fail('BAD_PASSWORD', later + 5000)).toHaveLength(1);
    // One failure every four minutes never makes five within fifteen.
    const slow = new Inbox();
    for (let i = 0; i < 20; i++) expect(slow.emit('LoginFailed', `identity-account-${P2}`, { reason: 'BAD_PASSWORD', device: FIREFOX, authentication_method: 'PASSWORD' }, T0 + i * 4 * 60_000)).toEqual([]);
  });

  it('foldSignInFailure keeps only the window and alerts once per window', () => {
    let s = foldSignInFailure(undefined, new Date(T0).toISOString());
    expect(s).toEqual({ state: { recent: [new Date(T0).toISOString()], alerted_at: null }, alert: null });
    for (let i = 1; i < 5; i++) s = foldSignInFailure(s.state, new Date(T0 + i).toISOString());
    expect(s.alert).toBe(5);
    s = foldSignInFailure(s.state, new Date(T0 + 16 * 60_000).toISOString());
    expect(s.state.recent).toHaveLength(1);
    expect(s.alert).toBeNull();
  });

  it('authenticator, step-up, sessions, contact and closure: types, hrefs, references, and nothing secret copied', () => {
    const inbox = new Inbox();
    const account = `identity-account-${P1}`;
    const enrollment = hex('enrollment');
    const [enrolled] = inbox.emit('AuthenticatorEnrolled', account, { enrollment_id: enrollment, session_id: hex('s'), recovery_code_hashes: [HASH64] });
    expect(enrolled).toMatchObject({ type: 'SECURITY_AUTHENTICATOR_ENROLLED', reference: enrollment, source: 'identity' });
    const [disabled] = inbox.emit('AuthenticatorDisabled', account, { method: 'RECOVERY_CODE', session_id: hex('s') });
    expect(disabled).toMatchObject({ type: 'SECURITY_AUTHENTICATOR_DISABLED', reference: hex('s') });
    expect(disabled.message).toContain('recovery code');
    expect(inbox.emit('SessionsRevoked', account, { reason: 'AUTHENTICATOR_DISABLED', revoked_at: '2026-11-22T10:00:00.000Z' })).toEqual([]);
    expect(inbox.emit('SessionsRevoked', account, { reason: 'ACCOUNT_CLOSED', revoked_at: '2026-11-22T10:00:00.000Z' })).toEqual([]);
    const [all] = inbox.emit('SessionsRevoked', account, { reason: 'SECURITY_REVIEW', revoked_at: '2026-11-22T10:00:00.000Z' });
    expect(all).toMatchObject({ type: 'SECURITY_SESSION_REVOKED', reference: P1 });

    const tokenStream = `identity-token-${HASH64}`;
    const issued = { kind: 'STEP_UP', purpose: 'ACCOUNT_CLOSURE', profile_uuid: P1, session_id: hex('s'), expires_at: '2026-11-22T10:05:00.000Z' };
    const [stepUp] = inbox.emit('OneUseTokenIssued', tokenStream, issued);
    expect(stepUp).toMatchObject({ type: 'SECURITY_STEP_UP_ISSUED', reference: hex('s'), href: '/api/v1/auth/events' });
    expect(stepUp.message).toContain('account closure');
    expect(stepUp.message).toContain('after your password was confirmed');
    const [withCode] = inbox.emit('OneUseTokenIssued', `identity-token-${'b'.repeat(64)}`, { ...issued, authentication_method: 'PASSWORD_TOTP' });
    expect(withCode.message).toContain('after your password and an authenticator code were confirmed');
    expect(inbox.emit('OneUseTokenIssued', tokenStream, { ...issued, kind: 'ACTIVATION', purpose: null })).toEqual([]);
    expect(inbox.emit('OneUseTokenIssued', tokenStream, { ...issued, kind: 'CONTACT_CHANGE', purpose: null })).toEqual([]);

    const sessionStream = `identity-session-${hex('s9')}`;
    expect(inbox.emit('SessionRevoked', sessionStream, { session_id: hex('s9'), profile_uuid: P1, reason: 'LOGOUT', revoked_at: '2026-11-22T10:00:00.000Z' })).toEqual([]);
    const [revoked] = inbox.emit('SessionRevoked', sessionStream, { session_id: hex('s9'), profile_uuid: P1, reason: 'REVOKED_BY_USER', revoked_at: '2026-11-22T10:00:00.000Z' });
    expect(revoked).toMatchObject({ type: 'SECURITY_SESSION_REVOKED', reference: hex('s9') });

    const target = 'new.address@example.com';
    const [requested] = inbox.emit('ContactChangeRequested', account, { contact_type: 'email', target, target_hint: 'n***s@e***.com', token_hash: HASH64, expires_at: '2026-11-23T10:00:00.000Z' });
    expect(requested).toMatchObject({ type: 'SECURITY_CONTACT_CHANGE_REQUESTED', href: '/api/v1/identity/contact', reference: P1 });
    expect(requested.message).toContain('n***s@e***.com');
    const [changed] = inbox.emit('ContactChanged', account, { contact_type: 'phone', value: '+4915112345678' });
    expect(changed.message).toContain('phone number');

    const request = hex('closure');
    const closure = (type: string) => inbox.emit(type, account, { request_uuid: request, reason_code: 'OTHER', requested_at: '2026-11-22T10:00:00.000Z', scheduled_for: '2026-12-06T10:00:00.000Z', cancelled_at: '2026-11-22T11:00:00.000Z', completed_at: '2026-12-06T10:00:00.000Z' })[0];
    expect(closure('ClosureRequested')).toMatchObject({ type: 'SECURITY_ACCOUNT_CLOSURE_SCHEDULED', reference: request, href: '/api/v1/identity/closure' });
    expect(closure('ClosureRequested').message).toContain('2026-12-06T10:00:00.000Z');
    expect(closure('ClosureCancelled')).toMatchObject({ type: 'SECURITY_ACCOUNT_CLOSURE_CANCELLED', reference: request });
    expect(closure('ClosureCompleted')).toMatchObject({ type: 'SECURITY_ACCOUNT_CLOSURE_COMPLETED', reference: request });

    const dump = JSON.stringify([...inbox.rows.values()]);
    for (const secret of [HASH64, target, '+4915112345678']) expect(dump).not.toContain(secret);
    for (const row of inbox.rows.values()) expect(looksSecretFree(`${row.title} ${row.message}`)).toBe(true);
  });
});

describe('trading rules', () => {
  const market = hex('market');
  const engine = `mtf-engine-${market}`;
  const orderOpened = (order: string, profile: string, side: string, size: string, order_type = 'LIMIT') => ({
    market_uuid: market, input_position: '1', order_uuid: order, profile_uuid: profile, sequence: 1, engine_id: 'GW-1-0-1', order_sequence: '1_1', side, order_type, time_in_force: 'GTC',
    post_only: false, reduce_only: false, price: '100.000000000000000000', trigger_price: null, size,
  });
  const trade = (input: string, maker: string, taker: string, size: string, maker_remaining: string, taker_remaining: string) => ({
    market_uuid: market, input_position: input, trade_uuid: hex(`trade-${input}-${maker}-${taker_remaining}`), maker_order_uuid: maker, taker_order_uuid: taker, maker_profile_uuid: P1, taker_profile_uuid: P2,
    taker_side: 'BUY', price: '100.000000000000000000', size, maker_remaining, taker_remaining,
  });
  const ask = hex('ask');
  const bid = hex('bid');

  function setup(): Inbox {
    const inbox = new Inbox();
    expect(inbox.emit('MarketCreated', `mtf-market-${market}`, { market_uuid: market, market_symbol: 'BTC-PERP', market_id: 1 })).toEqual([]);
    inbox.emit('OrderOpened', engine, orderOpened(ask, P1, 'SELL', '0.020000000000000000'));
    inbox.emit('OrderOpened', engine, orderOpened(bid, P2, 'BUY', '0.030000000000000000'));
    return inbox;
  }

  it('a round of trades is one notification per order: partial, or filled when the round fills it', () => {
    const inbox = setup();
    inbox.emit('TradeExecuted', engine, trade('7', ask, bid, '0.010000000000000000', '0.010000000000000000', '0.020000000000000000'));
    inbox.emit('TradeExecuted', engine, trade('7', ask, bid, '0.010000000000000000', '0.000000000000000000', '0.010000000000000000'));
    inbox.emit('OrderFilled', engine, { market_uuid: market, input_position: '7', order_uuid: ask, profile_uuid: P1 });
    const [maker] = inbox.of(P1);
    expect(inbox.of(P1)).toHaveLength(1);
    expect(maker).toMatchObject({ type: 'ORDER_FILLED', source: 'trading', reference: ask, href: `/api/v1/api/v1/mtf/order_meta?order_uuid=${ask}` });
    expect(maker.notification_uuid).toBe(notificationId('order-round', ask, '7'));
    expect(maker.message).toBe('Your sell limit order for 0.02 BTC-PERP was filled.');
    const taker = inbox.of(P2);
    expect(taker).toHaveLength(1);
    expect(taker[0]).toMatchObject({ type: 'ORDER_PARTIALLY_FILLED', reference: bid });
    expect(taker[0].message).toBe('Your buy limit order for 0.03 BTC-PERP was partially filled: 0.02 filled, 0.01 remaining.');
    // The order is done: its fact is forgotten; the rest of the bid is still known.
    expect(inbox.facts.has(`order/${ask}`)).toBe(false);
    expect(inbox.facts.has(`order/${bid}`)).toBe(true);
  });

  it('cancellations: the platform\'s are told, the account\'s own are not; a reduce-only cut keeps the order known', () => {
    const inbox = setup();
    const cancel = (order: string, profile: string, reason: string, cancel_reason: string) =>
      inbox.emit('OrderCancelled', engine, { market_uuid: market, input_position: '9', order_uuid: order, profile_uuid: profile, reason, cancel_reason, remaining: '0.020000000000000000' });
    expect(cancel(ask, P1, 'USER_REQUEST', '10_CancelReason_UserRequest')).toEqual([]);
    expect(cancel(bid, P2, 'CANCEL_ALL', '11_CancelReason_CancelAll')).toEqual([]);
    expect(inbox.facts.size).toBe(1);
    const o = hex('reduce');
    inbox.emit('OrderOpened', engine, orderOpened(o, P3, 'SELL', '5.000000000000000000', 'MARKET'));
    const [cut] = cancel(o, P3, 'REDUCE_ONLY_EXCEEDS_POSITION', '51_CancelReason_ReduceOnlyExceedsPosition');
    expect(cut).toMatchObject({ type: 'ORDER_CANCELLED_BY_PLATFORM', source: 'trading', reference: o });
    expect(inbox.facts.has(`order/${o}`)).toBe(true);
    const [stp] = cancel(o, P3, 'SELF_TRADE_PREVENTION', '30_CancelReason_SelfTradePrevention');
    expect(stp.message).toBe('Your sell market order for 5 BTC-PERP was cancelled by the platform, 0.02 unfilled: it would have traded with another order of yours (self-trade prevention) (30_CancelReason_SelfTradePrevention).');
    expect(inbox.facts.has(`order/${o}`)).toBe(false);
    // An order whose opening was never seen still gets its notification, in general words.
    const [unknown] = inbox.emit('OrderFilled', engine, { market_uuid: market, input_position: '10', order_uuid: hex('unknown'), profile_uuid: P3 });
    expect(unknown.message).toBe('Your order was filled.');
  });
});

describe('AI-agent wallet rules', () => {
  const ws = hex('workspace');
  const binding = hex('binding');
  const stream = `ai-wallet-binding-${binding}`;

  function setup(bindingOwner = P2): Inbox {
    const inbox = new Inbox();
    inbox.emit('WorkspaceCreated', `identity-workspace-${ws}`, { workspace_uuid: ws, tenant_uuid: '0'.repeat(32), name: 'Treasury', owner_profile_uuid: P1 });
    inbox.emit('AiWalletBindingCreated', stream, { binding: { binding_uuid: binding, workspace_uuid: ws, owner_profile_uuid: bindingOwner, agent_label: 'payments-agent' }, client_secret_hash: HASH64 });
    return inbox;
  }

  it('tells the binding\'s owner and the workspace\'s owner (once when they are one person)', () => {
    const inbox = setup();
    const approval = { approval_uuid: hex('approval'), binding_uuid: binding, intent_uuid: hex('intent'), asset_code: 'ETH', amount: '0.5', destination_reference: '0x52908400098527886E0F7030069857D2E4169EE7', expires_at: '2026-11-22T10:15:00.000Z' };
    const asked = inbox.emit('AiWalletApprovalRequested', stream, { approval });
    expect(asked.map((n) => n.profile_uuid).sort()).toEqual([P1, P2].sort());
    expect(new Set(asked.map((n) => n.notification_uuid)).size).toBe(2);
    expect(asked[0]).toMatchObject({ type: 'AI_WALLET_APPROVAL_REQUESTED', source: 'ai-wallets', reference: approval.approval_uuid, href: `/api/v1/ai-wallets/bindings/${binding}/approvals?state=PENDING` });
    expect(asked[0].message).toBe('Agent "payments-agent" asks to move 0.5 ETH to 0x5290…9EE7. Approve or reject it before 2026-11-22T10:15:00.000Z.');

    const single = setup(P1).emit('AiWalletApprovalRequested', stream, { approval });
    expect(single.map((n) => n.profile_uuid)).toEqual([P1]);
    expect(JSON.stringify([...inbox.rows.values()])).not.toContain(HASH64);
  });

  it('tells the workspace\'s owners as they are now: a new owner is told, a removed one no longer', () => {
    const inbox = setup();
    const wsStream = `identity-workspace-${ws}`;
    const [added] = inbox.emit('WorkspaceMemberAdded', wsStream, { workspace_uuid: ws, profile_uuid: P3, role: 'OWNER', added_by_profile_uuid: P1 });
    expect(added).toMatchObject({ type: 'WORKSPACE_MEMBER_ADDED', profile_uuid: P3, reference: ws, href: `/api/v1/workspaces/${ws}/members` });
    expect(added.message).toBe('You were added to workspace "Treasury" as an owner.');
    const [removed] = inbox.emit('WorkspaceMemberRemoved', wsStream, { workspace_uuid: ws, profile_uuid: P1, role: 'OWNER', removed_by_profile_uuid: P3 });
    expect(removed).toMatchObject({ type: 'WORKSPACE_MEMBER_REMOVED', profile_uuid: P1 });
    const approval = { approval_uuid: hex('approval-2'), binding_uuid: binding, intent_uuid: hex('intent-2'), asset_code: 'ETH', amount: '1', destination_reference: '0x52908400098527886E0F7030069857D2E4169EE7', expires_at: '2026-11-22T10:15:00.000Z' };
    const asked = inbox.emit('AiWalletApprovalRequested', stream, { approval });
    expect(asked.map((n) => n.profile_uuid).sort()).toEqual([P2, P3].sort());
    // Leaving tells nobody (it is the member's own doing) but the owner is gone from the recipients all the same.
    expect(inbox.emit('WorkspaceMemberLeft', wsStream, { workspace_uuid: ws, profile_uuid: P3, role: 'OWNER' })).toEqual([]);
    const [changed] = inbox.emit('WorkspaceMemberRoleChanged', wsStream, { workspace_uuid: ws, profile_uuid: P2, role: 'ADMIN', previous_role: 'MEMBER', changed_by_profile_uuid: P3 });
    expect(changed.message).toBe('You are now an admin of workspace "Treasury" (was a member).');
    const later = inbox.emit('AiWalletIntentExpired', stream, { binding_uuid: binding, intent_uuid: hex('intent-3'), approval_uuid: null, expired_at: '2026-11-22T11:00:00.000Z' });
    expect(later.map((n) => n.profile_uuid)).toEqual([P2]);
  });

  it('keeps telling the owner a binding fact recorded before workspaces had members (workspace_owner)', () => {
    const inbox = new Inbox();
    inbox.facts.set(`binding/${binding}`, { owner: P2, workspace_owner: P1, label: 'old-agent' });
    const approval = { approval_uuid: hex('approval-3'), binding_uuid: binding, intent_uuid: hex('intent-4'), asset_code: 'ETH', amount: '1', destination_reference: '0x52908400098527886E0F7030069857D2E4169EE7', expires_at: '2026-11-22T10:15:00.000Z' };
    expect(inbox.emit('AiWalletApprovalRequested', stream, { approval }).map((n) => n.profile_uuid).sort()).toEqual([P1, P2].sort());
  });

  it('denials reach the person who asked too; expiries say whether an approval was waiting', () => {
    const inbox = setup();
    const intent = { intent_uuid: hex('denied'), binding_uuid: binding, intent_type: 'TRANSFER', amount: '5', asset_code: 'ETH', destination_reference: 'x', decision_code: 'DAILY_LIMIT_EXCEEDED', requested_by_profile_uuid: P3 };
    const denied = inbox.emit('AiWalletIntentDenied', stream, { intent });
    expect(denied.map((n) => n.profile_uuid).sort()).toEqual([P1, P2, P3].sort());
    expect(denied[0]).toMatchObject({ type: 'AI_WALLET_INTENT_DENIED', reference: intent.intent_uuid, href: `/api/v1/ai-wallets/intents/${intent.intent_uuid}` });
    expect(denied[0].message).toContain('daily limit exceeded (DAILY_LIMIT_EXCEEDED)');

    const [approvalExpired] = inbox.emit('AiWalletIntentExpired', stream, { binding_uuid: binding, intent_uuid: hex('i1'), approval_uuid: hex('a1'), expired_at: '2026-11-22T10:16:00.000Z' });
    expect(approvalExpired).toMatchObject({ type: 'AI_WALLET_APPROVAL_EXPIRED', reference: hex('a1'), href: `/api/v1/ai-wallets/intents/${hex('i1')}` });
    const [intentExpired] = inbox.emit('AiWalletIntentExpired', stream, { binding_uuid: binding, intent_uuid: hex('i2'), approval_uuid: null, expired_at: '2026-11-23T10:16:00.000Z' });
    expect(intentExpired).toMatchObject({ type: 'AI_WALLET_INTENT_EXPIRED', reference: hex('i2') });
    // A binding never seen: nobody to tell.
    expect(new Inbox().emit('AiWalletIntentExpired', stream, { binding_uuid: binding, intent_uuid: hex('i3'), approval_uuid: null, expired_at: 'x' })).toEqual([]);
  });
});

describe('agentic memory rules', () => {
  const ws = hex('research');
  const c = hex('collection');
  const stream = `agentic-memory-collection-${c}`;
  const request = (id: string, by: string) => ({ request: { request_uuid: id, collection_uuid: c, request_type: 'QUERY', question: 'What is the secret plan?', priority: 'HIGH', requested_by: { type: 'profile', reference: by } } });

  it('a request from someone else reaches the publisher; the resolution reaches the requester, without the texts', () => {
    const inbox = new Inbox();
    inbox.emit('WorkspaceCreated', `identity-workspace-${ws}`, { workspace_uuid: ws, tenant_uuid: '0'.repeat(32), name: 'Research', owner_profile_uuid: P1 });
    inbox.emit('AgenticMemoryCollectionCreated', stream, { collection: { collection_uuid: c, workspace_uuid: ws, title: 'Payments runbook' } });
    inbox.emit('AgenticMemoryCollectionUpdated', stream, { collection_uuid: c, settings: { title: 'Payments handbook' } });
    const [received] = inbox.emit('AgenticMemoryRequestAccepted', stream, request(hex('r1'), P2));
    expect(received).toMatchObject({ profile_uuid: P1, type: 'MEMORY_REQUEST_RECEIVED', source: 'agentic-memory', reference: hex('r1'), href: `/api/v1/agentic-memory/collections/${c}/inbox` });
    expect(received.message).toContain('"Payments handbook"');
    expect(inbox.emit('AgenticMemoryRequestAccepted', stream, request(hex('r2'), P1))).toEqual([]);

    const [answered] = inbox.emit('AgenticMemoryRequestResolved', stream, { collection_uuid: c, request_uuid: hex('r1'), state: 'ANSWERED', response: 'The plan is 424242.', resolved: 'x', resolved_by_profile_uuid: P1 });
    expect(answered).toMatchObject({ profile_uuid: P2, type: 'MEMORY_REQUEST_ANSWERED', reference: hex('r1'), href: `/api/v1/agentic-memory/requests/${hex('r1')}` });
    const [dismissed] = inbox.emit('AgenticMemoryRequestResolved', stream, { collection_uuid: c, request_uuid: hex('r2'), state: 'DISMISSED', response: 'No.', resolved: 'x', resolved_by_profile_uuid: P3 });
    expect(dismissed).toMatchObject({ profile_uuid: P1, type: 'MEMORY_REQUEST_DISMISSED' });
    expect(inbox.facts.has(`memory-request/${hex('r1')}`)).toBe(false);
    const dump = JSON.stringify([...inbox.rows.values()]);
    expect(dump).not.toContain('secret plan');
    expect(dump).not.toContain('424242');
  });
});

describe('the inbox events and the whole log', () => {
  it('read, read-all and archive change statuses of their own account only', () => {
    const inbox = new Inbox();
    const step = (profile: string, n: number) =>
      inbox.emit('OneUseTokenIssued', `identity-token-${hex(`t${n}`)}`, { kind: 'STEP_UP', purpose: 'ACCOUNT_CLOSURE', profile_uuid: profile, session_id: hex('s'), expires_at: 'x' }, T0 + n)[0];
    const [a1, a2, a3, b1] = [step(P1, 1), step(P1, 2), step(P1, 3), step(P2, 4)];
    const own = `notifications-account-${P1}`;
    inbox.emit('NotificationRead', own, { profile_uuid: P1, notification_uuid: a1.notification_uuid, read_at: '2026-11-22T11:00:00.000Z' });
    inbox.emit('NotificationArchived', own, { profile_uuid: P1, notification_uuid: a2.notification_uuid, archived_at: '2026-11-22T11:01:00.000Z' });
    // Another account's id in this stream changes nothing.
    inbox.emit('NotificationRead', own, { profile_uuid: P1, notification_uuid: b1.notification_uuid, read_at: '2026-11-22T11:02:00.000Z' });
    expect(inbox.of(P1).map((n) => n.status)).toEqual(['UNREAD', 'ARCHIVED', 'READ']);
    expect(inbox.of(P2).map((n) => n.status)).toEqual(['UNREAD']);
    inbox.emit('NotificationsAllRead', own, { profile_uuid: P1, read_at: '2026-11-22T11:03:00.000Z' });
    expect(inbox.of(P1).map((n) => [n.notification_uuid, n.status])).toEqual([[a3.notification_uuid, 'READ'], [a2.notification_uuid, 'ARCHIVED'], [a1.notification_uuid, 'READ']]);
    expect(inbox.rows.get(a3.notification_uuid)!.updated_at).toBe('2026-11-22T11:03:00.000Z');
    expect(inbox.of(P2).map((n) => n.status)).toEqual(['UNREAD']);
    // An inbox event outside an inbox stream is nobody's.
    expect(plan(inbox.event('NotificationsAllRead', `identity-account-${P2}`, { profile_uuid: P2, read_at: 'x' }), new Map())).toEqual([]);
  });

  it('events of the right type on another module\'s stream are ignored', () => {
    for (const type of HANDLED_EVENT_TYPES) {
      expect(plan({ event_id: hex(type), type, stream: `test-ledger-${hex(type)}`, position: '1'.padStart(20, '0'), occurred_at: new Date(T0).toISOString(), data: {} }, new Map())).toEqual([]);
    }
  });

  it('folding the same log twice gives the same inbox: ids and timestamps come from the events', () => {
    const run = (): Inbox => {
      const inbox = new Inbox();
      inbox.emit('SessionStarted', `identity-session-${hex('r1')}`, session(P1, FIREFOX, 1), T0);
      inbox.emit('SessionStarted', `identity-session-${hex('r2')}`, session(P1, SAFARI, 2), T0 + 1000);
      for (let i = 0; i < 5; i++) inbox.emit('LoginFailed', `identity-account-${P1}`, { reason: 'BAD_PASSWORD', device: FIREFOX, authentication_method: 'PASSWORD' }, T0 + 2000 + i);
      inbox.emit('ClosureRequested', `identity-account-${P1}`, { request_uuid: hex('c'), reason_code: 'X', requested_at: 'x', scheduled_for: '2026-12-06T10:00:00.000Z' }, T0 + 3000);
      inbox.emit('NotificationsAllRead', `notifications-account-${P1}`, { profile_uuid: P1, read_at: new Date(T0 + 4000).toISOString() }, T0 + 4000);
      return inbox;
    };
    const first = run();
    const second = run();
    expect([...second.rows.entries()]).toEqual([...first.rows.entries()]);
    expect([...second.facts.entries()]).toEqual([...first.facts.entries()]);
    expect(first.rows.size).toBe(3);
    for (const row of first.rows.values()) {
      expect(row.created_at).toBe(row.at);
      expect(RULES.sourceOf.get(row.type)).toBe(row.source);
      expect(row.notification_uuid).toBe(notificationId(row.event_id, row.profile_uuid));
    }
  });
});

describe('text and ids', () => {
  it('plainDecimal, words, shortRef, untrusted', () => {
    expect(plainDecimal('0.010000000000000000')).toBe('0.01');
    expect(plainDecimal('100.000000000000000000')).toBe('100');
    expect(plainDecimal('0E-18')).toBe('?');
    expect(plainDecimal('5')).toBe('5');
    expect(words('STOP_LIMIT', '-')).toBe('stop-limit');
    expect(words('lower')).toBe('unknown');
    expect(shortRef('0x52908400098527886E0F7030069857D2E4169EE7')).toBe('0x5290…9EE7');
    expect(shortRef('short')).toBe('short');
    expect(shortRef(42)).toBe('an unknown destination');
    expect(untrusted('  a\u0000b\nc  ')).toBe('a b c');
    expect(untrusted(undefined, 10, 'none')).toBe('none');
    // A lowercase base32 secret (TOTP-style) is redacted; an ordinary long word is not.
    expect(untrusted('seed jbswy3dpehpk3pxp here')).toBe(`seed ${REDACTED} here`);
    expect(untrusted('internationalization works')).toBe('internationalization works');
    expect(untrusted('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
    for (const secret of [`hcsu_${'Q'.repeat(43)}`, 'Bearer abcdefghijklmnopqrstuvwxyz', HASH64, 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', '123456', 'abcd-efgh-ijkl', 'password=hunter22', 'eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl']) {
      expect([secret, untrusted(`Client ${secret} 1`, 200)]).toEqual([secret, expect.not.stringContaining(secret)]);
    }
    expect(untrusted('Firefox 120 on Windows 10')).toBe('Firefox 120 on Windows 10');
  });

  it('hrefs are relative paths on this API; ids are 32 hex and stable', () => {
    expect(isRelativeHref('/api/v1/auth/events')).toBe(true);
    expect(isRelativeHref('/api/v1/api/v1/mtf/order_meta?order_uuid=abc')).toBe(true);
    for (const bad of ['https://evil.example/api/v1/x', '//evil.example/api/v1', '/api/v1/x?u=https://evil', 'api/v1/x', '/other']) expect([bad, isRelativeHref(bad)]).toEqual([bad, false]);
    expect(notificationId('a', 'b')).toMatch(/^[0-9a-f]{32}$/);
    expect(notificationId('a', 'b')).toBe(notificationId('a', 'b'));
    expect(notificationId('a', 'b')).not.toBe(notificationId('a', 'c'));
  });
});

describe('the rule port: each module declares its own, the composition holds it to that', () => {
  const event: SourceEvent = { event_id: hex('e'), type: 'ThingHappened', stream: `things-${hex('t')}`, position: '1'.padStart(20, '0'), occurred_at: new Date(T0).toISOString(), data: {} };
  const module = (over: Partial<import('../../src/modules/notifications/domain/rule-port').NotificationRules>) => ({
    source: 'things', types: ['THING_HAPPENED'], handles: ['ThingHappened'], factScopes: ['thing'], plan: () => [], ...over,
  });

  it('registers every module that notifies, each type and fact scope with one owner, the personal scopes for erasure', () => {
    expect(NOTIFICATION_RULES.map((r) => r.source)).toEqual(['identity', 'trading', 'ai-wallets', 'agentic-memory', 'commerce', 'billing', 'news']);
    expect(RULES.sourceOf.get('SECURITY_NEW_DEVICE_SIGN_IN')).toBe('identity');
    expect(RULES.sourceOf.get('ORDER_FILLED')).toBe('trading');
    expect(RULES.sourceOf.get('AI_WALLET_INTENT_DENIED')).toBe('ai-wallets');
    expect(RULES.sourceOf.get('MEMORY_REQUEST_ANSWERED')).toBe('agentic-memory');
    expect(RULES.sourceOf.get('COMMERCE_INVOICE_PAID')).toBe('commerce');
    expect(RULES.sourceOf.get('BILLING_CREDITS_EXHAUSTED')).toBe('billing');
    expect(RULES.sourceOf.get('NEWS_ARTICLE_PUBLISHED')).toBe('news');
    expect(RULES.sourceOf.size).toBe(39);
    expect(RULES.personalFactScopes).toEqual(['devices', 'sign-in-failures']);
    expect(new Set(RULES.handles).size).toBe(RULES.handles.length);
  });

  it('refuses two modules claiming one notification type or fact scope, and names that are not a type or module', () => {
    expect(() => composeNotificationRules([module({}), module({ source: 'others', factScopes: [] })])).toThrow('notification type THING_HAPPENED is declared by both things and others');
    expect(() => composeNotificationRules([module({}), module({ source: 'others', types: [] })])).toThrow('fact scope thing is declared by both things and others');
    expect(() => composeNotificationRules([module({ types: ['thing happened'] })])).toThrow('does not match');
    expect(() => composeNotificationRules([module({ source: 'Things!' })])).toThrow('is not a module name');
    expect(() => composeNotificationRules([module({ personalFactScopes: ['devices'] })])).toThrow('personal fact scope devices is not one of its fact scopes');
  });

  it("holds a module's plan to what it declared: its own types, source and fact scopes", () => {
    const draft = (type: string, source: string): InboxChange => ({
      kind: 'notify',
      draft: { notification_uuid: hex('n'), profile_uuid: P1, type, source, title: 't', message: 'm', href: null, reference: null, at: event.occurred_at, event_id: event.event_id, position: event.position },
    });
    const run = (change: InboxChange) => composeNotificationRules([...NOTIFICATION_RULES, module({ plan: () => [change] })]).plan(event, new Map());
    expect(run(draft('THING_HAPPENED', 'things'))).toEqual([draft('THING_HAPPENED', 'things')]);
    expect(() => run(draft('ORDER_FILLED', 'things'))).toThrow('things wrote a notification of type ORDER_FILLED');
    expect(() => run(draft('THING_HAPPENED', 'trading'))).toThrow('(source trading) it did not declare');
    expect(() => run({ kind: 'fact', scope: 'workspace', key: hex('w'), value: { owners: [] } })).toThrow('things wrote a fact of scope workspace, which is not its own');
    expect(run({ kind: 'fact', scope: 'thing', key: hex('w'), value: {} })).toEqual([{ kind: 'fact', scope: 'thing', key: hex('w'), value: {} }]);
    // Events no module handles change nothing.
    expect(RULES.plan({ ...event, type: 'SomethingElse' }, new Map())).toEqual([]);
    expect(RULES.factsNeeded({ ...event, type: 'SomethingElse' })).toEqual([]);
  });
});
