/**
 * `npm run privacy -- migrate`: brings a SQLite event log written before sealing existed up to it (docs/privacy.md,
 * "Migrating a log written before sealing"), with the platform stopped:
 *
 * 1. every event's personal and secret fields are sealed under their subject's key, and the streams named by a plain
 *    SHA-256 of an email or a token get their keyed names (the emails are read from the log's own registrations and
 *    contact changes);
 * 2. every stream's chain is re-linked over the new content (revisions and global positions unchanged), and every
 *    audit checkpoint in the log is re-signed over the new global chain at its place;
 * 3. a new epoch is recorded as the log's last event (stream `audit-epochs`, `ChainEpochStarted`): signed with the
 *    audit key, it commits to the old log's global chain head and event count, carries the old checkpoints as they
 *    were signed, and names the new head at the same count — so an auditor holding an old checkpoint or head can tie
 *    it to the new log;
 * 4. the new log is verified whole (every commitment, link, checkpoint and signature) before it replaces the old file,
 *    which is then deleted with its WAL; every read model is rebuilt from the new log.
 *
 * EventStoreDB logs are immutable: they cannot be migrated in place (the command says so and changes nothing).
 */
import 'reflect-metadata';
import type Database from 'better-sqlite3';
import { SqliteDatabase } from '../platform/sqlite-driver';
import { sign } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { READ_MODELS } from '../../projections';
// Loading the modules registers their privacy declarations (what to seal, under whose key).
import '../app.module';
import { IdentityCrypto } from '../modules/identity/identity.services';
import { loadSigningKey, platformCheckpointKeys } from '../modules/audit/checkpointer';
import { CHECKPOINT_EVENT_TYPE, signCheckpoint, type SignedCheckpoint } from '../modules/audit/domain/checkpoint';
import { EPOCH_ALG, EPOCH_EVENT_TYPE, EPOCH_STREAM, type EpochStatement, type SignedEpoch } from '../modules/audit/domain/epoch';
import { foldGlobal, GENESIS } from '../modules/audit/domain/global-chain';
import { EMPTY_TREE, foldLeaf, rootHex } from '../modules/audit/domain/merkle';
import { LogVerifier } from '../modules/audit/domain/log-verifier';
import { canonicalJson, committedDataJcs, eventCommitmentOf, sha256Hex as sha256 } from '../platform/commitments/commitment';
import type { JsonObject } from '../platform/commitments/json';
import { loadPlatformConfig, type PlatformConfig } from '../platform/config/platform-config';
import { newId } from '../platform/context/request-context';
import type { EventMetadata } from '../platform/event-store/event-store.port';
import { EVENTS_SCHEMA, type EventRow } from '../platform/event-store/sqlite/sqlite.event-store';
import { openSubjectKeys } from '../platform/platform.module';
import { sealEventData, sealingSubject } from '../platform/privacy/sealing';
import { LOG_SEALED } from '../platform/privacy/subject-keys';
import { privateSqliteFiles } from '../platform/security/data-dir';
import { runProjectionsCli } from './projections';

export interface PrivacyCliIo {
  out(line: string): void;
  err(line: string): void;
}

const USAGE = 'usage: npm run privacy -- migrate   (the platform stopped; docs/privacy.md)';
export async function runPrivacyCli(argv: string[], config: PlatformConfig, io: PrivacyCliIo): Promise<number> {
  if (argv[0] !== 'migrate' || argv.length !== 1) {
    io.err(USAGE);
    return 2;
  }
  if (config.eventStoreConnectionString) {
    io.err('EventStoreDB logs are immutable and cannot be migrated in place; nothing was changed (docs/privacy.md).');
    return 2;
  }
  if (config.eventStoreUrl) {
    io.err('The migration rewrites the SQLite log only; a PostgreSQL event store starts sealed and needs none. Nothing was changed (docs/privacy.md).');
    return 2;
  }
  const file = join(config.dataDir, 'events.sqlite');
  const keys = openSubjectKeys(config);
  try {
    const sealedAlready = await keys.meta(LOG_SEALED);
    if (sealedAlready !== null) {
      io.out(`the log already seals personal and secret fields (${sealedAlready}): nothing to do`);
      return 0;
    }
    if (!existsSync(file)) {
      io.err(`no event log at ${file}`);
      return 2;
    }
    const migrating = `${file}.migrating`;
    rmSync(migrating, { force: true });
    const result = await migrate(file, migrating, config, keys, io);
    const report = verifyFile(migrating, config);
    if (!report.ok) {
      rmSync(migrating, { force: true });
      io.err(`the migrated log does not verify (${report.problem}); the old log is unchanged`);
      return 1;
    }
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
    renameSync(migrating, file);
    await keys.setMeta(LOG_SEALED, `migrated at ${result.epoch.migrated_at}, epoch at position ${result.epochPosition}`);
    io.out(`migrated ${result.events} events in ${result.streams} streams; ${result.renamed} streams renamed, ${result.sealed} events sealed, ${result.checkpoints} checkpoints re-signed`);
    io.out(`epoch: previous global commitment ${result.epoch.previous_global_commitment}, new ${result.epoch.global_commitment} at ${result.epoch.event_count} events`);
  } finally {
    await keys.close();
  }
  for (const model of READ_MODELS) {
    const code = await runProjectionsCli(['rebuild', model.name], config, READ_MODELS, { out: io.out, err: io.err, interactive: false });
    if (code !== 0) return code;
  }
  return 0;
}

