/** Commerce: merchants, products, invoices, payments, watch-only wallets and settlement intents (docs/commerce.md). */
import { Module } from '@nestjs/common';
import { CommerceController } from './commerce.controller';
import { CommerceAccess } from './commerce-access';
import {
  ApplyPaymentRailUpdateHandler, ApplyTreasuryUpdateHandler, CancelInvoiceHandler, CancelPaymentHandler, CancelSettlementHandler, ChangeProductHandler, ChangeWalletHandler,
  CommerceExpirySweep, CreateInvoiceHandler, CreateMerchantHandler, CreatePaymentHandler, CreateProductHandler, RegisterWalletHandler, RequestSettlementHandler, ReviewMerchantHandler,
} from './commands';
import {
  GetInvoiceHandler, GetMerchantHandler, GetPaymentHandler, GetProductHandler, GetSettlementIntentHandler, GetWalletHandler, ListInvoicesHandler, ListMerchantsHandler,
  ListPaymentsHandler, ListProductsHandler, ListSettlementIntentsHandler, ListWalletsHandler,
} from './queries';
import { PAYMENT_RAIL, SimulatedPaymentRail } from './rail';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';

@Module({
  controllers: [CommerceController],
  providers: [
    CommerceAccess,
    SimulatedPaymentRail,
    { provide: PAYMENT_RAIL, useExisting: SimulatedPaymentRail },
    CommerceExpirySweep,
    CreateMerchantHandler, ReviewMerchantHandler, CreateProductHandler, ChangeProductHandler, CreateInvoiceHandler, CancelInvoiceHandler, CreatePaymentHandler, CancelPaymentHandler,
    ApplyPaymentRailUpdateHandler, RegisterWalletHandler, ChangeWalletHandler, RequestSettlementHandler, CancelSettlementHandler, ApplyTreasuryUpdateHandler,
    GetMerchantHandler, ListMerchantsHandler, GetProductHandler, ListProductsHandler, GetInvoiceHandler, ListInvoicesHandler, GetPaymentHandler, ListPaymentsHandler,
    GetWalletHandler, ListWalletsHandler, GetSettlementIntentHandler, ListSettlementIntentsHandler,
  ],
  exports: [CommerceExpirySweep],
})
export class CommerceModule {}
