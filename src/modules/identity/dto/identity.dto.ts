/** Identity's request shapes (seeds document 001, "Identity and accounts"; PLATFORM.md section 5). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Equals, IsEmail, IsIn, IsNotEmptyObject, IsOptional, IsString, Length, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { NoExtraFields } from '../../../platform/http/validation';
import { STEP_UP_PURPOSES } from '../domain/identity.constants';

const HEX32 = /^[0-9a-f]{32}$/;

export class TermsAcceptance {
  @ApiProperty({ example: '2026-01' }) @IsString() @Length(1, 32)
  version!: string;

  @ApiProperty({ example: true }) @Equals(true, { message: 'terms.accepted must be true: registration needs explicit acceptance' })
  accepted!: boolean;
}

export class AccountRegistrationRequest {
  @ApiProperty({ enum: ['personal', 'corporate'] }) @IsIn(['personal', 'corporate'])
  account_type!: 'personal' | 'corporate';

  @ApiPropertyOptional() @ValidateIf((o: AccountRegistrationRequest) => o.account_type === 'corporate' || o.company_name !== undefined)
  @IsString() @Length(1, 200)
  company_name?: string;

  /** At most 200 characters: the address names its mailbox file, and longer ones are not deliverable here. */
  @ApiProperty({ maxLength: 200 }) @IsString() @MaxLength(200) @IsEmail({ allow_display_name: false, allow_ip_domain: false, require_tld: true })
  email!: string;

  @ApiPropertyOptional() @ValidateIf((o: AccountRegistrationRequest) => o.account_type === 'personal' || o.first_name !== undefined)
  @IsString() @Length(1, 100)
  first_name?: string;

  @ApiPropertyOptional() @ValidateIf((o: AccountRegistrationRequest) => o.account_type === 'personal' || o.last_name !== undefined)
  @IsString() @Length(1, 100)
  last_name?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 100)
  middle_name?: string;

  @ApiProperty({ description: '12-128 printable characters, three character classes, not the email local part' }) @IsString() @MaxLength(1024)
  password!: string;

  @ApiPropertyOptional({ description: 'Omitted: the global tenant' }) @IsOptional() @Matches(HEX32, { message: 'tenant_uuid must be 32 lowercase hex characters' })
  tenant_uuid?: string;

  @ApiProperty({ type: TermsAcceptance }) @IsNotEmptyObject() @ValidateNested() @Type(() => TermsAcceptance)
  terms!: TermsAcceptance;
}

export class AccountActivationRequest {
  @ApiProperty({ example: 'hcat_…' }) @IsString() @Matches(/^hcat_[A-Za-z0-9_-]{43}$/, { message: 'token must be an hcat_ activation token' })
  token!: string;
}

export class LoginRequest {
  @ApiProperty() @IsString() @MaxLength(320)
  email!: string;

  @ApiProperty() @IsString() @MaxLength(1024)
  password!: string;

  @ApiPropertyOptional({ example: '123456' }) @IsOptional() @IsString() @MaxLength(16)
  totp_code?: string;
}

export class VerifyTokenRequest {
  @ApiProperty({ description: 'SHA-256 hex of the bearer token' }) @Matches(/^[0-9a-f]{64}$/, { message: 'hashed_token must be 64 lowercase hex characters' })
  hashed_token!: string;
}

export class StepUpRequest {
  @ApiProperty({ enum: STEP_UP_PURPOSES }) @IsIn(STEP_UP_PURPOSES)
  purpose!: (typeof STEP_UP_PURPOSES)[number];

  @ApiProperty() @IsString() @MaxLength(1024)
  password!: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(16)
  totp_code?: string;
}

export class AuthenticatorEnrollmentRequest {
  @ApiPropertyOptional({ maxLength: 64 }) @IsOptional() @IsString() @Length(1, 64)
  issuer?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 128)
  label?: string;
}

export class AuthenticatorConfirmationRequest {
  @ApiProperty({ example: '123456' }) @Matches(/^\d{6}$/, { message: 'code must be the current six-digit code' })
  code!: string;
}

export class AuthenticatorDisableRequest {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64)
  recovery_code?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128)
  step_up_token?: string;
}

export class ContactChangeRequest {
  /** Re-authentication: a stolen bearer token alone must not move the account to another address. */
  @ApiProperty() @IsString() @MaxLength(1024)
  current_password!: string;

  @ApiProperty({ enum: ['email', 'phone'] }) @IsIn(['email', 'phone'])
  contact_type!: 'email' | 'phone';

  /** An email address, or an E.164 phone number (+491511234567); checked against contact_type by the handler. */
  @ApiProperty({ maxLength: 200 }) @IsString() @Length(3, 200)
  value!: string;
}

@NoExtraFields()
export class ContactChangeConfirmation {
  @ApiProperty() @IsString() @Matches(/^hcct_[A-Za-z0-9_-]{43}$/, { message: 'token must be an hcct_ confirmation token' })
  token!: string;
}

@NoExtraFields()
export class AccountClosureRequest {
  @ApiProperty() @IsString() @MaxLength(1024)
  current_password!: string;

  @ApiPropertyOptional() @IsOptional() @Matches(/^[A-Z][A-Z0-9_]{1,63}$/, { message: 'reason_code must be an UPPER_SNAKE classification' })
  reason_code?: string;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128)
  step_up_token?: string;
}

@NoExtraFields()
export class AccountClosureCancellationRequest {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128)
  step_up_token?: string;
}

export class CreateTenantRequest {
  @ApiProperty() @IsString() @Length(1, 200)
  name!: string;
}

export class AssignTenantAuthorityRequest {
  @ApiProperty() @Matches(HEX32, { message: 'profile_uuid must be 32 lowercase hex characters' })
  profile_uuid!: string;

  @ApiProperty({ enum: ['TENANT_ADMIN', 'TENANT_MODERATOR'] }) @IsIn(['TENANT_ADMIN', 'TENANT_MODERATOR'], { message: 'role_code must be TENANT_ADMIN or TENANT_MODERATOR (OWNER is assigned only at creation)' })
  role_code!: 'TENANT_ADMIN' | 'TENANT_MODERATOR';

  @ApiProperty() @IsString() @Length(8, 320)
  reason!: string;
}

export class CreateWorkspaceRequest {
  @ApiProperty() @IsString() @Length(1, 200)
  name!: string;
}

@NoExtraFields()
export class ActiveWorkspaceRequest {
  @ApiProperty() @Matches(HEX32, { message: 'workspace_id must be 32 lowercase hex characters' })
  workspace_id!: string;
}

export class Hex32Param {
  @Matches(HEX32, { message: 'the identifier must be 32 lowercase hex characters' })
  id!: string;
}

export class TenantParam {
  @Matches(HEX32, { message: 'tenant_uuid must be 32 lowercase hex characters' })
  tenant_uuid!: string;
}
