/**
 * Where a request's time goes: `npm run bench:profile -- <placement|list|health> [seconds] [--connections N] [--callers F]
 * [--allocations]` (`--connections 1`: one request at a time, as the latency benchmark sends them; `--allocations`:
 * also what the run allocated, by package and function).
 *
 * Boots the real application in process on a fresh temp DATA_DIR (as the HTTP benchmark does), loads it with
 * autocannon in one worker thread, and records a V8 CPU profile of the main thread during the measured run only (the
 * inspector's profiler, started after the warm-up: `node --cpu-prof` would also distort the event-loop utilization the
 * harness waits on). Prints the throughput and the main thread's CPU per response, then the self time by package or
 * source folder and by function, and writes the profile (open it in Chrome DevTools, Performance tab) next to the
 * working directory as `profile-<scenario>.cpuprofile`.
 *
 * Self time of a native call (`all`, `run`, `get`: better-sqlite3 statements; `writev`: socket writes) is shown under
 * the name V8 gives it; `--callers <function>` prints who called it (async continuations show as `runMicrotasks`).
 * A development tool, not a benchmark: it asserts nothing and is not part of `npm run bench`.
 */
import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader } from '../support/traders';
import { autocannon, baseUrl, BENCH_APP_ENV, cannon, JSON_HEADERS, measure, settle, type AutocannonRequest } from './http-harness';
import { placementSetupFactory } from './order-flow';
import { log, runBenchmark } from './report';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ORDERS_PATH = '/api/v1/api/v1/mtf/orders';

/** A package (node_modules/<name>), a source folder (src/<area>/<module>), node's own (node:…) or V8's (native). */
function areaOf(url: string, name: string): string {
  if (!url) return `(native) ${name}`;
  const pkg = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  for (const root of ['/src/', '/projections/', '/test/']) {
    const at = url.lastIndexOf(root);
    if (at >= 0) return url.slice(at + 1).split('/').slice(0, root === '/src/' ? 3 : 2).join('/');
  }
  return url.startsWith('node:') ? url : url.split('/').slice(-2).join('/');
}

