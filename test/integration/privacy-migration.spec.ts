/**
 * A log written before sealing (issue 21, docs/privacy.md "Migrating a log written before sealing"): the platform
 * refuses to start on it; `npm run privacy -- migrate` seals its personal and secret fields, renames the streams named
 * by plain hashes, re-links every chain, re-signs its checkpoints and records a signed epoch that ties the old head to
 * the new one; the migrated log verifies, the account it holds signs in, and a second run changes nothing.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runAuditCli } from '../../src/cli/audit';
import { runPrivacyCli } from '../../src/cli/privacy';
import { EPOCH_EVENT_TYPE, EPOCH_STREAM, type SignedEpoch } from '../../src/modules/audit/domain/epoch';
import { loadSigningKey } from '../../src/modules/audit/checkpointer';
import { CHECKPOINT_EVENT_TYPE, CHECKPOINT_STREAM, signCheckpointV1 } from '../../src/modules/audit/domain/checkpoint';
import { foldGlobal, GENESIS } from '../../src/modules/audit/domain/global-chain';
import { PasswordHasher } from '../../src/modules/identity/security/password-hasher';
import { canonicalJson } from '../../src/platform/commitments/commitment';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import type { EventStore, RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { startTestApp } from '../support/app';
import { hex32, testMetadata } from '../support/events';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('migrating a log written before sealing', () => {
  let dataDir: string;
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to start, then seals, renames, re-links and re-signs it under a signed epoch; the account signs in', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'legacy-'));
    const config = loadPlatformConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, PASSWORD_HASH_COST: '10', LOG_LEVEL: 'silent' });
    const profile = hex32();
    const email = 'ada.legacy@example.com';
    const password = 'Legacy-Passw0rd-2026';
    const token = `hcat_${hex32()}`;

    // The log as the platform wrote it before sealing: clear fields, plain-hash stream names, a signed checkpoint.
    const legacy = new SqliteEventStore({ filename: join(dataDir, 'events.sqlite') });
    const person = testMetadata({ actor: { type: 'profile', reference: profile } });
    const password_hash = await new PasswordHasher(10).hash(password);
    await legacy.append(`identity-account-${profile}`, [
      {
        event_id: hex32(), type: 'AccountRegistered', metadata: person,
        data: { profile_uuid: profile, registration_id: hex32(), client_id: 'web', tenant_uuid: '0'.repeat(32), account_type: 'personal', email, first_name: 'Ada', middle_name: null, last_name: 'Legacyson', company_name: null, password_hash, terms_version: '1', platform_role: null },
      },
      { event_id: hex32(), type: 'ActivationIssued', metadata: person, data: { token_hash: sha256(token), channel: 'email', expires_at: '2030-01-01T00:00:00.000Z' } },
      { event_id: hex32(), type: 'AccountActivated', metadata: person, data: { activated_at: '2026-11-01T00:00:00.000Z' } },
    ], 'no_stream');
    await legacy.append(`identity-email-${sha256(email)}`, [{ event_id: hex32(), type: 'EmailClaimed', metadata: person, data: { profile_uuid: profile } }], 'no_stream');
    await legacy.append(`identity-token-${sha256(token)}`, [
      { event_id: hex32(), type: 'OneUseTokenIssued', metadata: person, data: { kind: 'ACTIVATION', purpose: null, profile_uuid: profile, session_id: null, expires_at: '2030-01-01T00:00:00.000Z' } },
      { event_id: hex32(), type: 'OneUseTokenConsumed', metadata: person, data: { consumed_at: '2026-11-01T00:00:00.000Z' } },
    ], 'no_stream');
    let chain = GENESIS;
    for (const e of await legacy.readAll()) chain = foldGlobal(chain, e.position, e.event_commitment);
    const oldCheckpoint = signCheckpointV1({ position: chain.position, event_count: chain.count, global_commitment: chain.commitment!, created_at: '2026-11-02T00:00:00.000Z' }, loadSigningKey(config));
    await legacy.append(CHECKPOINT_STREAM, [{ event_id: hex32(), type: CHECKPOINT_EVENT_TYPE, metadata: testMetadata(), data: oldCheckpoint as never }], 'no_stream');
    const oldHead = foldGlobal(chain, chain.position + 1n, (await legacy.readStream(CHECKPOINT_STREAM))[0].event_commitment);
    await legacy.close();

    // The platform will not start on it.
    await expect(startTestApp({ DATA_DIR: dataDir })).rejects.toThrow(/written before personal and secret fields were sealed.*npm run privacy -- migrate/);

    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(`ERR ${l}`) };
    expect(await runPrivacyCli(['migrate'], config, io)).toBe(0);
    expect(lines.join('\n')).toMatch(/migrated 7 events in 4 streams; 2 streams renamed, 2 events sealed, 1 checkpoints re-signed/);

    const store = new SqliteEventStore({ filename: join(dataDir, 'events.sqlite') });
    const migrated: RecordedEvent[] = await store.readAll();
    await store.close();
    const text = migrated.map((e) => `${e.stream} ${JSON.stringify(e.data)}`).join('\n');
    for (const clear of [email, 'Legacyson', password_hash, sha256(token), sha256(email)]) expect(text).not.toContain(clear);
    expect(migrated.map((e) => e.position)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);

    // The epoch: the old head and checkpoint, the new head, signed with the audit key.
    const epochEvent = migrated[migrated.length - 1];
    expect(epochEvent).toMatchObject({ stream: EPOCH_STREAM, type: EPOCH_EVENT_TYPE, revision: 0n });
    const epoch = epochEvent.data as unknown as SignedEpoch;
    expect(epoch).toMatchObject({ alg: 'privacy-epoch-v1', reason: 'PERSONAL_DATA_SEALED', event_count: '7', previous_global_commitment: oldHead.commitment, previous_checkpoints: [oldCheckpoint] });
    expect(epoch.global_commitment).not.toBe(oldHead.commitment);
    const { public_key, signature, ...statement } = epoch;
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: public_key }, format: 'jwk' });
    expect(verify(null, Buffer.from(canonicalJson(statement as never), 'utf8'), key, Buffer.from(signature, 'base64url'))).toBe(true);
    const resigned = migrated.find((e) => e.type === CHECKPOINT_EVENT_TYPE)!.data;
    // A v1 checkpoint of the old log comes back as v2: the new chain and the new log's Merkle tree head.
    expect(resigned).toMatchObject({ alg: 'audit-checkpoint-v2', position: oldCheckpoint.position, event_count: oldCheckpoint.event_count, tree_size: oldCheckpoint.event_count, root_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(resigned.global_commitment).not.toBe(oldCheckpoint.global_commitment);

    // It verifies whole (commitments, links, the re-signed checkpoint under the platform's key).
    const audit = { out: () => undefined, err: (l: string) => lines.push(`AUDIT ${l}`), stdout: new PassThrough(), progress: false } as never;
    expect(await runAuditCli(['verify', '--all'], config, audit)).toBe(0);

    // The platform starts, and the account of the old log signs in (its claim found under the keyed name).
    const t = await startTestApp({ DATA_DIR: dataDir });
    try {
      const signIn = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password } });
      expect(signIn.statusCode).toBe(201);
      const registration = await t.app.inject({ method: 'POST', url: '/api/v1/identity/registrations', payload: { account_type: 'personal', first_name: 'X', last_name: 'Y', email, password: 'Another-Passw0rd-2026', terms: { version: '1', accepted: true } } });
      expect(registration.statusCode).toBe(201); // the same answer whether or not the address is taken (no enumeration)…
      const other = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password: 'Another-Passw0rd-2026' } });
      expect(other.statusCode).toBe(401);
      // …but no second account was registered: the keyed claim holds the address.
      const after = await t.app.get<EventStore>(RAW_EVENT_STORE).readAll();
      expect(after.filter((e) => e.type === 'AccountRegistered')).toHaveLength(1);
      expect(after.some((e) => e.type === 'RegistrationAttempted')).toBe(true);
    } finally {
      await t.close();
    }
    lines.length = 0;
    expect(await runPrivacyCli(['migrate'], config, io)).toBe(0);
    expect(lines.join('\n')).toMatch(/nothing to do/);
  }, 60_000);

  it('changes nothing on an EventStoreDB log (immutable)', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'legacy-esdb-'));
    const config = loadPlatformConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:1?tls=false', LOG_LEVEL: 'silent' });
    const lines: string[] = [];
    expect(await runPrivacyCli(['migrate'], config, { out: (l) => lines.push(l), err: (l) => lines.push(l) })).toBe(2);
    expect(lines.join('\n')).toMatch(/EventStoreDB logs are immutable/);
  });
});
