/**
 * The command line of `npm run audit` (src/cli/audit.ts): its usage text, the options of each command, and the
 * parsing of the values (public keys, event ids, tree sizes). A bad command line is a UsageError (exit 2).
 */
import { readFileSync } from 'node:fs';
import { normalizePublicKey } from '../modules/audit/domain/checkpoint';
import type { ProveRequest } from './audit-proofs';

export const USAGE = [
  'usage: npm run audit -- verify [--stream <name> | --all] [--from-file <export.ndjson>] [--checkpoint <checkpoint.json>]… [--public-key <base64url|pem-file>]… [--json]',
  '       npm run audit -- export (--stream <name> | --all) [--out <file.ndjson>]',
  '       npm run audit -- prove --event <event_id> [--tree-size <n>] [--out <file.json>]',
  '       npm run audit -- prove --first <n> --second <m> [--out <file.json>]',
  '       npm run audit -- verify-proof <file.json> [--public-key <base64url|pem-file>]…',
].join('\n');

/** A bad command line: the CLI prints it with USAGE and exits 2. */
export class UsageError extends Error {}

const COMMANDS = ['verify', 'export', 'prove', 'verify-proof'] as const;

/** The options each command takes (a flag given to another command is a usage error). */
const OPTIONS: Record<(typeof COMMANDS)[number], readonly string[]> = {
  verify: ['--stream', '--all', '--from-file', '--checkpoint', '--public-key', '--json'],
  export: ['--stream', '--all', '--out'],
  prove: ['--event', '--tree-size', '--first', '--second', '--out'],
  'verify-proof': ['--public-key'],
};

export interface Args {
  command: (typeof COMMANDS)[number];
  stream?: string;
  all: boolean;
  fromFile?: string;
  checkpoints: string[];
  publicKeys: string[];
  json: boolean;
  out?: string;
  /** prove: what to prove (--event [--tree-size], or --first and --second). */
  prove?: ProveRequest;
  /** verify-proof: the proof file. */
  proofFile?: string;
}

const EVENT_ID = /^[0-9a-f]{32}$/;
const TREE_SIZE = /^[1-9][0-9]{0,15}$/;

/** A tree size as the proof routes take it: a positive decimal integer (a checkpoint's tree_size). */
function treeSizeArg(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!TREE_SIZE.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`${flag} must be a positive decimal integer (a checkpoint's tree_size), got ${v}`);
  return Number(v);
}

function proveRequest(flags: Map<string, string>): ProveRequest {
  const eventId = flags.get('--event');
  const [treeSize, first, second] = (['--tree-size', '--first', '--second'] as const).map((f) => treeSizeArg(f, flags.get(f)));
  if (eventId !== undefined) {
    if (first !== undefined || second !== undefined) throw new UsageError('prove takes --event [--tree-size] or --first and --second, not both');
    if (!EVENT_ID.test(eventId)) throw new UsageError(`--event must be an event_id (32 lowercase hex characters), got ${eventId}`);
    return { kind: 'inclusion', eventId, treeSize: treeSize ?? null };
  }
  if (treeSize !== undefined) throw new UsageError('--tree-size goes with --event');
  if (first === undefined || second === undefined) throw new UsageError('prove needs --event <event_id> [--tree-size <n>], or --first <n> --second <m>');
  if (first > second) throw new UsageError(`--first (${first}) must not be larger than --second (${second})`);
  return { kind: 'consistency', first, second };
}

export function parseArgs(argv: string[]): Args {
  const [command, ...rest] = argv;
  if (!(COMMANDS as readonly string[]).includes(command)) throw new UsageError(command ? `unknown command ${command}` : 'no command');
  const args: Args = { command: command as Args['command'], all: false, checkpoints: [], publicKeys: [], json: false };
  const proveFlags = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i];
    const value = (): string => {
      const v = rest[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (args.command === 'verify-proof' && !flag.startsWith('--')) {
      if (args.proofFile !== undefined) throw new UsageError(`verify-proof takes one file, got ${args.proofFile} and ${flag}`);
      args.proofFile = flag;
      continue;
    }
    if (flag.startsWith('--') && !OPTIONS[args.command].includes(flag)) {
      throw new UsageError(`${flag} is not an option of ${args.command} (it takes ${OPTIONS[args.command].join(', ')})`);
    }
    switch (flag) {
      case '--event':
      case '--tree-size':
      case '--first':
      case '--second':
        if (proveFlags.has(flag)) throw new UsageError(`${flag} is given twice`);
        proveFlags.set(flag, value());
        break;
      case '--stream':
        args.stream = value();
        break;
      case '--all':
        args.all = true;
        break;
      case '--from-file':
        args.fromFile = value();
        break;
      case '--checkpoint':
        args.checkpoints.push(value());
        break;
      case '--public-key':
        args.publicKeys.push(value());
        break;
      case '--json':
        args.json = true;
        break;
      case '--out':
        args.out = value();
        break;
      default:
        throw new UsageError(`unknown option ${flag}`);
    }
  }
  if (args.command === 'prove') {
    args.prove = proveRequest(proveFlags);
    return args;
  }
  if (args.command === 'verify-proof') {
    if (args.proofFile === undefined) throw new UsageError('verify-proof needs the proof file (what the proof routes or prove wrote)');
    return args;
  }
  if (args.stream !== undefined && args.all) throw new UsageError('--stream and --all exclude each other');
  if (command === 'export' && args.stream === undefined && !args.all) throw new UsageError('export needs --stream <name> or --all');
  return args;
}

/** A --public-key: base64url, or a file holding it or an SPKI PEM block; returns base64url. */
export function readPublicKey(arg: string): string {
  let text = arg;
  if (!/^[A-Za-z0-9_-]{43}$/.test(arg)) {
    try {
      text = readFileSync(arg, 'utf8');
    } catch {
      throw new UsageError(`--public-key ${arg}: neither a base64url key nor a readable file`);
    }
  }
  try {
    return normalizePublicKey(text);
  } catch (error) {
    throw new UsageError(`--public-key ${arg}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
