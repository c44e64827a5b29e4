/**
 * Audit over HTTP on the real app: the AUDITOR role (granted by a platform admin, as events), raw stream events with
 * commitments (paged, 403 for everyone else, 404 for an unknown stream), and the checkpointer: signed checkpoints
 * every N events that match the log, a signing key generated under DATA_DIR with mode 0600, one writer at a time.
 */
import { transientIdentity } from '../../src/platform/projections/node-identity';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { Logger } from 'nestjs-pino';
import { startTestApp, type TestApp } from '../support/app';
import { adminHeaders, registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';
import { AuditCheckpointer, loadSigningKey, SIGNING_KEY_FILE } from '../../src/modules/audit/checkpointer';
import { CHECKPOINT_EVENT_TYPE, CHECKPOINT_STREAM, checkSignature, signCheckpointV1, type SignedCheckpoint } from '../../src/modules/audit/domain/checkpoint';
import { foldGlobal, GENESIS } from '../../src/modules/audit/domain/global-chain';
import { rootFromFrontier } from '../../src/modules/audit/domain/merkle';
import { merkleState } from '../../projections/audit-merkle/audit-merkle.read-model';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { hex32, testMetadata } from '../support/events';
import { LogVerifier } from '../../src/modules/audit/domain/log-verifier';
import { PortAuditSource, SqliteAuditSource } from '../../src/modules/audit/sources';
import { CLOCK } from '../../src/platform/clock';
import { PLATFORM_CONFIG } from '../../src/platform/config/platform-config';
import type { EventStore } from '../../src/platform/event-store/event-store.port';
import { committedData } from '../../src/platform/commitments/commitment';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import type { MetricsService } from '../../src/platform/observability/metrics.service';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';

let t: TestApp;
let admin: Headers;
let user: Headers;
let userProfile: string;

async function call(method: 'GET' | 'POST', url: string, headers: Headers = {}, payload?: object): Promise<{ status: number; json: any }> {
  const r = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: r.statusCode, json: r.body ? r.json() : undefined };
}

async function newLedger(credits: number): Promise<string> {
  const open = await call('POST', '/api/v1/test-ledgers', {}, { owner: 'audit' });
  for (let i = 1; i <= credits; i++) await call('POST', `/api/v1/test-ledgers/${open.json.ledger_id}/credits`, {}, { amount: String(i) });
  return open.json.ledger_id;
}

beforeAll(async () => {
  // One thread (WORKER_THREADS=0): the suite drives this thread's job objects themselves (docs/operations.md 10.4).
  t = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, SEED_MARKETS: 'false', AUDIT_CHECKPOINT_EVERY_EVENTS: '5', AUDIT_CHECKPOINT_INTERVAL_MS: '200', WORKER_THREADS: '0' });
  admin = await adminHeaders(t);
  user = await registerTrader(t);
  userProfile = (await call('GET', '/api/v1/identity/contact', user)).json.profile_uuid;
});
afterAll(() => t.close());

describe('the AUDITOR role', () => {
  it('lets only a platform admin grant, list and revoke it; a grant is a 404 for an unknown profile', async () => {
    expect((await call('POST', '/api/v1/audit/auditors', user, { profile_uuid: userProfile })).status).toBe(403);
    expect((await call('GET', '/api/v1/audit/auditors', user)).status).toBe(403);
    expect((await call('POST', '/api/v1/audit/auditors', admin, { profile_uuid: 'f'.repeat(32) })).json.error.code).toBe('NOT_FOUND');
    const bad = await call('POST', '/api/v1/audit/auditors', admin, { profile_uuid: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details).toEqual([{ field: 'profile_uuid', issue: expect.stringContaining('32 lowercase hex') }]);
    expect((await call('POST', `/api/v1/audit/auditors/${userProfile}/revoke`, admin, {})).status).toBe(404);
  });

  it('opens the audit routes to a profile once granted, and closes them on revocation', async () => {
    const ledger = await newLedger(1);
    const url = `/api/v1/audit/streams/test-ledger-${ledger}/events`;
    expect((await call('GET', url)).status).toBe(401);
    const refused = await call('GET', url, user);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ success: false, error: { code: 'FORBIDDEN', request_id: expect.any(String) } });
    expect((await call('GET', '/api/v1/audit/checkpoints/latest', user)).status).toBe(403);

    const grant = await call('POST', '/api/v1/audit/auditors', admin, { profile_uuid: userProfile, reason: 'External audit 2026' });
    expect(grant.status).toBe(201);
    expect(grant.json).toMatchObject({ profile_uuid: userProfile, role: 'AUDITOR', reason: 'External audit 2026', granted_at: expect.any(String) });
    expect((await call('POST', '/api/v1/audit/auditors', admin, { profile_uuid: userProfile })).status).toBe(201); // again: no change
    expect((await call('GET', '/api/v1/audit/auditors', admin)).json.items).toEqual([expect.objectContaining({ profile_uuid: userProfile, role: 'AUDITOR' })]);
    expect((await call('GET', url, user)).status).toBe(200);
    // A grant does not make the auditor an admin.
    expect((await call('POST', '/api/v1/audit/auditors', user, { profile_uuid: userProfile })).status).toBe(403);

    expect((await call('POST', `/api/v1/audit/auditors/${userProfile}/revoke`, admin, { reason: 'Audit concluded' })).json).toEqual({ profile_uuid: userProfile, role: null });
    expect((await call('GET', url, user)).status).toBe(403);
    // The grants are events of their own stream: the role's history is in the audited log too.
    const history = await call('GET', '/api/v1/audit/streams/audit-auditors/events', admin);
    expect(history.json.items.map((e: { type: string }) => e.type)).toEqual(['AuditorGranted', 'AuditorRevoked']);
    await call('POST', '/api/v1/audit/auditors', admin, { profile_uuid: userProfile, reason: 'Audit resumed' });
  });
});

