/** Identity's request shapes (seeds document 001, "Identity and accounts"; PLATFORM.md section 5). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Equals, IsEmail, IsIn, IsInt, IsNotEmptyObject, IsString, Length, Matches, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';
import { NoExtraFields, Optional, OptionalNullable } from '../../../platform/http/validation';
import { STEP_UP_PURPOSES } from '../domain/identity.constants';
import { JOIN_POLICIES, type JoinPolicy } from '../domain/access';
import { WORKSPACE_ROLES, type WorkspaceRole } from '../domain/workspace';
import { hex32Param } from '../../../platform/http/api-properties';

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

  // company_name?, first_name?, last_name? (seeds 001, AccountRegistrationRequest): required by their account type,
  // otherwise absent or null (the handler stores `?? null`).
  @ApiPropertyOptional({ type: String, nullable: true }) @ValidateIf((o: AccountRegistrationRequest) => o.account_type === 'corporate' || (o.company_name !== undefined && o.company_name !== null))
  @IsString() @Length(1, 200)
  company_name?: string | null;

  /** At most 200 characters: the address names its mailbox file, and longer ones are not deliverable here. */
  @ApiProperty({ maxLength: 200 }) @IsString() @MaxLength(200) @IsEmail({ allow_display_name: false, allow_ip_domain: false, require_tld: true })
  email!: string;

  @ApiPropertyOptional({ type: String, nullable: true }) @ValidateIf((o: AccountRegistrationRequest) => o.account_type === 'personal' || (o.first_name !== undefined && o.first_name !== null))
  @IsString() @Length(1, 100)
  first_name?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @ValidateIf((o: AccountRegistrationRequest) => o.account_type === 'personal' || (o.last_name !== undefined && o.last_name !== null))
  @IsString() @Length(1, 100)
  last_name?: string | null;

  /** middle_name? (seeds 001): null is a value; the handler stores `?? null`. */
  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString() @Length(1, 100)
  middle_name?: string | null;

  @ApiProperty({ description: '12-128 printable characters, three character classes, not the email local part' }) @IsString() @MaxLength(1024)
  password!: string;

  /** tenant_uuid? (seeds 001): omitted or null, the global tenant (the handler's `?? GLOBAL_TENANT_UUID`). */
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Omitted or null: the global tenant' }) @OptionalNullable() @Matches(HEX32, { message: 'tenant_uuid must be 32 lowercase hex characters' })
  tenant_uuid?: string | null;

  @ApiProperty({ type: TermsAcceptance }) @IsNotEmptyObject() @ValidateNested() @Type(() => TermsAcceptance)
  terms!: TermsAcceptance;

  /**
   * Not in the seeds' shape (which accepts extra fields): the one-use token of an invitation into `tenant_uuid`, mailed
   * to this address. A tenant that takes members by invitation (its default join policy) needs it; without a valid
   * one the registration answers the same receipt and creates nothing.
   */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'hcti_…', description: 'The invitation token mailed to this address, for a tenant that takes members by invitation.' })
  @OptionalNullable() @Matches(/^hcti_[A-Za-z0-9_-]{43}$/, { message: 'invitation_token must be an hcti_ invitation token' })
  invitation_token?: string | null;
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

  @ApiPropertyOptional({ example: '123456' }) @Optional() @IsString() @MaxLength(16)
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

  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(16)
  totp_code?: string;
}

/** issuer?, label? (seeds 001): null, like absent, is the service name (the handler's `??`). */
export class AuthenticatorEnrollmentRequest {
  @ApiPropertyOptional({ type: String, maxLength: 64, nullable: true }) @OptionalNullable() @IsString() @Length(1, 64)
  issuer?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString() @Length(1, 128)
  label?: string | null;
}

export class AuthenticatorConfirmationRequest {
  @ApiProperty({ example: '123456' }) @Matches(/^\d{6}$/, { message: 'code must be the current six-digit code' })
  code!: string;
}

/** recovery_code?, step_up_token? (seeds 001): a null one is not supplied (the controller passes it on as absent). */
export class AuthenticatorDisableRequest {
  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString() @MaxLength(64)
  recovery_code?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString() @MaxLength(128)
  step_up_token?: string | null;
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

  /** reason_code?, step_up_token? (seeds 001): null is not supplied (USER_REQUESTED; no step-up consumed). */
  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @Matches(/^[A-Z][A-Z0-9_]{1,63}$/, { message: 'reason_code must be an UPPER_SNAKE classification' })
  reason_code?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString() @MaxLength(128)
  step_up_token?: string | null;
}

@NoExtraFields()
export class AccountClosureCancellationRequest {
  /** step_up_token? (seeds 001): null is not supplied. */
  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @IsString() @MaxLength(128)
  step_up_token?: string | null;
}

/** An admin's erasure of a closed account (docs/privacy.md). */
@NoExtraFields()
export class AccountErasureRequest {
  @ApiProperty({ description: 'A step-up token of purpose ACCOUNT_ERASURE, issued to the admin\'s session.' }) @IsString() @MaxLength(128)
  step_up_token!: string;

