/**
 * Workload clients: the identity an agent authenticates with (OAuth 2 client credentials). Each binding issues one
 * client id and a secret returned once; the binding stream keeps only the secret's SHA-256 (the secret is 256
 * random bits, so a fast hash is no offline oracle). Tokens an agent obtains are appended to the client's own stream
 * (`ai-wallet-workload-<client_id>`), not to the binding's activity, and live for WORKLOAD_TOKEN_TTL_SECONDS.
 */
export const workloadStream = (client_id: string): string => `ai-wallet-workload-${client_id}`;

export const WORKLOAD_TOKEN_TTL_SECONDS = 3600;
export const CLIENT_SECRET_PREFIX = 'hcws_';

export interface WorkloadTokenIssuedData {
  workload_client_id: string;
  binding_uuid: string;
  token_hash: string;
  expires_at: string;
}

export type WorkloadEvent = { type: 'WorkloadTokenIssued'; data: WorkloadTokenIssuedData };
export type WorkloadCommand = { kind: 'IssueWorkloadToken'; data: WorkloadTokenIssuedData };

/** The client stream only records issued tokens; whether the client may have one is the binding's to say. */
export const workloadDecider = {
  initialState: (): null => null,
  evolve: (s: null): null => s,
  decide: (c: WorkloadCommand): WorkloadEvent[] => [{ type: 'WorkloadTokenIssued', data: c.data }],
};
