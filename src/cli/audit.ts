/**
 * `npm run audit -- verify …` and `npm run audit -- export …`: the auditors' offline tools (docs/audit.md). They read
 * the events as stored — the SQLite file under DATA_DIR (read-only), EventStoreDB when EVENTSTORE_CONNECTION_STRING
 * is set, or an export file — and recompute every commitment, link, position and the global chain, held against
 * signed checkpoints. Exit codes: 0 intact, 1 broken, 2 usage, 3 the source could not be read.
 *
 * `prove` and `verify-proof` (src/cli/audit-proofs.ts): the Merkle proofs of the proof routes, from the platform's own
 * stores, and their offline check. `prove` exits 0 with the proof written, 2 usage, 3 the stores could not be read,
 * 4 no such proof (unknown event or tree size, or a tree without the event), 5 not yet (no checkpoint covers the
 * event yet, or the audit-merkle projection is behind the log); `verify-proof` 0 the proof holds, 1 it does not, 2
 * usage (an unreadable file, or not a proof).
 */
import 'reflect-metadata';
import { SingleBar, Presets } from 'cli-progress';
import { createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { loadPlatformConfig, type PlatformConfig } from '../platform/config/platform-config';
import { CHECKPOINT_STREAM, checkpointShapeProblems, isSignedCheckpoint, type SignedCheckpoint } from '../modules/audit/domain/checkpoint';
import { endLine, eventLine, ExportFormatError, headerLine, type ExportHeader } from '../modules/audit/domain/export-format';
import { LogVerifier, type AuditBreak, type AuditEvent, type AuditReport, type CheckpointOutcome, type ExportEnd, type Scope } from '../modules/audit/domain/log-verifier';
import { exportRecords, fileSize, PortAuditSource, SqliteAuditSource, type AuditSource } from '../modules/audit/sources';
import { platformCheckpointKeys } from '../modules/audit/checkpointer';
import { parseArgs, readPublicKey, USAGE, UsageError, type Args } from './audit-args';
import { checkProof, NotAProof, proofReport, proveOffline, type ProofCheck } from './audit-proofs';

export interface AuditCliIo {
  out(line: string): void;
  err(line: string): void;
  /** Where `export` writes without --out (process.stdout). */
  stdout: Writable;
  /** A progress bar on stderr (a TTY); otherwise progress lines every 10% on stderr. */
  interactive: boolean;
}

export const EXIT = { OK: 0, BROKEN: 1, USAGE: 2, SOURCE: 3, NO_PROOF: 4, NOT_YET: 5 } as const;

/** The store the platform is configured with, read as stored. */
export async function openAuditSource(config: PlatformConfig): Promise<AuditSource> {
  if (config.eventStoreConnectionString) {
    // Loaded only when used: the gRPC client is most of the CLI's start-up time.
    const { EventStoreDbEventStore } = await import('../platform/event-store/eventstoredb/eventstoredb.event-store');
    return new PortAuditSource(new EventStoreDbEventStore(config.eventStoreConnectionString), 'EventStoreDB (EVENTSTORE_CONNECTION_STRING)');
  }
  if (config.eventStoreUrl) {
    const { PostgresEventStore } = await import('../platform/event-store/postgres/postgres.event-store');
    return new PortAuditSource(new PostgresEventStore({ connectionString: config.eventStoreUrl, schema: config.eventStoreSchema }), `PostgreSQL (EVENT_STORE_URL, schema ${config.eventStoreSchema})`);
  }
  const file = join(config.dataDir, 'events.sqlite');
  if (!existsSync(file)) throw new Error(`no event store at ${file} (DATA_DIR=${config.dataDir})`);
  return new SqliteAuditSource(file);
}

class Progress {
  private bar: SingleBar | null = null;
  private lastTenth = -1;

  constructor(private readonly io: AuditCliIo, private readonly label: string, private readonly total: number, private readonly unit: string) {
    if (io.interactive && total > 0) {
      this.bar = new SingleBar({ format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {eta}s left`, stream: process.stderr }, Presets.shades_classic);
      this.bar.start(total, 0);
    }
  }

  update(value: number): void {
    if (this.bar) return void this.bar.update(Math.min(value, this.total));
    const tenth = this.total > 0 ? Math.min(10, Math.floor((value * 10) / this.total)) : 10;
    if (tenth !== this.lastTenth) {
      this.lastTenth = tenth;
      this.io.err(`${this.label}: ${tenth * 10}% (${Math.min(value, this.total)}/${this.total} ${this.unit})`);
    }
  }

  stop(): void {
    this.bar?.stop();
  }
}

function readCheckpointFile(path: string): SignedCheckpoint {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--checkpoint ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problems = checkpointShapeProblems(value);
  if (problems.length > 0) throw new UsageError(`--checkpoint ${path} is not a signed checkpoint: ${problems.join('; ')}`);
  return value as SignedCheckpoint;
}

const scopeText = (scope: Scope): string => (scope.kind === 'all' ? 'the whole log' : `stream ${scope.stream}`);

function printBreak(io: AuditCliIo, b: AuditBreak, indent: string): void {
  if (b.stream !== null) io.out(`${indent}stream    ${b.stream}`);
  if (b.revision !== null) io.out(`${indent}revision  ${b.revision}`);
  if (b.position !== null) io.out(`${indent}position  ${b.position}`);
  if (b.event_id !== null) io.out(`${indent}event_id  ${b.event_id}`);
  io.out(`${indent}problem   ${b.kind}: ${b.message}`);
  io.out(`${indent}expected  ${b.expected ?? 'null'}`);
  io.out(`${indent}found     ${b.found ?? 'null'}`);
}

function checkpointLine(c: CheckpointOutcome): string {
  const signature =
    c.signature === 'valid' ? (c.trusted_key ? 'signature valid (trusted key)' : "signature valid with the checkpoint's own key (not independently trusted)") : `signature ${c.signature.toUpperCase()}`;
  const chain =
    c.chain === 'intact'
      ? `history up to it intact`
      : c.chain === 'truncated'
        ? 'TRUNCATED: the log ends before it'
        : `history up to it REWRITTEN${c.intact_until ? ` after position ${c.intact_until}` : ''}`;
  // Where the log reaches the checkpoint: its tree head recomputed (v2), or none signed (v1).
  const tree =
    c.found_root_hash === null && c.expected_root_hash !== null ? '' : c.expected_root_hash === null ? ' v1, no tree head;' : c.found_root_hash === c.expected_root_hash ? ' Merkle root equal;' : ' Merkle root DIFFERS;';
  return `checkpoint ${c.source} position ${c.position} (${c.event_count} events, ${c.created_at}, key ${c.key_id}): ${chain};${tree} ${signature}`;
}

export function printReport(io: AuditCliIo, report: AuditReport, source: string): void {
  io.out(`audit verify: ${scopeText(report.scope)} from ${source}`);
  io.out(`read ${report.events} events of ${report.streams} stream${report.streams === 1 ? '' : 's'}${report.first_position ? `, positions ${report.first_position}–${report.last_position}` : ''}`);
  if (report.global_commitment) io.out(`global commitment at position ${report.last_position}: ${report.global_commitment}`);
  if (report.root_hash && report.scope.kind === 'all') io.out(`Merkle tree head of ${report.events} events: ${report.root_hash}`);
  for (const c of report.checkpoints) io.out(checkpointLine(c));
  if (report.scope.kind === 'all' && report.checkpoints.length === 0) io.out('no checkpoint to hold the log against (none in the log, none given with --checkpoint)');
  if (report.ok) {
    io.out('INTACT: every event commitment, previous link, position and checkpoint verifies.');
    return;
  }
  io.out(`BROKEN: ${report.break_count} break${report.break_count === 1 ? '' : 's'}; the first:`);
  printBreak(io, report.first_break!, '  ');
  const more = report.breaks.slice(1);
  if (more.length > 0) {
    io.out('further breaks:');
    for (const b of more) {
      const at = [b.position !== null ? `position ${b.position}` : null, b.stream !== null ? `stream ${b.stream} revision ${b.revision}` : null].filter(Boolean).join(', ');
      io.out(`  - ${at ? `${at}: ` : ''}${b.kind}: ${b.message}; expected ${b.expected ?? 'null'}, found ${b.found ?? 'null'}`);
    }
    if (report.break_count > report.breaks.length) io.out(`  … and ${report.break_count - report.breaks.length} more`);
  }
}

async function verifyFromStore(scope: Scope, config: PlatformConfig, external: SignedCheckpoint[], trusted: string[], io: AuditCliIo): Promise<{ report: AuditReport; source: string } | null> {
  let source: AuditSource;
  try {
    source = await openAuditSource(config);
  } catch (error) {
    io.err(`cannot open the event store: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
  try {
    const verifier = new LogVerifier({ scope, densePositions: source.densePositions, trustedKeys: trusted });
    let total: bigint;
    if (scope.kind === 'all') {
      for (const e of await source.checkpointEvents()) if (isSignedCheckpoint(e.data)) verifier.addCheckpoint({ source: 'log', checkpoint: e.data });
      for (const cp of external) verifier.addCheckpoint({ source: 'external', checkpoint: cp });
      total = await source.head();
    } else {
      total = await source.streamLength(scope.stream);
      if (total === 0n) throw new UsageError(`stream ${scope.stream} has no events in ${source.description}`);
    }
    const progress = new Progress(io, 'verify', Number(total), scope.kind === 'all' ? 'positions' : 'events');
    let n = 0;
    for await (const page of source.events(scope)) {
      for (const e of page) verifier.add(e);
      n += page.length;
      progress.update(scope.kind === 'all' ? Number(page[page.length - 1].position) : n);
    }
    progress.update(Number(total));
    progress.stop();
    return { report: verifier.finish(), source: source.description };
  } finally {
    await source.close();
  }
}

async function verifyFromFile(path: string, args: Args, external: SignedCheckpoint[], trusted: string[], io: AuditCliIo): Promise<{ report: AuditReport; source: string }> {
  const size = fileSize(path);
  // First pass: the header, and the checkpoints recorded in the exported log (they are held against the events
  // before them, so they must be known before those are read).
  let header: ExportHeader | null = null;
  const inLog: SignedCheckpoint[] = [];
  for await (const { record, line } of exportRecords(path)) {
    if (line === 1 || header === null) {
      if (record.record !== 'header') throw new ExportFormatError(line, 'the first line must be the header record');
      header = record.header;
      continue;
    }
    if (record.record === 'header') throw new ExportFormatError(line, 'a second header record');
    if (record.record === 'event' && record.event.stream === CHECKPOINT_STREAM && isSignedCheckpoint(record.event.data)) inLog.push(record.event.data);
  }
  if (!header) throw new ExportFormatError(1, 'the file is empty');
  const scope: Scope = header.scope === 'all' ? { kind: 'all' } : { kind: 'stream', stream: header.stream! };
  if (args.stream !== undefined && (scope.kind !== 'stream' || scope.stream !== args.stream)) throw new UsageError(`the file exports ${scopeText(scope)}, not stream ${args.stream}`);
  if (args.all && scope.kind !== 'all') throw new UsageError(`the file exports ${scopeText(scope)}, not the whole log`);
  if (external.length > 0 && scope.kind !== 'all') throw new UsageError('--checkpoint needs an export of the whole log (export --all)');

  const verifier = new LogVerifier({ scope, densePositions: header.dense_positions, trustedKeys: trusted });
  if (scope.kind === 'all') {
    for (const cp of inLog) verifier.addCheckpoint({ source: 'log', checkpoint: cp });
    for (const cp of external) verifier.addCheckpoint({ source: 'external', checkpoint: cp });
  }
  const progress = new Progress(io, 'verify', size, 'bytes');
  let end: ExportEnd | null = null;
  let afterEnd = false;
  for await (const { record, line, bytes } of exportRecords(path)) {
    if (record.record === 'header') continue;
    if (end) afterEnd = true;
    if (record.record === 'end') {
      if (end) throw new ExportFormatError(line, 'a second end record');
      end = record.end;
    } else {
      verifier.add(record.event);
    }
    if (line % 1000 === 0) progress.update(bytes);
  }
  progress.update(size);
  progress.stop();
  if (afterEnd) io.err('warning: records after the end record were verified too');
  return { report: verifier.finish(end), source: `export file ${path} (${header.store}, exported ${header.exported_at})` };
}

async function verify(args: Args, config: PlatformConfig, io: AuditCliIo): Promise<number> {
  const external = args.checkpoints.map(readCheckpointFile);
  // The keys the auditor names, and the keys of the checkpoints they bring: what the log's own checkpoints must use.
  const named = [...args.publicKeys.map(readPublicKey), ...external.map((c) => c.public_key)];
  // Verifying this platform's own store with no key named: its checkpoints must carry its own keys (the signing key
  // and AUDIT_TRUSTED_KEYS), so a log rewritten and re-signed with another key does not pass as intact.
  const platformKeys = named.length === 0 && !args.fromFile ? platformCheckpointKeys(config) : [];
  if (platformKeys.length > 0) io.err(`trusting this platform's checkpoint keys (${platformKeys.length}: AUDIT_SIGNING_KEY or DATA_DIR/audit-signing.key, and AUDIT_TRUSTED_KEYS); --public-key names others`);
  const trusted = [...new Set([...named, ...platformKeys])];
  const scope: Scope = args.stream !== undefined ? { kind: 'stream', stream: args.stream } : { kind: 'all' };
  if (external.length > 0 && scope.kind !== 'all') throw new UsageError('--checkpoint covers the whole log: use it with --all');
  let result: { report: AuditReport; source: string } | null;
  try {
    result = args.fromFile ? await verifyFromFile(args.fromFile, args, external, trusted, io) : await verifyFromStore(scope, config, external, trusted, io);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    io.err(`audit verify could not read its source: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.SOURCE;
  }
  if (!result) return EXIT.SOURCE;
  if (args.json) io.out(JSON.stringify(result.report));
  else printReport(io, result.report, result.source);
  return result.report.ok ? EXIT.OK : EXIT.BROKEN;
}

/** Writes lines with backpressure. */
class LineWriter {
  private buffer: string[] = [];
  private size = 0;
  constructor(private readonly out: Writable) {}

  async write(line: string): Promise<void> {
    this.buffer.push(line);
    this.size += line.length + 1;
    if (this.size >= 1 << 20) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const chunk = `${this.buffer.join('\n')}\n`;
    this.buffer = [];
    this.size = 0;
    if (!this.out.write(chunk)) await new Promise<void>((resolve) => this.out.once('drain', resolve));
  }
}

async function exportLog(args: Args, config: PlatformConfig, io: AuditCliIo): Promise<number> {
  const scope: Scope = args.all ? { kind: 'all' } : { kind: 'stream', stream: args.stream! };
  let source: AuditSource;
  try {
    source = await openAuditSource(config);
  } catch (error) {
    io.err(`cannot open the event store: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.SOURCE;
  }
  const file = args.out ? createWriteStream(args.out, { encoding: 'utf8' }) : null;
  const out = file ?? io.stdout;
  try {
    const total = scope.kind === 'all' ? await source.head() : await source.streamLength(scope.stream);
    if (scope.kind === 'stream' && total === 0n) throw new UsageError(`stream ${scope.stream} has no events in ${source.description}`);
    // The export also verifies what it writes, so its end record holds the recomputed global commitment.
    const verifier = new LogVerifier({ scope, densePositions: source.densePositions });
    const writer = new LineWriter(out);
    await writer.write(headerLine({ scope, store: source.store, dense_positions: source.densePositions, exported_at: new Date().toISOString() }));
    const progress = new Progress(io, 'export', Number(total), scope.kind === 'all' ? 'positions' : 'events');
    let n = 0;
    let last: AuditEvent | null = null;
    for await (const page of source.events(scope)) {
      for (const e of page) {
        verifier.add(e);
        await writer.write(eventLine(e));
        last = e;
      }
      n += page.length;
      progress.update(scope.kind === 'all' ? Number(page[page.length - 1].position) : n);
    }
    progress.update(Number(total));
    progress.stop();
    const report = verifier.finish();
    await writer.write(endLine({ events: BigInt(report.events), last_position: last?.position ?? null, global_commitment: report.global_commitment }));
    await writer.flush();
    io.err(`exported ${report.events} events of ${scopeText(scope)}${report.ok ? '' : ` — WARNING: they do not verify (${report.break_count} breaks; run audit verify)`}`);
    return EXIT.OK;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    io.err(`audit export failed: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.SOURCE;
  } finally {
    await source.close();
    if (file) await new Promise<void>((resolve, reject) => file.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
}

/** `prove`: the proof the routes answer, from the platform's stores, to stdout or --out (JSON, one line). */
async function prove(args: Args, config: PlatformConfig, io: AuditCliIo): Promise<number> {
  const request = args.prove!;
  // The log's head, read only when the answer depends on whether the tree has reached it.
  const logHead = async (): Promise<bigint> => {
    const source = await openAuditSource(config);
    try {
      return await source.head();
    } finally {
      await source.close();
    }
  };
  const outcome = await proveOffline(config, request, logHead);
  if (!outcome.ok) {
    for (const line of outcome.lines) io.err(`audit prove: ${line}`);
    return outcome.reason === 'not_found' ? EXIT.NO_PROOF : outcome.reason === 'not_yet' ? EXIT.NOT_YET : EXIT.SOURCE;
  }
  const json = JSON.stringify(outcome.proof);
  const p = outcome.proof;
  const what =
    'audit_path' in p
      ? `the inclusion proof of event ${p.event_id} (leaf ${p.leaf_index}) in the tree of checkpoint tree_size ${p.tree_size}`
      : `the consistency proof from tree_size ${p.first} to tree_size ${p.second}`;
  if (args.out) {
    try {
      writeFileSync(args.out, `${json}\n`);
    } catch (error) {
      io.err(`audit prove: cannot write ${args.out}: ${error instanceof Error ? error.message : String(error)}`);
      return EXIT.SOURCE;
    }
    io.err(`wrote ${what} to ${args.out}`);
  } else {
    io.out(json);
    io.err(`${what}; check it with npm run audit -- verify-proof <file>`);
  }
  return EXIT.OK;
}

/** `verify-proof`: checks a proof file offline; 0 it holds, 1 it does not. */
function verifyProof(args: Args, io: AuditCliIo): number {
  const trusted = [...new Set(args.publicKeys.map(readPublicKey))];
  const path = args.proofFile!;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let check: ProofCheck;
  try {
    check = checkProof(value, trusted);
  } catch (error) {
    if (error instanceof NotAProof) throw new UsageError(`${path} is not a proof: ${error.message}`);
    throw error;
  }
  for (const line of proofReport(check, path)) io.out(line);
  return check.holds ? EXIT.OK : EXIT.BROKEN;
}

export async function runAuditCli(argv: string[], config: PlatformConfig, io: AuditCliIo): Promise<number> {
  try {
    const args = parseArgs(argv);
    switch (args.command) {
      case 'verify':
        return await verify(args, config, io);
      case 'export':
        return await exportLog(args, config, io);
      case 'prove':
        return await prove(args, config, io);
      case 'verify-proof':
        return verifyProof(args, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(error.message);
      io.err(USAGE);
      return EXIT.USAGE;
    }
    if (error instanceof ExportFormatError) {
      io.err(`the export file is not readable: ${error.message}`);
      return EXIT.SOURCE;
    }
    throw error;
  }
}

if (require.main === module) {
  const io: AuditCliIo = {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
    stdout: process.stdout,
    interactive: Boolean(process.stderr.isTTY),
  };
  runAuditCli(process.argv.slice(2), loadPlatformConfig(), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      io.err(error instanceof Error ? error.message : String(error));
      process.exitCode = EXIT.SOURCE;
    },
  );
}
