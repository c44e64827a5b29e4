/** AI-agent wallets in the capability registry (docs/capabilities.md), and the workload clients' way to authenticate. */
import { declareApplication, declareAuthenticationProfile } from '../../platform/capabilities/capability';
import { WORKLOAD_TOKEN_TTL_SECONDS } from './domain/workload';

declareApplication({
  name: 'ai-wallets',
  group: 'Agents',
  order: 3,
  owners: ['ai-wallets'],
  description: 'Wallets an AI agent may spend from under a person\'s policy: bindings, spending policies, budgets, intents, approvals, execution mode, activity and the workload token.',
  purpose: 'Let an agent act with money inside limits a person set, with every step on a verifiable chain.',
  audiences: ['people delegating spending to an agent', 'AI agents (workload clients)', 'auditors'],
  businessCases: ['give an agent a budget for a task', 'require approval above a threshold', 'verify what an agent did'],
  workflow: ['bind a wallet to an agent', 'set a policy', 'the agent gets a workload token', 'it evaluates and submits intents', 'approve or reject the large ones', 'settle'],
  prerequisites: ['a workspace', 'a signed-in owner for bindings and policies'],
  agentGuidance: ['Evaluate an intent (dry run) before submitting it.', 'An intent above the autonomous threshold waits for a person: poll it or watch notifications.'],
  relatedApplications: ['identity', 'notifications', 'audit'],
  capabilities: {
    bindings: { whenToUse: 'To bind a wallet to an agent, list or read bindings, or change one.' },
    'spending-policy': { whenToUse: 'To read or replace the policy limiting what the agent may spend.', sideEffects: 'A new policy version; intents are judged by the version in force.' },
    budgets: { whenToUse: 'To read what is left of the budget (daily, monthly, per asset).' },
    intents: { whenToUse: 'To evaluate (dry run), submit, list, read or settle spending intents.', sideEffects: 'Submitting reserves budget and may wait for approval; settling consumes the reservation.' },
    approvals: { whenToUse: 'To list intents waiting for a person and approve or reject them.' },
    'execution-mode': { whenToUse: 'To read or switch between autonomous and approval-only execution.' },
    activity: { whenToUse: 'To read the binding\'s activity, or recompute its hash chain to verify it.' },
    'workload-tokens': { whenToUse: 'An agent exchanges its client credentials for a short-lived bearer token limited to its binding.', sideEffects: 'Issues a workload token (hcwt_…).' },
  },
});

declareAuthenticationProfile({
  id: 'workload-client-credentials',
  principal: 'an AI agent (workload client) of one wallet binding',
  credential: 'OAuth 2 client credentials: POST /api/v1/auth/token with client_id and client_secret (hcws_…, shown once); answers a bearer token (hcwt_…) limited to the binding\'s intents and budget',
  requestSigning: 'none: requests carry Authorization: Bearer <workload token> over TLS',
  lifetimeSeconds: WORKLOAD_TOKEN_TTL_SECONDS,
});
