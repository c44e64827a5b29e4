/**
 * `GET /api/v1/auth/profiles`: how clients authenticate and what conventions they can rely on, each said in a
 * sentence that is true of this platform (docs/api.md has the long form).
 */
export const authenticationProfiles = (sessionTtlSeconds: number) => ({
  profiles: [
    {
      id: 'interactive-session',
      principal: 'profile (a registered, activated account)',
      credential: 'POST /api/v1/auth/sessions with email, password and, once an authenticator is enrolled, totp_code; answers a 256-bit bearer token (hcs_…) stored by the platform as its SHA-256 only',
      requestSigning: 'none: requests carry Authorization: Bearer <token> over TLS',
      lifetimeSeconds: sessionTtlSeconds,
    },
    {
      id: 'step-up',
      principal: 'the session of the calling profile',
      credential: 'POST /api/v1/auth/step-up with purpose, password and TOTP code when enrolled; answers a one-use hcsu_ token bound to the session and the purpose',
      requestSigning: 'none: the token goes in the step_up_token field of the sensitive request',
      lifetimeSeconds: 300,
    },
  ],
  agent_integration: {
    errorEnvelope: 'Every error is {"success": false, "error": {code, message, request_id, retryable, details[{field, issue}], current_version?}} with an HTTP status fixed by the code.',
    pagination: 'Lists take limit and an opaque cursor and answer next_cursor (nextCursor where the schema spells it so), absent on the last page.',
    idempotency: 'POSTs accept Idempotency-Key: the same key and body within the retention period (24 hours by default) replays the first response with Idempotent-Replay: true, another body is 409 IDEMPOTENCY_KEY_REUSED; responses carrying secrets (sign-in, step-up, authenticator enrollment) are never retained, so there the key is ignored.',
    requestSigning: 'Requests are not signed; authenticate with the bearer token and, for sensitive operations, a one-use step-up token.',
    retryPolicy: 'Retry only errors with retryable: true (429 after Retry-After, 503), with the same Idempotency-Key so nothing happens twice.',
    decimalPolicy: 'Amounts, prices and quantities are decimal strings such as "10.50"; a JSON number in their place is 400 VALIDATION_FAILED.',
  },
});
