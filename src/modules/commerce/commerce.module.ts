/** Commerce: merchants, products, invoices, payments, watch-only wallets, settlement intents (docs/commerce.md) and transfers (docs/transfers.md). */
import { Module } from '@nestjs/common';
import { CommerceController } from './commerce.controller';
import { RecipientKeysController, TransfersController } from './transfers.controller';
import { CommerceAccess } from './commerce-access';
import {
  ApplyPaymentRailUpdateHandler, ApplyTreasuryUpdateHandler, CancelInvoiceHandler, CancelPaymentHandler, CancelSettlementHandler, ChangeProductHandler, ChangeWalletHandler,
  AuthorizeTransferEnvelopeHandler, BindTransferGovernanceHandler, CancelTransferForComplianceHandler, RegisterRecipientKeyHandler, ReportTransferHandler, RequestTransferHandler,
  RetireRecipientKeyHandler, CommerceExpirySweep, CreateInvoiceHandler, CreateMerchantHandler, CreatePaymentHandler, CreateProductHandler, RegisterWalletHandler, RequestSettlementHandler, ReviewMerchantHandler,
} from './commands';
import {
  GetInvoiceHandler, GetMerchantHandler, GetPaymentHandler, GetProductHandler, GetSettlementIntentHandler, GetWalletHandler, ListInvoicesHandler, ListMerchantsHandler,
  ListPaymentsHandler, ListProductsHandler, ListSettlementIntentsHandler, ListWalletsHandler,
} from './queries';
import { PAYMENT_RAIL, SimulatedPaymentRail, SimulatedTransferOversight, TRANSFER_OVERSIGHT } from './rail';
import { GetRecipientKeyHandler, GetTransferHandler, ListComplianceQueueHandler, ListRecipientKeysHandler, ListTransfersHandler } from './transfer-queries';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [CommerceController, TransfersController, RecipientKeysController],
  providers: [
    CommerceAccess,
    SimulatedPaymentRail,
    { provide: PAYMENT_RAIL, useExisting: SimulatedPaymentRail },
    SimulatedTransferOversight,
    { provide: TRANSFER_OVERSIGHT, useExisting: SimulatedTransferOversight },
    RequestTransferHandler, AuthorizeTransferEnvelopeHandler, BindTransferGovernanceHandler, CancelTransferForComplianceHandler, ReportTransferHandler, RegisterRecipientKeyHandler,
    RetireRecipientKeyHandler, GetTransferHandler, ListTransfersHandler, ListComplianceQueueHandler, GetRecipientKeyHandler, ListRecipientKeysHandler,
    CommerceExpirySweep,
    CreateMerchantHandler, ReviewMerchantHandler, CreateProductHandler, ChangeProductHandler, CreateInvoiceHandler, CancelInvoiceHandler, CreatePaymentHandler, CancelPaymentHandler,
    ApplyPaymentRailUpdateHandler, RegisterWalletHandler, ChangeWalletHandler, RequestSettlementHandler, CancelSettlementHandler, ApplyTreasuryUpdateHandler,
    GetMerchantHandler, ListMerchantsHandler, GetProductHandler, ListProductsHandler, GetInvoiceHandler, ListInvoicesHandler, GetPaymentHandler, ListPaymentsHandler,
    GetWalletHandler, ListWalletsHandler, GetSettlementIntentHandler, ListSettlementIntentsHandler,
  ],
  exports: [CommerceExpirySweep],
})
export class CommerceModule {}
