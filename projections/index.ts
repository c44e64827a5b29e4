/**
 * Every read model of the platform: its entities, migrations and projector. Each lives in its own folder,
 * `projections/<read-model>/`; the runner in src/platform/projections runs them all.
 */
import type { ReadModelDefinition } from '../src/platform/read-model/read-model.definition';
import { agenticMemoryCollectionsReadModel } from './agentic-memory-collections/agentic-memory-collections.read-model';
import { agenticMemoryRequestsReadModel } from './agentic-memory-requests/agentic-memory-requests.read-model';
import { aiWalletActivityReadModel } from './ai-wallet-activity/ai-wallet-activity.read-model';
import { aiWalletBindingsReadModel } from './ai-wallet-bindings/ai-wallet-bindings.read-model';
import { aiWalletBudgetsReadModel } from './ai-wallet-budgets/ai-wallet-budgets.read-model';
import { aiWalletIntentsReadModel } from './ai-wallet-intents/ai-wallet-intents.read-model';
import { arenaSeasonsReadModel } from './arena-seasons/arena-seasons.read-model';
import { auditMerkleReadModel } from './audit-merkle/audit-merkle.read-model';
import { assetCollectionsReadModel } from './asset-collections/asset-collections.read-model';
import { billingAccountsReadModel } from './billing-accounts/billing-accounts.read-model';
import { billingProductsReadModel } from './billing-products/billing-products.read-model';
import { commerceInvoicesReadModel } from './commerce-invoices/commerce-invoices.read-model';
import { commerceMerchantsReadModel } from './commerce-merchants/commerce-merchants.read-model';
import { commerceProductsReadModel } from './commerce-products/commerce-products.read-model';
import { commerceSettlementsReadModel } from './commerce-settlements/commerce-settlements.read-model';
import { commerceTransfersReadModel } from './commerce-transfers/commerce-transfers.read-model';
import { commerceWalletsReadModel } from './commerce-wallets/commerce-wallets.read-model';
import { identityAccountsReadModel } from './identity-accounts/identity-accounts.read-model';
import { identityAuthEventsReadModel } from './identity-auth-events/identity-auth-events.read-model';
import { identitySessionsReadModel } from './identity-sessions/identity-sessions.read-model';
import { identityTenancyReadModel } from './identity-tenancy/identity-tenancy.read-model';
import { newsArticlesReadModel } from './news-articles/news-articles.read-model';
import { notificationInboxReadModel } from './notification-inbox/notification-inbox.read-model';
import { NOTIFICATION_RULES } from '../src/notification-rules';
import { tradingMarketsReadModel } from './trading-markets/trading-markets.read-model';
import { tradingOrdersReadModel } from './trading-orders/trading-orders.read-model';
import { tradingPriceFeedsReadModel } from './trading-price-feeds/trading-price-feeds.read-model';
import { tradingPositionsReadModel } from './trading-positions/trading-positions.read-model';
import { tradingTradesReadModel } from './trading-trades/trading-trades.read-model';

export const READ_MODELS: ReadModelDefinition[] = [
  identityAccountsReadModel,
  identitySessionsReadModel,
  identityAuthEventsReadModel,
  identityTenancyReadModel,
  tradingMarketsReadModel,
  tradingOrdersReadModel,
  tradingTradesReadModel,
  tradingPositionsReadModel,
  tradingPriceFeedsReadModel,
  aiWalletBindingsReadModel,
  aiWalletIntentsReadModel,
  aiWalletBudgetsReadModel,
  aiWalletActivityReadModel,
  agenticMemoryCollectionsReadModel,
  agenticMemoryRequestsReadModel,
  commerceMerchantsReadModel,
  commerceProductsReadModel,
  commerceInvoicesReadModel,
  commerceWalletsReadModel,
  commerceSettlementsReadModel,
  commerceTransfersReadModel,
  billingProductsReadModel,
  billingAccountsReadModel,
  newsArticlesReadModel,
  assetCollectionsReadModel,
  arenaSeasonsReadModel,
  notificationInboxReadModel(NOTIFICATION_RULES),
  auditMerkleReadModel,
];
