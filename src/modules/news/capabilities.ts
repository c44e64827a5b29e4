/** News administration in the capability registry (docs/capabilities.md). */
import { declareApplication } from '../../platform/capabilities/capability';

declareApplication({
  name: 'news',
  group: 'Catalogue',
  order: 9,
  owners: ['news'],
  description: "News administration: a tenant's articles, drafted, scheduled, published, revised and archived.",
  purpose: 'Let a tenant publish news to its people on a schedule.',
  audiences: ['tenant editors and moderators'],
  businessCases: ['draft and schedule an announcement', 'correct or withdraw a published article'],
  workflow: ['draft', 'schedule or publish', 'revise', 'unpublish or archive'],
  prerequisites: ["a tenant editor's role"],
  agentGuidance: ['Revisions carry the version they revise; a stale one is refused.'],
  relatedApplications: ['identity'],
  capabilities: {
    articles: { whenToUse: "To list, read, draft, revise, schedule, publish, unpublish or archive a tenant's articles." },
  },
});
