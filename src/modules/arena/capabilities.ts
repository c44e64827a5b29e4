/** Arena administration in the capability registry (docs/capabilities.md). */
import { declareApplication } from '../../platform/capabilities/capability';

declareApplication({
  name: 'arena',
  group: 'Markets',
  order: 11,
  owners: ['arena'],
  description: "Arena administration: trading competitions between a tenant's people on the platform's markets, with leaderboards frozen at the season's end.",
  purpose: 'Run fair trading competitions scored from real trades.',
  audiences: ['tenant administrators running competitions'],
  businessCases: ['schedule a season', 'enrol and disqualify participants', 'read the leaderboard'],
  workflow: ['draft a season', 'schedule it', 'enrol participants', 'it goes live, settles and is final'],
  prerequisites: ["a tenant administrator's role", 'markets to trade on'],
  agentGuidance: ['Every answer is the seeds\' { success, data } envelope.'],
  relatedApplications: ['trading', 'identity'],
  capabilities: {
    seasons: { whenToUse: "To list and read a tenant's seasons with their leaderboards, create and schedule one, enrol or disqualify participants, or cancel it." },
  },
});
