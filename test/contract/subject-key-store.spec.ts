/**
 * The subject-key store (src/platform/privacy/subject-keys.ts) on both of its tables: one node's SQLite file and the
 * PostgreSQL tables several nodes share (127.0.0.1:5432; a schema of its own per run). Keys are made once per subject
 * even when nodes race, read by any node, erased for all of them (within the cache lifetime), and a node with another
 * master key is refused before it reads anything.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres.event-store';
import { PostgresSubjectKeyRows } from '../../src/platform/privacy/postgres-subject-keys';
import { subjectKeysInFile } from '../../src/platform/privacy/sqlite-subject-keys';
import { SubjectKeyStore } from '../../src/platform/privacy/subject-keys';
import { StartupRefused } from '../../src/platform/security/data-dir';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';

const pgSchema = `keys_${hex32().slice(0, 12)}`;
const opened: SubjectKeyStore[] = [];

/** Opens a store "node" on the shared place of one test: a file for SQLite, a schema for PostgreSQL. */
type Place = { open(master: Buffer): SubjectKeyStore };
const backends: Array<[string, () => Place]> = [
  [
    'SQLite file',
    () => {
      const file = join(mkdtempSync(join(tmpdir(), 'subject-keys-')), 'subject-keys.sqlite');
      return { open: (master) => remember(subjectKeysInFile(file, master)) };
    },
  ],
  [
    'PostgreSQL',
    () => {
      const schema = `${pgSchema}_${hex32().slice(0, 6)}`;
      schemas.push(schema);
      return { open: (master) => remember(new SubjectKeyStore(new PostgresSubjectKeyRows({ connectionString: TEST_DATABASE_URL, schema }), master)) };
    },
  ],
];
const schemas: string[] = [];
const remember = (s: SubjectKeyStore): SubjectKeyStore => (opened.push(s), s);

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
  const c = new Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  for (const schema of schemas) await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

