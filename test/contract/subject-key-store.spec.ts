/**
 * The subject-key store (src/platform/privacy/subject-keys.ts) on both of its tables: one node's SQLite file and the
 * PostgreSQL tables several nodes share (127.0.0.1:5432; a schema of its own per run). Keys are made once per subject
 * even when nodes race, read by any node, erased for all of them (within the cache lifetime), and a node with another
 * master key is refused before it reads anything. The registry of the rotatable keys (key-registry.ts): a node with a
 * key the others do not hold is refused, naming the variable; a rotation done as docs/operations.md 10.1 says is
 * accepted on every node at every step.
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
import { UNSIGNED, type NodeKey } from '../../src/platform/privacy/key-registry';
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
const TRUSTED_VARIABLE: Record<string, string> = { PLATFORM_SECRET_KEY: 'PLATFORM_TRUSTED_SECRET_KEYS', AUDIT_SIGNING_KEY: 'AUDIT_TRUSTED_KEYS', MEMORY_SIGNING_KEY: 'MEMORY_TRUSTED_KEYS' };
/** A node's key of one variable, as ids: its own and those it trusts. */
const nodeKey = (variable: string, current: string, trusted: string[] = []): NodeKey => ({ variable, trustedVariable: TRUSTED_VARIABLE[variable], current, trusted, source: variable });
/** A node starting: opens the store, has its key judged, closes (the rotation tests start many). */
async function startNode(at: Place, master: Buffer, key: NodeKey, check: 'assertNodeKey' | 'assertKeyAmongNodes' = 'assertNodeKey'): Promise<void> {
  const store = at.open(master);
  try {
    await store[check](key);
  } finally {
    await store.close();
  }
}
/** The registry rows of a variable, read by a node of its own. */
async function registryRows(at: Place, master: Buffer, variable: string): Promise<Record<string, string>> {
  const store = at.open(master);
  try {
    return Object.fromEntries(await store.rows.metaStartingWith(`keys:${variable}:`));
  } finally {
    await store.close();
  }
}
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

  it.each(Object.keys(TRUSTED_VARIABLE))('records the key id of %s the first node holds and refuses a node with another, naming the variable; the refused node records nothing', async (variable) => {
    const here = place();
    const master = randomBytes(32);
    await startNode(here, master, nodeKey(variable, 'k1'));
    await startNode(here, master, nodeKey(variable, 'k1'));
    const refused = startNode(here, master, nodeKey(variable, 'k2', ['k1']));
    await expect(refused).rejects.toThrow(StartupRefused);
    await expect(refused).rejects.toThrow(new RegExp(`^${variable} of this node \\(key id k2, from ${variable}\\) is not what the nodes of this log hold \\(they hold key id k1; .*docs/operations.md, 10.1`));
    expect(await registryRows(here, master, variable)).toEqual({ first: 'k1', 'writing:k1': expect.any(String) });
  });

  it('rolls a new key over three nodes as docs/operations.md says: every start accepted at every step, a node left behind refused once the others switched, the old key refused once retired, an unknown key always', async () => {
    const here = place();
    const master = randomBytes(32);
    const start = (current: string, trusted: string[] = []) => startNode(here, master, nodeKey('PLATFORM_SECRET_KEY', current, trusted));
    const refusal = (current: string, trusted: string[], message: RegExp) => expect(start(current, trusted)).rejects.toThrow(message);
    const unknown = /^PLATFORM_SECRET_KEY of this node \(key id k9, from PLATFORM_SECRET_KEY\) is not what the nodes of this log hold/;
    for (let node = 0; node < 3; node++) await start('k1');
    // Switching before the new key is announced: refused, though the node trusts the current key (which anyone may list).
    await refusal('k2', ['k1'], /^PLATFORM_SECRET_KEY of this node \(key id k2, .*list it in PLATFORM_TRUSTED_SECRET_KEYS/);
    // Step 1, announce: every node trusts the next key; a node not yet restarted may still restart as it was.
    for (let node = 0; node < 3; node++) await start('k1', ['k2']);
    await start('k1');
    await refusal('k9', ['k1'], unknown);
    // Step 2, switch: every node holds the next key and trusts the previous one; one still at step 1 may restart.
    await start('k2', ['k1']);
    await start('k1', ['k2']);
    await refusal('k1', [], /^Other nodes of this log hold PLATFORM_SECRET_KEY key id k2 .*which this node neither holds \(it holds key id k1\) nor trusts: list it in PLATFORM_TRUSTED_SECRET_KEYS/);
    for (let node = 0; node < 2; node++) await start('k2', ['k1']);
    // Step 3, retire: the previous key leaves the trusted lists; a node holding it is refused from then on.
    await start('k2');
    await refusal('k1', ['k2'], /^PLATFORM_SECRET_KEY of this node \(key id k1, .*\) was retired by a rotation .*give it what the other nodes hold \(key id k2\)/);
    await start('k2', ['k1']); // a node at step 2 restarting: accepted, and the old key stays retired
    await refusal('k1', ['k2'], /was retired/);
    for (let node = 0; node < 2; node++) await start('k2');
    await refusal('k9', [], unknown);
    await refusal('k9', ['k2'], unknown);
    const rows = await registryRows(here, master, 'PLATFORM_SECRET_KEY');
    expect(Object.keys(rows).sort()).toEqual(['first', 'known:k2', 'retired:k1', 'writing:k1', 'writing:k2']);
    expect(rows).toMatchObject({ first: 'k1', 'known:k2': 'k1', 'retired:k1': expect.stringMatching(/^by k2 at /) });
  });

  it('retires every earlier key a node no longer trusts, back to the first, and never lets a retired key back', async () => {
    const here = place();
    const master = randomBytes(32);
    const start = (current: string, trusted: string[] = []) => startNode(here, master, nodeKey('AUDIT_SIGNING_KEY', current, trusted));
    await start('a1');
    await start('a1', ['a2']);
    await start('a2', ['a1']);
    await start('a2', ['a1', 'a3']); // the previous audit key stays trusted (old checkpoints), the next is announced
    await start('a3', ['a1', 'a2']);
    await start('a3');
    for (const old of ['a1', 'a2']) await expect(start(old, ['a3'])).rejects.toThrow(/^AUDIT_SIGNING_KEY of this node \(key id a\d, from AUDIT_SIGNING_KEY\) was retired/);
    await start('a3', ['a1']); // trusting a retired key again does not revive it
    await expect(start('a1', ['a3'])).rejects.toThrow(/was retired/);
  });

  it('refuses a mixture of nodes signing memory manifests and nodes not; signing starts, or its key changes, as a rotation', async () => {
    const signing = place();
    const master = randomBytes(32);
    const start = (at: Place, current: string, trusted: string[] = []) => startNode(at, master, nodeKey('MEMORY_SIGNING_KEY', current, trusted));
    await start(signing, 'm1');
    await expect(start(signing, UNSIGNED)).rejects.toThrow(/^MEMORY_SIGNING_KEY unset on this node \(manifests UNSIGNED\) is not what the nodes of this log hold \(they hold key id m1;/);
    const unsigned = place();
    await start(unsigned, UNSIGNED);
    await start(unsigned, UNSIGNED);
    await expect(start(unsigned, 'm1')).rejects.toThrow(/^MEMORY_SIGNING_KEY of this node \(key id m1, from MEMORY_SIGNING_KEY\) is not what the nodes of this log hold \(they hold no key \(manifests UNSIGNED\);/);
    await start(unsigned, UNSIGNED, ['m1']); // announced by a node of the log
    await start(unsigned, 'm1'); // the first to sign: nodes not signing are refused from now on
    await expect(start(unsigned, UNSIGNED)).rejects.toThrow(/^MEMORY_SIGNING_KEY unset on this node \(manifests UNSIGNED\) was retired by a rotation/);
    await start(unsigned, 'm1');
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

describe("the nodes' keys where nodes share the store", () => {
  it('are checked on the PostgreSQL tables every node shares, not in the file of one node, whose keys change as they always did', async () => {
    const [file, shared] = backends.map(([, place]) => place());
    const master = randomBytes(32);
    await startNode(file, master, nodeKey('PLATFORM_SECRET_KEY', 'k1'), 'assertKeyAmongNodes');
    await startNode(file, master, nodeKey('PLATFORM_SECRET_KEY', 'k2'), 'assertKeyAmongNodes');
    expect(await registryRows(file, master, 'PLATFORM_SECRET_KEY')).toEqual({});
    await startNode(shared, master, nodeKey('PLATFORM_SECRET_KEY', 'k1'), 'assertKeyAmongNodes');
    await expect(startNode(shared, master, nodeKey('PLATFORM_SECRET_KEY', 'k2'), 'assertKeyAmongNodes')).rejects.toThrow(/^PLATFORM_SECRET_KEY of this node/);
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
