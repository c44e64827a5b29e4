/**
 * Merkle proofs over HTTP on the real app (issue 50, docs/audit.md section 6): an inclusion proof and a consistency
 * proof fetched from the API hold when checked with nothing but the docs — the checkpoint's Ed25519 signature over
 * its JCS statement (node:crypto, the statement written out by hand) and an RFC 9162 verifier written independently
 * of the platform (test/support/rfc9162-reference.ts) — and a tampered path, leaf or root fails. Who may ask (401,
 * 403), what is not covered yet (409, retryable), unknown tree sizes and events (404), bad input (400), and an
 * erasure that changes no root and no proof. On SQLite, on PostgreSQL read models, and with the log on PostgreSQL too.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { Client } from 'pg';
import { startTestApp, type TestApp } from '../support/app';
import { adminHeaders, registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';
import { verifyConsistency, verifyInclusion } from '../support/rfc9162-reference';
import { AccountClosureSweep } from '../../src/modules/identity/closure-sweep';
import { accountStream } from '../../src/modules/identity/domain/identity.constants';
import { suiteSchema, TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';

let t: TestApp;
let admin: Headers;

async function call(method: 'GET' | 'POST', url: string, headers: Headers = {}, payload?: object): Promise<{ status: number; json: any }> {
  const r = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: r.statusCode, json: r.body ? r.json() : undefined };
}

const unhex = (s: string): Buffer => Buffer.from(s, 'hex');

/** A checkpoint's signature checked as docs/audit.md 1.3 says: Ed25519 over the JCS of the statement's members. */
function signatureHolds(cp: Record<string, string>): boolean {
  const members = cp.alg === 'audit-checkpoint-v2'
    ? ['alg', 'created_at', 'event_count', 'global_commitment', 'key_id', 'position', 'root_hash', 'tree_size']
    : ['alg', 'created_at', 'event_count', 'global_commitment', 'key_id', 'position'];
  // Every member is a string of ASCII: JCS is the members sorted, JSON-quoted, no whitespace.
  const jcs = `{${[...members].sort().map((m) => `${JSON.stringify(m)}:${JSON.stringify(cp[m])}`).join(',')}}`;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: cp.public_key }, format: 'jwk' });
  const thumbprint = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${cp.public_key}"}`).digest('base64url');
  return thumbprint === cp.key_id && verify(null, Buffer.from(jcs, 'utf8'), key, Buffer.from(cp.signature, 'base64url'));
}

/** Checks an inclusion answer the way an auditor does: the signature, then the path against the checkpoint's head. */
function inclusionHolds(p: any, path: string[] = p.audit_path, leafInput: string = p.event_commitment): boolean {
  const cp = p.checkpoint;
  if (cp.alg !== 'audit-checkpoint-v2' || !signatureHolds(cp)) return false;
  const leaf = createHash('sha256').update(Buffer.concat([Buffer.from([0]), unhex(leafInput)])).digest();
  return verifyInclusion(Number(p.leaf_index), Number(cp.tree_size), leaf, path.map(unhex), unhex(cp.root_hash));
}

function consistencyHolds(p: any, path: string[] = p.consistency_path): boolean {
  const [a, b] = [p.first_checkpoint, p.second_checkpoint];
  if (!signatureHolds(a) || !signatureHolds(b)) return false;
  return verifyConsistency(Number(a.tree_size), Number(b.tree_size), unhex(a.root_hash), unhex(b.root_hash), path.map(unhex));
}

type Stores = 'sqlite' | 'postgres read models' | 'postgres events and read models';

