/**
 * AI-agent wallet test helpers on a running test app: a workspace owner, bindings with a first policy, the agent's
 * workload token (client credentials), policy and intent bodies. Shared by the SQLite e2e and the PostgreSQL suite.
 */
import type { TestApp } from './app';
import { registerTrader, type Headers } from './traders';

export const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';

export const policy = (over: Record<string, unknown> = {}) => ({
  capabilities: ['TRANSFER', 'TRADE'],
  assets: ['ETH', 'BTC'],
  asset_budgets: [{ asset_code: 'BTC', max_single_amount: '0.01', daily_limit: '0.05', monthly_limit: '0.5' }],
  destinations: [DEST],
  max_single_amount: '1',
  daily_limit: '10',
  monthly_limit: '25',
  velocity_window_seconds: 3600,
  velocity_max_count: 1000,
  autonomous_threshold: '0.1',
  currency: 'ETH',
  ...over,
});
export const rationale = { schema: 'agent-rationale/v1', summary: 'Pay the hosting invoice', explanation: 'Invoice 42 is due today.', expected_outcome: 'Invoice settled', reference: 'inv-42' };
export const intentBody = (amount: string, over: Record<string, unknown> = {}) => ({ type: 'TRANSFER', asset: 'ETH', amount, destination: { type: 'ADDRESS', id: DEST }, rationale, ...over });

export interface Reply {
  status: number;
  json: any;
  headers: Record<string, unknown>;
}

/** The app, the person owning the workspace and the workspace, as they are once the suite has started. */
export interface WalletSetup {
  t: TestApp;
  owner: Headers;
  workspace: string;
}

/** Registers a person and creates a workspace they own. */
export async function workspaceOwner(t: TestApp, name = 'Treasury'): Promise<{ owner: Headers; workspace: string }> {
  const owner = await registerTrader(t);
  const r = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: owner, payload: { name } });
  expect(r.statusCode).toBe(201);
  return { owner, workspace: r.json().workspace_id };
}

/** Calls and steps against the setup `current()` returns when they run (suites assign it in beforeAll). */
export function walletApi(current: () => WalletSetup) {
  async function call(method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, headers: Headers, payload?: unknown): Promise<Reply> {
    const r = await current().t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: r.statusCode, json: r.body ? r.json() : undefined, headers: r.headers };
  }

  /** The agent's side: client credentials for a bearer token (valid an hour of the injected clock). */
  async function agentToken(binding: { workload_client_id: string }, client_secret: string): Promise<Headers> {
    const token = await call('POST', '/api/v1/auth/token', {}, { grant_type: 'client_credentials', client_id: binding.workload_client_id, client_secret });
    expect(token.status).toBe(200);
    expect(token.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    return { authorization: `Bearer ${token.json.access_token}` };
  }

  /** A binding of the setup's workspace (with this first policy, or none for null) and its agent's token. */
  async function newBinding(withPolicy: Record<string, unknown> | null = policy(), workspace = current().workspace) {
    const r = await call('POST', '/api/v1/ai-wallets/bindings', current().owner, {
      workspace_uuid: workspace, agent_label: 'payments-agent', environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: DEST, ...(withPolicy ? { policy: withPolicy } : {}),
    });
    expect(r.status).toBe(201);
    return { binding: r.json, agent: await agentToken(r.json, r.json.client_secret), secret: r.json.client_secret as string };
  }

  return { call, agentToken, newBinding };
}
