/**
 * `npm run audit` as a child process (the CLI's TypeScript run under Node through test/support/audit-ts-hook.js) on
 * COPIES of a real SQLite store that a running server filled and checkpointed: intact, one byte of a middle event's
 * data changed, an event deleted, two events reordered (within a stream, and across streams), the tail cut off
 * before a checkpoint — each named exactly — and export → verify --from-file round trips. `prove` on copies of the
 * same store and its read-model database (the audit-merkle tree) answers exactly what the proof routes answered the
 * running server, and `verify-proof` holds on it and names what a tampered proof fails.
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
import { signCheckpointV1, signingKeyFromSeed, type SignedCheckpoint } from '../../src/modules/audit/domain/checkpoint';
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
/** What the proof routes answered the running server (bodies as sent), and the event and checkpoints they name. */
let httpInclusion: string;
let httpConsistency: string;
let provenEvent: string;
let firstCheckpoint: SignedCheckpoint;
/** The newest event of the log (the last checkpoint's own): no checkpoint covers it. */
let uncoveredEvent: string;
const ledgers: string[] = [];
const stream = (i: number): string => `test-ledger-${ledgers[i]}`;

/** A fresh copy of the server's store in its own DATA_DIR (with `readModels`, its read-model database too). */
function copyStore(name: string, readModels = false): string {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const file of readModels ? ['events.sqlite', 'read.sqlite'] : ['events.sqlite']) {
    for (const suffix of ['', '-wal']) if (existsSync(join(original, `${file}${suffix}`))) copyFileSync(join(original, `${file}${suffix}`), join(dir, `${file}${suffix}`));
  }
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

    // The proofs the routes answer, for `prove` to answer the same offline. The newest event of the log is the last
    // checkpoint's own (checkpoints do not cover each other): once the route finds it uncovered (409, retryable), the
    // tree has reached the log's head, and a log at rest stays there.
    const get = (url: string) => server.app.inject({ method: 'GET', url, headers: admin });
    const heads = (await get('/api/v1/audit/streams/audit-checkpoints/events?limit=1000')).json().items;
    firstCheckpoint = heads[0].data;
    uncoveredEvent = heads[heads.length - 1].event_id;
    expect(heads[heads.length - 1].data).toEqual(checkpoint);
    await until(
      () => get(`/api/v1/audit/proofs/inclusion?event_id=${uncoveredEvent}`),
      (r) => r.statusCode === 409 && r.json().error.retryable === true,
    );
    provenEvent = (await get(`/api/v1/audit/streams/${stream(0)}/events`)).json().items[2].event_id;
    const inclusion = await get(`/api/v1/audit/proofs/inclusion?event_id=${provenEvent}&tree_size=${checkpoint.event_count}`);
    expect(inclusion.statusCode).toBe(200);
    httpInclusion = inclusion.body;
    const consistency = await get(`/api/v1/audit/proofs/consistency?first=${firstCheckpoint.event_count}&second=${checkpoint.event_count}`);
    expect(consistency.statusCode).toBe(200);
    httpConsistency = consistency.body;
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
    // The export carries the v2 checkpoints as they are in the log, and their tree heads recompute from the file.
    const exportedCheckpoints = lines.filter((l) => l.record === 'event' && l.stream === 'audit-checkpoints').map((l) => l.data);
    expect(exportedCheckpoints.length).toBeGreaterThan(0);
    expect(exportedCheckpoints.every((cp) => cp.alg === 'audit-checkpoint-v2' && cp.tree_size === cp.event_count && /^[0-9a-f]{64}$/.test(cp.root_hash))).toBe(true);
    expect(plain.stdout).toMatch(/^checkpoint log position \d+ .+: history up to it intact; Merkle root equal; /m);
    expect(plain.stdout).not.toMatch(/Merkle root DIFFERS/);

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
    // A v1 checkpoint (the sample predates the tree) verifies, with no tree head to recompute.
    expect(run.stdout).toMatch(/^checkpoint log position 3 .+: history up to it intact; v1, no tree head; signature valid \(trusted key\)$/m);
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

