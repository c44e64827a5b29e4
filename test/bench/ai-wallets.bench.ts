/**
 * AI-agent wallet benchmark over loopback with autocannon (test/bench/README.md). A plain node program: `npm run bench`.
 *
 * Boots the real application in process (`startTestApp`, fresh temp DATA_DIR: SQLite event store and read models) and
 * the bare NestJS-on-Fastify app of http-harness.ts. A workspace owner creates BINDINGS bindings with a policy, and each
 * binding's agent takes a workload token (client credentials). Then, as the agents:
 *
 *   1. bare POST /bare with the same JSON body as an intent                                       the baseline
 *   2. POST …/bindings/{b}/intents/evaluate: the dry run (loads the binding, decides, writes nothing)
 *   3. POST …/bindings/{b}/intents with a fresh Idempotency-Key: a live intent reserving budget (MANUAL_APPROVAL, the
 *      default mode: the reservation and its approval request, appended atomically to the binding's stream)
 *
 * Requests go round-robin over the bindings (one agent per binding, as deployed). Every figure is a ratio to the bare
 * POST measured in the same run (best of a run before and one after). After the load the program checks what it
 * measured: every 2xx live intent is counted by the budget read model (`active_intent_count` summed over the
 * bindings), so nothing was answered that was not reserved. Exits 0 whatever the figures are; only a crash exits 1.
 */
import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader } from '../support/traders';
import { baseUrl, BENCH_APP_ENV, best, call, CONNECTIONS, DURATION_S, fmtInt, JSON_HEADERS, measure, printRows, startBareApp, WARMUP_S } from './http-harness';
import { clock, log, runBenchmark, SCALE, seconds } from './report';

const BINDINGS = 16;
const DESTINATION = '0x52908400098527886E0F7030069857D2E4169EE7';

/** Limits no run comes near: every live intent is reserved (and waits for a person's approval). */
const POLICY = {
  capabilities: ['TRANSFER'],
  assets: ['ETH'],
  asset_budgets: [],
  destinations: [DESTINATION],
  max_single_amount: '1',
  daily_limit: '1000000',
  monthly_limit: '10000000',
  velocity_window_seconds: 60,
  velocity_max_count: 10_000,
  autonomous_threshold: '0.01',
  currency: 'ETH',
};

const INTENT_BODY = JSON.stringify({
  type: 'TRANSFER',
  asset: 'ETH',
  amount: '0.001',
  destination: { type: 'ADDRESS', id: DESTINATION },
  purpose: 'benchmark',
  rationale: { schema: 'agent-rationale/v1', summary: 'Pay the hosting invoice', explanation: 'Invoice 42 is due today.', expected_outcome: 'Invoice settled', reference: 'inv-42' },
});

interface Agent {
  binding_uuid: string;
  authorization: string;
}

/**
 * Round-robin over the agents, each request as its agent (its token, its binding's path). Serialized into a file in
 * the temp dir (autocannon's worker mode takes a module path), so it must stay self-contained: no imports, no outer
 * variables; the agents and the body come in as arguments.
 */
function agentRequestFactory(agents: Agent[], body: string, route: 'intents' | 'intents/evaluate'): (request: object) => object {
  const prefix = Math.random().toString(36).slice(2, 10);
  let i = 0;
  return (request) => {
    const agent = agents[i % agents.length];
    i += 1;
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: agent.authorization };
    if (route === 'intents') headers['idempotency-key'] = `bench-${prefix}-${i}`;
    return { ...request, method: 'POST', path: `/api/v1/ai-wallets/bindings/${agent.binding_uuid}/${route}`, headers, body };
  };
}

function writeFactory(dir: string, name: string, agents: Agent[], route: 'intents' | 'intents/evaluate'): string {
  const path = join(dir, name);
  writeFileSync(path, `'use strict';\nmodule.exports = (${agentRequestFactory.toString()})(${JSON.stringify(agents)}, ${JSON.stringify(INTENT_BODY)}, ${JSON.stringify(route)});\n`);
  return path;
}

function bodySetupFactory(body: string): (request: object) => object {
  return (request) => ({ ...request, body });
}

async function expectStatus(what: string, r: { status: number; json: any }, status: number): Promise<any> {
  if (r.status !== status) throw new Error(`${what} answered ${r.status}: ${JSON.stringify(r.json)}`);
  return r.json;
}

