/**
 * Requests of the transfer routes: the seeds' AuthorizeTransferEnvelopeRequest, BindContractGovernanceRequest and
 * CancelTransferComplianceRequest (no extra fields, names exactly as the seeds spell them, camelCase included), and
 * ours. The seeds' shapes have no version field and allow none: the version they act on goes in `If-Match`.
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Length, Matches, Min } from 'class-validator';
import { hex32Param } from '../../../platform/http/api-properties';
import { PageQuery } from '../../../platform/http/pagination';
import { IsDecimalString, NoExtraFields, Optional, OptionalNullable } from '../../../platform/http/validation';
import { ASSET_CODES, NETWORK_IDS } from '../domain/money';
import { RECIPIENT_KEY_KEMS, RECIPIENT_KEY_STATUSES } from '../domain/recipient-key';
import { COMPLIANCE_REASON_CODES, GOVERNANCE_KINDS, TRANSFER_STATES } from '../domain/transfer';
import { ENVELOPE_ALGORITHMS } from '../domain/transfer-envelope';

const HEX32 = /^[0-9a-f]{32}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const hex32 = (field: string) => ({ message: `${field} must be 32 lowercase hex characters` });
const hex64 = (field: string) => ({ message: `${field} must be 64 lowercase hex characters (SHA-256)` });
const SHA256 = { pattern: HEX64.source, description: 'SHA-256, 64 lowercase hex characters.' } as const;
const EXPECTED_VERSION = 'The version you read; the move fails (409 VERSION_CONFLICT, with current_version) if it changed since.';

export class TransferParam {
  @ApiProperty(hex32Param('The transfer')) @Matches(HEX32, hex32('transfer_uuid'))
  transfer_uuid!: string;
}
export class RecipientKeyParam {
  @ApiProperty(hex32Param('The recipient key')) @Matches(HEX32, hex32('recipient_key_id'))
  recipient_key_id!: string;
}

export class TransferListQuery extends PageQuery {
  @ApiPropertyOptional(hex32Param('The merchant')) @Optional() @Matches(HEX32, hex32('merchant_uuid'))
  merchant_uuid?: string;

  @ApiPropertyOptional({ enum: TRANSFER_STATES }) @Optional() @IsIn(TRANSFER_STATES, { message: `status must be one of ${TRANSFER_STATES.join(', ')}` })
  status?: string;
}

export class ComplianceQueueQuery extends PageQuery {
  @ApiProperty(hex32Param('The tenant whose transfers you review')) @Matches(HEX32, hex32('tenant_uuid'))
  tenant_uuid!: string;

  @ApiPropertyOptional({ enum: TRANSFER_STATES, description: 'Default HELD (flagged by screening).' }) @Optional() @IsIn(TRANSFER_STATES, { message: `status must be one of ${TRANSFER_STATES.join(', ')}` })
  status?: string;
}

export class CreateTransferRequest {
  @ApiProperty(hex32Param('The merchant whose settled funds move')) @Matches(HEX32, hex32('merchant_uuid'))
  merchant_uuid!: string;

  @ApiProperty(hex32Param('The operational wallet the funds leave from')) @Matches(HEX32, hex32('source_wallet_uuid'))
  source_wallet_uuid!: string;

  @ApiProperty({ enum: NETWORK_IDS }) @IsIn(NETWORK_IDS, { message: `network_id must be one of ${NETWORK_IDS.join(', ')}` })
  network_id!: string;

  @ApiProperty({ enum: ASSET_CODES }) @IsIn(ASSET_CODES, { message: `asset must be one of ${ASSET_CODES.join(', ')}` })
  asset!: string;

  @ApiProperty({ example: '1500.00', description: 'Decimal string at the asset\'s scale.' }) @IsDecimalString({ signed: true, maxIntegerDigits: 30 })
  amount!: string;

  @ApiProperty({ description: 'An address on network_id.' }) @IsString() @Length(1, 128)
  destination!: string;
}

/** The seeds' AuthorizeTransferEnvelopeRequest (no extra fields). */
@NoExtraFields()
@ApiSchema({ name: 'AuthorizeTransferEnvelopeRequest' })
export class AuthorizeTransferEnvelopeRequest {
  @ApiProperty(hex32Param('The envelope manifest (chosen by the originator)')) @Matches(HEX32, hex32('manifest_uuid'))
  manifest_uuid!: string;

  @ApiProperty({ ...SHA256, description: 'SHA-256 of the RFC 8785 form of the manifest (docs/transfers.md); recomputed by the server (400 on a mismatch).' }) @Matches(HEX64, hex64('manifest_commitment'))
  manifest_commitment!: string;

  @ApiProperty({ ...SHA256, description: 'SHA-256 of the ciphertext bytes.' }) @Matches(HEX64, hex64('ciphertext_sha256'))
  ciphertext_sha256!: string;

  @ApiProperty({ ...SHA256, description: 'SHA-256 of the RFC 8785 form of the IVMS 101 payload.' }) @Matches(HEX64, hex64('payload_commitment'))
  payload_commitment!: string;

  @ApiProperty(hex32Param('An ACTIVE key of the receiving institution (422 otherwise)')) @Matches(HEX32, hex32('recipient_key_id'))
  recipient_key_id!: string;

  @ApiProperty({ ...SHA256, description: 'SHA-256 of the associated data: the RFC 8785 form of {transfer_uuid, amount, asset, destination} (422 when it is another transfer\'s).' })
  @Matches(HEX64, hex64('associated_data_commitment'))
  associated_data_commitment!: string;

