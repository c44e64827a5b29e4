/**
 * The audit module's pure parts, given/when/then: the global chain and the signed checkpoint against the independent
 * vectors (test/fixtures/audit_make_vectors.py), the log verifier on built logs with each kind of tampering, the
 * export format, and the AUDITOR role's decider.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vectors from '../fixtures/audit_vectors.json';
import { eventCommitment } from '../../src/platform/commitments/commitment';
import type { JsonObject } from '../../src/platform/commitments/json';
import type { EventMetadata } from '../../src/platform/event-store/event-store.port';
import {
  CHECKPOINT_STREAM, checkpointShapeProblems, checkSignature, keyIdOf, normalizePublicKey, signCheckpoint, signCheckpointV1, signedBytes, signingKeyFromSeed, type SignedCheckpoint,
} from '../../src/modules/audit/domain/checkpoint';
import { EMPTY_TREE, foldLeaf, rootHex } from '../../src/modules/audit/domain/merkle';
import { foldGlobal, GENESIS, globalCommitment, globalPreimage } from '../../src/modules/audit/domain/global-chain';
import { canonicalJson } from '../../src/platform/commitments/commitment';
import { LogVerifier, type AuditEvent, type AuditReport, type CheckpointClaim } from '../../src/modules/audit/domain/log-verifier';
import { endLine, eventLine, ExportFormatError, headerLine, parseLine } from '../../src/modules/audit/domain/export-format';
import { auditorsDecider, isAuditor, type AuditorEvent } from '../../src/modules/audit/domain/auditors';
import { fold } from '../../src/platform/command/decider';

const seed = Buffer.from(vectors.checkpoint.seed_base64, 'base64');
const key = signingKeyFromSeed(seed);

describe('the global chain (sha256-global-v1)', () => {
  it.each(vectors.global_links.map((l) => [l.name, l] as const))('reproduces the independent vector %s', (_name, l) => {
    const link = { position: BigInt(l.position), event_commitment: l.event_commitment, previous_global_commitment: l.previous_global_commitment };
    expect(canonicalJson(globalPreimage(link))).toBe(l.canonical);
    expect(globalCommitment(link)).toBe(l.global_commitment);
  });

  it('folds positions 1..3 of the commitment vectors to the same commitments', () => {
    let state = GENESIS;
    for (const l of vectors.global_links.slice(0, 3)) {
      state = foldGlobal(state, BigInt(l.position), l.event_commitment);
      expect(state.commitment).toBe(l.global_commitment);
    }
    expect(state.count).toBe(3n);
  });

  it('is defined for a tampered, non-hex commitment too (through the canonicalizer)', () => {
    const odd = { position: 7n, event_commitment: 'not "hex"\n', previous_global_commitment: null };
    expect(globalCommitment(odd)).toMatch(/^[0-9a-f]{64}$/);
    expect(globalCommitment(odd)).not.toBe(globalCommitment({ ...odd, event_commitment: 'not "hex"' }));
  });
});

describe('signed checkpoints (audit-checkpoint-v2 and v1, Ed25519)', () => {
  const v = vectors.checkpoint;

  it('derives the public key and its RFC 7638 key id from the seed', () => {
    expect(key.public_key).toBe(v.public_key);
    expect(key.key_id).toBe(v.key_id);
    expect(keyIdOf(v.public_key)).toBe(v.key_id);
  });

  it('signs the canonical v1 statement to the independent vector, byte for byte (what earlier versions signed)', () => {
    const s = v.statement;
    const cp = signCheckpointV1({ position: BigInt(s.position), event_count: BigInt(s.event_count), global_commitment: s.global_commitment, created_at: s.created_at }, key);
    expect(signedBytes(cp).toString('utf8')).toBe(v.signed_bytes_utf8);
    expect(cp).toEqual(v.signed_checkpoint);
    expect(checkSignature(cp)).toBe('valid');
    expect(checkSignature(cp, [v.public_key])).toBe('valid');
  });

  it('given the three vector events, when signed as v2, then the tree head and the statement are the independent vector, byte for byte', () => {
    const v2 = vectors.checkpoint_v2;
    let tree = EMPTY_TREE;
    for (const c of v2.leaf_inputs_hex) tree = foldLeaf(tree, c);
    expect(rootHex(tree)).toBe(v2.root_hash);
    const s = v2.statement;
    const cp = signCheckpoint({ position: BigInt(s.position), event_count: BigInt(s.event_count), global_commitment: s.global_commitment, root_hash: rootHex(tree), created_at: s.created_at }, key);
    expect(signedBytes(cp).toString('utf8')).toBe(v2.signed_bytes_utf8);
    expect(cp).toEqual(v2.signed_checkpoint);
    expect(checkSignature(cp, [v.public_key])).toBe('valid');
    // The tree head is signed: changing it (or its size) breaks the signature.
    expect(checkSignature({ ...cp, root_hash: '0'.repeat(64) })).toBe('bad_signature');
    expect(checkSignature({ ...cp, tree_size: '4', event_count: '4' })).toBe('bad_signature');
  });

  it('refuses a changed statement, a foreign key id and an untrusted key', () => {
    const cp = v.signed_checkpoint as SignedCheckpoint;
    expect(checkSignature({ ...cp, position: '4' })).toBe('bad_signature');
    expect(checkSignature({ ...cp, global_commitment: '0'.repeat(64) })).toBe('bad_signature');
    const other = signingKeyFromSeed(Buffer.alloc(32, 7));
    expect(checkSignature({ ...cp, public_key: other.public_key })).toBe('key_mismatch');
    expect(checkSignature({ ...cp, public_key: other.public_key, key_id: other.key_id })).toBe('bad_signature');
    expect(checkSignature(cp, [other.public_key])).toBe('untrusted_key');
  });

  it('checks the shape of a checkpoint given by hand', () => {
    expect(checkpointShapeProblems(v.signed_checkpoint)).toEqual([]);
    expect(checkpointShapeProblems({ ...v.signed_checkpoint, position: 3 })).toEqual(['position must be a decimal string']);
    expect(checkpointShapeProblems({ ...v.signed_checkpoint, signature: `${v.signed_checkpoint.signature}==` })).toEqual(['signature must be base64url (unpadded) of 64 bytes']);
    expect(checkpointShapeProblems([])).toEqual(['not a JSON object']);
    const v2 = vectors.checkpoint_v2.signed_checkpoint;
    expect(checkpointShapeProblems(v2)).toEqual([]);
    expect(checkpointShapeProblems({ ...v2, tree_size: '4' })).toEqual(['tree_size must be a decimal string equal to event_count']);
    expect(checkpointShapeProblems({ ...v2, root_hash: 'AB' })).toEqual(['root_hash must be 64 lowercase hex characters']);
    expect(checkpointShapeProblems({ ...v.signed_checkpoint, root_hash: v2.root_hash })).toEqual([
      'a audit-checkpoint-v1 checkpoint signs no tree head: tree_size and root_hash belong to audit-checkpoint-v2',
    ]);
    expect(checkpointShapeProblems({ ...v2, alg: 'audit-checkpoint-v3' })).toEqual(['alg must be "audit-checkpoint-v2" (or "audit-checkpoint-v1")']);
  });

  it('the published JSON Schema (docs/schemas/audit-checkpoint.schema.json) takes the v2 and the v1 vector, and refuses a v2 without its tree head', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Ajv2020 = require('ajv/dist/2020').default;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const addFormats = require('ajv-formats').default ?? require('ajv-formats');
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const valid = ajv.compile(JSON.parse(readFileSync(join(__dirname, '../../docs/schemas/audit-checkpoint.schema.json'), 'utf8')));
    const v2 = vectors.checkpoint_v2.signed_checkpoint;
    expect([valid(v2), valid(v.signed_checkpoint)]).toEqual([true, true]);
    const { root_hash: _root, ...headless } = v2;
    expect(valid(headless)).toBe(false);
    expect(valid({ ...v.signed_checkpoint, root_hash: v2.root_hash })).toBe(false);
  });

  it('takes a public key as base64url or as a PEM block', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const x = publicKey.export({ format: 'jwk' }).x as string;
    expect(normalizePublicKey(x)).toBe(x);
    expect(normalizePublicKey(publicKey.export({ format: 'pem', type: 'spki' }) as string)).toBe(x);
    expect(() => normalizePublicKey('abc')).toThrow(/32 bytes/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'pem', type: 'spki' }) as string;
    expect(() => normalizePublicKey(rsa)).toThrow(/not an Ed25519 key/);
  });
});

// --- the verifier on built logs ----------------------------------------------------------------------------------

const meta: EventMetadata = { tenant_uuid: null, workspace_uuid: null, actor: { type: 'system', reference: 'test' }, correlation_id: 'c'.repeat(32), causation_id: null, request_id: null, schema_version: 1 };

/** A log as an intact store holds it: each stream chained, positions 1, 2, 3… in append order. */
function buildLog(appends: Array<[stream: string, data: JsonObject]>): AuditEvent[] {
  const heads = new Map<string, { revision: bigint; commitment: string }>();
  return appends.map(([stream, data], i) => {
    const head = heads.get(stream);
    const revision = head ? head.revision + 1n : 0n;
    const fields = { stream, revision, event_id: (i + 1).toString(16).padStart(32, '0'), type: 'Thing', occurred_at: '2026-11-22T10:00:00.000Z', data, metadata: meta, previous_event_commitment: head?.commitment ?? null };
    const event_commitment = eventCommitment(fields);
    heads.set(stream, { revision, commitment: event_commitment });
    return { ...fields, position: BigInt(i + 1), event_commitment };
  });
}

