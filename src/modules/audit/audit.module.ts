/**
 * The audit module (docs/audit.md): the global chain's signed checkpoints, the AUDITOR role, and the routes that
 * serve raw events, checkpoints and Merkle proofs (audit.proofs.ts, on the audit-merkle projection). The offline verifier and export are `src/cli/audit.ts`, on this module's pure
 * domain/ and sources.ts. Nothing else depends on the module: the write path is untouched, and the checkpoints reach
 * other consumers as events of the stream `audit-checkpoints`.
 */
import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { SubjectKeyStore } from '../../platform/privacy/subject-keys';
import { AuditController } from './audit.controller';
import { GrantAuditorHandler, RevokeAuditorHandler } from './audit.commands';
import { AuditAccess, GetLatestCheckpointHandler, ListAuditorsHandler, ListStreamEventsHandler } from './audit.queries';
import { auditNodeKey, AuditCheckpointer } from './checkpointer';
import { GetConsistencyProofHandler, GetInclusionProofHandler, MerkleTreeReader } from './audit.proofs';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [AuditController],
  providers: [AuditAccess, AuditCheckpointer, MerkleTreeReader, GetInclusionProofHandler, GetConsistencyProofHandler, GetLatestCheckpointHandler, ListStreamEventsHandler, ListAuditorsHandler, GrantAuditorHandler, RevokeAuditorHandler],
  exports: [AuditCheckpointer],
})
export class AuditModule implements OnModuleInit {
  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly keys: SubjectKeyStore,
  ) {}

  /** Before the checkpointer starts: a node signing with a key the others do not trust would stop theirs, and they its. */
  async onModuleInit(): Promise<void> {
    if (this.config.auditCheckpoints) await this.keys.assertKeyAmongNodes(auditNodeKey(this.config));
  }
}
