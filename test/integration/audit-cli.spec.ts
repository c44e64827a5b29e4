/**
 * `npm run audit` as a child process (the CLI's TypeScript run under Node through test/support/audit-ts-hook.js) on
 * COPIES of a real SQLite store that a running server filled and checkpointed: intact, one byte of a middle event's
 * data changed, an event deleted, two events reordered (within a stream, and across streams), the tail cut off
 * before a checkpoint — each named exactly — and export → verify --from-file round trips.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vectors from '../fixtures/audit_vectors.json';
import { startTestApp } from '../support/app';
import { adminHeaders, TEST_ADMIN, until } from '../support/traders';
import { eventCommitment } from '../../src/platform/commitments/commitment';
import type { SignedCheckpoint } from '../../src/modules/audit/domain/checkpoint';
import type { AuditReport } from '../../src/modules/audit/domain/log-verifier';

const ROOT = join(__dirname, '../..');
const HOOK = join(ROOT, 'test/support/audit-ts-hook.js');
const CLI = join(ROOT, 'src/cli/audit.ts');

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], dataDir: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-r', HOOK, CLI, ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

interface Row {
  position: number;
  stream: string;
  revision: number;
  event_id: string;
  type: string;
  occurred_at: string;
  data: string;
  metadata: string;
  event_commitment: string;
  previous_event_commitment: string | null;
}

let work: string;
let original: string;
let checkpointFile: string;
let checkpoint: SignedCheckpoint;
const ledgers: string[] = [];
const stream = (i: number): string => `test-ledger-${ledgers[i]}`;

/** A fresh copy of the server's store in its own DATA_DIR. */
function copyStore(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const suffix of ['', '-wal']) if (existsSync(join(original, `events.sqlite${suffix}`))) copyFileSync(join(original, `events.sqlite${suffix}`), join(dir, `events.sqlite${suffix}`));
  return dir;
}

