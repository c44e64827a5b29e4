/**
 * The embedded delivery adapter: every delivery is one JSON line `{to, channel, kind, token, created}` appended to
 * `<dataDir>/mailbox/<recipient>.jsonl`. Developers, tests and single-node operators read tokens from there
 * (readMailbox, or `tail -n1 data/mailbox/alice@example.com.jsonl`).
 *
 * Safety:
 * - The recipient becomes a file name by lowercasing it and replacing every character outside [a-z0-9@._+-] with
 *   '_', so no separator survives; '', '.', '..' and names over 200 characters are refused. The resolved path is
 *   checked to sit directly in the mailbox directory, and the file is opened with O_NOFOLLOW where the platform has
 *   it, so a planted symlink cannot redirect a token elsewhere.
 * - Directory 0700, files 0600: tokens are secrets.
 * - One line is one write(2) on an O_APPEND descriptor (atomic for small writes, also across processes), and
 *   deliveries to one recipient are serialized within the process as well, so lines never interleave.
 * - Each delivery is fsynced before deliver() resolves: a token the caller was told is delivered survives a crash.
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { assertDelivery, InvalidDeliveryError, type Delivery, type DeliveryPort } from './delivery.port';

export const MAILBOX_DIR = 'mailbox';
const MAX_NAME_LENGTH = 200;
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
// O_NOFOLLOW is undefined on Windows; 0 leaves the flag out there.
const APPEND_FLAGS = fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | (fsConstants.O_NOFOLLOW ?? 0);

/** The mailbox file name (without `.jsonl`) for a recipient; throws InvalidDeliveryError for an unusable one. */
export function mailboxName(recipient: string): string {
  if (typeof recipient !== 'string') throw new InvalidDeliveryError('A mailbox recipient must be a string');
  const name = recipient.toLowerCase().replace(/[^a-z0-9@._+-]/gu, '_');
  if (name.length === 0 || name === '.' || name === '..') throw new InvalidDeliveryError('The recipient is not a usable mailbox name');
  if (name.length > MAX_NAME_LENGTH) throw new InvalidDeliveryError(`The recipient is longer than ${MAX_NAME_LENGTH} characters`);
  return name;
}

/** The mailbox directory under a data directory. */
export function mailboxDir(dataDir: string): string {
  return path.resolve(dataDir, MAILBOX_DIR);
}

/** The absolute path of a recipient's mailbox file; guaranteed to be a direct child of mailboxDir(dataDir). */
export function mailboxPath(dataDir: string, recipient: string): string {
  const dir = mailboxDir(dataDir);
  const file = path.resolve(dir, `${mailboxName(recipient)}.jsonl`);
  if (path.dirname(file) !== dir) throw new InvalidDeliveryError('The recipient is not a usable mailbox name');
  return file;
}

/**
 * The JSON line of a delivery: exactly `{to, channel, kind, token, created}` in that order (then `tenant_uuid` when the
 * delivery names a tenant: an invitation), newline-terminated.
 */
export function mailboxLine(d: Delivery): string {
  return `${JSON.stringify({ to: d.to, channel: d.channel, kind: d.kind, token: d.token, created: d.created, ...(d.tenant_uuid ? { tenant_uuid: d.tenant_uuid } : {}) })}\n`;
}

export class FileMailboxDelivery implements DeliveryPort {
  readonly name = 'file-mailbox';
  private readonly dir: string;
  private dirReady?: Promise<void>;
  /** The tail of the in-process write chain per mailbox file. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly dataDir: string) {
    if (typeof dataDir !== 'string' || dataDir.length === 0) throw new Error('FileMailboxDelivery needs a data directory');
    this.dir = mailboxDir(dataDir);
  }

  async deliver(d: Delivery): Promise<void> {
    assertDelivery(d);
    const file = mailboxPath(this.dataDir, d.to);
    const line = Buffer.from(mailboxLine(d), 'utf8');
    await this.ensureDir();
    const previous = this.queues.get(file) ?? Promise.resolve();
    const mine = previous.then(() => this.append(file, line));
    const tail = mine.catch(() => undefined);
    this.queues.set(file, tail);
    try {
      await mine;
    } finally {
      if (this.queues.get(file) === tail) this.queues.delete(file);
    }
  }

  private async append(file: string, line: Buffer): Promise<void> {
    try {
      await appendLine(file, line);
    } catch (error) {
      // The mailbox directory was removed after it was first created: create it again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.dirReady = undefined;
      await this.ensureDir();
      await appendLine(file, line);
    }
  }

  private ensureDir(): Promise<void> {
    if (!this.dirReady) {
      this.dirReady = (async () => {
        await fs.mkdir(this.dir, { recursive: true, mode: DIR_MODE });
        // mkdir's mode is masked by the umask and ignored for an existing directory: set it explicitly.
        await fs.chmod(this.dir, DIR_MODE);
      })();
      this.dirReady.catch(() => (this.dirReady = undefined));
    }
    return this.dirReady;
  }
}

async function appendLine(file: string, line: Buffer): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, APPEND_FLAGS, FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new InvalidDeliveryError('The mailbox file is a symbolic link; refusing to write');
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new InvalidDeliveryError('The mailbox path is not a regular file');
    if ((stat.mode & 0o777) !== FILE_MODE) await handle.chmod(FILE_MODE);
    const { bytesWritten } = await handle.write(line, 0, line.length);
    if (bytesWritten !== line.length) throw new Error('Short write to the mailbox file');
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Every delivery in a recipient's mailbox, oldest first; [] when the mailbox does not exist. Used by tests and
 * documented in the README (the latest token is the last entry).
 */
export async function readMailbox(dataDir: string, recipient: string): Promise<Delivery[]> {
  let text: string;
  try {
    text = await fs.readFile(mailboxPath(dataDir, recipient), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Delivery);
}
