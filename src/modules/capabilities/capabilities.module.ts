/** The capability registry (docs/capabilities.md): what the platform can do, generated from its served routes. */
import { Module } from '@nestjs/common';
import { CapabilitiesController } from './capabilities.controller';
// The module's own application and the platform's (health), declared when the module loads.
import './capabilities';

@Module({ controllers: [CapabilitiesController] })
export class CapabilitiesModule {}
