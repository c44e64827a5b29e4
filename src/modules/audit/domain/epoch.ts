/**
 * A chain epoch (docs/privacy.md, "Migrating a log written before sealing"): recorded by `npm run privacy -- migrate`
 * as the migrated log's last event, signed with the audit key like a checkpoint (Ed25519 over the UTF-8 bytes of the
 * statement's JCS). It ties the old log — its global chain head, its event count, its checkpoints as they were signed
 * — to the new head at the same count.
 */
import type { SignedCheckpoint } from './checkpoint';

export const EPOCH_STREAM = 'audit-epochs';
export const EPOCH_EVENT_TYPE = 'ChainEpochStarted';
export const EPOCH_ALG = 'privacy-epoch-v1';

export interface EpochStatement {
  alg: typeof EPOCH_ALG;
  reason: 'PERSONAL_DATA_SEALED';
  event_count: string;
  previous_global_commitment: string | null;
  global_commitment: string | null;
  previous_checkpoints: SignedCheckpoint[];
  migrated_at: string;
  key_id: string;
}

export type SignedEpoch = EpochStatement & { public_key: string; signature: string };
