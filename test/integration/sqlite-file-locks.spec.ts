/**
 * Making DATA_DIR's files private (src/platform/security/data-dir.ts) must not touch the locks of a database this
 * process has open. Closing any descriptor of a file drops every POSIX lock the process holds on it; SQLite's lock on
 * its shared memory (the "dead man switch" byte) then goes, and the next process to open the database resets the
 * shared memory under this one (a jest worker died of SIGBUS so). The lock is probed from another process, as
 * another node would meet it: python3's fcntl.lockf on byte 128 of the -shm file (SQLite's unix VFS: UNIX_SHM_DMS).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateFile, privateSqliteFiles, StartupRefused } from '../../src/platform/security/data-dir';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';

const PROBE = `
import fcntl, os, sys
try:
    fd = os.open(sys.argv[1], os.O_RDWR)
except FileNotFoundError:
    print("absent")
    sys.exit(0)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 128, 0)
    print("free")
except OSError:
    print("held")
`;

/** Whether some process holds a lock on the shared memory's dead-man-switch byte (what SQLite's connections hold). */
const dmsLock = (shm: string): string => execFileSync('python3', ['-c', PROBE, shm], { encoding: 'utf8' }).trim();

describe('private files and the locks of an open database', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'locks-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the lock an open connection holds on its shared memory', () => {
    const file = join(dir, 'read.sqlite');
    privateSqliteFiles(file);
    const db = new SqliteDatabase(file);
    try {
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE t (x INTEGER)');
      db.prepare('SELECT count(*) FROM t').get();
      expect(dmsLock(`${file}-shm`)).toBe('held');
      // What a second connection's set-up does (the read models' reader, another node in the same process).
      privateSqliteFiles(file);
      expect(dmsLock(`${file}-shm`)).toBe('held');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      db.close();
    }
    // The probe can tell a free byte: the last connection gone, the shared memory is deleted or unlocked.
    expect(['free', 'absent']).toContain(dmsLock(`${file}-shm`));
  });

  it('still narrows an existing file, creates a missing one 0600, and refuses a symbolic link', () => {
    const loose = join(dir, 'loose.sqlite');
    writeFileSync(loose, '', { mode: 0o644 });
    privateFile(loose);
    expect(statSync(loose).mode & 0o777).toBe(0o600);
    const fresh = join(dir, 'fresh.sqlite');
    privateFile(fresh);
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    privateFile(join(dir, 'absent-wal'), { create: false });
    expect(() => statSync(join(dir, 'absent-wal'))).toThrow();

    const elsewhere = join(dir, 'elsewhere');
    writeFileSync(elsewhere, '', { mode: 0o644 });
    symlinkSync(elsewhere, join(dir, 'planted.sqlite'));
    expect(() => privateFile(join(dir, 'planted.sqlite'))).toThrow(StartupRefused);
    expect(() => privateFile(join(dir, 'planted.sqlite'), { create: false })).toThrow(StartupRefused);
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling.sqlite'));
    expect(() => privateFile(join(dir, 'dangling.sqlite'))).toThrow(StartupRefused);
    expect(statSync(elsewhere).mode & 0o777).toBe(0o644);
  });
});