const LOG = buildLog([
  ['ledger-a', { n: '1' }],
  ['ledger-b', { n: '2' }],
  ['ledger-a', { n: '3' }],
  ['ledger-a', { n: '4' }],
  ['ledger-b', { n: '5' }],
  ['ledger-a', { n: '6' }],
  ['ledger-c', { n: '7' }],
  ['ledger-a', { n: '8' }],
]);

/** A signed checkpoint over the first `count` events of `log`. */
function checkpointOver(log: AuditEvent[], count: number, signer = key, rootOverride?: string): SignedCheckpoint {
  let state = GENESIS;
  let tree = EMPTY_TREE;
  for (const e of log.slice(0, count)) {
    state = foldGlobal(state, e.position, e.event_commitment);
    tree = foldLeaf(tree, e.event_commitment);
  }
  return signCheckpoint({ position: state.position, event_count: state.count, global_commitment: state.commitment!, root_hash: rootOverride ?? rootHex(tree), created_at: '2026-11-22T10:00:01.000Z' }, signer);
}

/** The same, signed as an earlier version did (v1: no tree head). */
function checkpointV1Over(log: AuditEvent[], count: number): SignedCheckpoint {
  let state = GENESIS;
  for (const e of log.slice(0, count)) state = foldGlobal(state, e.position, e.event_commitment);
  return signCheckpointV1({ position: state.position, event_count: state.count, global_commitment: state.commitment!, created_at: '2026-11-22T10:00:01.000Z' }, key);
}

