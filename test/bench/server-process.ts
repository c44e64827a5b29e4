/**
 * Real server processes for the benchmarks that measure the platform as production runs it (`node dist/src/main.js`):
 * spawn with a chosen environment and a fresh temp DATA_DIR on a free port, wait until ready, set up traders over
 * HTTP, stop, and kill everything at the end, crash or not. Shared by scale-out.bench.ts and threads.bench.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { freePort } from '../support/ports';

export const ROOT = join(__dirname, '../../..');
export const MAIN = join(ROOT, 'dist/src/main.js');
export const ORDERS_PATH = '/api/v1/api/v1/mtf/orders';
const PASSWORD = 'Bench-Server-Password-2026';
const BOOT_TIMEOUT_MS = 120_000;

/** Flags for the server processes' `node` (BENCH_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`: not allowed in NODE_OPTIONS). */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Variables of the bench's own shell that reach the servers; nothing else leaks in (WORKER_THREADS included). */
export const PASSED_THROUGH = ['LEASE_MS', 'SQLITE_WRITER_THREAD', 'NODE_OPTIONS'];

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
export const random = (bytes: number): string => randomBytes(bytes).toString('hex');

export interface ServerNode {
  name: string;
  port: number;
  url: string;
  dataDir: string;
  child: ChildProcess | null;
  exited: Promise<void>;
  /** The tail of its stdout and stderr. */
  log: string;
  /** Set before the bench stops or kills it: its exit is then no crash. */
  stopping: boolean;
}

/** What `killAll` must undo, crash or not. */
export const cleanup = { nodes: [] as ServerNode[], dirs: [] as string[], workers: [] as Worker[] };

/**
 * A server that exits by itself rejects this promise (with its log's tail); every wait of a bench races it (`guard`),
 * so the run stops at once instead of measuring a dead server.
 */
let crashed: (error: Error) => void = () => undefined;
const crash = new Promise<never>((_, reject) => (crashed = reject));
crash.catch(() => undefined);
export const guard = <T>(p: Promise<T>): Promise<T> => Promise.race([p, crash]);

/** The variables a node gets: the benchmarks' own, `extra`, and PASSED_THROUGH from this shell. */
function nodeEnv(name: string, port: number, dataDir: string, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ID: name,
    LOG_LEVEL: 'warn',
    PASSWORD_HASH_COST: '10',
    MAIL_SOURCE_LIMIT_PER_HOUR: '1000000',
    BILLING_FREE_ALLOWANCE_CREDITS: '1000000000',
    BILLING_RATER_COALESCE_MS: '50',
    ...extra,
  };
  for (const pass of ['PATH', 'HOME', 'TMPDIR', ...PASSED_THROUGH]) {
    const value = process.env[pass];
    if (value !== undefined) env[pass] = value;
  }
  return env;
}

/** Spawns `script` (the platform by default) with the running Node; it listens on PORT once booted. */
export async function startNode(name: string, extra: Record<string, string>, script = MAIN): Promise<ServerNode> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  cleanup.dirs.push(dataDir);
  const child = spawn(process.execPath, [...NODE_ARGS, script], { cwd: ROOT, env: nodeEnv(name, port, dataDir, extra), stdio: ['ignore', 'pipe', 'pipe'] });
  const node: ServerNode = { name, port, url: `http://127.0.0.1:${port}`, dataDir, child, exited: Promise.resolve(), log: '', stopping: false };
  const keep = (chunk: Buffer): void => {
    node.log = (node.log + chunk.toString('utf8')).slice(-16_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  node.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      node.child = null;
      if (!node.stopping) crashed(new Error(`${name} exited by itself (code ${code}, signal ${signal}); the tail of its log:\n${node.log.slice(-4000)}`));
      resolve();
    }),
  );
  cleanup.nodes.push(node);
  return node;
}

/** Until `path` answers 200 (the platform's readiness by default). */
export async function untilReady(node: ServerNode, path = '/health/ready'): Promise<void> {
  const deadline = Date.now() + BOOT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const status = await guard(fetch(`${node.url}${path}`, { signal: AbortSignal.timeout(5000) }).then((r) => r.status, () => 0));
    if (status === 200) return;
    await guard(sleep(100));
  }
  throw new Error(`${node.name} not ready within ${BOOT_TIMEOUT_MS / 1000} s; the tail of its log:\n${node.log.slice(-4000)}`);
}

/** SIGTERM, then the exit (SIGKILL after 30 s: a stop that hangs must not hang the run). */
export async function stopNode(node: ServerNode): Promise<void> {
  if (!node.child) return;
  node.stopping = true;
  node.child.kill('SIGTERM');
  const timer = setTimeout(() => node.child?.kill('SIGKILL'), 30_000);
  await node.exited;
  clearTimeout(timer);
}

/** Crash or not: every client worker ended, every server killed, every temp dir removed. */
export async function killAll(): Promise<void> {
  await Promise.all(cleanup.workers.map((w) => w.terminate().catch(() => undefined)));
  for (const node of cleanup.nodes) {
    node.stopping = true;
    node.child?.kill('SIGKILL');
  }
  await Promise.all(cleanup.nodes.map((n) => n.exited));
  for (const dir of cleanup.dirs) rmSync(dir, { recursive: true, force: true });
}

/** A setup call (fetch); the JSON answer, or the text when it is not JSON. */
export async function call(node: ServerNode, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }> {
  const r = await guard(
    fetch(node.url + path, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    }),
  );
  const text = await r.text();
  let json: any = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: r.status, json };
}

/** Registered, activated (the token from the node's file mailbox) and signed in, all on `node`: its bearer token. */
export async function registerTrader(node: ServerNode, tag: string): Promise<string> {
  const email = `${tag}-${random(5)}@example.com`;
  const reg = await call(node, 'POST', '/api/v1/identity/registrations', { account_type: 'personal', first_name: 'Bench', last_name: 'Trader', email, password: PASSWORD, terms: { version: '1', accepted: true } });
  if (reg.status !== 201) throw new Error(`registration on ${node.name}: ${reg.status} ${JSON.stringify(reg.json)}`);
  const mailbox = join(node.dataDir, 'mailbox', `${email}.jsonl`);
  let line = '';
  for (const deadline = Date.now() + 10_000; !line; await guard(sleep(50))) {
    try {
      line = readFileSync(mailbox, 'utf8').trim().split('\n')[0];
    } catch {
      if (Date.now() > deadline) throw new Error(`no activation mail in ${mailbox}`);
    }
  }
  const activation = await call(node, 'POST', '/api/v1/identity/activations', { token: JSON.parse(line).token });
  if (activation.status >= 300) throw new Error(`activation on ${node.name}: ${activation.status} ${JSON.stringify(activation.json)}`);
  const login = await call(node, 'POST', '/api/v1/auth/sessions', { email, password: PASSWORD });
  // 202: signed in, the session's read model not caught up within the wait (a node still taking its jobs at boot);
  // the token is good once it has, which the first authenticated read shows.
  if (login.status !== 201 && login.status !== 202) throw new Error(`sign-in on ${node.name}: ${login.status} ${JSON.stringify(login.json)}`);
  const token = login.json.access_token as string;
  for (const deadline = Date.now() + 20_000; ; await guard(sleep(100))) {
    const seen = await call(node, 'GET', ORDERS_PATH, undefined, token);
    if (seen.status === 200) break;
    if (Date.now() > deadline) throw new Error(`the session of ${email} not usable on ${node.name}: ${seen.status} ${JSON.stringify(seen.json)}`);
  }
  return token;
}