/** A function as the summaries name it: its name, and its file and line when it has one. */
function functionKey({ functionName, url, lineNumber }: { functionName: string; url: string; lineNumber: number }): string {
  return `${functionName || '(anonymous)'} ${url ? `${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : ''}`.trimEnd();
}

function selfTimes(profile: CpuProfile): { total: number; byNode: Map<number, number> } {
  const byNode = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    byNode.set(id, (byNode.get(id) ?? 0) + dt);
    total += dt;
  });
  return { total, byNode };
}

function printTop(title: string, sums: Map<string, number>, total: number, top: number): void {
  log(title);
  for (const [key, t] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, top)) log(`  ${((t / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}

function summarize(profile: CpuProfile, top: number, callersOf: string | undefined): void {
  const { total, byNode } = selfTimes(profile);
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, t] of byNode) {
    const frame = nodes.get(id)!.callFrame;
    const area = areaOf(frame.url, frame.functionName || '(anonymous)');
    byArea.set(area, (byArea.get(area) ?? 0) + t);
    const fn = functionKey(frame);
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + t);
  }
  printTop('Self time by package or source folder', byArea, total, top);
  printTop('Self time by function', byFunction, total, top);
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Whose work a sample is: the innermost frame of a module or a projector on its stack (better-sqlite3's statements,
  // TypeORM, the JSON helpers and the projection runner count for the projector or module that called them), else
  // the innermost of the platform's own folders; what has neither is node's, a package's, or V8's own.
  const byOwner = new Map<string, number>();
  for (const [id, t] of byNode) {
    let owner: string | null = null;
    let platformArea: string | null = null;
    for (let n: number | undefined = id; n !== undefined && owner === null; n = parent.get(n)) {
      const { url, functionName } = nodes.get(n)!.callFrame;
      const area = areaOf(url, functionName);
      if (/^(projections|src\/modules)\//.test(area)) owner = area;
      else if (platformArea === null && area.startsWith('src/')) platformArea = area;
    }
    const key = owner ?? platformArea ?? '(outside our code: node, packages, V8, idle)';
    byOwner.set(key, (byOwner.get(key) ?? 0) + t);
  }
  printTop('Time by owner (the innermost module or projector on the stack)', byOwner, total, top);
  if (!callersOf) return;
  const chains = new Map<string, number>();
  for (const [id, t] of byNode) {
    if (nodes.get(id)!.callFrame.functionName !== callersOf) continue;
    const chain: string[] = [];
    for (let p = parent.get(id); p !== undefined && chain.length < 4; p = parent.get(p)) {
      const f = nodes.get(p)!.callFrame;
      chain.push(`${f.functionName || '(anonymous)'}@${f.url.split('/').pop()}:${f.lineNumber + 1}`);
    }
    chains.set(chain.join(' < '), (chains.get(chain.join(' < ')) ?? 0) + t);
  }
  printTop(`Callers of ${callersOf}`, chains, total, top);
}

interface AllocationNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
}
interface AllocationProfile {
  head: AllocationNode;
}

/**
 * `--allocations`: what the measured run allocated (V8's sampling heap profiler, every 16 KB on average), per response,
 * by package or source folder and by function. The young generation's collections, which pause the event loop, come
 * as often as this fills it.
 */
function summarizeAllocations(profile: AllocationProfile, responses: number, top: number): void {
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  const walk = (node: AllocationNode): void => {
    if (node.selfSize > 0) {
      total += node.selfSize;
      const area = areaOf(node.callFrame.url, node.callFrame.functionName || '(anonymous)');
      byArea.set(area, (byArea.get(area) ?? 0) + node.selfSize);
      const fn = functionKey(node.callFrame);
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.selfSize);
    }
    node.children.forEach(walk);
  };
  walk(profile.head);
  log(`Allocated during the measured run: ${(total / 1e6).toFixed(0)} MB, ${(total / Math.max(1, responses) / 1024).toFixed(0)} KB per response (sampled)`);
  printTop('Allocation by package or source folder', byArea, total, top);
  printTop('Allocation by function', byFunction, total, top);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const scenario = args[0] ?? 'placement';
  const seconds = Number(args[1] ?? '8');
  const callersAt = args.indexOf('--callers');
  const callersOf = callersAt >= 0 ? args[callersAt + 1] : undefined;
  const connectionsAt = args.indexOf('--connections');
  const connections = connectionsAt >= 0 ? Number(args[connectionsAt + 1]) : undefined;
  const allocations = args.includes('--allocations');
  if (!['placement', 'list', 'health'].includes(scenario)) throw new Error('scenario: placement | list | health');

  const dir = mkdtempSync(join(tmpdir(), 'profile-'));
  mkdirSync(join(dir, 'data'));
  const setupPath = join(dir, 'placement-setup.js');
  writeFileSync(setupPath, `'use strict';\nmodule.exports = (${placementSetupFactory.toString()})();\n`);
  let platform: TestApp | undefined;
  try {
    platform = await startTestApp({ ...BENCH_APP_ENV, DATA_DIR: join(dir, 'data') });
    await platform.app.listen({ port: 0, host: '127.0.0.1' });
    const url = baseUrl(platform.app);
    const trader = await registerTrader(platform);
    const place: AutocannonRequest = { method: 'POST', path: ORDERS_PATH, headers: { ...JSON_HEADERS, ...trader }, setupRequest: setupPath };
    let request: AutocannonRequest = place;
    if (scenario === 'list') {
      await autocannon({ url, connections: 64, amount: 10_000, workers: 1, timeout: 10, requests: [place] });
      request = { method: 'GET', path: ORDERS_PATH, headers: trader };
    } else if (scenario === 'health') {
      request = { method: 'GET', path: '/health/live' };
    }
    await settle();
    await cannon(url, request, 2);
    await settle();

    const session = new Session();
    session.connect();
    const post = <T>(method: string, params: object = {}): Promise<T> =>
      new Promise((done, fail) => session.post(method, params, (error, result) => (error ? fail(error) : done(result as T))));
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 });
    if (allocations) await post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    await post('Profiler.start');
    const measured = await measure(`${scenario} (${seconds} s)`, url, request, { durationS: seconds, prepare: false, connections });
    const { profile } = await post<{ profile: CpuProfile }>('Profiler.stop');
    const sampled = allocations ? await post<{ profile: AllocationProfile }>('HeapProfiler.stopSampling') : null;
    session.disconnect();

    const file = resolve(`profile-${scenario}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    log(`CPU profile of the measured run: ${file} (${measured.result['2xx']} responses)`);
    summarize(profile, 30, callersOf);
    if (sampled) summarizeAllocations(sampled.profile, measured.result['2xx'], 30);
  } finally {
    if (platform) await platform.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBenchmark(main);