describe.each<Stores>(['sqlite', 'postgres read models', 'postgres events and read models'])('Merkle proofs (%s)', (kind) => {
  const readModels = kind === 'sqlite' ? null : suiteSchema();
  const eventSchema = `e_${hex32().slice(0, 16)}`;
  const stores = {
    env: (): Record<string, string> => ({
      ...(readModels ? readModels.env() : {}),
      ...(kind === 'postgres events and read models' ? { EVENT_STORE_URL: TEST_DATABASE_URL, EVENT_STORE_SCHEMA: eventSchema } : {}),
    }),
    drop: async (): Promise<void> => {
      await readModels?.drop();
      if (kind !== 'postgres events and read models') return;
      const c = new Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${eventSchema}" CASCADE`);
      await c.end();
    },
  };

  /** The checkpoints in the log, oldest first (through the audit route, as an auditor reads them). */
  async function checkpoints(): Promise<Array<Record<string, string>>> {
    const all: Array<Record<string, string>> = [];
    let cursor: string | undefined;
    do {
      const page = await call('GET', `/api/v1/audit/streams/audit-checkpoints/events?limit=1000${cursor ? `&cursor=${cursor}` : ''}`, admin);
      expect(page.status).toBe(200);
      all.push(...page.json.items.map((e: { data: Record<string, string> }) => e.data));
      cursor = page.json.next_cursor;
    } while (cursor);
    return all;
  }

  /** An event of the log: the first of a new test ledger (its id through the audit stream route). */
  async function newEvent(): Promise<{ event_id: string; position: string }> {
    const open = await call('POST', '/api/v1/test-ledgers', {}, { owner: 'proofs' });
    expect(open.status).toBe(201);
    const page = await call('GET', `/api/v1/audit/streams/test-ledger-${open.json.ledger_id}/events`, admin);
    expect(page.status).toBe(200);
    return { event_id: page.json.items[0].event_id, position: page.json.items[0].position };
  }

  beforeAll(async () => {
    // A checkpoint every 4 events and never by time: the newest event of a log at rest is never covered.
    t = await startTestApp({ ...stores.env(), ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, SEED_MARKETS: 'false', AUDIT_CHECKPOINT_EVERY_EVENTS: '4', AUDIT_CHECKPOINT_INTERVAL_MS: '3600000', ACCOUNT_CLOSURE_GRACE_SECONDS: '0' });
    admin = await adminHeaders(t);
  });
  afterAll(async () => {
    await t?.close();
    await stores.drop();
  });

  describe('inclusion proofs', () => {
    it('proves an event against the newest checkpoint, and the proof holds with nothing but the docs and an RFC 9162 verifier', async () => {
      const e = await newEvent();
      for (let i = 0; i < 8; i++) await newEvent(); // enough for a checkpoint past it
      const proof = await until(
        () => call('GET', `/api/v1/audit/proofs/inclusion?event_id=${e.event_id}`, admin),
        (r) => r.status === 200,
        10_000,
        'a checkpoint covering the event',
      );
      const p = proof.json;
      expect(p).toMatchObject({ event_id: e.event_id, position: e.position, tree_size: p.checkpoint.tree_size, root_hash: p.checkpoint.root_hash });
      // The leaf is the number of events before it: on SQLite, whose positions are dense from 1, the position less one.
      if (kind === 'sqlite') expect(p.leaf_index).toBe((BigInt(e.position) - 1n).toString());
      else expect(BigInt(p.leaf_index)).toBeLessThan(BigInt(e.position));
      expect(BigInt(p.tree_size)).toBeGreaterThan(BigInt(p.leaf_index));
      expect(p.leaf_hash).toBe(createHash('sha256').update(Buffer.concat([Buffer.from([0]), unhex(p.event_commitment)])).digest('hex'));
      expect(p.audit_path.length).toBeGreaterThan(0);
      expect(inclusionHolds(p)).toBe(true);
      // The checkpoint is one the log holds.
      expect((await checkpoints()).some((cp) => cp.tree_size === p.tree_size && cp.root_hash === p.root_hash)).toBe(true);

      // Tampering with anything fails: a path element, the leaf, the root (re-signing is not possible), the size.
      const flipped = (h: string) => (h[0] === '0' ? '1' : '0') + h.slice(1);
      expect(inclusionHolds(p, [flipped(p.audit_path[0]), ...p.audit_path.slice(1)])).toBe(false);
      expect(inclusionHolds(p, p.audit_path.slice(1))).toBe(false);
      expect(inclusionHolds(p, p.audit_path, flipped(p.event_commitment))).toBe(false);
      expect(inclusionHolds({ ...p, checkpoint: { ...p.checkpoint, root_hash: flipped(p.checkpoint.root_hash) } })).toBe(false);
      expect(inclusionHolds({ ...p, checkpoint: { ...p.checkpoint, tree_size: String(Number(p.tree_size) + 1), event_count: String(Number(p.tree_size) + 1) } })).toBe(false);
      expect(inclusionHolds({ ...p, leaf_index: String(Number(p.leaf_index) + 1) })).toBe(false);
    });

    it('proves against an older checkpoint named by tree_size; 404 for a size no checkpoint has; 409 (final) for a tree without the event', async () => {
      const e = await newEvent();
      for (let i = 0; i < 8; i++) await newEvent();
      await until(() => call('GET', `/api/v1/audit/proofs/inclusion?event_id=${e.event_id}`, admin), (r) => r.status === 200, 10_000);
      const heads = await checkpoints();
      const leaf = BigInt((await call('GET', `/api/v1/audit/proofs/inclusion?event_id=${e.event_id}`, admin)).json.leaf_index);
      const covering = heads.filter((cp) => BigInt(cp.tree_size) > leaf);
      const older = covering[0];
      const r = await call('GET', `/api/v1/audit/proofs/inclusion?event_id=${e.event_id}&tree_size=${older.tree_size}`, admin);
      expect(r.status).toBe(200);
      expect(r.json.checkpoint).toEqual(older);
      expect(inclusionHolds(r.json)).toBe(true);

      const none = await call('GET', `/api/v1/audit/proofs/inclusion?event_id=${e.event_id}&tree_size=${Number(older.tree_size) + 1}`, admin);
      expect(none.status).toBe(404);
      expect(none.json.error.code).toBe('NOT_FOUND');

      const before = heads.filter((cp) => BigInt(cp.tree_size) <= leaf).pop()!;
      const outside = await call('GET', `/api/v1/audit/proofs/inclusion?event_id=${e.event_id}&tree_size=${before.tree_size}`, admin);
      expect(outside.status).toBe(409);
      expect(outside.json.error).toMatchObject({ code: 'STATE_CONFLICT', retryable: false });
    });

    it('answers 409, retryable, for an event no checkpoint covers yet; 404 for an event not in the log', async () => {
      const e = await newEvent();
      // At rest the newest event is uncovered (a checkpoint event is never covered by itself).
      const page = await call('GET', '/api/v1/audit/streams/audit-checkpoints/events?limit=1000', admin);
      const newest = [e, ...page.json.items.map((x: { event_id: string; position: string }) => ({ event_id: x.event_id, position: x.position }))].sort((a, b) => (BigInt(a.position) < BigInt(b.position) ? 1 : -1))[0];
      const r = await call('GET', `/api/v1/audit/proofs/inclusion?event_id=${newest.event_id}`, admin);
      expect(r.status).toBe(409);
      expect(r.json.error).toMatchObject({ code: 'STATE_CONFLICT', retryable: true });

      const unknown = await call('GET', `/api/v1/audit/proofs/inclusion?event_id=${'f'.repeat(32)}`, admin);
      expect(unknown.status).toBe(404);
    });
  });

  describe('consistency proofs', () => {
    it('proves that a newer checkpoint extends an older one, checked with the independent verifier; tampering fails', async () => {
      for (let i = 0; i < 9; i++) await newEvent();
      const heads = await until(checkpoints, (h) => h.length >= 3, 10_000);
      const [a, b] = [heads[0], heads[heads.length - 1]];
      const r = await call('GET', `/api/v1/audit/proofs/consistency?first=${a.tree_size}&second=${b.tree_size}`, admin);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ first: a.tree_size, second: b.tree_size, first_root: a.root_hash, second_root: b.root_hash, first_checkpoint: a, second_checkpoint: b });
      expect(consistencyHolds(r.json)).toBe(true);
      const flipped = (h: string) => (h[0] === '0' ? '1' : '0') + h.slice(1);
      expect(consistencyHolds(r.json, [flipped(r.json.consistency_path[0]), ...r.json.consistency_path.slice(1)])).toBe(false);
      expect(consistencyHolds({ ...r.json, first_checkpoint: { ...a, root_hash: flipped(a.root_hash) } })).toBe(false);
      // Every pair of the log's checkpoints holds.
      for (let i = 0; i < heads.length; i++) {
        for (let j = i; j < heads.length; j++) {
          const pair = await call('GET', `/api/v1/audit/proofs/consistency?first=${heads[i].tree_size}&second=${heads[j].tree_size}`, admin);
          expect([i, j, pair.status, consistencyHolds(pair.json)]).toEqual([i, j, 200, true]);
          if (i === j) expect(pair.json.consistency_path).toEqual([]);
        }
      }
    });

    it('answers 404 for a size no checkpoint has, 400 for first > second or a size that is not a positive integer', async () => {
      const heads = await checkpoints();
      const last = heads[heads.length - 1].tree_size;
      expect((await call('GET', `/api/v1/audit/proofs/consistency?first=${Number(last) + 1}&second=${Number(last) + 2}`, admin)).status).toBe(404);
      const reversed = await call('GET', `/api/v1/audit/proofs/consistency?first=${last}&second=${heads[0].tree_size}`, admin);
      expect(reversed.status).toBe(400);
      expect(reversed.json.error.code).toBe('VALIDATION_FAILED');
      for (const q of ['first=0&second=4', 'first=a&second=4', 'first=4', 'first=-1&second=4', 'first=4&second=99999999999999999999']) {
        const bad = await call('GET', `/api/v1/audit/proofs/consistency?${q}`, admin);
        expect([q, bad.status, bad.json.error.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
      }
      for (const q of ['event_id=xyz', `event_id=${'a'.repeat(32)}&tree_size=0`, '']) {
        const bad = await call('GET', `/api/v1/audit/proofs/inclusion?${q}`, admin);
        expect([q, bad.status, bad.json.error.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
      }
    });
  });

  describe('who may ask', () => {
    it('anonymous 401, a trader 403, an auditor and a platform admin 200', async () => {
      const heads = await checkpoints();
      const url = `/api/v1/audit/proofs/consistency?first=${heads[0].tree_size}&second=${heads[0].tree_size}`;
      expect((await call('GET', url)).status).toBe(401);
      const trader = await registerTrader(t);
      expect((await call('GET', url, trader)).status).toBe(403);
      expect((await call('GET', `/api/v1/audit/proofs/inclusion?event_id=${'a'.repeat(32)}`, trader)).status).toBe(403);
      const profile = (await call('GET', '/api/v1/identity/contact', trader)).json.profile_uuid;
      expect((await call('POST', '/api/v1/audit/auditors', admin, { profile_uuid: profile, reason: 'proofs' })).status).toBe(201);
      expect((await call('GET', url, trader)).status).toBe(200);
      expect((await call('GET', url, admin)).status).toBe(200);
    });
  });

  describe('erasure', () => {
    it("erasing a person changes no root and no proof: commitments are over sealed values, and only the person's keys go", async () => {
      // A person with events in the log, covered by a checkpoint.
      const password = 'Trader-Password-2026'; // registerTrader's
      const person = await registerTrader(t);
      const profile = (await call('GET', '/api/v1/identity/contact', person)).json.profile_uuid;
      // The account stream's first event: it holds the person's sealed fields, which the erasure makes unreadable.
      const stream = await call('GET', `/api/v1/audit/streams/${accountStream(profile)}/events`, admin);
      expect(stream.status).toBe(200);
      const registered = stream.json.items[0];
      for (let i = 0; i < 8; i++) await newEvent();
      const before = (await until(() => call('GET', `/api/v1/audit/proofs/inclusion?event_id=${registered.event_id}`, admin), (r) => r.status === 200, 10_000)).json;
      const heads = await checkpoints();
      const consistencyBefore = (await call('GET', `/api/v1/audit/proofs/consistency?first=${heads[0].tree_size}&second=${before.tree_size}`, admin)).json;

      // Closed, then erased by an admin (docs/privacy.md).
      const stepUp = async (headers: Headers, purpose: string, pw: string) => (await call('POST', '/api/v1/auth/step-up', headers, { purpose, password: pw })).json.step_up_token;
      expect((await call('POST', '/api/v1/identity/closure', person, { current_password: password, step_up_token: await stepUp(person, 'ACCOUNT_CLOSURE', password) })).status).toBe(202);
      await until(async () => t.app.get(AccountClosureSweep).completeDueClosures(new Date(Date.now() + 1000)), (n) => n >= 1, 10_000, 'the closure completed');
      const erased = await call('POST', `/api/v1/identity/admin/accounts/${profile}/erasure`, admin, { step_up_token: await stepUp(admin, 'ACCOUNT_ERASURE', TEST_ADMIN.password) });
      expect(erased.status).toBe(200);

      // The same proofs, byte for byte, against the same signed heads; and they still hold.
      const after = await call('GET', `/api/v1/audit/proofs/inclusion?event_id=${registered.event_id}&tree_size=${before.tree_size}`, admin);
      expect(after.status).toBe(200);
      expect(after.json).toEqual(before);
      expect(inclusionHolds(after.json)).toBe(true);
      const consistencyAfter = await call('GET', `/api/v1/audit/proofs/consistency?first=${heads[0].tree_size}&second=${before.tree_size}`, admin);
      expect(consistencyAfter.json).toEqual(consistencyBefore);
      // Later checkpoints (past the erasure's own events) extend the earlier heads.
      for (let i = 0; i < 8; i++) await newEvent();
      const later = await until(checkpoints, (h) => BigInt(h[h.length - 1].tree_size) > BigInt(before.tree_size) + 4n, 10_000);
      const extends_ = await call('GET', `/api/v1/audit/proofs/consistency?first=${before.tree_size}&second=${later[later.length - 1].tree_size}`, admin);
      expect(extends_.status).toBe(200);
      expect(consistencyHolds(extends_.json)).toBe(true);
    });
  });
});
