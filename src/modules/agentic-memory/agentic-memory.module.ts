/** Agentic memory: collections, versions and manifests, QUERY/CLARIFY/PROPOSE requests, resolution, context publications. */
import { Module } from '@nestjs/common';
import { AgenticMemoryController } from './agentic-memory.controller';
import {
  AddItemHandler, CreateCollectionHandler, FileRequestHandler, PublishContextHandler, PublishVersionHandler, ResolveRequestHandler, ReviewItemHandler, UpdateCollectionHandler,
} from './commands';
import { MemoryAccess } from './memory-access';
import { MemorySigner } from './memory-signer';
import {
  GetCollectionHandler, GetManifestHandler, GetRequestHandler, ListCollectionsHandler, ListInboxHandler, ListItemsHandler, ListOwnRequestsHandler,
} from './queries';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [AgenticMemoryController],
  providers: [
    MemoryAccess,
    MemorySigner,
    CreateCollectionHandler, UpdateCollectionHandler, PublishVersionHandler, AddItemHandler, ReviewItemHandler, FileRequestHandler, PublishContextHandler, ResolveRequestHandler,
    GetCollectionHandler, ListCollectionsHandler, GetManifestHandler, ListItemsHandler, ListInboxHandler, ListOwnRequestsHandler, GetRequestHandler,
  ],
})
export class AgenticMemoryModule {}
