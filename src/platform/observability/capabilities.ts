/** The health probes in the capability registry (docs/capabilities.md). */
import { declareApplication } from '../capabilities/capability';

declareApplication({
  name: 'health',
  group: 'Platform',
  order: 14,
  owners: ['platform'],
  description: 'Liveness and readiness of a node.',
  purpose: 'Tell orchestrators and load balancers whether a node serves and is ready.',
  audiences: ['operators', 'orchestrators'],
  businessCases: ['route traffic only to ready nodes', 'restart a node that stopped serving'],
  workflow: ['probe liveness', 'probe readiness'],
  prerequisites: ['none'],
  agentGuidance: ['Not for agents: probe readiness only when operating the platform.'],
  relatedApplications: [],
  capabilities: {
    health: { whenToUse: 'To probe whether the node serves HTTP (liveness) and can serve requests (readiness: stores, projections, engines).' },
  },
});
