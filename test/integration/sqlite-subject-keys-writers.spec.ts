/**
 * One node's subject-key file (src/platform/privacy/sqlite-subject-keys.ts) with several connections on it, as
 * issue 48's worker threads will have. A key is made once per subject even when another connection commits one
 * between the read and the insert (the transaction takes the write lock first), and an erasure empties the WAL once
 * the other connections let it, or says that it could not rather than assuming it did.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteSubjectKeyRows } from '../../src/platform/privacy/sqlite-subject-keys';
import type { WrappedKeyRow } from '../../src/platform/privacy/subject-key-rows';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';
import { startModuleWorker } from '../../src/platform/workers/module-worker';

const keyRow = (subject: string): WrappedKeyRow => ({ kid: randomBytes(16).toString('hex'), subject, wrapped: randomBytes(60), created_at: new Date().toISOString() });

describe('subject keys with several connections on one file', () => {
  let dir: string;
  let file: string;
  const closing: Array<{ close(): unknown }> = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'subject-key-writers-'));
    file = join(dir, 'subject-keys.sqlite');
  });
  afterEach(async () => {
    for (const c of closing.splice(0)) await c.close();
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  const rows = (): SqliteSubjectKeyRows => {
    const opened = new SqliteSubjectKeyRows(file);
    closing.push(opened);
    return opened;
  };
  const connection = (): InstanceType<typeof SqliteDatabase> => {
    const opened = new SqliteDatabase(file);
    closing.push(opened);
    return opened;
  };
  const walBytes = (): Buffer => (existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`) : Buffer.alloc(0));
  const warnings = () => jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);

  it("makes a subject's key while another connection tries to commit one between its read and its insert: that one waits", async () => {
    const a = rows();
    const b = rows();
    const other = connection();
    other.pragma('busy_timeout = 0'); // in this thread it cannot wait: it reports being refused instead
    const mine = keyRow('p1');
    const theirs = keyRow('p1');
    let otherRefused: unknown = 'not tried';
    // Right after a's transaction has read that p1 has no key, the other connection writes one.
    const stmt = (a as unknown as { stmt: { current: { get(subject: string): unknown } } }).stmt;
    const current = stmt.current;
    stmt.current = {
      get: (subject) => {
        const found = current.get(subject);
        try {
          other.prepare('INSERT INTO subject_keys (kid, subject, wrapped, created_at) VALUES (?, ?, ?, ?)').run(theirs.kid, theirs.subject, theirs.wrapped, theirs.created_at);
          otherRefused = null;
        } catch (error) {
          otherRefused = (error as { code?: string }).code;
        }
        return found;
      },
    };

    await a.insertFirst([mine]);
    expect(otherRefused).toBe('SQLITE_BUSY');
    expect((await b.currentOf(['p1'])).get('p1')?.kid).toBe(mine.kid);
    // Another connection's insertFirst, later, reads the key made and keeps it.
    await b.insertFirst([keyRow('p1')]);
    expect((await b.currentOf(['p1'])).get('p1')?.kid).toBe(mine.kid);
  });

  it('an erasure with no other connection empties the WAL: the key is in neither file', async () => {
    const a = rows();
    const key = keyRow('p1');
    await a.insertFirst([key]);
    expect(walBytes().includes(key.wrapped)).toBe(true);
    const emitted = warnings();
    expect(await a.erase('p1', 'now')).toEqual({ kids: [key.kid], changes: 1, walTruncated: true });
    expect(walBytes().length).toBe(0);
    expect(readFileSync(file).includes(key.wrapped)).toBe(false);
    expect(emitted).not.toHaveBeenCalled();
  });

  it('an erasure while another connection keeps reading says the WAL was not emptied, after bounded tries', async () => {
    const a = rows();
    const key = keyRow('p1');
    await a.insertFirst([key]);
    const reader = connection();
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM subject_keys').get(); // its snapshot includes the WAL's frames
    const emitted = warnings();

    const started = Date.now();
    expect(await a.erase('p1', 'now')).toEqual({ kids: [key.kid], changes: 1, walTruncated: false });
    expect(Date.now() - started).toBeLessThan(3000); // not the connection's 10 s busy timeout
    expect(walBytes().includes(key.wrapped)).toBe(true);
    expect(emitted).toHaveBeenCalledWith(expect.stringContaining('could not be emptied'), expect.objectContaining({ code: 'SUBJECT_KEYS_WAL_KEPT' }));
    reader.exec('COMMIT');
    // The connection's own statements wait as long as before (the tries' shorter wait was put back).
    expect(a['db'].pragma('busy_timeout', { simple: true })).toBe(10_000);
  });

  it('an erasure while another thread reads for a moment tries again and empties the WAL once it is done', async () => {
    const a = rows();
    const key = keyRow('p1');
    await a.insertFirst([key]);
    const reader = startModuleWorker(join(__dirname, '../support/sqlite-reader.worker'), { filename: file, table: 'subject_keys', holdMs: 150 });
    closing.push({ close: () => reader.terminate() });
    const done = new Promise((resolve) => reader.on('message', (m) => m === 'done' && resolve(m)));
    await new Promise((resolve) => reader.once('message', resolve)); // reading
    const emitted = warnings();

    expect(await a.erase('p1', 'now')).toEqual({ kids: [key.kid], changes: 1, walTruncated: true });
    await done;
    expect(walBytes().length).toBe(0);
    expect(statSync(file).size).toBeGreaterThan(0);
    expect(readFileSync(file).includes(key.wrapped)).toBe(false);
    expect(emitted).not.toHaveBeenCalled();
  });
});
