/** Commerce and transfers in the capability registry (docs/capabilities.md). */
import { declareApplication } from '../../platform/capabilities/capability';

declareApplication({
  name: 'commerce',
  group: 'Payments',
  order: 5,
  owners: ['commerce'],
  description: 'Merchants and their review, catalogues, invoices, payments, watch-only wallets and settlement intents.',
  purpose: 'Let a tenant sell and get paid, with every money movement reviewed and auditable.',
  audiences: ['merchants', 'merchant reviewers', 'payers', 'treasury operators'],
  businessCases: ['onboard a merchant', 'invoice a customer and collect payment', 'settle collected funds'],
  workflow: ['create a merchant', 'a reviewer activates it (step-up)', 'list products', 'issue invoices', 'collect payments', 'settle'],
  prerequisites: ['a workspace', 'a reviewer other than the merchant\'s creator'],
  agentGuidance: ['Amounts are decimal strings in the invoice currency.', 'Payments move through rail states: poll them, never assume settlement.'],
  relatedApplications: ['transfers', 'billing', 'notifications'],
  capabilities: {
    merchants: { whenToUse: 'To create a merchant, follow its review, and (reviewers) activate, reject, suspend or reinstate it.' },
    catalogue: { whenToUse: "To list, add, activate or archive a merchant's products." },
    invoices: { whenToUse: 'To issue, list, read or cancel invoices.' },
    payments: { whenToUse: 'To pay an invoice, follow or cancel the payment; operators record what the payment rail reports.' },
    wallets: { whenToUse: 'To register watch-only wallets and their addresses, or retire them.' },
    settlement: { whenToUse: 'To move collected funds out (settlement intents), follow or cancel them; treasury records the outcome.' },
  },
});

declareApplication({
  name: 'transfers',
  group: 'Payments',
  order: 6,
  owners: ['commerce'],
  description: 'Outbound transfers of settled funds: screening, travel-rule envelopes, governance binding, compliance cancellation and the recipient key directory.',
  purpose: 'Send funds out only after screening and with the travel-rule information the recipient needs.',
  audiences: ['treasury operators', 'compliance officers', 'recipient institutions'],
  businessCases: ['pay out settled funds', 'meet the travel rule with end-to-end encrypted envelopes', 'stop a transfer that fails review'],
  workflow: ['create a transfer', 'screening', 'attach the encrypted travel-rule envelope', 'bind governance', 'rail submission'],
  prerequisites: ['settled funds', "the recipient's travel-rule key"],
  agentGuidance: ['Envelopes are encrypted by the client to the recipient key; the platform never sees their plaintext.'],
  relatedApplications: ['commerce', 'audit'],
  capabilities: {
    transfers: { whenToUse: 'To create, list or read transfers; operators record the rail outcome.' },
    compliance: { whenToUse: 'Compliance officers review the queue, screen, bind governance or cancel a transfer (step-up).' },
    'travel-rule': { whenToUse: "To publish, rotate or retire recipient keys, and attach a transfer's encrypted travel-rule envelope." },
  },
});