describe('GET /api/v1/audit/streams/{stream}/events', () => {
  it('pages a stream oldest first with its commitments, each page checked against the one before', async () => {
    const ledger = await newLedger(6);
    const stream = `test-ledger-${ledger}`;
    const store = t.app.get<EventStore>(RAW_EVENT_STORE);
    const stored = await store.readStream(stream);
    const seen: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await call('GET', `/api/v1/audit/streams/${stream}/events?limit=3${cursor ? `&cursor=${cursor}` : ''}`, user);
      expect(page.status).toBe(200);
      expect(page.json.chain).toEqual({ verified: true, first_break: null });
      seen.push(...page.json.items);
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(seen).toEqual(
      stored.map((e) => ({
        event_id: e.event_id, type: e.type, stream, revision: e.revision.toString(), position: e.position.toString(), occurred_at: e.occurred_at,
        data: committedData(e.data), metadata: e.metadata, event_commitment: e.event_commitment, previous_event_commitment: e.previous_event_commitment,
      })),
    );
    // The ledger's owner is personal (test-ledger's classes): sealed in the log, only its digest in the answer.
    expect(stored[0].data.owner).toEqual({ $sealed_field: 'owner' });
    expect(stored[0].data.$sealed_values).toMatchObject({ $sealed: 'aes-256-gcm-v2' });
    expect(seen[0].data.owner).toEqual({ $sealed_field: 'owner' });
    expect(seen[0].data.$sealed_values).toEqual({ $sealed_digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(seen)).not.toContain('"audit"');
    expect(seen[0].previous_event_commitment).toBeNull();
    expect(seen[3].previous_event_commitment).toBe(seen[2].event_commitment);
  });

  it('answers 404 for an unknown stream (after the role check), 400 for a bad limit or another stream\'s cursor', async () => {
    expect((await call('GET', '/api/v1/audit/streams/test-ledger-nope/events', user)).json.error.code).toBe('NOT_FOUND');
    expect((await call('GET', '/api/v1/audit/streams/test-ledger-nope/events', await registerTrader(t))).status).toBe(403);
    const a = `test-ledger-${await newLedger(3)}`;
    const b = `test-ledger-${await newLedger(1)}`;
    const first = await call('GET', `/api/v1/audit/streams/${a}/events?limit=2`, admin);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    expect((await call('GET', `/api/v1/audit/streams/${b}/events?cursor=${first.json.next_cursor}`, admin)).json.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'cursor', issue: 'not a cursor of this stream' }] });
    expect((await call('GET', `/api/v1/audit/streams/${a}/events?cursor=!!`, admin)).status).toBe(400);
    expect((await call('GET', `/api/v1/audit/streams/${a}/events?limit=0`, admin)).status).toBe(400);
    expect((await call('GET', `/api/v1/audit/streams/${a}/events?limit=1001`, admin)).status).toBe(400);
  });
});

