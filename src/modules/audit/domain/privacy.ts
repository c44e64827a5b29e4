/**
 * The privacy class of every field of the audit module's events (docs/privacy.md). A signed checkpoint is public by
 * design (anyone may check a copy of the log against it); an auditor grant's reason is a person's words.
 */
import { declareEventClasses } from '../../../platform/privacy/field-classes';
import type { AuditorEvent } from './auditors';
import { CHECKPOINT_EVENT_TYPE, type SignedCheckpoint } from './checkpoint';

/** The epoch `npm run privacy -- migrate` records (src/cli/privacy.ts): a signed statement, public like a checkpoint. */
interface EpochData {
  alg: string;
  reason: string;
  event_count: string;
  previous_global_commitment: string | null;
  global_commitment: string | null;
  previous_checkpoints: SignedCheckpoint[];
  migrated_at: string;
  key_id: string;
  public_key: string;
  signature: string;
}

export const AUDIT_EVENT_CLASSES = declareEventClasses<AuditorEvent | { type: typeof CHECKPOINT_EVENT_TYPE; data: SignedCheckpoint } | { type: 'ChainEpochStarted'; data: EpochData }>('audit', {
  AuditorGranted: { profile_uuid: 'internal', granted_by: 'internal', reason: 'personal', granted_at: 'internal' },
  AuditorRevoked: { profile_uuid: 'internal', revoked_by: 'internal', reason: 'personal', revoked_at: 'internal' },
  AuditCheckpointRecorded: {
    alg: 'public', position: 'public', event_count: 'public', global_commitment: 'public', created_at: 'public', key_id: 'public', public_key: 'public', signature: 'public',
  },
  ChainEpochStarted: {
    alg: 'public', reason: 'public', event_count: 'public', previous_global_commitment: 'public', global_commitment: 'public', previous_checkpoints: 'public',
    migrated_at: 'public', key_id: 'public', public_key: 'public', signature: 'public',
  },
});
