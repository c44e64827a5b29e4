/**
 * The collection's manifest (AgenticMemoryManifest): what an agent needs to use a collection — which version it
 * reads and its commitment, who may use it and how to authenticate, the knowledge capabilities it offers, the real
 * routes and actions (method, endpoint, body shape, receipt type), how answers are delivered (polling a durable
 * receipt; the publisher's durable inbox; no hot standby), and the authority it grants: none. Knowledge access never
 * implies quote, contract, wallet, transaction or settlement authority.
 *
 * `integrity.manifest_commitment` is the SHA-256 of the RFC 8785 canonical JSON of the manifest without its
 * `integrity` member; when the platform has a signing key, `integrity.signature` is an Ed25519 signature over the
 * ASCII bytes of that commitment (memory-signer.ts).
 */
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import type { JsonObject } from '../../../platform/commitments/json';
import type { AccessMode, DiscoveryMode } from './access';
import type { CollectionCore, Publisher, RequestType } from './collection';

export const MANIFEST_SCHEMA = 'SERVICE_AGENTIC_MEMORY_MANIFEST_V1';
export const PROTOCOL_VERSION = '1.0';
export const MEMORY_BASE_PATH = '/api/v1/agentic-memory';
export const AUTHENTICATION_MECHANISM = 'BEARER_TOKEN';
export const POLL_INTERVAL_SECONDS = 30;

export interface ManifestAction {
  action: string;
  method: 'GET' | 'POST';
  endpoint: string;
  body_shape: { schema: string; required: string[]; optional: string[]; fixed?: Record<string, string>; extra_fields: false } | null;
  receipt_type: string;
}

export interface ManifestIntegrity {
  collection_commitment: string;
  manifest_commitment: string;
  signature_state: 'SIGNED' | 'UNSIGNED';
  algorithm?: 'Ed25519';
  public_key?: string;
  key_id?: string;
  signature?: string;
  signed_payload?: 'manifest_commitment';
}

export interface AgenticMemoryManifest {
  schema: typeof MANIFEST_SCHEMA;
  protocol_version: typeof PROTOCOL_VERSION;
  collection: {
    collection_uuid: string;
    slug: string | null;
    title: string;
    publisher: Publisher;
    approved_version: number;
    commitment: string;
    projection_count: number;
  };
  access: { audience_mode: AccessMode; authentication_mechanism: string; discovery_policy: DiscoveryMode };
  capabilities: RequestType[];
  endpoints: Record<string, string>;
  actions: ManifestAction[];
  delivery: {
    mode: 'ASYNCHRONOUS';
    polling: { method: 'GET'; endpoint: string; interval_seconds: number };
    durable_inbox: { endpoint: string; retained_until: 'RESOLVED' };
    hot_standby_required: false;
  };
  authority: { quote: false; contract: false; wallet: false; transaction: false; settlement: false };
  integrity: ManifestIntegrity;
}

export type ManifestBody = Omit<AgenticMemoryManifest, 'integrity'>;

const RECEIPT = 'AgenticMemoryRequestReceipt';

export function manifestBody(core: CollectionCore, version: { version: number; commitment: string; projection_count: number }): ManifestBody {
  const collection = `${MEMORY_BASE_PATH}/collections/${core.collection_uuid}`;
  const status = `${MEMORY_BASE_PATH}/requests/{request_uuid}`;
  const endpoints = {
    human: `${MEMORY_BASE_PATH}/collections/${core.slug ?? core.collection_uuid}`,
    collection,
    manifest: `${collection}/manifest`,
    status,
    requests: `${collection}/requests`,
    clarifications: `${collection}/clarifications`,
    publications: `${collection}/publications`,
    inbox: `${collection}/inbox`,
    resolve: `${status}/resolve`,
  };
  const query = (type: 'QUERY' | 'PROPOSE'): ManifestAction => ({
    action: type,
    method: 'POST',
    endpoint: endpoints.requests,
    body_shape: { schema: 'AgenticMemoryQueryRequest', required: ['request_type', 'question'], optional: ['priority', 'agent_action_rationale_commitment'], fixed: { request_type: type }, extra_fields: false },
    receipt_type: RECEIPT,
  });
  const actions: ManifestAction[] = [
    { action: 'READ', method: 'GET', endpoint: collection, body_shape: null, receipt_type: 'AgenticMemoryCollectionResponse' },
    { action: 'MANIFEST', method: 'GET', endpoint: endpoints.manifest, body_shape: null, receipt_type: 'AgenticMemoryManifest' },
  ];
  if (core.capabilities.includes('QUERY')) actions.push(query('QUERY'));
  if (core.capabilities.includes('CLARIFY')) {
    actions.push({
      action: 'CLARIFY',
      method: 'POST',
      endpoint: endpoints.clarifications,
      body_shape: { schema: 'ClarificationRequest', required: ['object_uuid', 'question', 'agent_action_rationale_commitment'], optional: ['priority'], extra_fields: false },
      receipt_type: RECEIPT,
    });
  }
  if (core.capabilities.includes('PROPOSE')) {
    actions.push(query('PROPOSE'));
    actions.push({
      action: 'PUBLISH_CONTEXT',
      method: 'POST',
      endpoint: endpoints.publications,
      body_shape: { schema: 'ContextPublication', required: ['agent_action_rationale_commitment', 'objects'], optional: ['human_approval_commitment'], extra_fields: false },
      receipt_type: RECEIPT,
    });
  }
  actions.push({ action: 'STATUS', method: 'GET', endpoint: status, body_shape: null, receipt_type: 'AgenticMemoryRequestStatus' });
  return {
    schema: MANIFEST_SCHEMA,
    protocol_version: PROTOCOL_VERSION,
    collection: {
      collection_uuid: core.collection_uuid,
      slug: core.slug,
      title: core.title,
      publisher: core.publisher,
      approved_version: version.version,
      commitment: version.commitment,
      projection_count: version.projection_count,
    },
    access: { audience_mode: core.access_mode, authentication_mechanism: AUTHENTICATION_MECHANISM, discovery_policy: core.discovery_mode },
    capabilities: core.capabilities,
    endpoints,
    actions,
    delivery: {
      mode: 'ASYNCHRONOUS',
      polling: { method: 'GET', endpoint: status, interval_seconds: POLL_INTERVAL_SECONDS },
      durable_inbox: { endpoint: endpoints.inbox, retained_until: 'RESOLVED' },
      hot_standby_required: false,
    },
    authority: { quote: false, contract: false, wallet: false, transaction: false, settlement: false },
  };
}

/** SHA-256 (hex) of the RFC 8785 canonical JSON of the manifest without `integrity`. */
export function manifestCommitment(body: ManifestBody): string {
  return sha256Hex(canonicalJson(body as unknown as JsonObject));
}
