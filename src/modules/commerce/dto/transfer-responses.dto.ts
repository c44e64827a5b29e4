/** Answers of the transfer routes: a transfer and a recipient key as documents (with their actions), and their pages. */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { HEX32_ID, SHA256_HEX } from '../../../platform/http/api-properties';
import { RECIPIENT_KEY_STATUSES } from '../domain/recipient-key';
import { COMPLIANCE_REASON_CODES, TRANSFER_STATES } from '../domain/transfer';
import { ENVELOPE_ALGORITHMS } from '../domain/transfer-envelope';
import { CommerceActionResponse } from './responses.dto';

const TIME = { format: 'date-time' } as const;
const VERSION = { type: 'integer', format: 'int64', minimum: 0 } as const;

@ApiSchema({ name: 'TransferEnvelope' })
export class TransferEnvelopeResponse {
  @ApiProperty(HEX32_ID) manifest_uuid!: string;
  @ApiProperty(SHA256_HEX) manifest_commitment!: string;
  @ApiProperty(SHA256_HEX) ciphertext_sha256!: string;
  @ApiProperty(SHA256_HEX) payload_commitment!: string;
  @ApiProperty(HEX32_ID) recipient_key_id!: string;
  @ApiProperty(SHA256_HEX) associated_data_commitment!: string;
  @ApiProperty({ enum: ENVELOPE_ALGORITHMS }) encryption_algorithm!: string;
  @ApiProperty() payload_schema!: string;
}

@ApiSchema({ name: 'TransferGovernance' })
export class TransferGovernanceResponse {
  @ApiProperty() proposal_id!: string;
  @ApiProperty() mpc_request_id!: string;
  @ApiProperty() proposal_approved!: boolean;
  @ApiProperty() mpc_request_approved!: boolean;
}

@ApiSchema({ name: 'TransferComplianceCancellation' })
export class TransferCancellationResponse {
  @ApiProperty({ type: String, nullable: true, enum: COMPLIANCE_REASON_CODES }) reason_code!: string | null;
  @ApiProperty({ type: String, nullable: true, ...SHA256_HEX, description: 'SHA-256 of the evidence\'s RFC 8785 form; the evidence itself is never shown.' }) evidence_commitment!: string | null;
  @ApiProperty(HEX32_ID) by_profile_uuid!: string;
  @ApiProperty(TIME) at!: string;
}

@ApiSchema({ name: 'Transfer' })
export class TransferResponse {
  @ApiProperty(HEX32_ID) transfer_uuid!: string;
  @ApiProperty(HEX32_ID) merchant_uuid!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty(HEX32_ID) source_wallet_uuid!: string;
  @ApiProperty({ example: 'ethereum-mainnet' }) network_id!: string;
  @ApiProperty({ example: 'USDC' }) asset!: string;
  @ApiProperty({ example: '1500.000000' }) amount!: string;
  @ApiProperty() destination!: string;
  @ApiProperty({ description: 'The amount reaches the travel-rule threshold: an envelope is required.' }) envelope_required!: boolean;
  @ApiProperty({ example: '1000' }) travel_rule_threshold!: string;
  @ApiProperty() governance_required!: boolean;
  @ApiProperty({ enum: TRANSFER_STATES }) state!: string;
  @ApiProperty(VERSION) version!: number;
  @ApiProperty({ type: String, nullable: true }) screening_reference!: string | null;
  @ApiProperty({ type: TransferEnvelopeResponse, nullable: true }) envelope!: TransferEnvelopeResponse | null;
  @ApiProperty({ type: TransferGovernanceResponse, nullable: true }) governance!: TransferGovernanceResponse | null;
  @ApiProperty({ type: String, nullable: true }) transaction_reference!: string | null;
  @ApiProperty({ type: String, nullable: true }) failure_code!: string | null;
  @ApiProperty({ type: TransferCancellationResponse, nullable: true }) cancellation!: TransferCancellationResponse | null;
  @ApiProperty({ enum: [false], description: 'No real rail is connected: no funds move.' }) funds_movement_available!: false;
  @ApiProperty(HEX32_ID) requested_by_profile_uuid!: string;
  @ApiProperty(TIME) created!: string;
  @ApiProperty(TIME) updated!: string;
  @ApiProperty({ type: [CommerceActionResponse] }) actions!: CommerceActionResponse[];
}

@ApiSchema({ name: 'TransferRecipientKey' })
export class RecipientKeyResponse {
  @ApiProperty(HEX32_ID) recipient_key_id!: string;
  @ApiProperty() institution_name!: string;
  @ApiProperty({ type: String, nullable: true }) institution_lei!: string | null;
  @ApiProperty({ example: 'DHKEM-X25519-HKDF-SHA256' }) kem!: string;
  @ApiProperty({ description: 'base64url of the raw public key.' }) public_key!: string;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID }) replaces!: string | null;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID }) successor_key_id!: string | null;
  @ApiProperty({ enum: RECIPIENT_KEY_STATUSES }) status!: string;
  @ApiProperty(VERSION) version!: number;
  @ApiProperty(HEX32_ID) registered_by_profile_uuid!: string;
  @ApiProperty(TIME) created!: string;
  @ApiProperty(TIME) updated!: string;
  @ApiProperty({ type: [CommerceActionResponse] }) actions!: CommerceActionResponse[];
}

@ApiSchema({ name: 'TransferPage' })
export class TransferPageResponse {
  @ApiProperty({ type: [TransferResponse] }) items!: TransferResponse[];
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 200 }) limit!: number;
  @ApiPropertyOptional({ description: 'Opaque; omitted when the list is complete.' }) next_cursor?: string;
}

@ApiSchema({ name: 'TransferRecipientKeyPage' })
export class RecipientKeyPageResponse {
  @ApiProperty({ type: [RecipientKeyResponse] }) items!: RecipientKeyResponse[];
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 200 }) limit!: number;
  @ApiPropertyOptional({ description: 'Opaque; omitted when the list is complete.' }) next_cursor?: string;
}
