/**
 * The identity delivery port: the file mailbox on a real temp directory, SMTP against a real smtp-server on
 * 127.0.0.1, and the composite createDeliveryPort builds when SMTP_URL is set.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, promises as fs, rmSync, symlinkSync, writeFileSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { CompositeDelivery } from '../../src/modules/identity/delivery/composite.delivery';
import { createDeliveryPort } from '../../src/modules/identity/delivery/delivery.factory';
import { DeliveryFailedError, InvalidDeliveryError, type Delivery } from '../../src/modules/identity/delivery/delivery.port';
import { FileMailboxDelivery, mailboxName, readMailbox } from '../../src/modules/identity/delivery/file-mailbox.delivery';
import { DEFAULT_FROM, parseSmtpUrl, SmtpDelivery } from '../../src/modules/identity/delivery/smtp.delivery';

const activationToken = (): string => `hcat_${randomBytes(32).toString('base64url')}`;
const contactToken = (): string => `hcct_${randomBytes(32).toString('base64url')}`;
const created = '2025-01-02T03:04:05.678Z';

function delivery(overrides: Partial<Delivery> = {}): Delivery {
  return { to: 'alice@example.com', channel: 'email', kind: 'ACCOUNT_ACTIVATION', token: activationToken(), created, ...overrides };
}

/** Every file path under a directory, relative to it. */
async function tree(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name).slice(dir.length + 1))
    .sort();
}

