/** Arena administration: trading competitions between a tenant's people on the platform's markets (docs/arena.md). */
import { Module } from '@nestjs/common';
import { ArenaAccess } from './arena-access';
import { ArenaClock } from './arena-clock';
import { ArenaController } from './arena.controller';
import { ChangeArenaSeasonHandler, CreateArenaSeasonHandler } from './commands';
import { GetArenaSeasonHandler, ListArenaSeasonsHandler } from './queries';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [ArenaController],
  providers: [ArenaAccess, ArenaClock, CreateArenaSeasonHandler, ChangeArenaSeasonHandler, GetArenaSeasonHandler, ListArenaSeasonsHandler],
  exports: [ArenaClock],
})
export class ArenaModule {}
