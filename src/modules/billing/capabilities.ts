/** Billing in the capability registry (docs/capabilities.md). */
import { declareApplication } from '../../platform/capabilities/capability';

declareApplication({
  name: 'billing',
  group: 'Accounts',
  order: 7,
  owners: ['billing'],
  description: 'Billing accounts and their credit pools, the product catalogue, subscriptions, top-ups, adjustments and usage rated from the event log.',
  purpose: 'Charge tenants for what they use, exactly once per billable event.',
  audiences: ['tenant owners and billing administrators', 'platform admins'],
  businessCases: ['see credits and usage', 'subscribe to a plan', 'top up credits', 'correct a balance'],
  workflow: ['read the account', 'subscribe or top up', 'usage is rated from the log', 'read usage per period'],
  prerequisites: ['a tenant'],
  agentGuidance: ['A 402 CREDITS_REQUIRED means the tenant ran out: top up or subscribe, then retry with the same Idempotency-Key.'],
  relatedApplications: ['trading', 'ai-wallets', 'agentic-memory'],
  capabilities: {
    accounts: { whenToUse: "To read the tenant's credit pools and balance, or the usage of a period." },
    products: { whenToUse: 'To read the catalogue; platform admins add or retire products.' },
    subscriptions: { whenToUse: 'To subscribe to a product, list subscriptions or cancel one.' },
    'top-ups': { whenToUse: 'To buy credits and follow the top-up; operators record what the payment rail reports.' },
    adjustments: { whenToUse: 'To read adjustments; platform admins credit or debit an account with a reason.' },
  },
});
