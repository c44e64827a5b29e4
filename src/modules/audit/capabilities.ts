/** Audit in the capability registry (docs/capabilities.md). */
import { declareApplication } from '../../platform/capabilities/capability';

declareApplication({
  name: 'audit',
  group: 'Platform',
  order: 12,
  owners: ['platform'],
  description: 'Raw stream events with their commitments, signed checkpoints and auditor grants.',
  purpose: 'Let auditors replay and verify every stream of the hash-chained log.',
  audiences: ['auditors', 'platform admins granting audit access'],
  businessCases: ['verify a stream end to end', 'check the latest signed checkpoint', 'grant or revoke an auditor'],
  workflow: ['an admin grants the AUDITOR role', 'the auditor reads streams and checkpoints', 'recomputes the commitments'],
  prerequisites: ['the AUDITOR role'],
  agentGuidance: ['Recompute each event_commitment from its canonical JSON and chain it to previous_event_commitment.'],
  relatedApplications: ['identity'],
  capabilities: {
    'audit-trail': { whenToUse: "To read a stream's raw events with their commitments, or the latest signed checkpoint." },
    auditors: { whenToUse: 'Platform admins list, grant or revoke auditors.' },
  },
});
