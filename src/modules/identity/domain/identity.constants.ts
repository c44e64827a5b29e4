/** Identity's fixed values: the global tenant, lifetimes and stream names. */
export const GLOBAL_TENANT_UUID = '00000000000000000000000000000000';
export const ACTIVATION_TTL_MS = 24 * 3600 * 1000;
export const ENROLLMENT_TTL_SECONDS = 600;
export const STEP_UP_TTL_MS = 5 * 60 * 1000;
export const CONTACT_CHANGE_TTL_MS = 24 * 3600 * 1000;
/** A tenant invitation may be spent for seven days (as organisation invitations elsewhere, e.g. Auth0's default). */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
export const SERVICE_NAME = 'Trading and Account Platform';

export const STEP_UP_PURPOSES = ['MERCHANT_PROFILE_ACTIVATION', 'COMMERCE_INVOICE_CANCELLATION', 'AUTHENTICATOR_DISABLE', 'ACCOUNT_CLOSURE', 'ACCOUNT_ERASURE', 'TRANSFER_COMPLIANCE_CANCELLATION'] as const;
export type StepUpPurpose = (typeof STEP_UP_PURPOSES)[number];

export const ACCOUNT_STREAM_PREFIX = 'identity-account-';
export const accountStream = (profileUuid: string): string => `${ACCOUNT_STREAM_PREFIX}${profileUuid}`;
/** One stream per email address, platform-wide (sign-in takes no tenant): claiming it is the uniqueness check. */
export const emailClaimStream = (emailKey: string): string => `identity-email-${emailKey}`;
export const sessionStream = (sessionId: string): string => `identity-session-${sessionId}`;
/** One-use tokens live in a stream named by their hash: consuming is appending at revision 0, so it happens once. */
export const tokenStream = (tokenHash: string): string => `identity-token-${tokenHash}`;
export const tenantStream = (tenantUuid: string): string => `identity-tenant-${tenantUuid}`;
export const workspaceStream = (workspaceUuid: string): string => `identity-workspace-${workspaceUuid}`;
