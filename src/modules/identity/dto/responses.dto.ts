/** What the identity routes answer (response DTOs, named as the seeds name the records): the OpenAPI schemas. */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { HEX32_ID } from '../../../platform/http/api-properties';
import { AgentIntegrationProfileResponse } from '../../../platform/capabilities/agent-integration.dto';


/** The seeds' AccountRegistrationReceipt: the same fields whether or not the address was new (no enumeration). */
@ApiSchema({ name: 'AccountRegistrationReceipt' })
export class AccountRegistrationReceiptResponse {
  @ApiProperty(HEX32_ID) registration_id!: string;
  @ApiProperty({ description: 'Public client identifier.', ...HEX32_ID }) client_id!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty({ enum: ['PENDING_ACTIVATION'], description: 'PENDING_ACTIVATION until the token is consumed.' }) status!: string;
  @ApiProperty({ description: 'The channel name, never the token.', example: 'email' }) activation_delivery!: string;
  @ApiProperty({ format: 'date-time', description: '24 hours after registration.' }) activation_expires_at!: string;
}

/** The seeds' AccountActivationReceipt. */
@ApiSchema({ name: 'AccountActivationReceipt' })
export class AccountActivationReceiptResponse {
  @ApiProperty(HEX32_ID) registration_id!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty({ enum: ['ACTIVE'] }) status!: string;
}

/** A session's bearer token (OAuth 2 token response shape); the token is opaque. */
@ApiSchema({ name: 'SessionToken' })
export class SessionTokenResponse {
  @ApiProperty({ description: 'Opaque bearer token: send it as Authorization: Bearer <access_token>.' }) access_token!: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Seconds until the token expires.' }) expires_in!: number;
  @ApiProperty(HEX32_ID) session_id!: string;
}

const DATE_TIME = { format: 'date-time' } as const;
const NULLABLE_DATE_TIME = { type: String, format: 'date-time', nullable: true } as const;

/** The seeds' ContactProfile. */
@ApiSchema({ name: 'ContactProfile' })
export class ContactProfileResponse {
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty({ type: String, nullable: true }) email!: string | null;
  @ApiProperty() email_verified!: boolean;
  @ApiProperty({ type: String, nullable: true }) phone!: string | null;
  @ApiProperty() phone_verified!: boolean;
}

/** The seeds' ContactChangeReceipt. */
@ApiSchema({ name: 'ContactChangeReceipt' })
export class ContactChangeReceiptResponse {
  @ApiProperty({ enum: ['PENDING_CONFIRMATION', 'CONFIRMED'] }) status!: string;
  @ApiProperty({ example: 'email' }) contact_type!: string;
  @ApiProperty({ description: 'The new address, masked.', example: 'r***3@e***.com' }) target_hint!: string;
  @ApiPropertyOptional() delivery_channel?: string;
  @ApiPropertyOptional(DATE_TIME) expires_at?: string;
  @ApiPropertyOptional(HEX32_ID) profile_uuid?: string;
  @ApiPropertyOptional(HEX32_ID) request_id?: string;
  @ApiPropertyOptional({ description: 'true: every interactive session was revoked.' }) sessions_revoked?: boolean;
}

/** An erasure as recorded (AccountErased): the person's keys destroyed, the read models scrubbing. */
@ApiSchema({ name: 'AccountErasure' })
export class AccountErasureResponse {
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty({ enum: ['ERASED'] }) status!: string;
  @ApiProperty() reason_code!: string;
  @ApiProperty({ format: 'date-time' }) erased_at!: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Keys of the person destroyed (0 when nothing was ever sealed for them).' }) keys_destroyed!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'The account stream\'s revision after the erasure.' }) version!: number;
}

/** The seeds' AccountClosure. Completion must not be inferred from HTTP acceptance alone. */
@ApiSchema({ name: 'AccountClosure' })
export class AccountClosureResponse {
  @ApiProperty(HEX32_ID) request_uuid!: string;
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty({ enum: ['SCHEDULED', 'BLOCKED', 'CANCELLED', 'COMPLETED'] }) status!: string;
  @ApiProperty() reason_code!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) version!: number;
  @ApiProperty(DATE_TIME) requested_at!: string;
  @ApiProperty(DATE_TIME) scheduled_for!: string;
  @ApiProperty(NULLABLE_DATE_TIME) blocked_until!: string | null;
  @ApiProperty({ type: String, nullable: true }) blocker_code!: string | null;
  @ApiProperty({ ...NULLABLE_DATE_TIME, description: 'null: not cancelled.' }) cancelled_at!: string | null;
  @ApiProperty({ ...NULLABLE_DATE_TIME, description: 'null: not completed.' }) completed_at!: string | null;
  @ApiProperty({ description: 'true when the retained result of the same Idempotency-Key is replayed.' }) idempotent_replay!: boolean;
  @ApiProperty({ type: String, nullable: true }) last_error_code!: string | null;
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0 }) processing_attempts!: number;
}

