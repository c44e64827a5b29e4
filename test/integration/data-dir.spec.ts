/**
 * DATA_DIR is private (issue 19, item 5): created 0700 with every file 0600 (event log, read models, keys, mailbox),
 * files an earlier version left readable are narrowed, and a directory other users can write is refused at start.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp } from '../support/app';
import { registerTrader } from '../support/traders';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every file under dir with its mode, e.g. { 'events.sqlite': 0o600, 'mailbox/x.jsonl': 0o600 }. */
function modes(dir: string, prefix = ''): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    out[prefix + entry.name] = modeOf(path);
    if (entry.isDirectory()) Object.assign(out, modes(path, `${prefix}${entry.name}/`));
  }
  return out;
}

describe('DATA_DIR permissions', () => {
  let root: string;
  const umask = process.umask();
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'datadir-'));
    process.umask(0o022); // the usual umask, under which SQLite and mkdir would give 0755 / 0644
  });
  afterAll(() => {
    process.umask(umask);
    rmSync(root, { recursive: true, force: true });
  });

  it('creates DATA_DIR 0700 and every file in it 0600: event log, read models, their WAL files, keys, mailbox', async () => {
    const dataDir = join(root, 'fresh', 'data');
    const t = await startTestApp({ DATA_DIR: dataDir });
    try {
      await registerTrader(t); // writes events, projections and a mailbox file
      expect(modeOf(dataDir)).toBe(0o700);
      const files = modes(dataDir);
      expect(Object.keys(files)).toEqual(expect.arrayContaining(['events.sqlite', 'events.sqlite-wal', 'read.sqlite', 'read.sqlite-wal', 'platform.key', 'identity.key', 'mailbox']));
      for (const [name, mode] of Object.entries(files)) {
        expect([name, mode.toString(8)]).toEqual([name, name === 'mailbox' ? '700' : '600']);
      }
    } finally {
      await t.close();
    }
  });

  it('narrows files an earlier version left readable by others, and starts on a 0755 directory', async () => {
    const dataDir = join(root, 'older');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const first = await startTestApp({ DATA_DIR: dataDir });
    await first.close();
    for (const name of readdirSync(dataDir)) if (!statSync(join(dataDir, name)).isDirectory()) chmodSync(join(dataDir, name), 0o644);
    const again = await startTestApp({ DATA_DIR: dataDir });
    try {
      for (const name of ['events.sqlite', 'read.sqlite', 'platform.key']) expect([name, modeOf(join(dataDir, name)).toString(8)]).toEqual([name, '600']);
    } finally {
      await again.close();
    }
  });

  it.each([['777', 0o777], ['775', 0o775], ['1777', 0o1777]])('refuses to start on a DATA_DIR with mode %s, saying what to do', async (_name, mode) => {
    const dataDir = join(root, `open-${mode.toString(8)}`);
    mkdirSync(dataDir);
    chmodSync(dataDir, mode);
    await expect(startTestApp({ DATA_DIR: dataDir })).rejects.toThrow(`DATA_DIR ${dataDir} is writable by other users (mode ${(mode & 0o777).toString(8)})`);
    // Nothing was written into it.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('the server process exits with that message alone on stderr', () => {
    const dataDir = join(root, 'open-server');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o777);
    const ROOT = join(__dirname, '../..');
    const result = spawnSync(process.execPath, ['-r', join(ROOT, 'test/support/audit-ts-hook.js'), join(ROOT, 'src/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', NODE_ENV: 'test' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(`DATA_DIR ${dataDir} is writable by other users (mode 777): they could replace the event log or the keys. Make it private (chmod 700 ${dataDir}) and start again.`);
  }, 90_000);
});