/** Sums `active_intent_count` over the bindings once it is at least `expected` and stable (the projection caught up). */
async function reservedIntents(url: string, owner: Record<string, string>, agents: Agent[], expected: number, slack: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  let last = -1;
  for (;;) {
    let total = 0;
    for (const a of agents) {
      const budget = await expectStatus('budget', await call(url, 'GET', `/api/v1/ai-wallets/bindings/${a.binding_uuid}/budget`, undefined, owner), 200);
      total += budget.active_intent_count;
    }
    if ((total >= expected && total <= expected + slack && total === last) || Date.now() > deadline) return total;
    last = total;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function main(): Promise<void> {
  const totalStart = clock();
  const dir = mkdtempSync(join(tmpdir(), 'ai-wallets-bench-'));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);

  let platform: TestApp | undefined;
  let bare: NestFastifyApplication | undefined;
  try {
    log(`AI-agent wallet benchmark (autocannon, loopback): node ${process.version}, ${cpus().length} vCPU, ${CONNECTIONS} connections, ` +
      `${DURATION_S} s per scenario after a ${WARMUP_S} s warm-up, ${BINDINGS} bindings (one agent each), BENCH_SCALE=${SCALE}`);
    let bareUrl: string;
    ({ app: bare, url: bareUrl } = await startBareApp());
    // Long enough for the whole run: approvals and intents must not expire (and release budget) while it is measured.
    platform = await startTestApp({ ...BENCH_APP_ENV, DATA_DIR: dataDir, AI_WALLET_APPROVAL_TTL_SECONDS: '86400' });
    await platform.app.listen({ port: 0, host: '127.0.0.1' });
    const appUrl = baseUrl(platform.app);

    const owner = await registerTrader(platform);
    const workspace = await expectStatus('workspace', await call(appUrl, 'POST', '/api/v1/workspaces', { name: 'Bench treasury' }, owner), 201);
    const agents: Agent[] = [];
    for (let i = 0; i < BINDINGS; i++) {
      const binding = await expectStatus('binding', await call(appUrl, 'POST', '/api/v1/ai-wallets/bindings', {
        workspace_uuid: workspace.workspace_id, agent_label: `bench-agent-${i}`, environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: DESTINATION, policy: POLICY,
      }, owner), 201);
      const token = await expectStatus('token', await call(appUrl, 'POST', '/api/v1/auth/token', { grant_type: 'client_credentials', client_id: binding.workload_client_id, client_secret: binding.client_secret }), 200);
      agents.push({ binding_uuid: binding.binding_uuid, authorization: `Bearer ${token.access_token}` });
    }

    // Samples checked by hand before the load: the dry run decides and reserves nothing; a live intent is reserved.
    const sampleHeaders = { authorization: agents[0].authorization };
    const evaluation = await expectStatus('sample evaluation', await call(appUrl, 'POST', `/api/v1/ai-wallets/bindings/${agents[0].binding_uuid}/intents/evaluate`, INTENT_BODY, sampleHeaders), 200);
    if (evaluation.decision_code !== 'APPROVAL_REQUIRED' || evaluation.reservation_created !== false) throw new Error(`sample evaluation: ${JSON.stringify(evaluation)}`);
    const intent = await expectStatus('sample intent', await call(appUrl, 'POST', `/api/v1/ai-wallets/bindings/${agents[0].binding_uuid}/intents`, INTENT_BODY, { ...sampleHeaders, 'idempotency-key': 'bench-sample' }), 201);
    if (intent.state !== 'PENDING_APPROVAL' || intent.decision_code !== 'APPROVAL_REQUIRED') throw new Error(`sample intent: ${JSON.stringify(intent)}`);

    const bareSetup = join(dir, 'bare-setup.js');
    writeFileSync(bareSetup, `'use strict';\nmodule.exports = (${bodySetupFactory.toString()})(${JSON.stringify(INTENT_BODY)});\n`);
    const evaluateSetup = writeFactory(dir, 'evaluate-setup.js', agents, 'intents/evaluate');
    const intentSetup = writeFactory(dir, 'intent-setup.js', agents, 'intents');
    const post = (path: string, setupRequest: string) => ({ method: 'POST' as const, path, headers: JSON_HEADERS, setupRequest });

    log();
    log('Scenarios (2xx responses per second; latency of 2xx responses)');
    const barePost1 = await measure('bare POST /bare (intent body)', bareUrl, post('/bare', bareSetup));
    const evaluate = await measure('POST intents/evaluate (dry run)', appUrl, post('/evaluate', evaluateSetup));
    const live = await measure('POST intents (live, reserves)', appUrl, post('/intents', intentSetup));
    const barePost2 = await measure('bare POST /bare (intent body, again)', bareUrl, post('/bare', bareSetup));
    const barePost = best(barePost1, barePost2);

    // Warm-up and measured run both created intents: every 2xx one must hold a reservation. Each run ends with up to
    // one request per connection still in flight (the server completes it, autocannon no longer counts it).
    const answered = 1 + (live.warmup?.['2xx'] ?? 0) + live.result['2xx'];
    const inFlight = 2 * CONNECTIONS;
    const reserved = await reservedIntents(appUrl, owner, agents, answered, inFlight);
    log(`   (live intents answered 2xx, warm-up included: ${fmtInt(answered)}; reserved per the budget read model: ${fmtInt(reserved)}, ` +
      `at most ${inFlight} more than answered as runs end mid-request; about ${fmtInt(reserved / BINDINGS)} per binding stream)`);
    if (reserved < answered || reserved > answered + inFlight) throw new Error(`${answered} live intents answered 2xx but the budgets count ${reserved} reserved`);
    log();

    printRows([
      { name: 'bare POST /bare (best of 2)', m: barePost, failed: [barePost1.result, barePost2.result] },
      { name: 'evaluation: POST intents/evaluate', m: evaluate, failed: [evaluate.result], baseline: barePost, baselineName: 'bare POST' },
      { name: 'live intent: POST intents', m: live, failed: [live.result], baseline: barePost, baselineName: 'bare POST' },
    ]);
    log();
  } finally {
    if (bare) await bare.close().catch(() => undefined);
    if (platform) await platform.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  log(`total run time ${seconds(totalStart).toFixed(1)} s`);
}

runBenchmark(main);
