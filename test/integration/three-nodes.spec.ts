/**
 * Several API nodes on one log (issue 29), as real server processes: three nodes on their own ports and DATA_DIRs over
 * one PostgreSQL event store, PostgreSQL read models and the subject keys beside the log, every secret shared. Orders,
 * cancels and AI-agent wallet intents go to all three. Shown:
 * - each projector and each market's engine runs on exactly one node at a time (sampled from every node's /metrics
 *   while the load runs, and from the lease rows);
 * - a write on one node reads back on another with X-Min-Position;
 * - the single-writer jobs are spread: every node holds some, none more than 40% (platform_job_held on /metrics);
 * - SIGKILL of the node holding the ETH-PERP engine's lease, mid-load, with the shipped defaults: the survivors hold
 *   all of its jobs within 5 s and a crossing pair placed on them right after the kill is filled within 6 s; every
 *   acknowledged command is in the log and in the read models afterwards, no order is filled past its quantity and no
 *   trade twice, the engine's stream still chains;
 * - a node paused (SIGSTOP) past its lease while holding an engine: its jobs move to the other node, and once it runs
 *   again its late writes are refused (platform_leases_lost_total{how="write_refused"}), nothing filled twice;
 * - the read models the surviving nodes built equal a rebuild of every read model from the log.
 * The figures (failover time, acknowledged commands, rates) are printed for docs/operations.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { READ_MODELS } from '../../projections';
import { runProjectionsCli } from '../../src/cli/projections';
import { verifyStreamChain } from '../../src/platform/commitments/commitment';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres.event-store';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';
import { freePort } from '../support/ports';
import { until } from '../support/traders';

const ROOT = join(__dirname, '../..');
const HOOK = join(ROOT, 'test/support/audit-ts-hook.js');
const PASSWORD = 'Three-Nodes-Password-2026';
/** The shipped default (PLATFORM's LEASE_MS): the nodes run with it, so a paused node is fenced after this long. */
const LEASE_MS = 10_000;
const NAMES = ['node-a', 'node-b', 'node-c'] as const;
type NodeName = (typeof NAMES)[number];

const eventSchema = `es_${hex32().slice(0, 12)}`;
const readSchema = `rm_${hex32().slice(0, 12)}`;
const rebuiltSchema = `rb_${hex32().slice(0, 12)}`;
const key = () => randomBytes(32).toString('base64');
/** What every node shares: the stores and every secret (docs/operations.md, "Several nodes"). */
const shared = {
  EVENT_STORE_URL: TEST_DATABASE_URL,
  EVENT_STORE_SCHEMA: eventSchema,
  DATABASE_URL: TEST_DATABASE_URL,
  DATABASE_SCHEMA: readSchema,
  IDENTITY_SECRET_KEY: key(),
  PLATFORM_SECRET_KEY: key(),
  PRIVACY_MASTER_KEY: key(),
  AUDIT_SIGNING_KEY: key(),
  MEMORY_SIGNING_KEY: key(),
  // No checkpoint events while the read models are compared with a rebuild (a quiet log once the load stops).
  AUDIT_CHECKPOINT_EVERY_EVENTS: '1000000',
  AUDIT_CHECKPOINT_INTERVAL_MS: String(24 * 3600 * 1000),
  PASSWORD_HASH_COST: '10',
  MAIL_SOURCE_LIMIT_PER_HOUR: '1000000',
  LOG_LEVEL: 'warn',
};

interface Node {
  name: NodeName;
  port: number;
  dataDir: string;
  process: ChildProcess | null;
  log: string;
}

const nodes = {} as Record<NodeName, Node>;