  @ApiPropertyOptional({ enum: ENVELOPE_ALGORITHMS, default: ENVELOPE_ALGORITHMS[0] }) @Optional() @IsIn(ENVELOPE_ALGORITHMS, { message: `encryption_algorithm must be one of ${ENVELOPE_ALGORITHMS.join(', ')}` })
  encryption_algorithm?: string;

  @ApiPropertyOptional({ default: 'IVMS101.2023', maxLength: 64 }) @Optional() @Matches(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, { message: 'payload_schema must be a schema name (letters, digits, . _ : -)' })
  payload_schema?: string;
}

/** The seeds' BindContractGovernanceRequest (no extra fields; camelCase as the seeds spell it). */
@NoExtraFields()
@ApiSchema({ name: 'BindContractGovernanceRequest' })
export class BindContractGovernanceRequest {
  @ApiProperty({ description: 'The governance proposal that decides this transfer.', maxLength: 128 }) @Matches(/^[\x21-\x7e]{1,128}$/, { message: 'proposalId must be 1 to 128 printable ASCII characters without spaces' })
  proposalId!: string;

  @ApiProperty({ description: 'The multi-party signing request that signs it.', maxLength: 128 }) @Matches(/^[\x21-\x7e]{1,128}$/, { message: 'mpcRequestId must be 1 to 128 printable ASCII characters without spaces' })
  mpcRequestId!: string;
}

/** The seeds' CancelTransferComplianceRequest (no extra fields). */
@NoExtraFields()
@ApiSchema({ name: 'CancelTransferComplianceRequest' })
export class CancelTransferComplianceRequest {
  @ApiPropertyOptional({ description: 'Any JSON value, at most 16 KiB in canonical form and 8 levels deep: personal data (sealed, never published in clear).' })
  @Optional()
  evidence?: unknown;

  @ApiPropertyOptional({ enum: COMPLIANCE_REASON_CODES, nullable: true }) @OptionalNullable() @IsIn(COMPLIANCE_REASON_CODES, { message: `reason_code must be one of ${COMPLIANCE_REASON_CODES.join(', ')}` })
  reason_code?: string | null;
}

@NoExtraFields()
export class TransferScreeningReport {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;

  @ApiProperty({ enum: ['CLEAR', 'FLAGGED'] }) @IsIn(['CLEAR', 'FLAGGED'], { message: 'result must be CLEAR or FLAGGED' })
  result!: 'CLEAR' | 'FLAGGED';

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 128 }) @OptionalNullable() @IsString() @Length(1, 128)
  screening_reference?: string | null;
}

@NoExtraFields()
export class TransferGovernanceReport {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;

  @ApiProperty({ enum: GOVERNANCE_KINDS }) @IsIn(GOVERNANCE_KINDS, { message: `kind must be one of ${GOVERNANCE_KINDS.join(', ')}` })
  kind!: (typeof GOVERNANCE_KINDS)[number];

  @ApiProperty({ enum: ['APPROVED', 'REJECTED'] }) @IsIn(['APPROVED', 'REJECTED'], { message: 'outcome must be APPROVED or REJECTED' })
  outcome!: 'APPROVED' | 'REJECTED';
}

@NoExtraFields()
export class TransferRailReport {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;

  @ApiProperty({ enum: ['submit', 'confirm', 'fail'] }) @IsIn(['submit', 'confirm', 'fail'], { message: 'transition must be submit, confirm or fail' })
  transition!: 'submit' | 'confirm' | 'fail';

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 128 }) @OptionalNullable() @IsString() @Length(1, 128)
  transaction_reference?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @Matches(/^[A-Z][A-Z0-9_]{1,39}$/, { message: 'failure_code must be an upper-case code' })
  failure_code?: string | null;
}

export class RegisterRecipientKeyRequest {
  @ApiProperty({ example: 'Beneficiary Bank AG', maxLength: 200 }) @IsString() @Length(1, 200)
  institution_name!: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Legal Entity Identifier (ISO 17442): 20 characters.' }) @OptionalNullable() @Matches(/^[A-Z0-9]{18}[0-9]{2}$/, { message: 'institution_lei must be a 20-character LEI' })
  institution_lei?: string | null;

  @ApiPropertyOptional({ enum: RECIPIENT_KEY_KEMS, default: RECIPIENT_KEY_KEMS[0] }) @Optional() @IsIn(RECIPIENT_KEY_KEMS, { message: `kem must be one of ${RECIPIENT_KEY_KEMS.join(', ')}` })
  kem?: string;

  @ApiProperty({ description: 'base64url (no padding) of the raw 32-byte X25519 public key.', example: 'hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo' }) @IsString() @Length(43, 43)
  public_key!: string;
}

@NoExtraFields()
export class RotateRecipientKeyRequest {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: EXPECTED_VERSION }) @IsInt() @Min(0)
  expected_version!: number;

  @ApiProperty({ description: 'The successor key: base64url of its raw 32-byte X25519 public key.' }) @IsString() @Length(43, 43)
  public_key!: string;
}

export class RecipientKeyListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: RECIPIENT_KEY_STATUSES }) @Optional() @IsIn(RECIPIENT_KEY_STATUSES, { message: `status must be one of ${RECIPIENT_KEY_STATUSES.join(', ')}` })
  status?: string;
}
