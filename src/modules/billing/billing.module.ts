/** Billing: credit accounts and pools, products, subscriptions, top-ups, adjustments, usage rated from the log (docs/billing.md). */
import { Module } from '@nestjs/common';
import { BillingAccess } from './billing-access';
import { BillingController } from './billing.controller';
import { BillingJobs } from './billing-jobs';
import {
  AdjustCreditsHandler, CancelSubscriptionHandler, DefineBillingProductHandler, ReportTopupPaymentHandler, RequestTopupHandler, RetireBillingProductHandler, StartSubscriptionHandler,
} from './commands';
import { BillingCreditsAnswerer } from './credits-answerer';
import {
  GetBillingAccountHandler, GetBillingAdjustmentHandler, GetBillingCatalogHandler, GetBillingProductHandler, GetBillingSubscriptionHandler, GetBillingTopupHandler, GetBillingUsageHandler,
  ListBillingAdjustmentsHandler, ListBillingSubscriptionsHandler, ListBillingTopupsHandler,
} from './queries';
import { BILLING_PAYMENT_RAIL, SimulatedBillingRail } from './rail';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [BillingController],
  providers: [
    BillingAccess,
    BillingJobs,
    BillingCreditsAnswerer,
    SimulatedBillingRail,
    { provide: BILLING_PAYMENT_RAIL, useExisting: SimulatedBillingRail },
    DefineBillingProductHandler, RetireBillingProductHandler, StartSubscriptionHandler, CancelSubscriptionHandler, RequestTopupHandler, ReportTopupPaymentHandler, AdjustCreditsHandler,
    GetBillingAccountHandler, GetBillingUsageHandler, GetBillingCatalogHandler, GetBillingProductHandler, ListBillingSubscriptionsHandler, GetBillingSubscriptionHandler, GetBillingTopupHandler,
    ListBillingTopupsHandler, GetBillingAdjustmentHandler, ListBillingAdjustmentsHandler,
  ],
  exports: [BillingJobs],
})
export class BillingModule {}
