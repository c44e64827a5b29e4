/** AI-agent wallets: bindings, policies, budgets, intents, approvals, execution mode and activity. */
import { Module } from '@nestjs/common';
import { WORKLOAD_PRINCIPAL_RESOLVER } from '../../platform/auth/principal';
import { AiWalletsController, WorkloadTokenController } from './ai-wallets.controller';
import {
  ChangeBindingStateHandler, ChangeExecutionModeHandler, CreateBindingHandler, CreateIntentHandler, EvaluateIntentHandler, ExpireIntentHandler, IntentExpirySweep,
  IssueWorkloadTokenHandler, PublishPolicyHandler, ReviewApprovalHandler, SettleIntentHandler, WorkloadPrincipalResolver,
} from './commands';
import {
  GetBindingHandler, GetBudgetHandler, GetIntentHandler, GetPolicyHandler, ListActivityHandler, ListApprovalsHandler, ListBindingsHandler, ListIntentsHandler, VerifyActivityHandler,
} from './queries';
import { WalletAccess } from './wallet-access';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [AiWalletsController, WorkloadTokenController],
  providers: [
    WalletAccess,
    WorkloadPrincipalResolver,
    { provide: WORKLOAD_PRINCIPAL_RESOLVER, useExisting: WorkloadPrincipalResolver },
    IntentExpirySweep,
    CreateBindingHandler, PublishPolicyHandler, ChangeBindingStateHandler, ChangeExecutionModeHandler, IssueWorkloadTokenHandler,
    EvaluateIntentHandler, CreateIntentHandler, ReviewApprovalHandler, SettleIntentHandler, ExpireIntentHandler,
    GetBindingHandler, ListBindingsHandler, GetPolicyHandler, GetBudgetHandler, GetIntentHandler, ListIntentsHandler, ListApprovalsHandler, ListActivityHandler, VerifyActivityHandler,
  ],
  exports: [WORKLOAD_PRINCIPAL_RESOLVER, IntentExpirySweep],
})
export class AiWalletsModule {}
