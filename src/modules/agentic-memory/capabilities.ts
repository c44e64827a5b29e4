/** Agentic memory in the capability registry (docs/capabilities.md). */
import { declareApplication } from '../../platform/capabilities/capability';

declareApplication({
  name: 'agentic-memory',
  group: 'Agents',
  order: 4,
  owners: ['agentic-memory'],
  description: 'Collections of approved knowledge that agents read through signed manifests, with requests, clarifications and publications.',
  purpose: 'Give agents knowledge a publisher approved, and nothing it did not.',
  audiences: ['publishers curating knowledge', 'AI agents reading it', 'workspace members asking for it'],
  businessCases: ['publish a knowledge collection for agents', 'answer an agent\'s request for more context', 'prove what an agent was allowed to read'],
  workflow: ['create a collection', 'add items and approve them', 'publish', 'agents read the manifest', 'handle requests and clarifications'],
  prerequisites: ['a workspace'],
  agentGuidance: ['Read the manifest first: it lists the approved items, actions and the authority the collection does (not) grant.'],
  relatedApplications: ['ai-wallets', 'notifications'],
  capabilities: {
    collections: { whenToUse: 'To create, list, read, revise or publish a memory collection.' },
    'memory-items': { whenToUse: 'To add items to a collection and approve, reject or withdraw them.' },
    manifests: { whenToUse: 'An agent reads what a collection offers and may be used for (signed when a key is configured).' },
    requests: { whenToUse: 'To ask a collection for context, follow a request, read the inbox, or ask for clarification.' },
    publications: { whenToUse: 'To record that context was published to an agent, with its rationale commitment.' },
  },
});
