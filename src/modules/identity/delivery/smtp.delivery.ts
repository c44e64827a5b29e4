/**
 * Email over SMTP (`SMTP_URL`), through nodemailer. Email only: an `sms` delivery is refused. With `SMTP_URL` set,
 * createDeliveryPort wraps this adapter in a CompositeDelivery that sends sms to the file mailbox instead, because
 * the platform has no SMS provider yet; see composite.delivery.ts.
 *
 * SMTP_URL: `smtp://[user:pass@]host[:port][?params]` (STARTTLS when the server offers it) or `smtps://…` (implicit
 * TLS). User and password are percent-decoded. Parameters: ignoreTLS, requireTLS, secure, name, authMethod,
 * connectionTimeout, greetingTimeout, socketTimeout, dnsTimeout (ms), tls.rejectUnauthorized, tls.servername.
 * Anything else is refused at start-up, in particular nodemailer's `logger`/`debug`/`transactionLog` (they would
 * log the message, token included) and its transport switches (`sendmail`, `jsonTransport`, `pool`, …).
 *
 * The token is never logged: nodemailer's logging is off, and error messages are scrubbed of it.
 */
import { createTransport, type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { assertDelivery, DeliveryFailedError, InvalidDeliveryError, type Delivery, type DeliveryPort } from './delivery.port';

export const DEFAULT_FROM = 'no-reply@platform.local';

export interface SmtpDeliveryOptions {
  /** The From address; default `no-reply@platform.local`. */
  from?: string;
}

export interface DeliveryMessage {
  subject: string;
  text: string;
}

/** Subject and plain-text body for a delivery; also usable by a future SMS adapter (the text). */
export function messageFor(d: Pick<Delivery, 'kind' | 'token' | 'tenant_uuid'>): DeliveryMessage {
  switch (d.kind) {
    case 'ACCOUNT_ACTIVATION':
      return {
        subject: 'Activate your account',
        text: [
          'Hello,',
          '',
          'Use this one-time token to activate your account:',
          '',
          `    ${d.token}`,
          '',
          'The token is valid for 24 hours and can be used once.',
          'Submit it to POST /api/v1/identity/activations.',
          '',
          'If you did not register, you can ignore this message.',
          '',
        ].join('\n'),
      };
    case 'CONTACT_CHANGE':
      return {
        subject: 'Confirm your new contact',
        text: [
          'Hello,',
          '',
          'Use this one-time token to confirm your new contact details:',
          '',
          `    ${d.token}`,
          '',
          'The token can be used once.',
          'Submit it to POST /api/v1/identity/contact-changes/confirm.',
          '',
          'If you did not ask for this change, ignore this message',
          'and review the security of your account.',
          '',
        ].join('\n'),
      };
    case 'TENANT_INVITATION':
      return {
        subject: 'You are invited to join a tenant',
        text: [
          'Hello,',
          '',
          `You are invited to open an account in tenant ${d.tenant_uuid ?? '(not named)'}.`,
          'Register with this address, that tenant_uuid and this one-time invitation token:',
          '',
          `    ${d.token}`,
          '',
          'The invitation is valid for 7 days and can be used once.',
          'Submit it as invitation_token to POST /api/v1/identity/registrations.',
          '',
          'If you do not know who invited you, you can ignore this message.',
          '',
        ].join('\n'),
      };
    default:
      return {
        subject: 'Your one-time token',
        text: ['Hello,', '', 'Your one-time token:', '', `    ${d.token}`, '', 'It can be used once.', ''].join('\n'),
      };
  }
}

/** One bare address; refuses lists, display names and anything that could add a recipient or a header. */
const SINGLE_ADDRESS = /^[^\s@,;:<>"()[\]\\]+@[^\s@,;:<>"()[\]\\]+$/u;

const BOOLEAN_PARAMS = new Set(['ignoreTLS', 'requireTLS', 'secure']);
const STRING_PARAMS = new Set(['name', 'authMethod']);
const DURATION_PARAMS = new Set(['connectionTimeout', 'greetingTimeout', 'socketTimeout', 'dnsTimeout']);
const TLS_BOOLEAN_PARAMS = new Set(['tls.rejectUnauthorized']);
const TLS_STRING_PARAMS = new Set(['tls.servername']);

/**
 * SMTP_URL → nodemailer SMTP transport options. Throws an Error naming the problem; the message never repeats the
 * URL (it may hold a password).
 */
export function parseSmtpUrl(smtpUrl: string): SMTPTransport.Options {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new Error('SMTP_URL is not a valid URL (expected smtp://[user:pass@]host[:port] or smtps://…)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL must use smtp: or smtps:, not ${url.protocol}`);
  if (!url.hostname) throw new Error('SMTP_URL needs a host');
  if (url.pathname && url.pathname !== '/' && url.pathname !== '') throw new Error('SMTP_URL must not have a path');

  const options: SMTPTransport.Options = {
    host: url.hostname.replace(/^\[(.*)\]$/u, '$1'),
    secure: url.protocol === 'smtps:',
    // Fail within seconds rather than nodemailer's minutes: a caller is usually waiting.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
  if (url.port) options.port = Number(url.port);
  if (url.username || url.password) {
    options.auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  }

  const tls: Record<string, unknown> = {};
  for (const [key, value] of url.searchParams) {
    if (BOOLEAN_PARAMS.has(key)) (options as Record<string, unknown>)[key] = parseBoolean(key, value);
    else if (STRING_PARAMS.has(key)) (options as Record<string, unknown>)[key] = value;
    else if (DURATION_PARAMS.has(key)) (options as Record<string, unknown>)[key] = parseDuration(key, value);
    else if (TLS_BOOLEAN_PARAMS.has(key)) tls[key.slice(4)] = parseBoolean(key, value);
    else if (TLS_STRING_PARAMS.has(key)) tls[key.slice(4)] = value;
    else throw new Error(`SMTP_URL parameter "${key}" is not supported`);
  }
  if (Object.keys(tls).length > 0) options.tls = tls;
  return options;
}

function parseBoolean(key: string, value: string): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`SMTP_URL parameter "${key}" must be true or false`);
}

function parseDuration(key: string, value: string): number {
  if (!/^[1-9][0-9]{0,8}$/u.test(value)) throw new Error(`SMTP_URL parameter "${key}" must be a positive number of milliseconds`);
  return Number(value);
}

export class SmtpDelivery implements DeliveryPort {
  readonly name = 'smtp';
  readonly from: string;
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo>;

  constructor(smtpUrl: string, options: SmtpDeliveryOptions = {}) {
    this.from = options.from ?? DEFAULT_FROM;
    if (!SINGLE_ADDRESS.test(this.from)) throw new Error('The SMTP From address must be a single bare address');
    // Logging forced off whatever the URL says: nodemailer's debug log carries the message, token included.
    this.transport = createTransport({ ...parseSmtpUrl(smtpUrl), logger: false, debug: false, transactionLog: false });
  }

  async deliver(d: Delivery): Promise<void> {
    assertDelivery(d);
    if (d.channel !== 'email') {
      throw new InvalidDeliveryError('SMS delivery needs an SMS adapter: SmtpDelivery sends email only (createDeliveryPort routes sms to the file mailbox)');
    }
    if (!SINGLE_ADDRESS.test(d.to)) throw new InvalidDeliveryError('An email delivery needs exactly one bare email address');
    const { subject, text } = messageFor(d);
    const date = new Date(d.created);
    try {
      await this.transport.sendMail({
        from: this.from,
        to: d.to,
        envelope: { from: this.from, to: [d.to] },
        subject,
        text,
        ...(Number.isNaN(date.getTime()) ? {} : { date }),
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    } catch (error) {
      throw failure(error, d);
    }
  }

  /** Releases the transport (idle pooled connections, if any). */
  async close(): Promise<void> {
    this.transport.close();
  }
}

/** A DeliveryFailedError from a transport error, with the token scrubbed and no cause attached (it may echo it). */
function failure(error: unknown, d: Delivery): DeliveryFailedError {
  const raw = error instanceof Error ? error.message : String(error);
  const message = raw.split(d.token).join('[REDACTED]');
  const failed = new DeliveryFailedError(`SMTP delivery of ${d.kind} failed: ${message}`);
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  Object.assign(failed, { ...(typeof code === 'string' ? { code } : {}), ...(typeof responseCode === 'number' ? { responseCode } : {}) });
  return failed;
}
