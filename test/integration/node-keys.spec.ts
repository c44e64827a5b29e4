/**
 * The rotatable keys across the nodes of one log (issue 46, docs/operations.md 10.1): nodes on one PostgreSQL event
 * store (the subject keys, and the key registry, beside it) and one PostgreSQL read-model schema (the idempotency
 * records). A node with a PLATFORM_SECRET_KEY, AUDIT_SIGNING_KEY or MEMORY_SIGNING_KEY the others do not hold, a key
 * file it generated itself included, is refused, naming the variable; a rotation done as documented is accepted on
 * every node at every step, and a retried request is recognised through a node holding the other key throughout; the
 * old key is refused once retired, an unknown key always. A single embedded node is left as it was.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { signingKeyFromSeed } from '../../src/modules/audit/domain/checkpoint';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import { subjectKeysInFile } from '../../src/platform/privacy/sqlite-subject-keys';
import { startTestApp, type TestApp } from '../support/app';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';

const key = (): string => randomBytes(32).toString('base64');
const publicKeyOf = (seed: string): string => signingKeyFromSeed(Buffer.from(seed, 'base64')).public_key;
const schemas: string[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  const c = new Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  for (const schema of schemas) await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

/** What the nodes of one log share: the stores and the keys that never change. */
function cluster(): Record<string, string> {
  const [events, reads] = [`es_${hex32().slice(0, 12)}`, `rm_${hex32().slice(0, 12)}`];
  schemas.push(events, reads);
  return {
    EVENT_STORE_URL: TEST_DATABASE_URL,
    EVENT_STORE_SCHEMA: events,
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: reads,
    PRIVACY_MASTER_KEY: key(),
    IDENTITY_SECRET_KEY: key(),
    SEED_MARKETS: 'false',
  };
}

/** A node of the cluster on a DATA_DIR of its own (where a key it is not given is generated). */
function node(shared: Record<string, string>, env: Record<string, string> = {}): Promise<TestApp> {
  const DATA_DIR = mkdtempSync(join(tmpdir(), 'node-keys-'));
  dirs.push(DATA_DIR);
  return startTestApp({ ...shared, ...env, DATA_DIR });
}

/** Opens a test ledger under an Idempotency-Key: the POST a client retries. */
async function openLedger(on: TestApp, idempotencyKey: string, owner: string): Promise<{ status: number; body: string; replay: boolean }> {
  const r = await on.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', headers: { 'idempotency-key': idempotencyKey }, payload: { owner } });
  return { status: r.statusCode, body: r.body, replay: r.headers['idempotent-replay'] === 'true' };
}

/** A request made on one node, then retried on another: the retry replays the first answer. */
async function retriedAcross(first: TestApp, retry: TestApp, owner: string): Promise<void> {
  const idempotencyKey = `rotation-${hex32()}`;
  const made = await openLedger(first, idempotencyKey, owner);
  expect(made).toMatchObject({ status: 201, replay: false });
  expect(await openLedger(retry, idempotencyKey, owner)).toEqual({ ...made, replay: true });
}

