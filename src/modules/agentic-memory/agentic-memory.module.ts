/** Agentic memory: collections, versions and manifests, QUERY/CLARIFY/PROPOSE requests, resolution, context publications. */
import { Module, type OnModuleInit } from '@nestjs/common';
import { SubjectKeyStore } from '../../platform/privacy/subject-keys';
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
export class AgenticMemoryModule implements OnModuleInit {
  constructor(
    private readonly signer: MemorySigner,
    private readonly keys: SubjectKeyStore,
  ) {}

  /** A node signing manifests with a key the other nodes do not hold or trust, or not signing while they do, is refused. */
  async onModuleInit(): Promise<void> {
    await this.keys.assertKeyAmongNodes(this.signer.nodeKey);
  }
}