/** The seeds' AuthenticatorEnrollment: the secret is returned once. */
@ApiSchema({ name: 'AuthenticatorEnrollment' })
export class AuthenticatorEnrollmentResponse {
  @ApiProperty({ description: '32 characters, bound to the session, valid ten minutes.' }) enrollment_id!: string;
  @ApiProperty({ description: 'Base32 TOTP secret, returned once.' }) secret!: string;
  @ApiProperty() otpauth_uri!: string;
  @ApiProperty() label!: string;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Seconds (600).' }) expires_in!: number;
}

/** The seeds' AuthenticatorEnrollmentReceipt: ten single-use recovery codes, returned once. */
@ApiSchema({ name: 'AuthenticatorEnrollmentReceipt' })
export class AuthenticatorEnrollmentReceiptResponse {
  @ApiProperty({ enum: ['ENABLED'] }) status!: string;
  @ApiProperty({ type: [String], minItems: 10, maxItems: 10 }) recovery_codes!: string[];
  @ApiProperty() warning!: string;
}

/** The seeds' AuthenticatorDisableReceipt. */
@ApiSchema({ name: 'AuthenticatorDisableReceipt' })
export class AuthenticatorDisableReceiptResponse {
  @ApiProperty({ enum: ['DISABLED'] }) status!: string;
  @ApiProperty({ description: 'true: every interactive session is revoked.' }) sessions_revoked!: boolean;
}

/** A one-use step-up token for one purpose. */
@ApiSchema({ name: 'StepUpToken' })
export class StepUpTokenResponse {
  @ApiProperty({ description: 'One-use token (hcsu_…), bound to the session and the purpose.' }) step_up_token!: string;
  @ApiProperty() purpose!: string;
  @ApiProperty(DATE_TIME) expires_at!: string;
}

@ApiSchema({ name: 'AuthenticationDevice' })
export class AuthenticationDeviceResponse {
  @ApiProperty() name!: string;
  @ApiProperty() platform!: string;
}

/** The seeds' AuthenticationEvent. */
@ApiSchema({ name: 'AuthenticationEvent' })
export class AuthenticationEventResponse {
  @ApiProperty(HEX32_ID) event_id!: string;
  @ApiProperty({ example: 'LOGIN_SUCCEEDED' }) event_type!: string;
  @ApiProperty({ enum: ['SUCCESS', 'FAILURE'] }) outcome!: string;
  @ApiProperty({ example: 'PASSWORD', description: 'How the person proved it was them (PASSWORD, PASSWORD_TOTP; TOTP, STEP_UP, RECOVERY_CODE for authenticator changes); on SESSION_REVOKED how the revoked session was opened; NONE on SESSIONS_REVOKED.' }) authentication_method!: string;
  @ApiProperty({ type: String, nullable: true, description: 'What a step-up was for; null otherwise.' }) purpose!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'REVOKED_BY_USER',
    description: 'Why the sessions of a SESSION_REVOKED or SESSIONS_REVOKED entry were revoked (LOGOUT, REVOKED_BY_USER, CONTACT_CHANGED, AUTHENTICATOR_DISABLED, ACCOUNT_CLOSED); null otherwise.',
  })
  reason!: string | null;
  @ApiProperty({ type: AuthenticationDeviceResponse }) device!: AuthenticationDeviceResponse;
  @ApiProperty({ example: 'ACTIVE' }) session_status!: string;
  @ApiProperty() current_session!: boolean;
  @ApiProperty(NULLABLE_DATE_TIME) last_seen_at!: string | null;
  @ApiProperty(DATE_TIME) occurred_at!: string;
  @ApiProperty(NULLABLE_DATE_TIME) revoked_at!: string | null;
}

/** The seeds' AuthenticationEventPage. */
@ApiSchema({ name: 'AuthenticationEventPage' })
export class AuthenticationEventPageResponse {
  @ApiProperty({ type: [AuthenticationEventResponse] }) items!: AuthenticationEventResponse[];
  @ApiPropertyOptional({ description: 'Opaque; absent on the last page.' }) next_cursor?: string;
}

/** The seeds' AuthenticationProfile. */
@ApiSchema({ name: 'AuthenticationProfile' })
export class AuthenticationProfileResponse {
  @ApiProperty() id!: string;
  @ApiProperty() principal!: string;
  @ApiProperty() credential!: string;
  @ApiProperty() requestSigning!: string;
  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 0 }) lifetimeSeconds?: number;
}

@ApiSchema({ name: 'AuthenticationProfiles' })
export class AuthenticationProfilesResponse {
  @ApiProperty({ type: [AuthenticationProfileResponse] }) profiles!: AuthenticationProfileResponse[];
  @ApiProperty({ type: AgentIntegrationProfileResponse }) agent_integration!: AgentIntegrationProfileResponse;
}

@ApiSchema({ name: 'TokenVerification' })
export class TokenVerificationResponse {
  @ApiProperty() message!: string;
  @ApiProperty() success!: boolean;
}

@ApiSchema({ name: 'SessionRevocation' })
export class SessionRevocationResponse {
  @ApiProperty(HEX32_ID) session_id!: string;
  @ApiProperty({ enum: ['REVOKED'] }) status!: string;
}

@ApiSchema({ name: 'Tenant' })
export class TenantResponse {
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['OWNER'] }) role_code!: string;
}