describe.each(backends)('SubjectKeyStore on %s', (_name, place) => {
  afterEach(() => jest.restoreAllMocks());

  it('makes one key per subject, the same for every node, even when nodes ask for a new subject at once', async () => {
    const here = place();
    const master = randomBytes(32);
    const [a, b, c] = [here.open(master), here.open(master), here.open(master)];
    const subjects = Array.from({ length: 20 }, () => hex32());
    const asked = await Promise.all([a.keysFor(subjects), b.keysFor(subjects), c.keysFor([...subjects].reverse())]);
    for (const subject of subjects) {
      const kid = asked[0].get(subject)!.kid;
      expect(kid).toMatch(/^[0-9a-f]{32}$/);
      expect(asked[1].get(subject)!.kid).toBe(kid);
      expect(asked[2].get(subject)!.kid).toBe(kid);
      expect(asked[1].get(subject)!.key.equals(asked[0].get(subject)!.key)).toBe(true);
    }
    // A later node, nothing cached, reads every key by its kid and names the same current key.
    const d = here.open(master);
    const kids = subjects.map((s) => asked[0].get(s)!.kid);
    const found = await d.keysById(kids);
    for (const subject of subjects) expect(found.get(asked[0].get(subject)!.kid)!.equals(asked[0].get(subject)!.key)).toBe(true);
    expect((await d.keyFor(subjects[3])).kid).toBe(asked[0].get(subjects[3])!.kid);
    // Cached keys are answered at once, without a promise.
    expect(d.keysById(kids)).toBeInstanceOf(Map);
  });

  it('erases every key of a subject for all nodes: at once on the node that erased, within the cache lifetime (5 s) on the others; a later write gets a new key', async () => {
    const here = place();
    const master = randomBytes(32);
    const [a, b] = [here.open(master), here.open(master)];
    const first = await a.keyFor('p1');
    const other = await a.keyFor('p2');
    expect(await b.keyById(first.kid)).toEqual(first.key);
    expect(await a.erase('p1')).toBe(1);
    expect(await a.erase('p1')).toBe(0);
    expect(await a.keyById(first.kid)).toBeNull();
    expect(await a.keyById(other.kid)).toEqual(other.key);
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 1000);
    expect(await b.keyById(first.kid)).toEqual(first.key); // still cached
    jest.spyOn(Date, 'now').mockReturnValue(now + 6000);
    expect(await b.keyById(first.kid)).toBeNull();
    jest.restoreAllMocks();
    const next = await b.keyFor('p1');
    expect(next.kid).not.toBe(first.kid);
    const reopened = here.open(master);
    expect(await reopened.keyById(first.kid)).toBeNull();
    expect(await reopened.keyById(next.kid)).toEqual(next.key);
    expect(await reopened.keyById(hex32())).toBeNull(); // a kid never made
  });

  it('refuses a node whose master key is not the one the keys are wrapped with, before it reads any', async () => {
    const here = place();
    const master = randomBytes(32);
    const a = here.open(master);
    await a.assertMasterKey();
    const key = await a.keyFor('p1');
    await here.open(master).assertMasterKey();
    const wrong = here.open(randomBytes(32));
    await expect(wrong.assertMasterKey()).rejects.toThrow(StartupRefused);
    await expect(wrong.assertMasterKey()).rejects.toThrow(/another master key.*PRIVACY_MASTER_KEY/);
    await expect(wrong.keyById(key.kid)).rejects.toThrow(); // and were it not refused, it could not unwrap
  });

  it('refuses another master key on a store made before the check existed, by unwrapping one of its keys', async () => {
    const here = place();
    const master = randomBytes(32);
    const old = here.open(master);
    await old.keyFor('p1'); // no assertMasterKey: no check recorded
    expect(await old.meta('master_key_check')).toBeNull();
    await expect(here.open(randomBytes(32)).assertMasterKey()).rejects.toThrow(StartupRefused);
    expect(await old.meta('master_key_check')).toBeNull(); // the refused node recorded nothing
    await here.open(master).assertMasterKey();
    expect(await old.meta('master_key_check')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('records a shared secret the first node brings and refuses another one, naming the variable', async () => {
    const here = place();
    const master = randomBytes(32);
    const derived = randomBytes(32);
    await here.open(master).assertSharedSecret('IDENTITY_SECRET_KEY', derived);
    await here.open(master).assertSharedSecret('IDENTITY_SECRET_KEY', Buffer.from(derived));
    await expect(here.open(master).assertSharedSecret('IDENTITY_SECRET_KEY', randomBytes(32))).rejects.toThrow(StartupRefused);
    await expect(here.open(master).assertSharedSecret('IDENTITY_SECRET_KEY', randomBytes(32))).rejects.toThrow(/^IDENTITY_SECRET_KEY is not the one this log was written with/);
    await here.open(master).assertSharedSecret('OTHER_SECRET', randomBytes(32)); // each variable on its own
    const recorded = await here.open(master).meta('secret_check:IDENTITY_SECRET_KEY');
    expect(recorded).toMatch(/^[0-9a-f]{64}$/);
    expect(recorded).not.toContain(derived.toString('hex'));
  });

  it('records a fact once: the first value is kept', async () => {
    const here = place();
    const a = here.open(randomBytes(32));
    expect(await a.meta('log_sealed')).toBeNull();
    await a.setMeta('log_sealed', 'first');
    await a.setMeta('log_sealed', 'second');
    expect(await a.meta('log_sealed')).toBe('first');
  });
});

describe('SubjectKeyStore in a file', () => {
  it('keeps its keys in a file only its owner can read', async () => {
    const d = mkdtempSync(join(tmpdir(), 'subject-keys-'));
    const keys = remember(subjectKeysInFile(join(d, 'subject-keys.sqlite'), randomBytes(32)));
    await keys.keyFor('p1');
    expect(statSync(join(d, 'subject-keys.sqlite')).mode & 0o777).toBe(0o600);
  });
});

describe('SubjectKeyStore beside the PostgreSQL event store', () => {
  it('creates its tables in the event store schema while three nodes create the log there at the same moment', async () => {
    const schema = `${pgSchema}_both`;
    schemas.push(schema);
    const master = randomBytes(32);
    const logs = Array.from({ length: 3 }, () => new PostgresEventStore({ connectionString: TEST_DATABASE_URL, schema }));
    const keys = Array.from({ length: 3 }, () => remember(new SubjectKeyStore(new PostgresSubjectKeyRows({ connectionString: TEST_DATABASE_URL, schema }), master)));
    try {
      const made = await Promise.all([...logs.map((l) => l.headPosition()), ...keys.map((k) => k.keyFor('p1'))]);
      expect(made.slice(0, 3)).toEqual([0n, 0n, 0n]);
      expect(new Set(made.slice(3).map((k) => (k as { kid: string }).kid)).size).toBe(1);
    } finally {
      await Promise.all(logs.map((l) => l.close()));
    }
  });
});
