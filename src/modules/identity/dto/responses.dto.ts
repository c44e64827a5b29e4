/** What the identity routes answer (response DTOs, named as the seeds name the records): the OpenAPI schemas. */
import { ApiProperty, ApiSchema } from '@nestjs/swagger';

const HEX32 = { pattern: '^[0-9a-f]{32}$' } as const;

/** The seeds' AccountRegistrationReceipt: the same fields whether or not the address was new (no enumeration). */
@ApiSchema({ name: 'AccountRegistrationReceipt' })
export class AccountRegistrationReceiptResponse {
  @ApiProperty(HEX32) registration_id!: string;
  @ApiProperty({ description: 'Public client identifier.', ...HEX32 }) client_id!: string;
  @ApiProperty(HEX32) tenant_uuid!: string;
  @ApiProperty({ enum: ['PENDING_ACTIVATION'], description: 'PENDING_ACTIVATION until the token is consumed.' }) status!: string;
  @ApiProperty({ description: 'The channel name, never the token.', example: 'email' }) activation_delivery!: string;
  @ApiProperty({ format: 'date-time', description: '24 hours after registration.' }) activation_expires_at!: string;
}

/** The seeds' AccountActivationReceipt. */
@ApiSchema({ name: 'AccountActivationReceipt' })
export class AccountActivationReceiptResponse {
  @ApiProperty(HEX32) registration_id!: string;
  @ApiProperty(HEX32) tenant_uuid!: string;
  @ApiProperty({ enum: ['ACTIVE'] }) status!: string;
}

/** A session's bearer token (OAuth 2 token response shape); the token is opaque. */
@ApiSchema({ name: 'SessionToken' })
export class SessionTokenResponse {
  @ApiProperty({ description: 'Opaque bearer token: send it as Authorization: Bearer <access_token>.' }) access_token!: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Seconds until the token expires.' }) expires_in!: number;
  @ApiProperty(HEX32) session_id!: string;
}
