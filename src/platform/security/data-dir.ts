/**
 * DATA_DIR holds the event log, the read models, the secret keys and the file mailbox: only the platform's own user
 * may read it, and nobody else may write it (another user who can write there could replace the log or the keys).
 * The directory is created 0700 and every file in it 0600; a directory other users can write is refused at start.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, linkSync, lstatSync, mkdirSync, openSync, statSync, unlinkSync, writeFileSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** A start-up refusal the operator must act on: printed as its message alone, without a stack. */
export class StartupRefused extends Error {
  override readonly name = 'StartupRefused';
}

/** Creates DATA_DIR (0700) when missing; refuses one that a group or other users can write. */
export function prepareDataDir(dataDir: string): void {
  let created = false;
  try {
    created = mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE }) !== undefined;
  } catch (error) {
    throw new StartupRefused(`DATA_DIR ${dataDir} cannot be created: ${(error as Error).message}`);
  }
  // mkdir's mode is masked by the umask: set it explicitly on what was just created.
  if (created) chmodSync(dataDir, PRIVATE_DIR_MODE);
  const stat = statSync(dataDir);
  if (!stat.isDirectory()) throw new StartupRefused(`DATA_DIR ${dataDir} is not a directory.`);
  if ((stat.mode & 0o022) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
    throw new StartupRefused(
      `DATA_DIR ${dataDir} is writable by other users (mode ${mode}): they could replace the event log or the keys. ` +
        `Make it private (chmod 700 ${dataDir}) and start again.`,
    );
  }
}

/**
 * Makes `path` a private file: created empty with mode 0600 when missing (SQLite then gives its -wal and -shm files
 * the same mode), narrowed to 0600 when an earlier version left it readable by others. `create: false` only narrows.
 */
export function privateFile(path: string, { create = true } = {}): void {
  const refuseLink = () => new StartupRefused(`${path} is a symbolic link; the platform's files must be regular files in DATA_DIR.`);
  if (create) {
    try {
      // O_EXCL: only a file this call creates is opened (and closed) here. O_NOFOLLOW: no link is followed.
      closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_RDONLY | constants.O_NOFOLLOW, PRIVATE_FILE_MODE));
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw refuseLink();
      if (code !== 'EEXIST') throw error;
    }
  }
  // An existing file is looked at by path, never opened: it may be a database this process has open, and closing a
  // descriptor of it would drop every POSIX lock the process holds on it, SQLite's included (sqlite.org/howtocorrupt.html
  // 2.2). Another process opening the database would then take its shared memory for unused and reset it under this
  // one (a jest worker died of SIGBUS so; a live node could corrupt its WAL index).
  let stat;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !create) return;
    throw error;
  }
  if (stat.isSymbolicLink()) throw refuseLink();
  if ((stat.mode & 0o077) !== 0) chmodSync(path, PRIVATE_FILE_MODE);
}

/** A SQLite database file and its companions (WAL, shared memory, rollback journal), all private. */
export function privateSqliteFiles(filename: string): void {
  privateFile(filename);
  for (const suffix of ['-wal', '-shm', '-journal']) privateFile(`${filename}${suffix}`, { create: false });
}

/**
 * Creates `path` (0600) with `content` unless it exists: written to a temporary file and hard-linked into place, so
 * two processes starting together never see a half-written file and both end up with the one that won.
 */
export function writePrivateFileOnce(path: string, content: string): void {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, content, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  try {
    chmodSync(temp, PRIVATE_FILE_MODE); // the umask cannot add bits, but be explicit about the final mode
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temp);
  }
}
