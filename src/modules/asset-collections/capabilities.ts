/** Asset collections in the capability registry (docs/capabilities.md). */
import { declareApplication } from '../../platform/capabilities/capability';

declareApplication({
  name: 'asset-collections',
  group: 'Catalogue',
  order: 10,
  owners: ['asset-collections'],
  description: 'A catalogue of asset collections platform admins keep; ACTIVE ones listed publicly, with a recomputable metadata hash.',
  purpose: 'Publish a trustworthy catalogue of asset collections anyone can browse.',
  audiences: ['anyone browsing (no account needed)', 'platform admins curating'],
  businessCases: ['browse collections', 'add, activate, suspend, reinstate or retire one'],
  workflow: ['create (DRAFT)', 'activate', 'suspend or reinstate', 'retire'],
  prerequisites: ['none to browse; a platform admin to curate'],
  agentGuidance: ['The listing is public and paginated with offset cursors valid only with the same filters.'],
  relatedApplications: ['trading'],
  capabilities: {
    collections: { whenToUse: 'To browse or read collections; platform admins create them and move them through their states.' },
  },
});