function start(node: Node): void {
  const env: Record<string, string | undefined> = { ...process.env, ...shared, DATA_DIR: node.dataDir, PORT: String(node.port), HOST: '127.0.0.1', NODE_ID: node.name, WORKER_THREADS: '0' };
  delete env.KAFKA_BROKERS;
  delete env.EVENTSTORE_CONNECTION_STRING;
  const child = spawn(process.execPath, ['-r', HOOK, join(ROOT, 'src/main.ts')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => (node.log += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (node.log += c.toString('utf8')));
  node.process = child;
}

interface Reply {
  status: number;
  json: any;
  position: bigint | null;
}

async function call(node: Node, method: string, path: string, options: { body?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const r = await fetch(`http://127.0.0.1:${node.port}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await r.text();
  const position = r.headers.get('x-position');
  return { status: r.status, json: text ? JSON.parse(text) : null, position: position ? BigInt(position) : null };
}

async function untilReady(node: Node, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (node.process?.exitCode !== null) throw new Error(`${node.name} exited (${node.process?.exitCode}); its log:\n${node.log.slice(-4000)}`);
    const status = await fetch(`http://127.0.0.1:${node.port}/health/ready`).then((r) => r.status, () => 0);
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${node.name} not ready within ${timeoutMs} ms; its log:\n${node.log.slice(-4000)}`);
}

async function sql<T extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    return (await c.query(text, values)).rows as T[];
  } finally {
    await c.end();
  }
}

/** A person registered on one node, activated on the next, signed in on the third: one account, every node. */
async function person(tag: string, [first, second, third]: Node[]): Promise<string> {
  const email = `${tag}-${hex32().slice(0, 8)}@example.com`;
  const reg = await call(first, 'POST', '/api/v1/identity/registrations', { body: { account_type: 'personal', first_name: 'N', last_name: 'O', email, password: PASSWORD, terms: { version: '1', accepted: true } } });
  // 201, or 202 where its read model had not caught up within the wait (as for the sign-in below): registered either way.
  expect([201, 202]).toContain(reg.status);
  const [line] = readFileSync(join(first.dataDir, 'mailbox', `${email}.jsonl`), 'utf8').trim().split('\n');
  expect((await call(second, 'POST', '/api/v1/identity/activations', { body: { token: JSON.parse(line).token } })).status).toBeLessThan(300);
  const login = await call(third, 'POST', '/api/v1/auth/sessions', { body: { email, password: PASSWORD } });
  // 202: signed in, the session's read model not caught up within the read-your-writes wait (a node still taking its
  // share of the jobs after boot); the token is good on every node once each has read the log up to its position.
  expect([201, 202]).toContain(login.status);
  const token = login.json.access_token as string;
  if (login.status === 202) {
    expect(login.position).not.toBeNull();
    for (const node of [first, second, third]) {
      for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 100))) {
        const seen = await call(node, 'GET', '/api/v1/identity/contact', { token, headers: { 'x-min-position': String(login.position) } });
        if (seen.status === 200) break;
        if (Date.now() > deadline) throw new Error(`the session of ${email} is not usable on ${node.name}: ${seen.status} ${JSON.stringify(seen.json)}`);
      }
    }
  }
  return token;
}

const ORDER = { venue: 'MTF', market: 'ETH-PERP', order_type: 'LIMIT', time_in_force: 'GTC', external_reference: 'M25vZGVz', leverage: 1, reduce_only: false, combos: [] };
const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';
const POLICY = {
  capabilities: ['TRANSFER'], assets: ['ETH'], destinations: [DEST], max_single_amount: '1', daily_limit: '1000', monthly_limit: '10000',
  velocity_window_seconds: 3600, velocity_max_count: 10000, autonomous_threshold: '1', currency: 'ETH', asset_budgets: [],
};
const RATIONALE = { schema: 'agent-rationale/v1', summary: 'Pay the hosting invoice', explanation: 'Invoice 42 is due today.', expected_outcome: 'Invoice settled', reference: 'inv-42' };

/** Which node runs each job now, from every node's /metrics: job → the nodes where it is 'running'. */
async function runningJobs(alive: Node[]): Promise<Map<string, NodeName[]>> {
  const jobs = new Map<string, NodeName[]>();
  for (const node of alive) {
    const text = await fetch(`http://127.0.0.1:${node.port}/metrics`).then((r) => r.text());
    for (const m of text.matchAll(/^platform_(projection|matching_engine)_up\{(?:projection|market_uuid)="([^"]+)",state="running"\} 1$/gm)) {
      const job = `${m[1]}:${m[2]}`;
      jobs.set(job, [...(jobs.get(job) ?? []), node.name]);
    }
  }
  return jobs;
}

/** The jobs each node says it holds (platform_job_held on /metrics); a node that does not answer within 1 s holds none. */
async function heldJobs(alive: Node[]): Promise<Map<NodeName, string[]>> {
  const held = new Map<NodeName, string[]>();
  for (const node of alive) {
    const text = await fetch(`http://127.0.0.1:${node.port}/metrics`, { signal: AbortSignal.timeout(1000) }).then((r) => r.text(), () => '');
    held.set(node.name, [...text.matchAll(/^platform_job_held\{job="([^"]+)"\} 1$/gm)].map((m) => m[1]));
  }
  return held;
}

/**
 * A node's leases found gone, all jobs (platform_leases_lost_total): `write_refused`, a late write fenced off;
 * `renewal`, a heartbeat that found another holder first (the job stopped before writing).
 */
async function leasesLost(node: Node): Promise<{ write_refused: number; renewal: number }> {
  const text = await fetch(`http://127.0.0.1:${node.port}/metrics`, { signal: AbortSignal.timeout(2000) }).then((r) => r.text(), () => '');
  const count = (how: string) => [...text.matchAll(new RegExp(`^platform_leases_lost_total\\{how="${how}",job="[^"]+"\\} (\\d+)$`, 'gm'))].reduce((sum, m) => sum + Number(m[1]), 0);
  return { write_refused: count('write_refused'), renewal: count('renewal') };
}

const leaseOwners = async (): Promise<Map<string, string | null>> =>
  new Map((await sql<{ name: string; owner: string | null }>(`SELECT name, owner FROM "${readSchema}".projection_checkpoints`)).map((r) => [r.name, r.owner]));

beforeAll(async () => {
  for (const name of NAMES) nodes[name] = { name, port: await freePort(), dataDir: mkdtempSync(join(tmpdir(), `${name}-`)), process: null, log: '' };
  // The first node creates the schemas and seeds the markets; the other two join it (they could start together too:
  // every creation is under an advisory lock, every seed an expected-revision append).
  start(nodes['node-a']);
  await untilReady(nodes['node-a'], 120_000);
  start(nodes['node-b']);
  start(nodes['node-c']);
  await Promise.all([untilReady(nodes['node-b'], 120_000), untilReady(nodes['node-c'], 120_000)]);
}, 300_000);

afterAll(async () => {
  for (const node of Object.values(nodes)) node.process?.kill('SIGKILL');
  await new Promise((r) => setTimeout(r, 200));
  for (const node of Object.values(nodes)) rmSync(node.dataDir, { recursive: true, force: true });
  await sql(`DROP SCHEMA IF EXISTS "${eventSchema}" CASCADE; DROP SCHEMA IF EXISTS "${readSchema}" CASCADE; DROP SCHEMA IF EXISTS "${rebuiltSchema}" CASCADE`);
});

describe('three API nodes on one PostgreSQL event store (real server processes)', () => {
  const all = (): Node[] => NAMES.map((n) => nodes[n]);
  let traders: Array<{ token: string; home: Node }> = [];
  let fresh: string[] = [];
  let ethPerp = '';
  let projectorNames: string[] = [];
  let agent: { token: string; binding: string } = { token: '', binding: '' };

  it('shares the work: every projector and engine runs on exactly one node; a write on one node reads back on another with X-Min-Position', async () => {
    const [a, b, c] = all();
    traders = [
      { token: await person('t1', [a, b, c]), home: a },
      { token: await person('t2', [b, c, a]), home: b },
      { token: await person('t3', [c, a, b]), home: c },
      { token: await person('t4', [a, c, b]), home: a },
    ];
    // Two who take no part in the load: their crossing pair after the failover cannot meet their own resting orders
    // (self-trade prevention would cancel it).
    fresh = [await person('t5', [b, a, c]), await person('t6', [c, b, a])];
    const markets = await call(b, 'GET', '/api/v1/api/v1/mtf/markets', { token: traders[1].token });
    expect(markets.status).toBe(200);
    ethPerp = markets.json.response['ETH-PERP'].market_uuid;
    expect(ethPerp).toMatch(/^[0-9a-f-]{32,36}$/);

    // Each job on exactly one node, and every lease row owned by one of the three.
    const jobs = await until(() => runningJobs(all()), (j) => j.has(`matching_engine:${ethPerp}`) && [...j.values()].every((n) => n.length === 1), 30_000, 'every job on one node');
    const projectors = [...jobs.keys()].filter((j) => j.startsWith('projection:'));
    projectorNames = projectors.map((j) => j.slice('projection:'.length));
    expect(projectors.length).toBeGreaterThan(10);
    const owners = await leaseOwners();
    for (const [job, [node]] of jobs) {
      const lease = job.startsWith('projection:') ? job.slice('projection:'.length) : `engine:${job.slice('matching_engine:'.length)}`;
      expect(`${lease} ${owners.get(lease)?.split('#')[0]}`).toBe(`${lease} ${node}`);
    }
    // Spread over the live nodes: each holds some, none more than 40% (each heartbeat shares them out again).
    const share = (held: Map<NodeName, string[]>) => {
      const total = [...held.values()].reduce((sum, jobs) => sum + jobs.length, 0);
      return { total, largest: Math.max(...[...held.values()].map((jobs) => jobs.length)) / Math.max(1, total), smallest: Math.min(...[...held.values()].map((jobs) => jobs.length)) };
    };
    const spread = await until(() => heldJobs(all()), (held) => share(held).smallest > 0 && share(held).largest <= 0.4, 20_000, 'the jobs spread over the three nodes');
    process.stdout.write(
      `three nodes: ${jobs.size} projector and engine jobs; jobs held ${[...spread].map(([n, j]) => `${n} ${j.length}`).join(', ')} (largest share ${(share(spread).largest * 100).toFixed(0)}%); ` +
        `engines ${[...spread].map(([n, j]) => `${n} ${j.filter((x) => x.startsWith('engine:')).length}`).join(', ')}\n`,
    );
    expect(share(spread).largest).toBeLessThanOrEqual(0.4);

    // Read-your-writes across nodes: placed on A, read on B and C at the position A answered with.
    const placed = await call(a, 'POST', '/api/v1/trading/orders', { token: traders[0].token, body: { ...ORDER, side: 'BUY', quantity: '0.5', limit_price: '1000' } });
    expect([201, 202]).toContain(placed.status);
    expect(placed.position).not.toBeNull();
    for (const reader of [b, c]) {
      const read = await call(reader, 'GET', `/api/v1/trading/orders/${placed.json.order_uuid}`, { token: traders[0].token, headers: { 'x-min-position': String(placed.position) } });
      expect(read.status).toBe(200);
      expect(read.json).toMatchObject({ order_uuid: placed.json.order_uuid, quantity: expect.stringMatching(/^0\.5/) });
    }
    // Cancelled on C, seen cancelled on A.
    const cancelled = await call(c, 'POST', `/api/v1/trading/orders/${placed.json.order_uuid}/cancel`, { token: traders[0].token, body: {} });
    expect([200, 201, 202]).toContain(cancelled.status);
    const afterCancel = await until(
      () => call(a, 'GET', `/api/v1/trading/orders/${placed.json.order_uuid}`, { token: traders[0].token, headers: cancelled.position ? { 'x-min-position': String(cancelled.position) } : {} }),
      (r) => r.json?.status === 'CANCELLED',
      15_000,
      'the cancel seen on another node',
    );
    expect(afterCancel.status).toBe(200);

    // An AI-agent wallet: the workspace made on A, the binding on B, the agent's token from C, an intent on C read on A.
    const workspace = await call(a, 'POST', '/api/v1/workspaces', { token: traders[0].token, body: { name: 'Treasury' } });
    expect(workspace.status).toBe(201);
    const binding = await call(b, 'POST', '/api/v1/ai-wallets/bindings', {
      token: traders[0].token,
      headers: { 'x-min-position': String(workspace.position ?? 0n) },
      body: { workspace_uuid: workspace.json.workspace_id, agent_label: 'payments-agent', environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: DEST, policy: POLICY },
    });
    expect(`${binding.status} ${binding.status === 201 ? '' : JSON.stringify(binding.json)}`).toBe('201 ');
    const token = await call(c, 'POST', '/api/v1/auth/token', { body: { grant_type: 'client_credentials', client_id: binding.json.workload_client_id, client_secret: binding.json.client_secret } });
    expect(token.status).toBe(200);
    agent = { token: token.json.access_token, binding: binding.json.binding_uuid };
    const intent = await call(c, 'POST', `/api/v1/ai-wallets/bindings/${agent.binding}/intents`, {
      token: agent.token,
      headers: { 'idempotency-key': hex32(), 'x-min-position': String(binding.position ?? 0n) },
      body: { type: 'TRANSFER', asset: 'ETH', amount: '0.01', destination: { type: 'ADDRESS', id: DEST }, rationale: RATIONALE },
    });
    expect([201, 202]).toContain(intent.status);
    const seen = await call(a, 'GET', `/api/v1/ai-wallets/intents/${intent.json.intent_uuid}`, { token: traders[0].token, headers: { 'x-min-position': String(intent.position) } });
    expect(seen.status).toBe(200);
    expect(seen.json).toMatchObject({ intent_uuid: intent.json.intent_uuid, amount: expect.stringMatching(/^0\.01/) });
  }, 180_000);

  it("moves the engine's lease when its node is killed mid-load: nothing acknowledged lost, nothing filled twice, read models equal a rebuild", async () => {
    const owners = await leaseOwners();
    const holder = nodes[owners.get(`engine:${ethPerp}`)!.split('#')[0] as NodeName];
    const survivors = all().filter((n) => n !== holder);
    let alive = all();

    // The load: on every node, crossing pairs (they fill), resting orders cancelled on another node, agent intents.
    const acked = { orders: [] as Array<{ order_uuid: string; quantity: number; position: bigint }>, cancels: [] as string[], intents: [] as Array<{ intent_uuid: string; amount: number }> };
    let failed = 0;
    const refusals = new Map<string, number>();
    const refused = (what: string, r: Reply) => refusals.set(`${what} ${r.status} ${r.json?.error?.code ?? ''}`, (refusals.get(`${what} ${r.status} ${r.json?.error?.code ?? ''}`) ?? 0) + 1);
    let overlaps = 0;
    let stop = false;
    const loops = all().flatMap((node, n) =>
      Array.from({ length: 3 }, async (_, k) => {
        let i = 0;
        while (!stop) {
          i++;
          const who = traders[(n + k + i) % traders.length].token;
          try {
            if (k === 2 && i % 2 === 0) {
              const r = await call(node, 'POST', `/api/v1/ai-wallets/bindings/${agent.binding}/intents`, {
                token: agent.token,
                headers: { 'idempotency-key': hex32() },
                body: { type: 'TRANSFER', asset: 'ETH', amount: '0.01', destination: { type: 'ADDRESS', id: DEST }, rationale: RATIONALE },
              });
              if (r.status === 201 || r.status === 202) acked.intents.push({ intent_uuid: r.json.intent_uuid, amount: 0.01 });
              else {
                failed++;
                refused('intent', r);
              }
              continue;
            }
            const resting = k === 1;
            const side = i % 2 ? 'BUY' : 'SELL';
            const price = resting ? (side === 'BUY' ? '500' : '90000') : '3000';
            const r = await call(node, 'POST', '/api/v1/trading/orders', { token: who, body: { ...ORDER, side, quantity: '0.1', limit_price: price } });
            if (r.status !== 201 && r.status !== 202) {
              failed++;
              refused('order', r);
              continue;
            }
            acked.orders.push({ order_uuid: r.json.order_uuid, quantity: 0.1, position: r.position! });
            if (resting) {
              const other = alive[(alive.indexOf(node) + 1) % alive.length] ?? node;
              const x = await call(other, 'POST', `/api/v1/trading/orders/${r.json.order_uuid}/cancel`, { token: who, body: {} });
              if (x.status < 300) acked.cancels.push(r.json.order_uuid);
              else refused('cancel', x);
            }
          } catch {
            failed++; // the killed node: connection refused
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      }),
    );
    // Sampling: never two nodes running one job.
    let samplingOn = true;
    const sampling = (async () => {
      while (!stop && samplingOn) {
        const jobs = await runningJobs(alive).catch(() => new Map<string, NodeName[]>());
        for (const n of jobs.values()) if (n.length > 1) overlaps++;
        await new Promise((r) => setTimeout(r, 200));
      }
    })();

    // The load stops however the phases below end (a failed expectation must not leave it spinning).
    let beforeKill = 0;
    try {
      // Mid-load: at least 3 s of it and more than 20 orders acknowledged (a slow, busy machine takes longer to get there).
      const loadStarted = Date.now();
      while ((Date.now() - loadStarted < 3000 || acked.orders.length <= 20) && Date.now() - loadStarted < 30_000) await new Promise((r) => setTimeout(r, 100));
      beforeKill = acked.orders.length;
      const jobsBefore = new Set([...(await heldJobs(all())).values()].flat());
      const exited = new Promise((resolve) => holder.process!.once('exit', resolve));
      holder.process!.kill('SIGKILL');
      const killedAt = Date.now();
      await exited;
      holder.process = null;
      alive = survivors;
      // Matching again: a crossing pair placed on the survivors right after the kill fills once the engine moved.
      const [s1, s2] = survivors;
      const pair = (async () => {
        const sell = await call(s1, 'POST', '/api/v1/trading/orders', { token: fresh[0], body: { ...ORDER, side: 'SELL', quantity: '0.1', limit_price: '2000' } });
        const buy = await call(s2, 'POST', '/api/v1/trading/orders', { token: fresh[1], body: { ...ORDER, side: 'BUY', quantity: '0.1', limit_price: '90000' } });
        await until(() => call(s2, 'GET', `/api/v1/trading/orders/${buy.json.order_uuid}`, { token: fresh[1] }), (r) => r.json?.status === 'FILLED', 20_000, 'a fill after failover');
        return { sell, buy, filledMs: Date.now() - killedAt };
      })();
      const held = await until(() => heldJobs(survivors), (h) => [...jobsBefore].every((job) => [...h.values()].some((jobs) => jobs.includes(job))), 20_000, "the killed node's jobs held by the survivors");
      const allHeldMs = Date.now() - killedAt;
      const moved = await leaseOwners();
      const newHolder = moved.get(`engine:${ethPerp}`)!.split('#')[0];
      const { sell, buy, filledMs: matchingAgainMs } = await pair;
      await new Promise((r) => setTimeout(r, 1500));
      samplingOn = false;
      acked.orders.push({ order_uuid: sell.json.order_uuid, quantity: 0.1, position: sell.position! }, { order_uuid: buy.json.order_uuid, quantity: 0.1, position: buy.position! });

      process.stdout.write(
        `three nodes, kill -9 of ${holder.name} (ETH-PERP engine, ${jobsBefore.size} jobs held before): all held by the survivors after ${allHeldMs} ms ` +
          `(${[...held].map(([n, j]) => `${n} ${j.length}`).join(', ')}), engine on ${newHolder}, a crossing pair placed after the kill filled after ${matchingAgainMs} ms (LEASE_MS ${LEASE_MS})\n`,
      );
      expect(overlaps).toBe(0);
      expect(beforeKill).toBeGreaterThan(20);
      expect(allHeldMs).toBeLessThanOrEqual(5000);
      expect(matchingAgainMs).toBeLessThanOrEqual(6000);
      expect(survivors.map((n) => n.name)).toContain(newHolder);

      // A node paused past its lease (a long GC, a frozen VM) while it runs the engine: the other node takes its jobs,
      // and what the paused node writes once it runs again is refused (fencing), not written beside its successor's.
      const paused = nodes[newHolder as NodeName];
      const other = survivors.find((n) => n !== paused)!;
      const lostBefore = await leasesLost(paused);
      paused.process!.kill('SIGSTOP');
      const pausedAt = Date.now();
      await until(leaseOwners, (o) => (o.get(`engine:${ethPerp}`) ?? '').split('#')[0] === other.name, LEASE_MS + 10_000, 'the paused node\'s engine taken over');
      const takenOverMs = Date.now() - pausedAt;
      // Orders for its market meanwhile: the paused engine's stream moves on under its successor.
      const pausedSell = await call(other, 'POST', '/api/v1/trading/orders', { token: fresh[0], body: { ...ORDER, side: 'SELL', quantity: '0.1', limit_price: '2000' } });
      const pausedBuy = await call(other, 'POST', '/api/v1/trading/orders', { token: fresh[1], body: { ...ORDER, side: 'BUY', quantity: '0.1', limit_price: '90000' } });
      await until(() => call(other, 'GET', `/api/v1/trading/orders/${pausedBuy.json.order_uuid}`, { token: fresh[1] }), (r) => r.json?.status === 'FILLED', 20_000, 'a fill while the node is paused');
      acked.orders.push({ order_uuid: pausedSell.json.order_uuid, quantity: 0.1, position: pausedSell.position! }, { order_uuid: pausedBuy.json.order_uuid, quantity: 0.1, position: pausedBuy.position! });
      paused.process!.kill('SIGCONT');
      // Resumed, it finds its leases gone: a late write refused (fenced), or its heartbeat first (stopped before writing).
      const lostAfter = await until(
        () => leasesLost(paused),
        (n) => n.write_refused + n.renewal > lostBefore.write_refused + lostBefore.renewal,
        20_000,
        'the resumed node fenced',
      );
      process.stdout.write(
        `three nodes, SIGSTOP of ${paused.name}: its engine on ${other.name} after ${takenOverMs} ms; resumed, ${lostAfter.write_refused - lostBefore.write_refused} late writes refused, ` +
          `${lostAfter.renewal - lostBefore.renewal} leases found gone by its heartbeat\n`,
      );
      expect(takenOverMs).toBeLessThanOrEqual(LEASE_MS + 5000);
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      stop = true;
      samplingOn = false;
      await Promise.all([...loops, sampling]);
      for (const node of all()) if (node.process) node.process.kill('SIGCONT'); // never leave a node stopped
    }
    process.stdout.write(
      `three nodes: ${acked.orders.length} orders (${beforeKill} before the kill), ${acked.cancels.length} cancels, ${acked.intents.length} intents acknowledged, ${failed} refused or unanswered (${[...refusals].map(([k, v]) => `${k}: ${v}`).join(', ')})\n`,
    );

    // Every acknowledged command is in the log.
    const store = new PostgresEventStore({ connectionString: TEST_DATABASE_URL, schema: eventSchema });
    let events: RecordedEvent[] = [];
    try {
      for (let after = 0n, page: RecordedEvent[]; (page = await store.readAll({ after, maxCount: 5000 })).length > 0; after = page[page.length - 1].position) events = events.concat(page);
    } finally {
      await store.close();
    }
    const orderIds = new Set(events.filter((e) => e.type === 'OrderAccepted' || e.type === 'OrderPlaced').map((e) => String((e.data as { order_uuid?: string }).order_uuid)));
    const missing = acked.orders.filter((o) => !orderIds.has(o.order_uuid));
    expect(missing).toEqual([]);
    const intentIds = new Set(events.filter((e) => e.type === 'AiWalletIntentReserved').map((e) => String((e.data as { intent: { intent_uuid: string } }).intent.intent_uuid)));
    expect(acked.intents.filter((i) => !intentIds.has(i.intent_uuid))).toEqual([]);

    // Nothing filled twice: one trade per trade id, no order past its quantity, the engine's stream unbroken.
    const trades = events.filter((e) => e.type === 'TradeExecuted').map((e) => e.data as { trade_uuid: string; maker_order_uuid: string; taker_order_uuid: string; size: string });
    expect(new Set(trades.map((t) => t.trade_uuid)).size).toBe(trades.length);
    const filled = new Map<string, number>();
    for (const t of trades) for (const id of [t.maker_order_uuid, t.taker_order_uuid]) filled.set(id, (filled.get(id) ?? 0) + Number(t.size));
    const quantities = new Map(acked.orders.map((o) => [o.order_uuid, o.quantity]));
    const overfilled = [...filled].filter(([id, size]) => quantities.has(id) && size > quantities.get(id)! + 1e-9);
    expect(overfilled).toEqual([]);
    expect(trades.length).toBeGreaterThan(0);
    const engineStream = events.find((e) => e.type === 'TradeExecuted')!.stream;
    const raw = new PostgresEventStore({ connectionString: TEST_DATABASE_URL, schema: eventSchema });
    try {
      expect(verifyStreamChain(await raw.readStream(engineStream))).toBeNull();
    } finally {
      await raw.close();
    }

    // The read models catch up on the survivors: every acknowledged order decided and shown as the trades say.
    const head = events[events.length - 1].position;
    await until(
      async () => (await sql<{ behind: string }>(`SELECT count(*)::text AS behind FROM "${readSchema}".projection_checkpoints WHERE name = ANY($1::text[]) AND position < $2`, [projectorNames, head.toString()]))[0].behind,
      (behind) => behind === '0',
      60_000,
      'every projector at the head',
    );
    const reader = survivors[0];
    const everyone = [...traders.map((t) => t.token), ...fresh];
    for (const o of acked.orders.filter((_, i) => i % 7 === 0 || i >= acked.orders.length - 2)) {
      const read = await until(
        async () => {
          for (const token of everyone) {
            const r = await call(reader, 'GET', `/api/v1/trading/orders/${o.order_uuid}`, { token, headers: { 'x-min-position': head.toString() } });
            if (r.status === 200) return r;
          }
          return null;
        },
        (r) => r !== null && r.json.status !== 'PENDING' && r.json.status !== 'NEW',
        20_000,
        `order ${o.order_uuid} decided`,
      );
      const shown = (read!.json.fills as Array<{ size: string }>).reduce((sum, f) => sum + Number(f.size), 0);
      expect(shown).toBeCloseTo(filled.get(o.order_uuid) ?? 0, 9);
    }
    for (const id of acked.cancels) expect(filled.get(id) ?? 0).toBe(0); // resting far from the market: cancelled, never filled
    // The agent's budget holds every reserved intent once, as the log has them, on a node that served none: the
    // acknowledged ones (the first test's too) and any the killed node committed but could not answer (a client
    // retries those with the same Idempotency-Key and gets the intent back).
    const budget = await call(reader, 'GET', `/api/v1/ai-wallets/bindings/${agent.binding}/budget`, { token: traders[0].token, headers: { 'x-min-position': head.toString() } });
    expect(budget.status).toBe(200);
    const committed = Number(budget.json.daily_committed ?? budget.json.per_asset?.[0]?.daily_committed);
    expect(intentIds.size).toBeGreaterThanOrEqual(acked.intents.length + 1);
    expect(committed).toBeCloseTo(intentIds.size * 0.01, 9);
    process.stdout.write(`three nodes: ${intentIds.size - acked.intents.length - 1} intents and ${orderIds.size - acked.orders.length - 1} orders committed without an answer (the killed node's requests in flight)\n`);

    // The read models equal a rebuild of every read model from the log (the survivors stopped first).
    for (const node of survivors) {
      const exited2 = new Promise((resolve) => node.process!.once('exit', resolve));
      node.process!.kill('SIGTERM');
      await exited2;
      node.process = null;
    }
    const config = loadPlatformConfig({ ...shared, NODE_ENV: 'test', DATA_DIR: mkdtempSync(join(tmpdir(), 'rebuild-')), DATABASE_SCHEMA: rebuiltSchema });
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(`ERR ${l}`), interactive: false };
    expect(await runProjectionsCli(['list'], config, READ_MODELS, io)).toBe(0);
    const names = lines.filter((l) => /\tcheckpoint /.test(l)).map((l) => l.split('\t')[0]);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect(`${name} ${await runProjectionsCli(['rebuild', name], config, READ_MODELS, io)}`).toBe(`${name} 0`);
    const differences = await compareSchemas(readSchema, rebuiltSchema);
    expect(differences).toEqual([]);
  }, 300_000);
});

/**
 * Tables that are not read models of the log, so a rebuild does not make them: leases and checkpoints, migrations,
 * what requests write (idempotency records, throttles, a session's last-seen time) and the billing rater's own progress (a leased worker
 * that resumes from its checkpoint; the projections CLI does not rebuild it).
 */
const NOT_READ_MODELS = new Set(['projection_checkpoints', 'platform_nodes', 'migrations', 'typeorm_metadata', 'idempotency_records', 'identity_throttle', 'identity_session_activity', 'billing_rating_checks']);

/** Every read-model table of the two schemas, row for row; answers what differs. */
async function compareSchemas(live: string, rebuilt: string): Promise<string[]> {
  const tables = await sql<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`, [rebuilt]);
  const differences: string[] = [];
  for (const { table_name } of tables) {
    if (NOT_READ_MODELS.has(table_name)) continue;
    const rows = async (schema: string) =>
      (await sql<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${schema}"."${table_name}" t`)).map((r) => r.row).sort();
    const [a, b] = [await rows(live), await rows(rebuilt)];
    if (a.length !== b.length) differences.push(`${table_name}: ${a.length} rows live, ${b.length} rebuilt`);
    else {
      const first = a.findIndex((row, i) => row !== b[i]);
      if (first >= 0) differences.push(`${table_name}: row differs\n  live:    ${a[first]}\n  rebuilt: ${b[first]}`);
    }
  }
  return differences;
}
