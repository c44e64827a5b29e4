import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

/** Marker on a public operation in the generated OpenAPI document; openapi.ts turns it into `security: []`. */
export const PUBLIC_EXTENSION = 'x-platform-public';

/** Marks a route (or controller) that needs no bearer token: the auth guard reads it, and so does the OpenAPI document. */
export const IS_PUBLIC = 'platform:isPublic';
export const Public = (): MethodDecorator & ClassDecorator => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension(PUBLIC_EXTENSION, true));

/**
 * Marks a route whose response carries a secret (a bearer or step-up token, a TOTP secret, recovery codes): its
 * response is never retained for Idempotency-Key replay, so the key is ignored there. A retry is a new request.
 */
export const SECRET_RESPONSE = 'platform:secretResponse';
/** Marker on such an operation in the OpenAPI document: it takes no Idempotency-Key (openapi.ts). */
export const SECRET_RESPONSE_EXTENSION = 'x-platform-secret-response';
export const SecretResponse = (): MethodDecorator & ClassDecorator => applyDecorators(SetMetadata(SECRET_RESPONSE, true), ApiExtension(SECRET_RESPONSE_EXTENSION, true));
