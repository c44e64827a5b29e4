/**
 * The catalogue of planned operations: contracts the platform means to serve and does not yet, listed in the registry
 * with status `planned`, authority `capability-registry` (docs/capabilities.md). When one goes live, move it out of
 * here: the registry refuses to build (and the tests fail) while a served route is still listed as planned.
 */
import type { PlannedOperation } from './registry';

export const PLANNED_OPERATIONS: readonly PlannedOperation[] = [
  {
    id: 'listPriceProviders',
    method: 'GET',
    path: '/api/v1/trading/price-feeds/providers',
    title: 'List the registered price providers.',
    description: 'The providers platform admins registered (provider_uuid, name, created_at), newest first, paginated; never their push keys.',
    application: 'trading',
    capability: 'price-feeds',
    authentication: 'bearer',
    exposure: 'restricted',
    documentationStatus: 'planned-profiled',
    whenToUse: 'Before creating a composite feed, to find the provider_uuid of each source.',
    sideEffects: 'None: it reads and changes nothing.',
    parameters: [
      { name: 'limit', location: 'query', required: false, type: 'integer', description: '1 to 200, default 50.', example: '50' },
      { name: 'cursor', location: 'query', required: false, type: 'string', description: 'The next_cursor of the previous page.' },
    ],
    responses: [
      { status: 200, description: '{ items: [{ provider_uuid, name, created_at }], limit, next_cursor? }' },
      { status: 403, description: 'FORBIDDEN: platform admins only.' },
    ],
  },
  {
    id: 'rotatePriceProviderKey',
    method: 'POST',
    path: '/api/v1/trading/price-feeds/providers/{provider_uuid}/rotate',
    title: "Rotate a price provider's push key.",
    description: 'Issues a new push key (shown once) and retires the old one, for a provider whose key leaked or expired.',
    application: 'trading',
    capability: 'price-feeds',
    authentication: 'bearer',
    exposure: 'restricted',
    documentationStatus: 'planned-outline',
    whenToUse: "When a provider's push key may have leaked.",
    sideEffects: 'Appends an event with the new key hash (a sealed secret); quotes signed with the old key are refused from then on.',
    parameters: [{ name: 'provider_uuid', location: 'path', required: true, type: 'string', description: 'The provider (32 hex).' }],
    responses: [{ status: 200, description: '{ provider_uuid, name, push_key }' }],
  },
];