@ApiSchema({ name: 'TenantAuthorityAssignment' })
export class TenantAuthorityAssignmentResponse {
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty({ enum: ['TENANT_ADMIN', 'TENANT_MODERATOR'] }) role_code!: string;
  @ApiProperty() reason!: string;
  @ApiProperty(HEX32_ID) assigned_by_profile_uuid!: string;
}

@ApiSchema({ name: 'TenantAuthority' })
export class TenantAuthorityResponse {
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty({ enum: ['OWNER', 'TENANT_ADMIN', 'TENANT_MODERATOR'] }) role_code!: string;
  @ApiProperty(DATE_TIME) assigned_at!: string;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
}

@ApiSchema({ name: 'TenantAuthorityList' })
export class TenantAuthorityListResponse {
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty({ type: [TenantAuthorityResponse] }) items!: TenantAuthorityResponse[];
}

/** Who may join a tenant by registering into it. */
@ApiSchema({ name: 'TenantJoinPolicy' })
export class TenantJoinPolicyResponse {
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty({ enum: ['INVITATION', 'OPEN'], description: 'INVITATION (the default): only registrations carrying an invitation to their address join. OPEN: anyone who knows the tenant_uuid.' })
  join_policy!: string;
}

/** The join policy after a change, with the tenant's version (its stream's revision). */
@ApiSchema({ name: 'TenantJoinPolicyChange' })
export class TenantJoinPolicyChangeResponse extends TenantJoinPolicyResponse {
  @ApiProperty({ type: 'integer', minimum: 0 }) version!: number;
}

/** An invitation into a tenant; its token went to the address by mail and is never shown. */
@ApiSchema({ name: 'TenantInvitation' })
export class TenantInvitationResponse {
  @ApiProperty(HEX32_ID) invitation_uuid!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty({ description: 'The invited address (lowercased); "[erased]" once the invitation is revoked or the account that accepted it is erased.' }) email!: string;
  @ApiProperty({ enum: ['PENDING', 'ACCEPTED', 'REVOKED', 'EXPIRED'], description: 'EXPIRED: pending past expires_at.' }) status!: string;
  @ApiProperty(HEX32_ID) invited_by_profile_uuid!: string;
  @ApiProperty(DATE_TIME) created_at!: string;
  @ApiProperty({ ...DATE_TIME, description: 'Seven days after created_at.' }) expires_at!: string;
  @ApiProperty({ type: String, nullable: true, pattern: '^[0-9a-f]{32}$', description: 'The profile whose registration spent it.' }) accepted_profile_uuid!: string | null;
  @ApiProperty(NULLABLE_DATE_TIME) accepted_at!: string | null;
  @ApiProperty(NULLABLE_DATE_TIME) revoked_at!: string | null;
}

@ApiSchema({ name: 'TenantInvitationPage' })
export class TenantInvitationPageResponse {
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty({ type: [TenantInvitationResponse], description: 'Newest first.' }) items!: TenantInvitationResponse[];
  @ApiPropertyOptional({ description: 'Opaque; absent on the last page.' }) next_cursor?: string;
}

/** A workspace as its member sees it. */
@ApiSchema({ name: 'Workspace' })
export class WorkspaceResponse {
  @ApiProperty(HEX32_ID) workspace_id!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['OWNER', 'ADMIN', 'MEMBER'] }) role!: string;
  @ApiProperty(DATE_TIME) created!: string;
}

@ApiSchema({ name: 'WorkspaceList' })
export class WorkspaceListResponse {
  @ApiProperty({ type: [WorkspaceResponse] }) items!: WorkspaceResponse[];
}

/** The seeds' ActiveWorkspaceResponse. */
@ApiSchema({ name: 'ActiveWorkspaceResponse' })
export class ActiveWorkspaceResponse {
  @ApiProperty({ type: WorkspaceResponse, nullable: true }) workspace!: WorkspaceResponse | null;
}

@ApiSchema({ name: 'WorkspaceMember' })
export class WorkspaceMemberResponse {
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty({ enum: ['OWNER', 'ADMIN', 'MEMBER'] }) role!: string;
  @ApiProperty(DATE_TIME) joined_at!: string;
}

@ApiSchema({ name: 'WorkspaceMemberList' })
export class WorkspaceMemberListResponse {
  @ApiProperty(HEX32_ID) workspace_id!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: 'Send it as expected_version to change the membership.' }) version!: number;
  @ApiProperty({ type: [WorkspaceMemberResponse] }) items!: WorkspaceMemberResponse[];
  @ApiPropertyOptional({ description: 'Opaque; absent on the last page.' }) next_cursor?: string;
}

/** A membership after a change: added, role changed, removed or left. */
@ApiSchema({ name: 'WorkspaceMembership' })
export class WorkspaceMembershipResponse {
  @ApiProperty(HEX32_ID) workspace_id!: string;
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty({ type: String, enum: ['OWNER', 'ADMIN', 'MEMBER', null], nullable: true, description: 'null once removed or left.' }) role!: string | null;
  @ApiProperty({ enum: ['ACTIVE', 'REMOVED', 'LEFT'] }) status!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) version!: number;
}
