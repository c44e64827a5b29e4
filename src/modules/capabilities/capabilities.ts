/** The capability registry's own entry in itself (docs/capabilities.md). */
import { declareApplication } from '../../platform/capabilities/capability';

declareApplication({
  name: 'capabilities',
  group: 'Platform',
  order: 13,
  owners: ['platform'],
  description: 'The capability registry: every operation of this platform with its contract and business context, generated from the served routes.',
  purpose: 'Let an agent or integrator learn what the platform can do from one document that never disagrees with the server.',
  audiences: ['AI agents', 'integrators'],
  businessCases: ['discover operations before integrating', 'check what changed between builds (ETag)'],
  workflow: ['read the registry', 'pick an operation', 'read its contract (the OpenAPI pointer)', 'authenticate as the profile says', 'call it'],
  prerequisites: ['none: it is public'],
  agentGuidance: ['Cache it with its ETag and revalidate with If-None-Match.'],
  relatedApplications: ['identity'],
  capabilities: {
    'capability-registry': { whenToUse: 'First, before anything else: what this platform can do and how to call it.' },
  },
});