function verify(log: AuditEvent[], claims: CheckpointClaim[] = [], options: { dense?: boolean; trusted?: string[] } = {}): AuditReport {
  const v = new LogVerifier({ scope: { kind: 'all' }, densePositions: options.dense ?? true, trustedKeys: options.trusted });
  for (const c of claims) v.addCheckpoint(c);
  for (const e of log) v.add(e);
  return v.finish();
}

const external = (cp: SignedCheckpoint): CheckpointClaim => ({ source: 'external', checkpoint: cp });

describe('the log verifier', () => {
  it('given an intact log and a checkpoint over it, when verified, then every check passes', () => {
    const report = verify(LOG, [external(checkpointOver(LOG, 6))], { trusted: [key.public_key] });
    expect(report).toMatchObject({ ok: true, events: 8, streams: 3, first_position: '1', last_position: '8', break_count: 0, first_break: null });
    expect(report.checkpoints).toEqual([expect.objectContaining({ position: '6', chain: 'intact', signature: 'valid', trusted_key: true, found: report.checkpoints[0].expected })]);
    let state = GENESIS;
    for (const e of LOG) state = foldGlobal(state, e.position, e.event_commitment);
    expect(report.global_commitment).toBe(state.commitment);
    // The v2 checkpoint's tree head was recomputed from the log, and the report gives the whole log's.
    expect(report.checkpoints[0]).toMatchObject({ expected_root_hash: (checkpointOver(LOG, 6) as { root_hash: string }).root_hash, found_root_hash: (checkpointOver(LOG, 6) as { root_hash: string }).root_hash });
    let tree = EMPTY_TREE;
    for (const e of LOG) tree = foldLeaf(tree, e.event_commitment);
    expect(report.root_hash).toBe(rootHex(tree));
  });

  it('given a v1 checkpoint (an earlier version) beside a v2 one, then both verify; the v1 one has no tree head to recompute', () => {
    const report = verify(LOG, [external(checkpointV1Over(LOG, 3)), external(checkpointOver(LOG, 6))], { trusted: [key.public_key] });
    expect(report.ok).toBe(true);
    expect(report.checkpoints.map((c) => [c.position, c.chain, c.signature, c.expected_root_hash === null, c.found_root_hash === c.expected_root_hash])).toEqual([
      ['3', 'intact', 'valid', true, true],
      ['6', 'intact', 'valid', false, true],
    ]);
  });

  it('given a v2 checkpoint signing a root that is not the log\'s (the chain matches), then the tree head is the break', () => {
    const wrong = checkpointOver(LOG, 6, key, checkpointOver(LOG, 5).alg === 'audit-checkpoint-v2' ? (checkpointOver(LOG, 5) as { root_hash: string }).root_hash : '');
    const report = verify(LOG, [external(wrong)], { trusted: [key.public_key] });
    expect(report.ok).toBe(false);
    expect(report.checkpoints[0]).toMatchObject({ chain: 'rewritten', signature: 'valid', found: report.checkpoints[0].expected });
    expect(report.first_break).toMatchObject({ kind: 'checkpoint', position: '6', message: expect.stringContaining('the Merkle tree head differs from the signed one'), expected: (wrong as { root_hash: string }).root_hash, found: (checkpointOver(LOG, 6) as { root_hash: string }).root_hash });
  });

  it('given one changed byte in the data of a middle event, then it names that event with the recomputed and the stored commitment', () => {
    const log = LOG.map((e) => (e.position === 4n ? { ...e, data: { n: '5' } } : e));
    const report = verify(log, [external(checkpointOver(LOG, 6))]);
    expect(report.ok).toBe(false);
    expect(report.first_break).toEqual({
      kind: 'event_commitment', message: expect.stringContaining("does not match the event's content"), stream: 'ledger-a', revision: '2', position: '4', event_id: LOG[3].event_id,
      expected: eventCommitment({ ...LOG[3], data: { n: '5' }, metadata: meta }), found: LOG[3].event_commitment,
    });
    // The global chain folds what the content recomputes to, so the checkpoint over it no longer matches either.
    expect(report.checkpoints[0]).toMatchObject({ chain: 'rewritten' });
    expect(report.break_count).toBe(2);
  });

  it('given a middle event deleted, then it names the missing position and the stream revision it belonged to', () => {
    const log = LOG.filter((e) => e.position !== 3n); // ledger-a revision 1
    const report = verify(log);
    expect(report.breaks[0]).toEqual({
      kind: 'position_gap', position: '3', stream: null, revision: null, event_id: null, expected: '3', found: '4',
      message: 'position 3 is missing (the log goes on at position 4): events were removed from the log',
    });
    expect(report.breaks[1]).toMatchObject({
      kind: 'revision', stream: 'ledger-a', revision: '2', position: '4', expected: LOG[0].event_commitment, found: LOG[2].event_commitment,
      message: expect.stringContaining('revision 2 found where revision 1 was expected'),
    });
    expect(report.break_count).toBe(2);
  });

  it('given two events of one stream swapped in commit order, then it names the first out-of-order revision', () => {
    const log = LOG.map((e) => (e.position === 3n ? { ...LOG[3], position: 3n } : e.position === 4n ? { ...LOG[2], position: 4n } : e));
    const report = verify(log);
    expect(report.first_break).toMatchObject({ kind: 'revision', stream: 'ledger-a', revision: '2', position: '3', expected: LOG[0].event_commitment, found: LOG[2].event_commitment });
  });

  it('given two events of different streams swapped, then only the checkpoint sees it, with the signed and the recomputed global commitment', () => {
    const log = LOG.map((e) => (e.position === 4n ? { ...LOG[4], position: 4n } : e.position === 5n ? { ...LOG[3], position: 5n } : e));
    const report = verify(log, [external(checkpointOver(LOG, 2)), external(checkpointOver(LOG, 6))]);
    expect(report.break_count).toBe(1);
    const cp = checkpointOver(LOG, 6);
    expect(report.first_break).toMatchObject({ kind: 'checkpoint', position: '6', expected: cp.global_commitment, found: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(report.first_break!.message).toContain('history up to it was rewritten after position 2 (the last checkpoint that matched)');
    expect(report.checkpoints.map((c) => [c.position, c.chain, c.intact_until])).toEqual([['2', 'intact', null], ['6', 'rewritten', '2']]);
  });

  it('given the tail cut off before a checkpoint, then it reports the checkpoint past the end of the log', () => {
    const report = verify(LOG.slice(0, 4), [external(checkpointOver(LOG, 6))]);
    expect(report.first_break).toMatchObject({ kind: 'checkpoint', position: '6', found: null, message: expect.stringContaining('past the end of the log, which ends at position 4 after 4 events') });
    expect(report.checkpoints[0]).toMatchObject({ chain: 'truncated' });
  });

  it('given the event a checkpoint ends on deleted, then history up to it was rewritten', () => {
    const report = verify(LOG.filter((e) => e.position !== 6n), [external(checkpointOver(LOG, 6))], { dense: false });
    expect(report.first_break).toMatchObject({ kind: 'checkpoint', position: '6', found: null, message: expect.stringContaining('no event at that position') });
  });

  it('given a checkpoint with a changed statement or another key, then its signature is the break', () => {
    const cp = checkpointOver(LOG, 6);
    expect(verify(LOG, [external({ ...cp, created_at: '2030-01-01T00:00:00Z' })]).first_break).toMatchObject({ kind: 'checkpoint', message: expect.stringContaining('does not verify') });
    const forger = signingKeyFromSeed(Buffer.alloc(32, 9));
    const report = verify(LOG, [{ source: 'log', checkpoint: checkpointOver(LOG, 6, forger) }], { trusted: [key.public_key] });
    expect(report.first_break).toMatchObject({ kind: 'checkpoint', message: expect.stringContaining(`signed with key ${forger.key_id}, not with a trusted key`) });
    expect(report.checkpoints[0]).toMatchObject({ chain: 'intact', signature: 'untrusted_key', trusted_key: false });
  });

  it('given unreadable stored data, then it reports that event and goes on', () => {
    const log = LOG.map((e) => (e.position === 2n ? { ...e, data: null, unreadable: { data: '{"n":"2"' } } : e));
    const report = verify(log);
    expect(report.breaks).toEqual([expect.objectContaining({ kind: 'unreadable', position: '2', stream: 'ledger-b', found: '{"n":"2"' })]);
  });

  it('given positions going backwards (an edited export), then it names them; on a sparse store gaps are fine', () => {
    const report = verify([LOG[0], LOG[2], LOG[1]], [], { dense: false });
    expect(report.breaks[0]).toMatchObject({ kind: 'position_order', position: '2', found: '2' });
    expect(verify(LOG.map((e) => ({ ...e, position: e.position * 10n })), [], { dense: false }).ok).toBe(true);
  });

  it('verifies one stream alone, and refuses events of other streams in it', () => {
    const a = LOG.filter((e) => e.stream === 'ledger-a');
    const v = new LogVerifier({ scope: { kind: 'stream', stream: 'ledger-a' }, densePositions: true });
    a.forEach((e) => v.add(e));
    expect(v.finish()).toMatchObject({ ok: true, events: 5, streams: 1, global_commitment: null });
    const w = new LogVerifier({ scope: { kind: 'stream', stream: 'ledger-a' }, densePositions: true });
    [a[0], LOG[1]].forEach((e) => w.add(e));
    expect(w.finish().first_break).toMatchObject({ kind: 'export', stream: 'ledger-b' });
    expect(() => w.addCheckpoint(external(checkpointOver(LOG, 2)))).toThrow(/--all/);
  });

  it('holds an export end record against what was read', () => {
    const v = new LogVerifier({ scope: { kind: 'all' }, densePositions: true });
    LOG.forEach((e) => v.add(e));
    const g = v.globalState.commitment;
    expect(v.finish({ events: 8n, last_position: 8n, global_commitment: g }).ok).toBe(true);
    const w = new LogVerifier({ scope: { kind: 'all' }, densePositions: true });
    LOG.slice(0, 7).forEach((e) => w.add(e));
    expect(w.finish({ events: 8n, last_position: 8n, global_commitment: g }).breaks.map((b) => b.message)).toEqual([
      "the export's end record counts 8 events, the file holds 7",
      "the export's end record names another global commitment than its events recompute",
    ]);
    const x = new LogVerifier({ scope: { kind: 'all' }, densePositions: true });
    expect(x.finish(null).first_break).toMatchObject({ kind: 'export', message: 'the export file has no end record: it was cut off' });
  });

  it('finds a malformed checkpoint event in the log', () => {
    const log = buildLog([['ledger-a', { n: '1' }], [CHECKPOINT_STREAM, { alg: 'audit-checkpoint-v1', position: 1 }]]);
    expect(verify(log).first_break).toMatchObject({ kind: 'checkpoint', stream: CHECKPOINT_STREAM, message: expect.stringContaining('position must be a decimal string') });
  });
});

describe('the export format (NDJSON)', () => {
  it('writes and reads back header, events and the end record', () => {
    const header = parseLine(headerLine({ scope: { kind: 'stream', stream: 'ledger-a' }, store: 'sqlite', dense_positions: true, exported_at: '2026-11-22T10:00:00.000Z' }), 1);
    expect(header).toEqual({ record: 'header', header: expect.objectContaining({ format: 'platform-audit-export-v1', scope: 'stream', stream: 'ledger-a', commitment_alg: 'sha256-jcs-v1', global_alg: 'sha256-global-v1' }) });
    for (const e of LOG) expect(parseLine(eventLine(e), 2)).toEqual({ record: 'event', event: e });
    const odd: AuditEvent = { ...LOG[0], data: null, unreadable: { data: 'not json' } };
    expect(parseLine(eventLine(odd), 3)).toEqual({ record: 'event', event: odd });
    expect(parseLine(endLine({ events: 8n, last_position: 8n, global_commitment: null }), 4)).toEqual({ record: 'end', end: { events: 8n, last_position: 8n, global_commitment: null } });
  });

  it('names the line and the problem of a bad record', () => {
    expect(() => parseLine('{', 7)).toThrow(new ExportFormatError(7, 'not JSON'));
    expect(() => parseLine('{"record":"event","position":1}', 8)).toThrow('line 8: position must be a string');
    expect(() => parseLine(eventLine(LOG[0]).replace('"revision":"0"', '"revision":"-1"'), 9)).toThrow('line 9: revision must be a decimal string');
    expect(() => parseLine('{"record":"header","format":"v0"}', 1)).toThrow('format must be platform-audit-export-v1');
    expect(() => parseLine('{"record":"trailer"}', 10)).toThrow('record must be "header", "event" or "end"');
  });

  it('reads the independent sample export, which verifies with its checkpoint under the vector key', () => {
    const lines = readFileSync(join(__dirname, '../fixtures/audit_export_sample.ndjson'), 'utf8').trim().split('\n');
    const records = lines.map((l, i) => parseLine(l, i + 1));
    const events = records.flatMap((r) => (r.record === 'event' ? [r.event] : []));
    const end = records.find((r) => r.record === 'end');
    const v = new LogVerifier({ scope: { kind: 'all' }, densePositions: true, trustedKeys: [vectors.checkpoint.public_key] });
    for (const e of events) if (e.stream === CHECKPOINT_STREAM) v.addCheckpoint({ source: 'log', checkpoint: e.data as unknown as SignedCheckpoint });
    for (const e of events) v.add(e);
    const report = v.finish(end?.record === 'end' ? end.end : null);
    expect(report).toMatchObject({ ok: true, events: 4, global_commitment: vectors.export_sample.global_commitment });
    expect(report.checkpoints).toEqual([expect.objectContaining({ position: '3', chain: 'intact', signature: 'valid', trusted_key: true })]);
  });
});

describe('the AUDITOR role', () => {
  const now = new Date('2026-11-22T10:00:00.000Z');
  const ctx = { now, newId: () => 'x'.repeat(32) };
  const given = (events: AuditorEvent[]) => fold(auditorsDecider, events);
  const granted: AuditorEvent = { type: 'AuditorGranted', data: { profile_uuid: 'p1', granted_by: 'admin', reason: 'audit 2026', granted_at: now.toISOString() } };

  it('given no grant, when an admin grants it, then AuditorGranted; granting again changes nothing', () => {
    expect(auditorsDecider.decide({ kind: 'GrantAuditor', profile_uuid: 'p1', by: 'admin', reason: 'audit 2026' }, given([]), ctx)).toEqual([granted]);
    expect(auditorsDecider.decide({ kind: 'GrantAuditor', profile_uuid: 'p1', by: 'admin', reason: 'again' }, given([granted]), ctx)).toEqual([]);
    expect(isAuditor(given([granted]), 'p1')).toBe(true);
    expect(isAuditor(given([granted]), 'p2')).toBe(false);
  });

  it('given a grant, when revoked, then AuditorRevoked and the role is gone; revoking what is not held is a 404', () => {
    const revoke = { kind: 'RevokeAuditor' as const, profile_uuid: 'p1', by: 'admin', reason: 'done' };
    const events = auditorsDecider.decide(revoke, given([granted]), ctx);
    expect(events).toEqual([{ type: 'AuditorRevoked', data: { profile_uuid: 'p1', revoked_by: 'admin', reason: 'done', revoked_at: now.toISOString() } }]);
    expect(isAuditor(given([granted, ...events]), 'p1')).toBe(false);
    expect(() => auditorsDecider.decide(revoke, given([]), ctx)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(isAuditor(given([]), '__proto__')).toBe(false);
  });
});
