import { SetMetadata } from '@nestjs/common';

/** Marks a route (or controller) that needs no bearer token; the auth guard reads it. */
export const IS_PUBLIC = 'platform:isPublic';
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/**
 * Marks a route whose response carries a secret (a bearer or step-up token, a TOTP secret, recovery codes): its
 * response is never retained for Idempotency-Key replay, so the key is ignored there. A retry is a new request.
 */
export const SECRET_RESPONSE = 'platform:secretResponse';
export const SecretResponse = (): MethodDecorator & ClassDecorator => SetMetadata(SECRET_RESPONSE, true);
