/** Identity in the capability registry (docs/capabilities.md), and the ways to authenticate it offers. */
import { declareApplication, declareAuthenticationProfile } from '../../platform/capabilities/capability';

declareApplication({
  name: 'identity',
  group: 'Accounts',
  order: 1,
  owners: ['identity'],
  description: 'Accounts and their lifecycle: registration and activation, sessions, step-up, authenticators, contact changes, closure, tenants and workspaces.',
  purpose: 'Know who is calling, in which tenant and workspace, and let people manage their own account safely.',
  audiences: ['people trading or paying on the platform', 'tenant owners and administrators', 'integrators and AI agents acting for a person'],
  businessCases: ['open an account and sign in', 'protect an account with a second factor', 'organise people into workspaces of a tenant', 'close an account and have personal data erased'],
  workflow: ['register', 'activate with the emailed token', 'sign in for a bearer token', 'enrol an authenticator', 'step up before sensitive operations'],
  prerequisites: ['an email address that receives the activation token'],
  agentGuidance: ['Sign in once and reuse the bearer token until it expires; never store passwords.', 'Ask the person for a step-up (password, TOTP) right before a sensitive operation; step-up tokens last 5 minutes and serve once.'],
  relatedApplications: ['trading', 'ai-wallets', 'notifications', 'audit'],
  capabilities: {
    registration: { whenToUse: 'To open an account, then activate it with the token sent to the email address.', sideEffects: 'Creates the account (pending until activated) and sends the activation token through the delivery port.' },
    sessions: { whenToUse: 'To sign in for a bearer token, check one, or sign a session out.', sideEffects: 'Opens or revokes a session; failed sign-ins count towards throttling.' },
    'step-up': { whenToUse: 'Right before an operation that names a step-up purpose: re-prove the password (and TOTP) for a one-use token.', sideEffects: 'Issues a one-use step-up token bound to the session and the purpose.' },
    'sign-in-history': { whenToUse: "To review the account's recent sign-ins and security events." },
    'integration-profiles': { whenToUse: 'Before integrating: every way to authenticate and the conventions (errors, pagination, idempotency, decimals, retries).' },
    'two-factor-authentication': { whenToUse: 'To enrol, confirm or disable a TOTP authenticator.', sideEffects: 'Changes what sign-in and step-up require; the secret is shown once at enrolment.' },
    'contact-details': { whenToUse: "To read the account's contact details or change its email address (confirmed by a token sent to the new address)." },
    'account-closure': { whenToUse: 'To close an account (with a cooling-off period), cancel a closure, or — platform admins — erase a closed account.', sideEffects: 'Schedules closure; erasure destroys the person\'s key so their personal data in the log can no longer be read.' },
    tenants: {
      whenToUse: 'To create a tenant, manage who holds its authority roles (owner, administrators, moderators), and decide who joins it: invite addresses (the default) or open it to anyone who knows its id.',
      sideEffects: 'An invitation mails a one-use token to the invited address; revoking one erases the address.',
    },
    workspaces: { whenToUse: "To create workspaces, choose the active one, and manage their members.", sideEffects: 'Changes membership or the caller\'s active workspace.' },
  },
});

declareAuthenticationProfile({
  id: 'interactive-session',
  principal: 'profile (a registered, activated account)',
  credential: 'POST /api/v1/auth/sessions with email, password and, once an authenticator is enrolled, totp_code; answers a 256-bit bearer token (hcs_…) stored by the platform as its SHA-256 only',
  requestSigning: 'none: requests carry Authorization: Bearer <token> over TLS',
  lifetimeSeconds: (config) => config.sessionTtlSeconds,
});

declareAuthenticationProfile({
  id: 'step-up',
  principal: 'the session of the calling profile',
  credential: 'POST /api/v1/auth/step-up with purpose, password and TOTP code when enrolled; answers a one-use hcsu_ token bound to the session and the purpose',
  requestSigning: 'none: the token goes in the step_up_token field (or X-Step-Up-Token header) of the sensitive request',
  lifetimeSeconds: 300,
});