describe('FileMailboxDelivery', () => {
  let dataDir: string;
  let mailbox: FileMailboxDelivery;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mailbox-'));
    mailbox = new FileMailboxDelivery(dataDir);
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('appends one JSON line {to, channel, kind, token, created} per delivery, in that field order', async () => {
    const first = delivery();
    const second = delivery({ kind: 'CONTACT_CHANGE', token: contactToken() });
    await mailbox.deliver(first);
    await mailbox.deliver(second);

    const raw = readFileSync(join(dataDir, 'mailbox', 'alice@example.com.jsonl'), 'utf8');
    const expected = (d: Delivery) => `{"to":"${d.to}","channel":"${d.channel}","kind":"${d.kind}","token":"${d.token}","created":"${d.created}"}`;
    expect(raw).toBe(`${expected(first)}\n${expected(second)}\n`);
    expect(await readMailbox(dataDir, 'alice@example.com')).toEqual([first, second]);
    expect(mailbox.name).toBe('file-mailbox');
  });

  it('keeps only the delivery fields, whatever else the object carries', async () => {
    const extra = { ...delivery(), secret_extra: 'x', password: 'p' } as Delivery;
    await mailbox.deliver(extra);
    const [line] = readFileSync(join(dataDir, 'mailbox', 'alice@example.com.jsonl'), 'utf8').split('\n');
    expect(Object.keys(JSON.parse(line!))).toEqual(['to', 'channel', 'kind', 'token', 'created']);
  });

  it('turns recipients into safe, lowercase file names', async () => {
    expect(mailboxName('Alice+Tag@Example.COM')).toBe('alice+tag@example.com');
    expect(mailboxName('+1 (555) 010-9999')).toBe('+1__555__010-9999');
    expect(mailboxName('jürgen@exämple.de')).toBe('j_rgen@ex_mple.de');
    expect(mailboxName('a/b\\c\0d')).toBe('a_b_c_d');

    const sms = delivery({ to: '+15550109999', channel: 'sms' });
    await mailbox.deliver(sms);
    await mailbox.deliver(delivery({ to: 'Bob@Example.com' }));
    expect(await tree(join(dataDir, 'mailbox'))).toEqual(['+15550109999.jsonl', 'bob@example.com.jsonl']);
    expect(await readMailbox(dataDir, '+15550109999')).toEqual([sms]);
    // The same mailbox whatever the case of the address.
    expect(await readMailbox(dataDir, 'BOB@example.com')).toHaveLength(1);
  });

  it('never writes outside the mailbox directory and refuses unusable names', async () => {
    const attempts = ['../x', '../../escaped', '..\\..\\x', '/etc/passwd', 'a/../../b', './..', '%2e%2e%2fx', '....//'];
    for (const to of attempts) await mailbox.deliver(delivery({ to }));
    const files = await tree(dataDir);
    expect(files.every((f) => f.startsWith(`mailbox${'/'}`) && f.split('/').length === 2)).toBe(true);
    expect(files).toHaveLength(attempts.length);
    expect(files).toContain('mailbox/.._x.jsonl');

    for (const to of ['', '.', '..', 'x'.repeat(201)]) {
      await expect(mailbox.deliver(delivery({ to }))).rejects.toBeInstanceOf(InvalidDeliveryError);
    }
    await expect(readMailbox(dataDir, '..')).rejects.toBeInstanceOf(InvalidDeliveryError);
    await mailbox.deliver(delivery({ to: 'x'.repeat(200) }));
    expect(await readMailbox(dataDir, 'x'.repeat(200))).toHaveLength(1);
    expect(await tree(dataDir)).toHaveLength(attempts.length + 1);
  });

  it('refuses a delivery with a bad channel or an empty token', async () => {
    await expect(mailbox.deliver(delivery({ channel: 'fax' as Delivery['channel'] }))).rejects.toBeInstanceOf(InvalidDeliveryError);
    await expect(mailbox.deliver(delivery({ token: '' }))).rejects.toBeInstanceOf(InvalidDeliveryError);
    expect(await readMailbox(dataDir, 'alice@example.com')).toEqual([]);
  });

  it('keeps 50 concurrent deliveries to one recipient as 50 intact lines', async () => {
    const sent = Array.from({ length: 50 }, (_, i) => delivery({ to: 'Carol@Example.com', token: `${activationToken()}${'z'.repeat(i * 20)}` }));
    // Two adapter instances on the same directory, as two modules (or processes) would have.
    const other = new FileMailboxDelivery(dataDir);
    await Promise.all(sent.map((d, i) => (i % 2 === 0 ? mailbox : other).deliver(d)));

    const raw = readFileSync(join(dataDir, 'mailbox', 'carol@example.com.jsonl'), 'utf8');
    const lines = raw.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(50);
    const received = lines.map((l) => JSON.parse(l) as Delivery);
    expect(received.map((d) => d.token).sort()).toEqual(sent.map((d) => d.token).sort());
  });

  (process.platform === 'win32' ? it.skip : it)('creates the directory 0700 and the files 0600', async () => {
    const old = process.umask(0o000);
    try {
      await mailbox.deliver(delivery());
    } finally {
      process.umask(old);
    }
    expect(statSync(join(dataDir, 'mailbox')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'mailbox', 'alice@example.com.jsonl')).mode & 0o777).toBe(0o600);
  });

  (process.platform === 'win32' ? it.skip : it)('tightens an existing file to 0600 and refuses a planted symlink', async () => {
    await fs.mkdir(join(dataDir, 'mailbox'), { mode: 0o755 });
    writeFileSync(join(dataDir, 'mailbox', 'dave@example.com.jsonl'), '', { mode: 0o644 });
    await mailbox.deliver(delivery({ to: 'dave@example.com' }));
    expect(statSync(join(dataDir, 'mailbox')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'mailbox', 'dave@example.com.jsonl')).mode & 0o777).toBe(0o600);

    const outside = join(dataDir, 'outside.txt');
    writeFileSync(outside, 'untouched');
    symlinkSync(outside, join(dataDir, 'mailbox', 'eve@example.com.jsonl'));
    await expect(mailbox.deliver(delivery({ to: 'eve@example.com' }))).rejects.toBeInstanceOf(InvalidDeliveryError);
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
  });

  it('recreates the mailbox directory if it disappears', async () => {
    await mailbox.deliver(delivery());
    rmSync(join(dataDir, 'mailbox'), { recursive: true });
    await mailbox.deliver(delivery());
    expect(await readMailbox(dataDir, 'alice@example.com')).toHaveLength(1);
  });

  it('reads an absent mailbox as empty', async () => {
    expect(await readMailbox(dataDir, 'nobody@example.com')).toEqual([]);
  });
});

interface Received {
  from: string | false;
  rcptTo: string[];
  raw: string;
  headers: string;
  body: string;
}

