/**
 * The travel-rule envelope of a transfer (the seeds' AuthorizeTransferEnvelopeRequest): the originator encrypts the
 * travel-rule payload (an IVMS 101 document) for the receiving institution's public key and tells the platform only
 * commitments; the platform never sees the payload. What the platform checks, an external party can recompute:
 *
 * - `manifest_commitment` = SHA-256 (hex) of the RFC 8785 (JCS) form of the manifest
 *   `{manifest_uuid, ciphertext_sha256, payload_commitment, recipient_key_id, associated_data_commitment,
 *   encryption_algorithm, payload_schema}`, with the defaults filled in for the two optional fields.
 * - The associated data the ciphertext is sealed with is the UTF-8 of the JCS form of
 *   `{transfer_uuid, amount, asset, destination}` (the transfer's values as the API shows them), and
 *   `associated_data_commitment` = SHA-256 (hex) of those bytes: an envelope made for another transfer does not pass.
 * - `payload_commitment` = SHA-256 (hex) of the JCS form of the IVMS 101 payload, `ciphertext_sha256` = SHA-256 of
 *   the ciphertext bytes: the recipient checks both after decrypting (the platform cannot).
 */
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';

/** HPKE (RFC 9180) suites the receiving side is expected to open; the first is the default. */
export const ENVELOPE_ALGORITHMS = [
  'HPKE-BASE-X25519-HKDF-SHA256-CHACHA20POLY1305',
  'HPKE-BASE-X25519-HKDF-SHA256-AES256GCM',
  'HPKE-BASE-P256-HKDF-SHA256-AES128GCM',
] as const;
export const DEFAULT_ENVELOPE_ALGORITHM = ENVELOPE_ALGORITHMS[0];
export const DEFAULT_PAYLOAD_SCHEMA = 'IVMS101.2023';

export interface TransferEnvelope {
  manifest_uuid: string;
  ciphertext_sha256: string;
  payload_commitment: string;
  recipient_key_id: string;
  associated_data_commitment: string;
  encryption_algorithm: string;
  payload_schema: string;
}

export const manifestCommitment = (m: TransferEnvelope): string =>
  sha256Hex(
    canonicalJson({
      manifest_uuid: m.manifest_uuid,
      ciphertext_sha256: m.ciphertext_sha256,
      payload_commitment: m.payload_commitment,
      recipient_key_id: m.recipient_key_id,
      associated_data_commitment: m.associated_data_commitment,
      encryption_algorithm: m.encryption_algorithm,
      payload_schema: m.payload_schema,
    }),
  );

/** The associated data an envelope for this transfer is sealed with (bytes: UTF-8 of this text). */
/** The transfer values an envelope commits to. */
export interface EnvelopeSubject {
  transfer_uuid: string;
  amount: string;
  asset: string;
  destination: string;
}

export const associatedDataOf = (t: EnvelopeSubject): string =>
  canonicalJson({ transfer_uuid: t.transfer_uuid, amount: t.amount, asset: t.asset, destination: t.destination });

export const associatedDataCommitment = (t: EnvelopeSubject): string => sha256Hex(associatedDataOf(t));
