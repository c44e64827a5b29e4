/**
 * Notification test helpers on a running test app: accounts that remember every secret they were handed, the inbox
 * over HTTP (pages, all pages, waiting for a notification the projector has not folded yet) and the read model's rows.
 * No `expect` here (the file is part of the build): failures throw with what was seen.
 */
import { readMailbox } from '../../src/modules/identity/delivery';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import type { TestApp } from './app';
import { hex32 } from './events';
import { until, type Headers } from './traders';

export const N = '/api/v1/notifications';
export const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';
export const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';

export interface Reply {
  status: number;
  json: any;
  headers: Record<string, unknown>;
}

export interface Account {
  email: string;
  password: string;
  profile_uuid: string;
  session_id: string;
  token: string;
  headers: Headers;
  /** The client address this account's requests come from (the login throttle counts per address). */
  ip: string;
}

export interface Notification {
  notificationUuid: string;
  title: string;
  message: string;
  type: string;
  source: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  href?: string;
  reference?: string;
}

let ipSeq = 0;
const nextIp = (): string => `10.77.${Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;

export function notificationApi(current: () => TestApp) {
  /** Every secret handed out during the suite: none may ever appear in a notification. */
  const secrets = new Set<string>();

  async function call(method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH', url: string, headers: Headers = {}, payload?: unknown, extra: { ip?: string; ua?: string } = {}): Promise<Reply> {
    const r = await current().app.inject({
      method,
      url,
      headers: { ...(extra.ua ? { 'user-agent': extra.ua } : {}), ...headers },
      remoteAddress: extra.ip ?? '10.76.0.1',
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: r.statusCode, json: r.body ? r.json() : undefined, headers: r.headers };
  }

  function check(ok: boolean, what: string, seen: unknown): void {
    if (!ok) throw new Error(`${what}; saw ${JSON.stringify(seen)}`);
  }

  async function login(email: string, password: string, ip: string, ua?: string, totp_code?: string): Promise<{ token: string; session_id: string; headers: Headers }> {
    const r = await call('POST', '/api/v1/auth/sessions', {}, { email, password, ...(totp_code ? { totp_code } : {}) }, { ip, ua });
    check(r.status === 201, 'login failed', r.json);
    secrets.add(r.json.access_token);
    return { token: r.json.access_token, session_id: r.json.session_id, headers: { authorization: `Bearer ${r.json.access_token}` } };
  }

  /** Registers, activates (mailbox token) and signs in a person from `ua`; answers the account. */
  async function account(ua?: string): Promise<Account> {
    const email = `note-${hex32().slice(0, 10)}@example.com`;
    const password = `Inbox-Password-${hex32().slice(0, 6)}`;
    secrets.add(password);
    const ip = nextIp();
    const reg = await call('POST', '/api/v1/identity/registrations', {}, { account_type: 'personal', first_name: 'N', last_name: 'O', email, password, terms: { version: '1', accepted: true } }, { ip, ua });
    check(reg.status === 201, 'registration failed', reg.json);
    const deliveries = await readMailbox(current().config.dataDir, email);
    const token = deliveries[deliveries.length - 1].token;
    secrets.add(token);
    const act = await call('POST', '/api/v1/identity/activations', {}, { token }, { ip, ua });
    check(act.status === 200, 'activation failed', act.json);
    const session = await login(email, password, ip, ua);
    const contact = await call('GET', '/api/v1/identity/contact', session.headers, undefined, { ip, ua });
    return { email, password, ip, profile_uuid: contact.json.profile_uuid, ...session };
  }

  async function page(who: Headers, query = ''): Promise<Reply> {
    return call('GET', `${N}${query}`, who);
  }

  /** Every notification of a list (all pages), newest first. */
  async function all(who: Headers, status?: string, limit = 200): Promise<Notification[]> {
    const items: Notification[] = [];
    let cursor: string | undefined;
    do {
      const params = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
      const r = await page(who, `?${params.toString()}`);
      check(r.status === 200, 'listing failed', r.json);
      items.push(...r.json.items);
      cursor = r.json.nextCursor;
    } while (cursor);
    return items;
  }

  /** Waits until the caller's inbox (any status) holds notifications matching `match` (`count` of them). */
  async function waitFor(who: Headers, match: (n: Notification) => boolean, count = 1, timeoutMs = 8000): Promise<Notification[]> {
    const everything = async () => [...(await all(who)), ...(await all(who, 'ARCHIVED'))];
    const found = await until(everything, (items) => items.filter(match).length >= count, timeoutMs);
    return found.filter(match);
  }

  /** Every row of the inbox read model (and the projector's facts), in a stable order: what a rebuild must reproduce. */
  async function rows(): Promise<{ notifications: Array<Record<string, unknown>>; facts: Array<Record<string, unknown>> }> {
    const db = current().app.get(ReadModelDatabase);
    return {
      notifications: await db.reader.query('SELECT * FROM notification_inbox ORDER BY notification_uuid'),
      facts: await db.reader.query('SELECT * FROM notification_inbox_facts ORDER BY scope, fact_key'),
    };
  }

  return { call, login, account, page, all, waitFor, rows, secrets, nextIp };
}