describe('audit prove and verify-proof', () => {
  const flipped = (h: string): string => (h[0] === '0' ? '1' : '0') + h.slice(1);
  /** Writes `proof` (an object) to a file of its own and runs verify-proof on it. */
  let files = 0;
  const verifyProof = (proof: object, ...args: string[]): Promise<Run> => {
    const file = join(work, `proof-${++files}.json`);
    writeFileSync(file, JSON.stringify(proof));
    return cli(['verify-proof', file, ...args], work);
  };
  const failed = (run: Run): string[] => run.stdout.match(/^DOES NOT HOLD: \d+ checks? failed: (.+)$/m)?.[1].split(', ') ?? [];

  it('proves an event covered by a checkpoint exactly as the inclusion route did, and verify-proof holds on the file', async () => {
    const dir = copyStore('prove', true);
    const file = join(work, 'inclusion.json');
    const [named, latest] = await Promise.all([
      cli(['prove', '--event', provenEvent, '--tree-size', checkpoint.event_count], dir),
      cli(['prove', '--event', provenEvent, '--out', file], dir),
    ]);
    expect([named.status, named.stderr]).toEqual([0, expect.stringContaining(`the inclusion proof of event ${provenEvent}`)]);
    expect(named.stdout).toBe(`${httpInclusion}\n`);
    expect(latest.status).toBe(0);
    expect(latest.stdout).toBe('');
    expect(latest.stderr).toContain(`wrote the inclusion proof of event ${provenEvent} (leaf ${JSON.parse(httpInclusion).leaf_index}) in the tree of checkpoint tree_size ${checkpoint.event_count} to ${file}`);
    // Without --tree-size: the newest checkpoint, which at rest is the one the route was asked for.
    expect(readFileSync(file, 'utf8')).toBe(`${httpInclusion}\n`);

    const [own, trusted] = await Promise.all([cli(['verify-proof', file], work), cli(['verify-proof', file, '--public-key', checkpoint.public_key], work)]);
    expect(own.status).toBe(0);
    expect(own.stdout).toContain(`audit verify-proof: inclusion proof of event ${provenEvent}`);
    expect(own.stdout).toContain("ok    checkpoint signature: valid with the checkpoint's own key (not independently trusted");
    expect(own.stdout).toMatch(/^ {2}ok {4}audit_path: \d+ hash(es)? lead from the leaf of event_commitment/m);
    expect(own.stdout).toMatch(new RegExp(`^HOLDS: event_commitment [0-9a-f]{64} is leaf \\d+ of the log's first ${checkpoint.event_count} events`, 'm'));
    expect(own.stdout).not.toMatch(/FAIL/);
    expect(trusted.status).toBe(0);
    expect(trusted.stdout).toContain('ok    checkpoint signature: valid (trusted key)');
  });

  it('names what a tampered inclusion proof fails: a path element, event_commitment, the checkpoint root_hash, the signature, the unsigned members', async () => {
    const p = JSON.parse(httpInclusion);
    const cp = p.checkpoint;
    // A signature of the right shape that is not the checkpoint's (a character in the middle changed).
    const sig = cp.signature.slice(0, 10) + (cp.signature[10] === 'A' ? 'B' : 'A') + cp.signature.slice(11);
    const runs = await Promise.all([
      verifyProof({ ...p, audit_path: [flipped(p.audit_path[0]), ...p.audit_path.slice(1)] }),
      verifyProof({ ...p, event_commitment: flipped(p.event_commitment) }),
      verifyProof({ ...p, checkpoint: { ...cp, root_hash: flipped(cp.root_hash) } }),
      verifyProof({ ...p, checkpoint: { ...cp, signature: sig } }),
      verifyProof({ ...p, root_hash: flipped(p.root_hash), tree_size: String(Number(p.tree_size) + 1), leaf_hash: flipped(p.leaf_hash) }),
      verifyProof({ ...p, leaf_index: String(Number(p.leaf_index) + 1) }),
      verifyProof({ ...p, audit_path: p.audit_path.slice(1) }),
      verifyProof({ ...p, checkpoint: { ...cp, alg: 'audit-checkpoint-v1' } }),
      // A genuine v1 checkpoint (signed, but no tree head): no proof holds against it.
      verifyProof({ ...p, checkpoint: signCheckpointV1({ position: BigInt(cp.position), event_count: BigInt(cp.event_count), global_commitment: cp.global_commitment, created_at: cp.created_at }, signingKeyFromSeed(randomBytes(32))) }),
    ]);
    expect(runs.map((r) => r.status)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(runs.map(failed)).toEqual([
      ['audit_path'],
      ['leaf_hash', 'audit_path'],
      ['checkpoint signature', 'root_hash', 'audit_path'],
      ['checkpoint signature'],
      ['leaf_hash', 'tree_size', 'root_hash'],
      ['audit_path'],
      ['audit_path'],
      ['checkpoint'],
      ['checkpoint'],
    ]);
    expect(runs[0].stdout).toContain(`FAIL  audit_path: does NOT lead from the leaf of event_commitment (leaf ${p.leaf_index}) to the checkpoint's root_hash ${cp.root_hash} in a tree of ${cp.tree_size} leaves`);
    expect(runs[1].stdout).toContain(`FAIL  leaf_hash: "${p.leaf_hash}" in the file, but the leaf hash of event_commitment is `);
    expect(runs[2].stdout).toContain('FAIL  checkpoint signature: BAD: the signature does not verify over the signed members');
    expect(runs[2].stdout).toContain(`FAIL  root_hash: "${p.root_hash}" in the file, but the checkpoint signs ${flipped(cp.root_hash)}`);
    // The tree head is the checkpoint's, never the answer's: the path still holds against it.
    expect(runs[4].stdout).toMatch(/^ {2}ok {4}audit_path: /m);
    expect(runs[4].stdout).toContain(`FAIL  tree_size: "${Number(p.tree_size) + 1}" in the file, but the checkpoint signs ${cp.tree_size}`);
    // A v1-shaped statement: not a v2 checkpoint (its extra members are refused), so there is no head to check against.
    expect(runs[7].stdout).toContain('FAIL  checkpoint: not a signed checkpoint: a audit-checkpoint-v1 checkpoint signs no tree head');
    expect(runs[7].stdout).toContain('skip  audit_path: not checked');
    expect(runs[8].stdout).toContain(`FAIL  checkpoint: audit-checkpoint-v1 at position ${cp.position}: it signs no Merkle tree head`);
    expect(runs[8].stdout).toContain("ok    checkpoint signature: valid with the checkpoint's own key");
  });

  it('fails a proof whose checkpoint is signed with another key than the one named', async () => {
    const run = await verifyProof(JSON.parse(httpInclusion), '--public-key', vectors.checkpoint.public_key);
    expect(run.status).toBe(1);
    expect(failed(run)).toEqual(['checkpoint signature']);
    expect(run.stdout).toContain(`FAIL  checkpoint signature: signed with key ${checkpoint.key_id} (public_key ${checkpoint.public_key}), not with a key given with --public-key`);
    // The named key as a PEM file will do too (the --public-key parsing of verify).
    const pem = join(work, 'platform-key.pem');
    const { createPublicKey } = await import('node:crypto');
    writeFileSync(pem, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: checkpoint.public_key }, format: 'jwk' }).export({ type: 'spki', format: 'pem' }));
    expect((await verifyProof(JSON.parse(httpInclusion), '--public-key', pem)).status).toBe(0);
  });

  it('proves that the newest checkpoint extends the first exactly as the consistency route did; verify-proof holds, and fails tampered', async () => {
    const dir = copyStore('prove-consistency', true);
    const file = join(work, 'consistency.json');
    const run = await cli(['prove', '--first', firstCheckpoint.event_count, '--second', checkpoint.event_count, '--out', file], dir);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(`wrote the consistency proof from tree_size ${firstCheckpoint.event_count} to tree_size ${checkpoint.event_count} to ${file}`);
    expect(readFileSync(file, 'utf8')).toBe(`${httpConsistency}\n`);
    const held = await cli(['verify-proof', file, '--public-key', checkpoint.public_key], work);
    expect(held.status).toBe(0);
    expect(held.stdout).toContain(`HOLDS: the log of ${checkpoint.event_count} events (checkpoint at position ${checkpoint.position}) extends the log of ${firstCheckpoint.event_count} events`);

    const p = JSON.parse(httpConsistency);
    const runs = await Promise.all([
      verifyProof({ ...p, consistency_path: [flipped(p.consistency_path[0]), ...p.consistency_path.slice(1)] }),
      verifyProof({ ...p, first_root: flipped(p.first_root) }),
      verifyProof({ ...p, second_checkpoint: { ...p.second_checkpoint, root_hash: flipped(p.second_checkpoint.root_hash) } }),
      verifyProof({ ...p, first_checkpoint: p.second_checkpoint, second_checkpoint: p.first_checkpoint, first: p.second, second: p.first, first_root: p.second_root, second_root: p.first_root }),
      verifyProof(p, '--public-key', vectors.checkpoint.public_key),
    ]);
    expect(runs.map((r) => r.status)).toEqual([1, 1, 1, 1, 1]);
    expect(runs.map(failed)).toEqual([
      ['consistency_path'],
      ['first_root'],
      ['second_checkpoint signature', 'second_root', 'consistency_path'],
      ['consistency_path'],
      ['first_checkpoint signature', 'second_checkpoint signature'],
    ]);
    expect(runs[0].stdout).toContain(`FAIL  consistency_path: does NOT prove that the tree of ${p.first} leaves`);
    expect(runs[3].stdout).toContain(`FAIL  consistency_path: the first checkpoint's tree (${p.second} leaves) is larger than the second's (${p.first})`);
  });

  it('says why there is no proof: not covered yet (5), unknown event or tree size or a tree without the event (4), the tree behind the log (5), no tree (3)', async () => {
    const dir = copyStore('prove-errors', true);
    const unknown = 'f'.repeat(32);
    const [uncovered, noEvent, noSize, outside, noPair] = await Promise.all([
      cli(['prove', '--event', uncoveredEvent], dir),
      cli(['prove', '--event', unknown], dir),
      cli(['prove', '--event', provenEvent, '--tree-size', '999999'], dir),
      cli(['prove', '--event', uncoveredEvent, '--tree-size', checkpoint.event_count], dir),
      cli(['prove', '--first', firstCheckpoint.event_count, '--second', '999999'], dir),
    ]);
    expect([uncovered.status, uncovered.stdout]).toEqual([5, '']);
    expect(uncovered.stderr).toMatch(new RegExp(`^audit prove: Event ${uncoveredEvent} \\(leaf \\d+\\) is not covered by a signed checkpoint yet`, 'm'));
    expect(uncovered.stderr).toContain('audit prove: The running platform signs it; run this again then.');
    expect(noEvent.status).toBe(4);
    expect(noEvent.stderr).toContain(`audit prove: event ${unknown}: No event with this event_id in the log.`);
    expect(noSize.status).toBe(4);
    expect(noSize.stderr).toContain('audit prove: No signed checkpoint has tree_size 999999.');
    expect(noSize.stderr).toContain(`audit prove: the newest signed checkpoint the tree holds has tree_size ${checkpoint.event_count}`);
    expect(outside.status).toBe(4);
    expect(outside.stderr).toContain(`the tree of checkpoint tree_size ${checkpoint.event_count} does not contain it`);
    expect(noPair.status).toBe(4);
    expect(noPair.stderr).toContain('No signed checkpoint has tree_size 999999.');

    // The tree behind the log (its projection a few events back): prove does not wait, and says so.
    const behind = copyStore('prove-behind', true);
    const db = new SqliteDatabase(join(behind, 'read.sqlite'));
    const [{ position }] = db.prepare("SELECT position FROM projection_checkpoints WHERE name = 'audit-merkle'").all() as Array<{ position: string }>;
    db.prepare("UPDATE projection_checkpoints SET position = ? WHERE name = 'audit-merkle'").run(String(BigInt(position) - 3n));
    db.close();
    const [late, lateSize, lateUncovered] = await Promise.all([
      cli(['prove', '--event', unknown], behind),
      cli(['prove', '--event', provenEvent, '--tree-size', '999999'], behind),
      cli(['prove', '--event', uncoveredEvent], behind),
    ]);
    expect(late.status).toBe(5);
    expect(late.stderr).toContain(`audit prove: the audit-merkle projection is behind the log: it has applied the log up to position ${BigInt(position) - 3n}, the log's head is position ${position}. Event ${unknown} may be in the part it has not reached.`);
    expect(late.stderr).toContain('npm run projections -- list shows its position and lag; npm run projections -- rebuild audit-merkle');
    expect(lateSize.status).toBe(5);
    expect(lateSize.stderr).toContain('A checkpoint of tree_size 999999 may be in the part it has not reached.');
    expect(lateUncovered.status).toBe(5);
    expect(lateUncovered.stderr).toContain('A checkpoint covering the event may be in the part it has not reached');

    const noTree = copyStore('prove-no-tree');
    const missing = await cli(['prove', '--event', provenEvent], noTree);
    expect(missing.status).toBe(3);
    expect(missing.stderr).toContain(`audit prove: no read-model database at ${join(noTree, 'read.sqlite')}`);
  });

  it('answers 2 for bad usage of prove and verify-proof', async () => {
    const runs = await Promise.all([
      cli(['prove'], work),
      cli(['prove', '--event', 'xyz'], work),
      cli(['prove', '--first', '8', '--second', '4'], work),
      cli(['prove', '--event', provenEvent, '--first', '4', '--second', '8'], work),
      cli(['prove', '--first', '0', '--second', '4'], work),
      cli(['prove', '--tree-size', '4'], work),
      cli(['prove', '--event', provenEvent, '--all'], work),
      cli(['verify-proof'], work),
      cli(['verify-proof', checkpointFile], work),
      cli(['verify-proof', join(work, 'missing.json')], work),
      cli(['verify-proof', checkpointFile, checkpointFile], work),
      cli(['verify', '--event', provenEvent], work),
      cli(['verify-proof', checkpointFile, '--public-key', 'not-a-key'], work),
    ]);
    expect(runs.map((r) => r.status)).toEqual(runs.map(() => 2));
    expect(runs[0].stderr).toContain('prove needs --event <event_id> [--tree-size <n>], or --first <n> --second <m>');
    expect(runs[0].stderr).toContain('npm run audit -- verify-proof <file.json> [--public-key <base64url|pem-file>]…');
    expect(runs[2].stderr).toContain('--first (8) must not be larger than --second (4)');
    expect(runs[6].stderr).toContain('--all is not an option of prove');
    expect(runs[8].stderr).toContain(`${checkpointFile} is not a proof: neither an inclusion proof`);
  });
});
