/**
 * The privacy class of every field of the audit module's events (docs/privacy.md). A signed checkpoint is public by
 * design (anyone may check a copy of the log against it); an auditor grant's reason is a person's words.
 */
import { declareEventClasses } from '../../../platform/privacy/field-classes';
import type { AuditorEvent } from './auditors';
import { CHECKPOINT_EVENT_TYPE, type SignedCheckpoint } from './checkpoint';
import { EPOCH_EVENT_TYPE, type SignedEpoch } from './epoch';

export const AUDIT_EVENT_CLASSES = declareEventClasses<AuditorEvent | { type: typeof CHECKPOINT_EVENT_TYPE; data: SignedCheckpoint } | { type: typeof EPOCH_EVENT_TYPE; data: SignedEpoch }>('audit', {
  AuditorGranted: { profile_uuid: 'internal', granted_by: 'internal', reason: 'personal', granted_at: 'internal' },
  AuditorRevoked: { profile_uuid: 'internal', revoked_by: 'internal', reason: 'personal', revoked_at: 'internal' },
  AuditCheckpointRecorded: {
    alg: 'public', position: 'public', event_count: 'public', global_commitment: 'public', tree_size: 'public', root_hash: 'public', created_at: 'public', key_id: 'public', public_key: 'public', signature: 'public',
  },
  ChainEpochStarted: {
    alg: 'public', reason: 'public', event_count: 'public', previous_global_commitment: 'public', global_commitment: 'public', previous_checkpoints: 'public',
    migrated_at: 'public', key_id: 'public', public_key: 'public', signature: 'public',
  },
});