describe('signed checkpoints', () => {
  it('records a checkpoint every N events, signed with a key generated under DATA_DIR (0600), that matches the log', async () => {
    await newLedger(6);
    const store = t.app.get<EventStore>(RAW_EVENT_STORE);
    const head = await store.headPosition();
    const latest = await until(
      () => call('GET', '/api/v1/audit/checkpoints/latest', user),
      (r) => r.status === 200 && BigInt(r.json.position) >= head - 5n,
    );
    const cp: SignedCheckpoint = latest.json;
    expect(Object.keys(cp).sort()).toEqual(['alg', 'created_at', 'event_count', 'global_commitment', 'key_id', 'position', 'public_key', 'root_hash', 'signature', 'tree_size']);
    expect(cp).toMatchObject({ alg: 'audit-checkpoint-v2', tree_size: cp.event_count });
    expect(checkSignature(cp)).toBe('valid');
    expect(t.app.get(AuditCheckpointer).publicKey?.public_key).toBe(cp.public_key);
    expect(statSync(join(t.config.dataDir, SIGNING_KEY_FILE)).mode & 0o777).toBe(0o600);

    // Every checkpoint in the log holds against the log, under the published key.
    const verifier = new LogVerifier({ scope: { kind: 'all' }, densePositions: true, trustedKeys: [cp.public_key] });
    const source = new PortAuditSource(store, 'the running store');
    const recorded = await source.checkpointEvents();
    expect(recorded.length).toBeGreaterThanOrEqual(2);
    for (const e of recorded) verifier.addCheckpoint({ source: 'log', checkpoint: e.data as unknown as SignedCheckpoint });
    verifier.addCheckpoint({ source: 'external', checkpoint: cp });
    for await (const page of source.events({ kind: 'all' })) for (const e of page) verifier.add(e);
    const report = verifier.finish();
    expect(report.ok).toBe(true);
    expect(report.checkpoints.every((c) => c.chain === 'intact' && c.signature === 'valid' && c.trusted_key)).toBe(true);
    // Every tree head the checkpointer signed is the one the log recomputes.
    expect(report.checkpoints.every((c) => c.expected_root_hash !== null && c.found_root_hash === c.expected_root_hash)).toBe(true);
    // The CLI's reader opens the live file read-only (WAL) while the server writes, and sees the same log.
    const raw = new SqliteAuditSource(join(t.config.dataDir, 'events.sqlite'));
    try {
      const again = new LogVerifier({ scope: { kind: 'all' }, densePositions: true, trustedKeys: [cp.public_key] });
      for (const e of await raw.checkpointEvents()) again.addCheckpoint({ source: 'log', checkpoint: e.data as unknown as SignedCheckpoint });
      for await (const page of raw.events({ kind: 'all' })) for (const e of page) again.add(e);
      const rawReport = again.finish();
      expect(rawReport.ok).toBe(true);
      expect(rawReport.events).toBeGreaterThanOrEqual(report.events);
    } finally {
      await raw.close();
    }
    // A checkpoint covers at most N new events, and the checkpoint events themselves are in the chain (revision order = position order).
    const positions = recorded.map((e) => BigInt((e.data as unknown as SignedCheckpoint).position));
    expect(positions).toEqual([...positions].sort((x, y) => (x < y ? -1 : 1)));
    expect(recorded.map((e) => e.stream)).toEqual(recorded.map(() => CHECKPOINT_STREAM));
  });

  it('runs on one node at a time, and a successor resumes the chain from the last checkpoint', async () => {
    const store = t.app.get<EventStore>(RAW_EVENT_STORE);
    const running = t.app.get(AuditCheckpointer);
    const second = new AuditCheckpointer(store, t.app.get(ReadModelDatabase), t.app.get(PLATFORM_CONFIG), t.app.get(CLOCK), t.app.get(Logger), { registry: new Registry() } as unknown as MetricsService, transientIdentity());
    expect(await second.tick()).toEqual([]);
    expect(second.state).toBe('standby');

    await running.onModuleDestroy(); // stops and releases the lease, as a node shutting down does
    await newLedger(4); // 5 events: one checkpoint's worth
    const written = await second.tick();
    expect(second.state).toBe('running');
    expect(written.length).toBeGreaterThanOrEqual(1);
    const cp = written[written.length - 1];
    const verifier = new LogVerifier({ scope: { kind: 'all' }, densePositions: true, trustedKeys: [cp.public_key] });
    verifier.addCheckpoint({ source: 'external', checkpoint: cp });
    const source = new PortAuditSource(store, 'the running store');
    for await (const page of source.events({ kind: 'all' })) for (const e of page) verifier.add(e);
    expect(verifier.finish().checkpoints).toEqual([expect.objectContaining({ chain: 'intact', signature: 'valid' })]);
    await second.onModuleDestroy();
  });

  it('resumes the tree from the log when the tree projection cannot give it, and builds v2 on a v1 checkpoint of an earlier version', async () => {
    const store = t.app.get<EventStore>(RAW_EVENT_STORE);
    const db = t.app.get(ReadModelDatabase);
    const checkpointer = () => new AuditCheckpointer(store, db, t.app.get(PLATFORM_CONFIG), t.app.get(CLOCK), t.app.get(Logger), { registry: new Registry() } as unknown as MetricsService, transientIdentity());
    /** Every checkpoint in the log and `extra` against the whole log. */
    const verifyAll = async (extra: SignedCheckpoint) => {
      const verifier = new LogVerifier({ scope: { kind: 'all' }, densePositions: true, trustedKeys: [extra.public_key] });
      const source = new PortAuditSource(store, 'the running store');
      verifier.addCheckpoint({ source: 'external', checkpoint: extra });
      for (const e of await source.checkpointEvents()) verifier.addCheckpoint({ source: 'log', checkpoint: e.data as unknown as SignedCheckpoint });
      for await (const page of source.events({ kind: 'all' })) for (const e of page) verifier.add(e);
      return verifier.finish();
    };

    // The nodes at the last checkpoint's frontier are wrong (a damaged table): the signed root does not come out of
    // them, so the checkpointer folds the tree from the log and goes on with the right one.
    const runner = t.app.get(ProjectionRunner);
    expect(await runner.waitFor(await store.headPosition(), undefined, 10_000)).toBe(true);
    await db.writer.query(`UPDATE audit_merkle_nodes SET hash = '${'0'.repeat(64)}'`);
    const third = checkpointer();
    await newLedger(4);
    const written = await third.tick();
    expect(written.length).toBeGreaterThanOrEqual(1);
    let report = await verifyAll(written[written.length - 1]);
    expect(report.ok).toBe(true);
    const resumed = report.checkpoints.find((c) => c.source === 'external')!;
    expect(resumed).toMatchObject({ chain: 'intact', position: written[written.length - 1].position, expected_root_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(resumed.found_root_hash).toBe(resumed.expected_root_hash);
    await third.onModuleDestroy();

    // A v1 checkpoint (what an earlier version signed, no tree head) last in the stream, and no tree projection at all:
    // the successor folds the tree from the log and signs v2 on top of it.
    let chain = GENESIS;
    for (const e of await store.readAll({ maxCount: 1_000_000 })) chain = foldGlobal(chain, e.position, e.event_commitment);
    const v1 = signCheckpointV1({ position: chain.position, event_count: chain.count, global_commitment: chain.commitment!, created_at: new Date().toISOString() }, loadSigningKey(t.app.get(PLATFORM_CONFIG)));
    const [last] = await store.readStream(CHECKPOINT_STREAM, { direction: 'backwards', maxCount: 1 });
    await store.append(CHECKPOINT_STREAM, [{ event_id: hex32(), type: CHECKPOINT_EVENT_TYPE, data: { ...v1 }, metadata: testMetadata() }], last.revision);
    await db.writer.query('DELETE FROM audit_merkle_nodes');
    const fourth = checkpointer();
    await newLedger(4);
    const next = await fourth.tick();
    expect(next.length).toBeGreaterThanOrEqual(1);
    expect(next[0]).toMatchObject({ alg: 'audit-checkpoint-v2' });
    report = await verifyAll(next[next.length - 1]);
    expect(report.ok).toBe(true);
    expect(report.checkpoints.find((c) => c.source === 'log' && c.position === v1.position && c.expected_root_hash === null)).toMatchObject({ chain: 'intact', signature: 'valid' });
    const built = report.checkpoints.find((c) => c.source === 'external')!;
    expect(built).toMatchObject({ chain: 'intact', position: next[next.length - 1].position, expected_root_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(built.found_root_hash).toBe(built.expected_root_hash);
    await fourth.onModuleDestroy();
    // The tree projection rebuilt from the log holds the same root.
    await runner.stop();
    await runner.rebuild('audit-merkle');
    runner.start();
    const state = await merkleState(db.reader);
    expect(state.size).toBe(report.events);
    expect(rootFromFrontier(state.frontier, state.size).toString('hex')).toBe(report.root_hash);
  });
});

describe('without checkpoints', () => {
  it('answers 404 before the first checkpoint', async () => {
    const other = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, SEED_MARKETS: 'false', AUDIT_CHECKPOINTS: 'false' });
    try {
      const a = await other.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: TEST_ADMIN });
      const r = await other.app.inject({ method: 'GET', url: '/api/v1/audit/checkpoints/latest', headers: { authorization: `Bearer ${a.json().access_token}` } });
      expect(r.statusCode).toBe(404);
      expect(r.json().error.code).toBe('NOT_FOUND');
    } finally {
      await other.close();
    }
  });
});
