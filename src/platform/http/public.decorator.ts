import { SetMetadata } from '@nestjs/common';

/** Marks a route (or controller) that needs no bearer token; the auth guard reads it. */
export const IS_PUBLIC = 'platform:isPublic';
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