function withDb<T>(dir: string, fn: (db: Database.Database) => T): T {
  const db = new SqliteDatabase(join(dir, 'events.sqlite'));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const rowsOf = (dir: string, s: string): Row[] => withDb(dir, (db) => db.prepare('SELECT * FROM events WHERE stream = ? ORDER BY revision').all(s) as Row[]);

/** Swaps the global positions of two events (what "reordering the log" is on the SQLite store). */
function swapPositions(db: Database.Database, a: number, b: number): void {
  db.transaction(() => {
    db.prepare('UPDATE events SET position = -1 WHERE position = ?').run(a);
    db.prepare('UPDATE events SET position = ? WHERE position = ?').run(a, b);
    db.prepare('UPDATE events SET position = ? WHERE position = -1').run(b);
  })();
}

/** The block the CLI prints for the first break. */
function firstBreak(out: string): Record<string, string> {
  const block = out.split('the first:\n')[1]?.split('\nfurther breaks:')[0] ?? '';
  return Object.fromEntries(block.split('\n').filter(Boolean).map((l) => [l.trim().split(/\s+/)[0], l.trim().replace(/^\S+\s+/, '')]));
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'audit-cli-'));
  original = join(work, 'server');
  const server = await startTestApp({
    DATA_DIR: original, ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, SEED_MARKETS: 'false', AUDIT_CHECKPOINT_EVERY_EVENTS: '4', AUDIT_CHECKPOINT_INTERVAL_MS: '200',
  });
  try {
    const admin = await adminHeaders(server);
    for (let i = 0; i < 3; i++) ledgers.push((await server.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', payload: { owner: `o${i}` } })).json().ledger_id);
    let last = 0n;
    // Interleaved, so streams cross each other in commit order: round r credits ledger 0, 1 (r < 3) and 2 (r < 2).
    for (let r = 0; r < 5; r++) {
      for (let i = 0; i < 3; i++) {
        if ((i === 1 && r >= 3) || (i === 2 && r >= 2)) continue;
        const credit = await server.app.inject({ method: 'POST', url: `/api/v1/test-ledgers/${ledgers[i]}/credits`, payload: { amount: String(10 * (r + 1)) } });
        last = BigInt(credit.headers['x-position'] as string);
      }
    }
    const latest = await until(
      () => server.app.inject({ method: 'GET', url: '/api/v1/audit/checkpoints/latest', headers: admin }),
      (r) => r.statusCode === 200 && BigInt(r.json().position) >= last,
    );
    checkpoint = latest.json();
    checkpointFile = join(work, 'checkpoint.json');
    writeFileSync(checkpointFile, latest.body);
  } finally {
    await server.close();
  }
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('audit verify on the store', () => {
  it('finds an intact store intact, held against its own checkpoints and an external one, with progress', async () => {
    const dir = copyStore('intact');
    const [all, anchored, one, json] = await Promise.all([
      cli(['verify', '--all'], dir),
      cli(['verify', '--all', '--checkpoint', checkpointFile], dir),
      cli(['verify', '--stream', stream(0)], dir),
      cli(['verify', '--json'], dir),
    ]);
    expect(all.status).toBe(0);
    expect(all.stdout).toContain('INTACT: every event commitment, previous link, position and checkpoint verifies.');
    expect(all.stdout).toMatch(/^checkpoint log position \d+ \(\d+ events, .+\): history up to it intact; Merkle root equal; signature valid with the checkpoint's own key \(not independently trusted\)$/m);
    expect(all.stdout).toMatch(/^Merkle tree head of \d+ events: [0-9a-f]{64}$/m);
    expect(all.stderr).toMatch(/^verify: 100% \((\d+)\/\1 positions\)$/m);
    expect(anchored.status).toBe(0);
    expect(anchored.stdout).toContain(`checkpoint external position ${checkpoint.position} (${checkpoint.event_count} events, ${checkpoint.created_at}, key ${checkpoint.key_id}): history up to it intact; Merkle root equal; signature valid (trusted key)`);
    expect(anchored.stdout).not.toMatch(/not independently trusted/);
    expect(one.status).toBe(0);
    expect(one.stdout).toContain(`read 6 events of 1 stream`);
    const report: AuditReport = JSON.parse(json.stdout);
    expect(report).toMatchObject({ ok: true, scope: { kind: 'all' }, break_count: 0, first_position: '1' });
    expect(report.checkpoints.length).toBeGreaterThanOrEqual(3);
  });

  it('names one changed byte in the data of a middle event: stream, revision, position, recomputed and stored commitment', async () => {
    const dir = copyStore('one-byte');
    const target = rowsOf(dir, stream(0))[2];
    const i = target.data.search(/\d/);
    const changed = target.data.slice(0, i) + String((Number(target.data[i]) + 1) % 10) + target.data.slice(i + 1);
    expect(Buffer.byteLength(changed)).toBe(Buffer.byteLength(target.data));
    withDb(dir, (db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run(changed, target.position));

    const run = await cli(['verify', '--all'], dir);
    expect(run.status).toBe(1);
    const recomputed = eventCommitment({ ...target, revision: BigInt(target.revision), data: JSON.parse(changed), metadata: JSON.parse(target.metadata) });
    expect(firstBreak(run.stdout)).toEqual({
      stream: stream(0), revision: '2', position: String(target.position), event_id: target.event_id,
      problem: "event_commitment: event_commitment does not match the event's content (expected: recomputed, found: stored)", expected: recomputed, found: target.event_commitment,
    });
    // The global chain folds the recomputed commitment: the checkpoints after it no longer match either.
    expect(run.stdout).toMatch(/REWRITTEN/);
    expect((await cli(['verify', '--stream', stream(0)], dir)).stdout).toContain(`revision  2\n  position  ${target.position}`);
    expect((await cli(['verify', '--stream', stream(1)], dir)).status).toBe(0);
  });

  it('names a deleted middle event: its position, then its stream and revision through the broken link', async () => {
    const dir = copyStore('deleted');
    const rows = rowsOf(dir, stream(0));
    const gone = rows[2];
    withDb(dir, (db) => db.prepare('DELETE FROM events WHERE position = ?').run(gone.position));

    const run = await cli(['verify', '--all'], dir);
    expect(run.status).toBe(1);
    expect(firstBreak(run.stdout)).toEqual({
      position: String(gone.position),
      problem: `position_gap: position ${gone.position} is missing (the log goes on at position ${gone.position + 1}): events were removed from the log`,
      expected: String(gone.position), found: String(gone.position + 1),
    });
    expect(run.stdout).toContain(
      `  - position ${rows[3].position}, stream ${stream(0)} revision 3: revision: revision 3 found where revision 2 was expected: revision 2 is missing or out of order (expected/found: the previous link); ` +
        `expected ${rows[1].event_commitment}, found ${gone.event_commitment}`,
    );
  });

  it('names two events of one stream swapped in commit order', async () => {
    const dir = copyStore('reordered');
    const rows = rowsOf(dir, stream(0));
    withDb(dir, (db) => swapPositions(db, rows[2].position, rows[3].position));

    const run = await cli(['verify', '--all'], dir);
    expect(run.status).toBe(1);
    expect(firstBreak(run.stdout)).toMatchObject({
      stream: stream(0), revision: '3', position: String(rows[2].position), event_id: rows[3].event_id,
      problem: 'revision: revision 3 found where revision 2 was expected: revision 2 is missing or out of order (expected/found: the previous link)',
      expected: rows[1].event_commitment, found: rows[2].event_commitment,
    });
  });

  it('names the checkpoint that two swapped events of different streams falsify, with the signed and the recomputed global commitment', async () => {
    const dir = copyStore('cross-reordered');
    // Two neighbours in commit order from different streams (a checkpoint may fall between any two credits): swapping
    // them keeps each stream's own order.
    const twos = rowsOf(dir, stream(2));
    const [a, b] = rowsOf(dir, stream(1))
      .filter((r) => r.revision >= 1)
      .flatMap((r) => twos.filter((t) => t.position === r.position + 1).map((t) => [r, t] as const))[0];
    expect(b.position).toBe(a.position + 1);
    withDb(dir, (db) => swapPositions(db, a.position, b.position));

    const run = await cli(['verify', '--all', '--json'], dir);
    expect(run.status).toBe(1);
    const report: AuditReport = JSON.parse(run.stdout);
    const hit = report.checkpoints.find((c) => c.chain === 'rewritten')!;
    // The first checkpoint at or after the first swapped position: one signed right after `a` covers the swap too.
    expect(BigInt(hit.position)).toBeGreaterThanOrEqual(BigInt(a.position));
    expect(report.checkpoints.filter((c) => BigInt(c.position) < BigInt(a.position)).every((c) => c.chain === 'intact')).toBe(true);
    expect(report.first_break).toMatchObject({ kind: 'checkpoint', position: hit.position, expected: hit.expected, found: hit.found });
    expect(report.first_break!.message).toContain(`log checkpoint at position ${hit.position}: the global chain differs from the signed one: history up to it was rewritten after position ${hit.intact_until}`);
    expect(BigInt(hit.intact_until!)).toBeLessThan(BigInt(a.position));
    expect(report.breaks.every((b) => b.kind === 'checkpoint')).toBe(true);
  });

  it('needs a checkpoint held outside the store to see the tail cut off before it', async () => {
    const dir = copyStore('truncated');
    const end = BigInt(checkpoint.position) - 3n;
    withDb(dir, (db) => db.prepare('DELETE FROM events WHERE position > ?').run(end));

    const alone = await cli(['verify', '--all'], dir);
    expect(alone.status).toBe(0); // what remains is a valid, shorter log: the store cannot vouch for its own end
    const anchored = await cli(['verify', '--all', '--checkpoint', checkpointFile], dir);
    expect(anchored.status).toBe(1);
    expect(firstBreak(anchored.stdout)).toEqual({
      position: checkpoint.position,
      problem: `checkpoint: external checkpoint at position ${checkpoint.position} (${checkpoint.event_count} events) is past the end of the log, which ends at position ${end} after ${end} events: events were removed from the end of the log`,
      expected: checkpoint.global_commitment, found: 'null',
    });
    expect(anchored.stdout).toContain(`checkpoint external position ${checkpoint.position} (${checkpoint.event_count} events, ${checkpoint.created_at}, key ${checkpoint.key_id}): TRUNCATED: the log ends before it; signature valid (trusted key)`);
  });

  it("on the platform's own data directory, holds the checkpoints to the platform's key: a log re-signed with another key fails", async () => {
    const own = copyStore('own-key');
    copyFileSync(join(original, 'audit-signing.key'), join(own, 'audit-signing.key'));
    const trusted = await cli(['verify', '--all'], own);
    expect(trusted.status).toBe(0);
    expect(trusted.stderr).toMatch(/trusting this platform's checkpoint keys \(1:/);
    expect(trusted.stdout).toMatch(/^checkpoint log position \d+ .+: history up to it intact; Merkle root equal; signature valid \(trusted key\)$/m);
    // The same log where the platform's key is another one (a rewrite re-signed everything with a key of its own).
    const other = copyStore('other-key');
    writeFileSync(join(other, 'audit-signing.key'), `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const refused = await cli(['verify', '--all'], other);
    expect(refused.status).toBe(1);
    expect(firstBreak(refused.stdout).problem).toMatch(/not with a trusted key$/);
  });

  it('refuses a checkpoint signed with another key than the one named', async () => {
    const dir = copyStore('keys');
    const run = await cli(['verify', '--all', '--public-key', vectors.checkpoint.public_key], dir);
    expect(run.status).toBe(1);
    expect(firstBreak(run.stdout).problem).toMatch(/^checkpoint: log checkpoint at position \d+: it is signed with key \S+, not with a trusted key$/);
  });
});

describe('audit export and verify --from-file', () => {
  it('round-trips the whole log and one stream, with the external checkpoint', async () => {
    const dir = copyStore('export');
    const file = join(work, 'all.ndjson');
    const exported = await cli(['export', '--all', '--out', file], dir);
    expect(exported.status).toBe(0);
    expect(exported.stderr).toMatch(/^exported (\d+) events of the whole log$/m);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ record: 'header', format: 'platform-audit-export-v1', scope: 'all', store: 'sqlite', dense_positions: true });
    expect(lines[lines.length - 1]).toMatchObject({ record: 'end', events: String(lines.length - 2), last_position: String(lines.length - 2) });
    expect(lines.slice(1, -1).map((l) => l.position)).toEqual(lines.slice(1, -1).map((_, i) => String(i + 1)));

    const [plain, anchored] = await Promise.all([cli(['verify', '--from-file', file], dir), cli(['verify', '--from-file', file, '--checkpoint', checkpointFile], dir)]);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain(`from export file ${file}`);
    expect(anchored.status).toBe(0);
    expect(anchored.stdout).toContain(`checkpoint external position ${checkpoint.position}`);

    const one = await cli(['export', '--stream', stream(1)], dir);
    expect(one.status).toBe(0);
    const oneFile = join(work, 'one.ndjson');
    writeFileSync(oneFile, one.stdout);
    expect(one.stdout.trimEnd().split('\n')).toHaveLength(1 + 4 + 1);
    const again = await cli(['verify', '--from-file', oneFile], join(work, 'nowhere'));
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`stream ${stream(1)}`);
  });

  it('names an edited line, and a file cut short', async () => {
    const dir = copyStore('export-edit');
    const file = join(work, 'edit.ndjson');
    await cli(['export', '--all', '--out', file], dir);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const target = rowsOf(dir, stream(2))[1];
    const at = lines.findIndex((l) => l.includes(`"event_id":"${target.event_id}"`));
    const edited = lines.map((l, i) => (i === at ? l.replace(/"amount":"(\d+)"/, '"amount":"9$1"') : l));
    expect(edited[at]).not.toBe(lines[at]);
    writeFileSync(file, `${edited.join('\n')}\n`);
    const run = await cli(['verify', '--from-file', file], dir);
    expect(run.status).toBe(1);
    expect(firstBreak(run.stdout)).toMatchObject({ stream: stream(2), revision: '1', position: String(target.position), found: target.event_commitment });

    writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n`);
    const cut = await cli(['verify', '--from-file', file], dir);
    expect(cut.status).toBe(1);
    expect(firstBreak(cut.stdout).problem).toBe('export: the export file has no end record: it was cut off');
  });

  it('exports a tampered store as it is, and the file shows the same break', async () => {
    const dir = copyStore('export-tampered');
    const target = rowsOf(dir, stream(1))[2];
    withDb(dir, (db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run(target.data.replace(/"amount":"(\d+)"/, '"amount":"1$1"'), target.position));
    const file = join(work, 'tampered.ndjson');
    const exported = await cli(['export', '--all', '--out', file], dir);
    expect(exported.status).toBe(0);
    expect(exported.stderr).toMatch(/WARNING: they do not verify \(\d+ breaks; run audit verify\)/);
    const [fromStore, fromFile] = await Promise.all([cli(['verify', '--all'], dir), cli(['verify', '--from-file', file], dir)]);
    expect(fromFile.status).toBe(1);
    expect(firstBreak(fromFile.stdout)).toEqual(firstBreak(fromStore.stdout));
    expect(firstBreak(fromFile.stdout)).toMatchObject({ stream: stream(1), revision: '2' });
  });

  it('verifies the independent sample export (test/fixtures/audit_make_vectors.py) under its key', async () => {
    const sample = join(ROOT, 'test/fixtures/audit_export_sample.ndjson');
    const run = await cli(['verify', '--from-file', sample, '--public-key', vectors.checkpoint.public_key], work);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`global commitment at position 4: ${vectors.export_sample.global_commitment}`);
    expect(run.stdout).toContain('checkpoint log position 3 (3 events, 2026-11-22T11:00:00.000Z');
  });
});

describe('usage and unreadable sources', () => {
  it('answers 2 for bad usage and 3 for a store that is not there', async () => {
    const empty = join(work, 'empty');
    mkdirSync(empty, { recursive: true });
    const runs = await Promise.all([
      cli([], empty),
      cli(['export'], empty),
      cli(['verify', '--all', '--stream', 'x'], empty),
      cli(['verify', '--checkpoint', join(work, 'missing.json')], empty),
      cli(['verify', '--stream', 'x', '--checkpoint', checkpointFile], empty),
      cli(['verify', '--all'], empty),
    ]);
    expect(runs.map((r) => r.status)).toEqual([2, 2, 2, 2, 2, 3]);
    expect(runs[0].stderr).toContain('usage: npm run audit -- verify');
    expect(runs[5].stderr).toContain(`no event store at ${join(empty, 'events.sqlite')}`);
    const dir = copyStore('usage');
    const unknown = await cli(['verify', '--stream', 'test-ledger-none'], dir);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('stream test-ledger-none has no events');
  });
});