it('refuses a second node that generated its own PLATFORM_SECRET_KEY or AUDIT_SIGNING_KEY, or signs memory manifests while the first does not, naming the variable; given the first node\'s keys it starts', async () => {
  const shared = cluster();
  const first = await node(shared); // its PLATFORM_SECRET_KEY and AUDIT_SIGNING_KEY generated into its DATA_DIR
  try {
    const fileOfFirst = (name: string) => readFileSync(join(first.config.dataDir, name), 'utf8').trim();
    await expect(node(shared)).rejects.toThrow(
      /^PLATFORM_SECRET_KEY of this node \(key id [0-9a-f]{32}, from DATA_DIR\/platform\.key, PLATFORM_SECRET_KEY unset\) is not what the nodes of this log hold \(they hold key id [0-9a-f]{32}; recorded in PostgreSQL schema "es_\w+"\).*docs\/operations\.md, 10\.1/,
    );
    const platform = { PLATFORM_SECRET_KEY: fileOfFirst('platform.key') };
    await expect(node(shared, platform)).rejects.toThrow(/^AUDIT_SIGNING_KEY of this node \(key id [\w-]{43}, from DATA_DIR\/audit-signing\.key, AUDIT_SIGNING_KEY unset\) is not what the nodes of this log hold/);
    const keys = { ...platform, AUDIT_SIGNING_KEY: fileOfFirst('audit-signing.key') };
    await expect(node(shared, { ...keys, MEMORY_SIGNING_KEY: key() })).rejects.toThrow(/^MEMORY_SIGNING_KEY of this node \(key id [\w-]{43}, from MEMORY_SIGNING_KEY\) is not what the nodes of this log hold \(they hold no key \(manifests UNSIGNED\);/);
    const second = await node(shared, keys);
    await retriedAcross(first, second, 'ada');
    await second.close();
  } finally {
    await first.close();
  }
});

it('rolls a new PLATFORM_SECRET_KEY over three nodes as documented: every start accepted, a retry recognised through a node holding the other key at every step; the old key refused once retired, an unknown key always', async () => {
  const shared = { ...cluster(), AUDIT_SIGNING_KEY: key() };
  const [oldKey, newKey] = [key(), key()];
  const before = { PLATFORM_SECRET_KEY: oldKey };
  const announce = { PLATFORM_SECRET_KEY: oldKey, PLATFORM_TRUSTED_SECRET_KEYS: newKey };
  const switched = { PLATFORM_SECRET_KEY: newKey, PLATFORM_TRUSTED_SECRET_KEYS: oldKey };
  const retired = { PLATFORM_SECRET_KEY: newKey };
  const unknown = /^PLATFORM_SECRET_KEY of this node \(key id [0-9a-f]{32}, from PLATFORM_SECRET_KEY\) is not what the nodes of this log hold/;
  const nodes: TestApp[] = [];
  const restart = async (i: number, env: Record<string, string>) => {
    await nodes[i].close();
    nodes[i] = await node(shared, env);
  };
  try {
    for (let i = 0; i < 3; i++) nodes.push(await node(shared, before));
    const madeBefore = `before-${hex32()}`;
    const answerBefore = await openLedger(nodes[2], madeBefore, 'ada');

    // Step 1, announce: one by one, every node trusts the new key besides holding the old one.
    await expect(node(shared, switched)).rejects.toThrow(/^PLATFORM_SECRET_KEY of this node .*list it in PLATFORM_TRUSTED_SECRET_KEYS/); // not announced yet
    for (let i = 0; i < 3; i++) {
      await restart(i, announce);
      await retriedAcross(nodes[i], nodes[(i + 1) % 3], 'step-1');
    }

    // Step 2, switch: one by one, every node holds the new key and trusts the old one; each retry crosses the keys.
    for (let i = 0; i < 3; i++) {
      await restart(i, switched);
      await retriedAcross(nodes[i], nodes[(i + 1) % 3], 'step-2');
      await retriedAcross(nodes[(i + 1) % 3], nodes[i], 'step-2');
    }
    await expect(node(shared, before)).rejects.toThrow(/^Other nodes of this log hold PLATFORM_SECRET_KEY key id [0-9a-f]{32} .*neither holds .* nor trusts: list it in PLATFORM_TRUSTED_SECRET_KEYS/);
    expect(await openLedger(nodes[0], madeBefore, 'ada')).toEqual({ ...answerBefore, replay: true }); // made under the old key only

    // Step 3, retire (after IDEMPOTENCY_TTL_SECONDS in production): the old key leaves the trusted lists.
    await restart(0, retired);
    await retriedAcross(nodes[0], nodes[1], 'step-3');
    await expect(node(shared, announce)).rejects.toThrow(/^PLATFORM_SECRET_KEY of this node \(key id [0-9a-f]{32}, from PLATFORM_SECRET_KEY\) was retired by a rotation/);
    await restart(1, retired);
    await restart(2, retired);
    await retriedAcross(nodes[2], nodes[0], 'step-3');
    // What retiring too early costs: a retry of a request made under the old key alone is no longer recognised.
    expect((await openLedger(nodes[0], madeBefore, 'ada')).status).toBe(409);
    await expect(node(shared, { PLATFORM_SECRET_KEY: key() })).rejects.toThrow(unknown);
    await expect(node(shared, { PLATFORM_SECRET_KEY: key(), PLATFORM_TRUSTED_SECRET_KEYS: newKey })).rejects.toThrow(unknown);
  } finally {
    for (const n of nodes) await n.close();
  }
}, 120_000);

it('rolls a new AUDIT_SIGNING_KEY and a first MEMORY_SIGNING_KEY over the nodes as documented; a node left behind is refused, naming the variable, and so is an unknown key', async () => {
  const shared = { ...cluster(), PLATFORM_SECRET_KEY: key() };
  const [audit1, audit2, memory] = [key(), key(), key()];
  const before = { AUDIT_SIGNING_KEY: audit1 };
  const announce = { AUDIT_SIGNING_KEY: audit1, AUDIT_TRUSTED_KEYS: publicKeyOf(audit2), MEMORY_TRUSTED_KEYS: publicKeyOf(memory) };
  // The previous audit key stays trusted (the checkpoints it signed keep verifying); not signing cannot be trusted.
  const switched = { AUDIT_SIGNING_KEY: audit2, AUDIT_TRUSTED_KEYS: publicKeyOf(audit1), MEMORY_SIGNING_KEY: memory };
  const nodes = [await node(shared, before), await node(shared, before)];
  try {
    await expect(node(shared, { ...switched, MEMORY_SIGNING_KEY: '' })).rejects.toThrow(/^AUDIT_SIGNING_KEY of this node .*list it in AUDIT_TRUSTED_KEYS/); // not announced yet
    await expect(node(shared, { ...before, MEMORY_SIGNING_KEY: memory })).rejects.toThrow(/^MEMORY_SIGNING_KEY of this node .*list it in MEMORY_TRUSTED_KEYS/);
    for (let i = 0; i < 2; i++) {
      await nodes[i].close();
      nodes[i] = await node(shared, announce);
    }
    await nodes[0].close();
    nodes[0] = await node(shared, switched);
    await expect(node(shared, { ...switched, AUDIT_SIGNING_KEY: audit1, AUDIT_TRUSTED_KEYS: '' })).rejects.toThrow(
      new RegExp(`^Other nodes of this log hold AUDIT_SIGNING_KEY key id ${signingKeyFromSeed(Buffer.from(audit2, 'base64')).key_id} .*list it in AUDIT_TRUSTED_KEYS`),
    );
    await expect(node(shared, { ...switched, MEMORY_SIGNING_KEY: '' })).rejects.toThrow(/^MEMORY_SIGNING_KEY unset on this node \(manifests UNSIGNED\) was retired by a rotation/);
    await node(shared, { ...announce, MEMORY_SIGNING_KEY: memory }).then((n) => n.close()); // a node at step 1 restarting (audit)
    await nodes[1].close();
    nodes[1] = await node(shared, switched);
    await expect(node(shared, { ...switched, AUDIT_SIGNING_KEY: key() })).rejects.toThrow(/^AUDIT_SIGNING_KEY of this node \(key id [\w-]{43}, from AUDIT_SIGNING_KEY\) is not what the nodes of this log hold/);
    await expect(node(shared, { ...switched, MEMORY_SIGNING_KEY: key(), MEMORY_TRUSTED_KEYS: publicKeyOf(memory) })).rejects.toThrow(/^MEMORY_SIGNING_KEY of this node \(key id [\w-]{43}, from MEMORY_SIGNING_KEY\) is not what the nodes of this log hold/);
  } finally {
    for (const n of nodes) await n.close();
  }
}, 120_000);

it('leaves a single embedded node as it was: keys generated into its DATA_DIR, nothing recorded about them, a changed key taken in one restart, requests made under the old PLATFORM_SECRET_KEY recognised while it is trusted', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'embedded-keys-'));
  dirs.push(dataDir);
  const first = await startTestApp({ DATA_DIR: dataDir });
  const made = await openLedger(first, 'embedded-1', 'ada');
  await first.close();
  const generated = (name: string) => readFileSync(join(dataDir, name), 'utf8').trim();
  const again = await startTestApp({ DATA_DIR: dataDir });
  expect(await openLedger(again, 'embedded-1', 'ada')).toEqual({ ...made, replay: true });
  await again.close();
  const changed = await startTestApp({
    DATA_DIR: dataDir,
    PLATFORM_SECRET_KEY: key(),
    PLATFORM_TRUSTED_SECRET_KEYS: generated('platform.key'),
    AUDIT_SIGNING_KEY: key(),
    AUDIT_TRUSTED_KEYS: publicKeyOf(generated('audit-signing.key')),
    MEMORY_SIGNING_KEY: key(),
  });
  try {
    expect(await openLedger(changed, 'embedded-1', 'ada')).toEqual({ ...made, replay: true });
  } finally {
    await changed.close();
  }
  const keys = subjectKeysInFile(join(dataDir, 'subject-keys.sqlite'), randomBytes(32));
  expect(await keys.rows.metaStartingWith('keys:')).toEqual(new Map());
  await keys.close();
}, 60_000);

it('stops a start with an invalid trusted key list, naming the variable', () => {
  const [one, two, seed] = [key(), key(), key()];
  expect(() => loadPlatformConfig({ PLATFORM_TRUSTED_SECRET_KEYS: `${one},not-a-key` })).toThrow(/PLATFORM_TRUSTED_SECRET_KEYS: PLATFORM_TRUSTED_SECRET_KEYS must be 32-byte keys, base64, comma-separated/);
  expect(() => loadPlatformConfig({ MEMORY_TRUSTED_KEYS: seed })).toThrow(/MEMORY_TRUSTED_KEYS: MEMORY_TRUSTED_KEYS must be Ed25519 public keys/);
  expect(loadPlatformConfig({ PLATFORM_TRUSTED_SECRET_KEYS: `${one},${two}`, MEMORY_TRUSTED_KEYS: publicKeyOf(seed) })).toMatchObject({ platformTrustedSecretKeys: [one, two], memoryTrustedKeys: [publicKeyOf(seed)] });
  expect(loadPlatformConfig({})).toMatchObject({ platformTrustedSecretKeys: [], memoryTrustedKeys: [] });
});