async function migrate(file: string, target: string, config: PlatformConfig, keys: ReturnType<typeof openSubjectKeys>, io: PrivacyCliIo) {
  const old = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  old.defaultSafeIntegers(true);
  privateSqliteFiles(target);
  const next = new SqliteDatabase(target);
  next.pragma('journal_mode = WAL');
  next.exec(EVENTS_SCHEMA);
  const crypto = new IdentityCrypto(config);
  const signingKey = loadSigningKey(config);
  try {
    const rows = (): IterableIterator<EventRow> => old.prepare('SELECT * FROM events ORDER BY position ASC').iterate() as IterableIterator<EventRow>;
    // 1. The emails the log names, by the plain hash that named their claim streams.
    const emails = new Map<string, string>();
    // …and the positions the log's checkpoints close at, where the new global chain is kept to re-sign them.
    const closing = new Set<bigint>();
    for (const r of rows()) {
      const d = JSON.parse(r.data) as Record<string, unknown>;
      if (r.type === CHECKPOINT_EVENT_TYPE) closing.add(BigInt(String(d.position)));
      const found = r.type === 'AccountRegistered' ? d.email : r.type === 'ContactChanged' && d.contact_type === 'email' ? d.value : r.type === 'ContactChangeRequested' && d.contact_type === 'email' ? d.target : undefined;
      if (typeof found === 'string') emails.set(sha256(found.trim().toLowerCase()), found);
    }
    const rename = (stream: string): string => {
      const email = /^identity-email-([0-9a-f]{64})$/.exec(stream);
      if (email) {
        const address = emails.get(email[1]);
        if (!address) throw new Error(`no email in the log hashes to ${stream}`);
        return crypto.emailStream(address);
      }
      const token = /^identity-token-([0-9a-f]{64})$/.exec(stream);
      return token ? crypto.oneUseTokenStream(token[1]) : stream;
    };

    // …and the keys of every subject whose fields get sealed, made before the one synchronous transaction below.
    const subjects = new Set<string>();
    for (const r of rows()) {
      if (r.type === CHECKPOINT_EVENT_TYPE) continue;
      const subject = sealingSubject({ type: r.type, stream: rename(r.stream), data: JSON.parse(r.data) as JsonObject, metadata: JSON.parse(r.metadata) as EventMetadata });
      if (subject !== null) subjects.add(subject);
    }
    const made = await keys.keysFor(subjects);
    const sealingKeys = { keyFor: (subject: string) => made.get(subject)!, keyById: () => null };

    // 2. Every event, re-sealed and re-linked in order; checkpoints re-signed over the new global chain.
    const insert = next.prepare(
      'INSERT INTO events (position, event_id, stream, revision, type, occurred_at, data, metadata, event_commitment, previous_event_commitment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const heads = new Map<string, string>();
    const migratedAt = new Date().toISOString();
    let oldGlobal = GENESIS;
    let newGlobal = GENESIS;
    const previousCheckpoints: SignedCheckpoint[] = [];
    let newTree = EMPTY_TREE;
    const closedAt = new Map<bigint, { chain: typeof newGlobal; root_hash: string }>();
    let events = 0;
    let renamed = 0;
    let sealed = 0;
    let checkpoints = 0;
    let lastPosition = 0n;
    let epoch: SignedEpoch | undefined;
    const renamedStreams = new Set<string>();
    next.transaction(() => {
      for (const r of rows()) {
        oldGlobal = foldGlobal(oldGlobal, r.position, r.event_commitment);
        const stream = rename(r.stream);
        if (stream !== r.stream) renamedStreams.add(r.stream);
        const metadata = JSON.parse(r.metadata) as EventMetadata;
        let data = JSON.parse(r.data) as JsonObject;
        if (r.type === CHECKPOINT_EVENT_TYPE) {
          const was = data as unknown as SignedCheckpoint;
          previousCheckpoints.push(was);
          const at = closedAt.get(BigInt(was.position));
          if (!at?.chain.commitment) throw new Error(`the checkpoint at position ${r.position} closes at ${was.position}, where the log has no event`);
          // Re-signed as v2 whatever it was: the new log's chain and Merkle tree head at the same event.
          data = signCheckpoint({ position: at.chain.position, event_count: at.chain.count, global_commitment: at.chain.commitment, root_hash: at.root_hash, created_at: migratedAt }, signingKey) as unknown as JsonObject;
          checkpoints++;
        } else {
          const opened = sealEventData({ type: r.type, stream, data, metadata }, sealingKeys);
          if (opened !== data) sealed++;
          data = opened;
        }
        const dataJcs = canonicalJson(data);
        const metadataJcs = canonicalJson(metadata);
        const previous = heads.get(stream) ?? null;
        const commitment = eventCommitmentOf({ stream, revision: r.revision, event_id: r.event_id, type: r.type, occurred_at: r.occurred_at, previous_event_commitment: previous }, committedDataJcs(data, dataJcs), metadataJcs);
        insert.run(r.position, r.event_id, stream, r.revision, r.type, r.occurred_at, dataJcs, metadataJcs, commitment, previous);
        heads.set(stream, commitment);
        newGlobal = foldGlobal(newGlobal, r.position, commitment);
        newTree = foldLeaf(newTree, commitment);
        if (closing.has(r.position)) closedAt.set(r.position, { chain: newGlobal, root_hash: rootHex(newTree) });
        lastPosition = r.position;
        events++;
      }
      renamed = renamedStreams.size;

      // 3. The epoch, the log's last event.
      const statement: EpochStatement = {
        alg: EPOCH_ALG,
        reason: 'PERSONAL_DATA_SEALED',
        event_count: oldGlobal.count.toString(),
        previous_global_commitment: oldGlobal.commitment,
        global_commitment: newGlobal.commitment,
        previous_checkpoints: previousCheckpoints,
        migrated_at: migratedAt,
        key_id: signingKey.key_id,
      };
      epoch = { ...statement, public_key: signingKey.public_key, signature: sign(null, Buffer.from(canonicalJson(statement as never), 'utf8'), signingKey.privateKey).toString('base64url') };
      const revision = BigInt((next.prepare('SELECT COUNT(*) AS n FROM events WHERE stream = ?').get(EPOCH_STREAM) as { n: number }).n);
      const metadata: EventMetadata = { tenant_uuid: null, workspace_uuid: null, actor: { type: 'system', reference: 'privacy-migration' }, correlation_id: newId(), causation_id: null, request_id: null, schema_version: 1 };
      const dataJcs = canonicalJson(epoch as never);
      const metadataJcs = canonicalJson(metadata);
      const previous = heads.get(EPOCH_STREAM) ?? null;
      const event_id = newId();
      const commitment = eventCommitmentOf({ stream: EPOCH_STREAM, revision, event_id, type: EPOCH_EVENT_TYPE, occurred_at: migratedAt, previous_event_commitment: previous }, dataJcs, metadataJcs);
      insert.run(lastPosition + 1n, event_id, EPOCH_STREAM, revision, EPOCH_EVENT_TYPE, migratedAt, dataJcs, metadataJcs, commitment, previous);
    })();
    io.out(`sealed the log into ${target}`);
    return { events, streams: heads.size, renamed, sealed, checkpoints, epoch: epoch!, epochPosition: lastPosition + 1n };
  } finally {
    next.close();
    old.close();
  }
}

/** The migrated file verified whole, as `npm run audit -- verify --all` would, under the platform's checkpoint keys. */
function verifyFile(file: string, config: PlatformConfig): { ok: boolean; problem?: string } {
  const db = new SqliteDatabase(file, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    const verifier = new LogVerifier({ scope: { kind: 'all' }, densePositions: true, trustedKeys: platformCheckpointKeys(config) });
    const parsed = (r: EventRow) => ({ ...r, data: JSON.parse(r.data) as JsonObject, metadata: JSON.parse(r.metadata) as EventMetadata });
    for (const r of db.prepare('SELECT * FROM events WHERE type = ? ORDER BY position ASC').iterate(CHECKPOINT_EVENT_TYPE) as IterableIterator<EventRow>) {
      verifier.addCheckpoint({ source: 'log', checkpoint: parsed(r).data as unknown as SignedCheckpoint });
    }
    for (const r of db.prepare('SELECT * FROM events ORDER BY position ASC').iterate() as IterableIterator<EventRow>) verifier.add(parsed(r));
    const report = verifier.finish();
    return report.ok ? { ok: true } : { ok: false, problem: report.first_break?.message ?? 'broken' };
  } finally {
    db.close();
  }
}

if (require.main === module) {
  const io: PrivacyCliIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };
  runPrivacyCli(process.argv.slice(2), loadPlatformConfig(), io).then(
    (code) => process.exit(code),
    (error: unknown) => {
      io.err(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}
