/** Asset collections: a catalogue platform admins keep, listed publicly while ACTIVE (docs/asset-collections.md). */
import { Module } from '@nestjs/common';
import { AssetCollectionsController } from './asset-collections.controller';
import { ChangeAssetCollectionHandler, RegisterAssetCollectionHandler } from './commands';
import { GetAssetCollectionHandler, ListAssetCollectionsHandler } from './queries';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [AssetCollectionsController],
  providers: [RegisterAssetCollectionHandler, ChangeAssetCollectionHandler, ListAssetCollectionsHandler, GetAssetCollectionHandler],
})
export class AssetCollectionsModule {}