  @ApiPropertyOptional({ example: 'DATA_SUBJECT_REQUEST', description: 'Why (UPPER_SNAKE); DATA_SUBJECT_REQUEST when omitted.' })
  @Optional() @Matches(/^[A-Z][A-Z0-9_]{1,63}$/, { message: 'reason_code must be an UPPER_SNAKE classification' })
  reason_code?: string;
}

export class AccountParam {
  @ApiProperty(hex32Param('The account (profile)'))
  @Matches(HEX32, { message: 'profile_uuid must be 32 lowercase hex characters' })
  profile_uuid!: string;
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

@NoExtraFields()
export class TenantJoinPolicyRequest {
  @ApiProperty({ enum: JOIN_POLICIES, description: 'INVITATION: only registrations carrying an invitation to their address join (the default). OPEN: anyone who knows the tenant_uuid.' })
  @IsIn(JOIN_POLICIES, { message: `join_policy must be one of ${JOIN_POLICIES.join(', ')}` })
  join_policy!: JoinPolicy;
}

@NoExtraFields()
export class TenantInvitationRequest {
  /** At most 200 characters, like a registration's: the invitation is delivered to it. */
  @ApiProperty({ maxLength: 200, description: 'The address to invite; the one-use invitation token is mailed to it.' })
  @IsString() @MaxLength(200) @IsEmail({ allow_display_name: false, allow_ip_domain: false, require_tld: true })
  email!: string;
}

export class TenantInvitationParam {
  @ApiProperty(hex32Param('The tenant'))
  @Matches(HEX32, { message: 'tenant_uuid must be 32 lowercase hex characters' })
  tenant_uuid!: string;

  @ApiProperty(hex32Param('The invitation'))
  @Matches(HEX32, { message: 'invitation_uuid must be 32 lowercase hex characters' })
  invitation_uuid!: string;
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

const EXPECTED_VERSION = 'The workspace version the change is based on (`version` of the member list); a newer one answers 409 VERSION_CONFLICT.';

@NoExtraFields()
export class AddWorkspaceMemberRequest {
  @ApiProperty({ description: 'A member of the workspace\'s tenant.' }) @Matches(HEX32, { message: 'profile_uuid must be 32 lowercase hex characters' })
  profile_uuid!: string;

  @ApiProperty({ enum: WORKSPACE_ROLES }) @IsIn(WORKSPACE_ROLES, { message: `role must be one of ${WORKSPACE_ROLES.join(', ')}` })
  role!: WorkspaceRole;

  @ApiProperty({ description: EXPECTED_VERSION, minimum: 0 }) @IsInt() @Min(0)
  expected_version!: number;
}

@NoExtraFields()
export class ChangeWorkspaceMemberRoleRequest {
  @ApiProperty({ enum: WORKSPACE_ROLES }) @IsIn(WORKSPACE_ROLES, { message: `role must be one of ${WORKSPACE_ROLES.join(', ')}` })
  role!: WorkspaceRole;

  @ApiProperty({ description: EXPECTED_VERSION, minimum: 0 }) @IsInt() @Min(0)
  expected_version!: number;
}

@NoExtraFields()
export class LeaveWorkspaceRequest {
  @ApiProperty({ description: EXPECTED_VERSION, minimum: 0 }) @IsInt() @Min(0)
  expected_version!: number;
}

/** DELETE carries no body: the version travels in the query string (a string there, checked as a whole number). */
export class RemoveWorkspaceMemberQuery {
  @ApiProperty({ description: EXPECTED_VERSION, type: 'integer', minimum: 0 }) @Matches(/^(0|[1-9]\d{0,17})$/, { message: 'expected_version must be a whole number >= 0' })
  expected_version!: string;
}

export class WorkspaceParam {
  @ApiProperty(hex32Param('The workspace'))
  @Matches(HEX32, { message: 'workspace_id must be 32 lowercase hex characters' })
  workspace_id!: string;
}

export class WorkspaceMemberParam {
  @ApiProperty(hex32Param('The workspace'))
  @Matches(HEX32, { message: 'workspace_id must be 32 lowercase hex characters' })
  workspace_id!: string;

  @ApiProperty(hex32Param('The member profile'))
  @Matches(HEX32, { message: 'profile_uuid must be 32 lowercase hex characters' })
  profile_uuid!: string;
}

export class SessionParam {
  @ApiProperty(hex32Param('The session'))
  @Matches(HEX32, { message: 'session_uuid must be 32 lowercase hex characters' })
  session_uuid!: string;
}

export class EnrollmentParam {
  @ApiProperty(hex32Param('The authenticator enrolment'))
  @Matches(HEX32, { message: 'enrollment_uuid must be 32 lowercase hex characters' })
  enrollment_uuid!: string;
}

export class TenantParam {
  @ApiProperty(hex32Param('The tenant'))
  @Matches(HEX32, { message: 'tenant_uuid must be 32 lowercase hex characters' })
  tenant_uuid!: string;
}