interface TestSmtpServer {
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

async function startSmtpServer(options: SMTPServerOptions = {}): Promise<TestSmtpServer> {
  const received: Received[] = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 1000,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const split = raw.indexOf('\r\n\r\n');
        received.push({
          from: session.envelope.mailFrom === false ? false : session.envelope.mailFrom.address,
          rcptTo: session.envelope.rcptTo.map((a) => a.address),
          raw,
          headers: raw.slice(0, split),
          body: raw.slice(split + 4),
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function header(headers: string, name: string): string | undefined {
  const unfolded = headers.replace(/\r\n[ \t]+/g, ' ');
  const line = unfolded.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

describe('SmtpDelivery and the composite', () => {
  let smtp: TestSmtpServer;
  let authSmtp: TestSmtpServer;
  let rejectingSmtp: TestSmtpServer;
  const logins: Array<{ username?: string; password?: string }> = [];
  let dataDir: string;
  let consoleSpies: jest.SpyInstance[];

  beforeAll(async () => {
    smtp = await startSmtpServer();
    authSmtp = await startSmtpServer({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        logins.push({ username: auth.username, password: auth.password });
        if (auth.username === 'mailer@platform' && auth.password === 'p@ss:w/rd') callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
    });
    rejectingSmtp = await startSmtpServer({
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith('blocked')) {
          const error = new Error('Mailbox unavailable') as Error & { responseCode: number };
          error.responseCode = 550;
          callback(error);
        } else callback();
      },
    });
  });
  afterAll(async () => {
    await Promise.all([smtp?.close(), authSmtp?.close(), rejectingSmtp?.close()]);
  });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'smtp-mailbox-'));
    smtp.received.length = 0;
    consoleSpies = (['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((m) => jest.spyOn(console, m));
  });
  afterEach(() => {
    // No adapter writes to the console, let alone a token.
    for (const spy of consoleSpies) {
      expect(spy).not.toHaveBeenCalled();
      spy.mockRestore();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends an activation email with the token in the body to the right recipient', async () => {
    const adapter = new SmtpDelivery(smtp.url);
    const d = delivery({ to: 'Alice@Example.com' });
    await adapter.deliver(d);
    await adapter.close();

    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    // Domains are case-insensitive; the transport may normalise them.
    expect(mail!.rcptTo.map((a) => a.toLowerCase())).toEqual(['alice@example.com']);
    expect(mail!.from).toBe(DEFAULT_FROM);
    expect(header(mail!.headers, 'To')!.toLowerCase()).toBe('alice@example.com');
    expect(header(mail!.headers, 'From')).toBe(DEFAULT_FROM);
    expect(header(mail!.headers, 'Subject')).toBe('Activate your account');
    expect(header(mail!.headers, 'Content-Type')).toMatch(/^text\/plain/);
    expect(mail!.body).toContain(d.token);
    expect(mail!.body).toContain('24 hours');
    expect(new Date(header(mail!.headers, 'Date')!).toISOString()).toBe('2025-01-02T03:04:05.000Z');
    expect(adapter.name).toBe('smtp');
  });

  it('sends a contact-change email from the configured sender', async () => {
    const adapter = new SmtpDelivery(smtp.url, { from: 'identity@example.org' });
    const d = delivery({ to: 'new@example.com', kind: 'CONTACT_CHANGE', token: contactToken() });
    await adapter.deliver(d);

    const [mail] = smtp.received;
    expect(mail!.rcptTo).toEqual(['new@example.com']);
    expect(mail!.from).toBe('identity@example.org');
    expect(header(mail!.headers, 'Subject')).toBe('Confirm your new contact');
    expect(mail!.body).toContain(d.token);
  });

  it('refuses sms, recipient lists and header tricks without sending anything', async () => {
    const adapter = new SmtpDelivery(smtp.url);
    await expect(adapter.deliver(delivery({ to: '+15550100000', channel: 'sms' }))).rejects.toThrow(/SMS delivery needs an SMS adapter/);
    for (const to of ['a@example.com, b@example.com', 'Eve <eve@example.com>', 'a@example.com\r\nBcc: eve@example.com', 'not-an-address']) {
      await expect(adapter.deliver(delivery({ to }))).rejects.toBeInstanceOf(InvalidDeliveryError);
    }
    expect(smtp.received).toHaveLength(0);
  });

  it('logs in with the percent-encoded credentials of SMTP_URL', async () => {
    const adapter = new SmtpDelivery(`smtp://mailer%40platform:p%40ss%3Aw%2Frd@127.0.0.1:${authSmtp.port}`);
    const d = delivery();
    await adapter.deliver(d);
    expect(logins).toContainEqual({ username: 'mailer@platform', password: 'p@ss:w/rd' });
    expect(authSmtp.received.at(-1)!.body).toContain(d.token);

    const wrong = new SmtpDelivery(`smtp://mailer%40platform:wrong@127.0.0.1:${authSmtp.port}`);
    await expect(wrong.deliver(delivery())).rejects.toBeInstanceOf(DeliveryFailedError);
  });

  it('reports a refused recipient as a DeliveryFailedError that does not carry the token', async () => {
    const adapter = new SmtpDelivery(rejectingSmtp.url);
    const d = delivery({ to: 'blocked@example.com' });
    const error = await adapter.deliver(d).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeliveryFailedError);
    expect((error as Error).message).toMatch(/ACCOUNT_ACTIVATION/);
    expect(JSON.stringify(error)).not.toContain(d.token);
    expect((error as Error).message).not.toContain(d.token);
    expect(String((error as Error).stack)).not.toContain(d.token);
    expect(rejectingSmtp.received).toHaveLength(0);
  });

  it('reports an unreachable server as a DeliveryFailedError', async () => {
    const closed = await startSmtpServer();
    await closed.close();
    const adapter = new SmtpDelivery(`${closed.url}?connectionTimeout=2000`);
    await expect(adapter.deliver(delivery())).rejects.toBeInstanceOf(DeliveryFailedError);
  });

  it('createDeliveryPort: file mailbox without SMTP_URL', async () => {
    for (const smtpUrl of [undefined, '', '  ']) {
      const port = createDeliveryPort({ dataDir, smtpUrl });
      expect(port).toBeInstanceOf(FileMailboxDelivery);
      expect(port.name).toBe('file-mailbox');
    }
    const d = delivery();
    await createDeliveryPort({ dataDir }).deliver(d);
    expect(await readMailbox(dataDir, d.to)).toEqual([d]);
    expect(smtp.received).toHaveLength(0);
  });

  it('createDeliveryPort: with SMTP_URL, email goes over SMTP and sms to the file mailbox', async () => {
    const port = createDeliveryPort({ dataDir, smtpUrl: smtp.url });
    expect(port).toBeInstanceOf(CompositeDelivery);
    expect(port.name).toBe('smtp+file-mailbox');

    const email = delivery({ to: 'frank@example.com' });
    const sms = delivery({ to: '+15550101234', channel: 'sms', kind: 'CONTACT_CHANGE', token: contactToken() });
    await port.deliver(email);
    await port.deliver(sms);

    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.rcptTo).toEqual(['frank@example.com']);
    expect(smtp.received[0]!.body).toContain(email.token);
    expect(smtp.received[0]!.raw).not.toContain(sms.token);
    expect(await readMailbox(dataDir, 'frank@example.com')).toEqual([]);
    expect(await readMailbox(dataDir, '+15550101234')).toEqual([sms]);
    await (port as CompositeDelivery).close();
  });

  it('parses SMTP_URL strictly and never echoes it in errors', () => {
    expect(parseSmtpUrl('smtps://u%40x:s3cr%2Ft@mail.example.com:2465?requireTLS=true&tls.rejectUnauthorized=false&socketTimeout=5000')).toEqual({
      host: 'mail.example.com',
      port: 2465,
      secure: true,
      auth: { user: 'u@x', pass: 's3cr/t' },
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      connectionTimeout: 10000,
      greetingTimeout: 10000,
      socketTimeout: 5000,
    });
    expect(parseSmtpUrl('smtp://[::1]:25?ignoreTLS=true')).toMatchObject({ host: '::1', port: 25, secure: false, ignoreTLS: true });
    for (const bad of [
      'smtp://user:hunter2@host?debug=true',
      'smtp://user:hunter2@host?logger=true',
      'smtp://user:hunter2@host?jsonTransport=true',
      'smtp://user:hunter2@host?ignoreTLS=maybe',
      'smtp://user:hunter2@host/path',
      'http://user:hunter2@host',
      'user:hunter2 not a url',
    ]) {
      expect(() => parseSmtpUrl(bad)).toThrow();
      try {
        parseSmtpUrl(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain('hunter2');
      }
    }
    expect(() => createDeliveryPort({ dataDir, smtpUrl: 'smtp://host?debug=true' })).toThrow(/"debug" is not supported/);
  });
});
