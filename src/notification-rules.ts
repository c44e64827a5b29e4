/**
 * Every module's notification rules, registered with the notification inbox (the port:
 * src/modules/notifications/domain/rule-port.ts). A module that notifies writes its rules in its own folder and adds
 * them here; the notifications module composes them and imports no module.
 */
import type { NotificationRules } from './modules/notifications/domain/rule-port';
import { agenticMemoryNotificationRules } from './modules/agentic-memory/domain/notification-rules';
import { aiWalletNotificationRules } from './modules/ai-wallets/domain/notification-rules';
import { billingNotificationRules } from './modules/billing/domain/notification-rules';
import { commerceNotificationRules } from './modules/commerce/domain/notification-rules';
import { identityNotificationRules } from './modules/identity/domain/notification-rules';
import { newsNotificationRules } from './modules/news/domain/notification-rules';
import { tradingNotificationRules } from './modules/trading/domain/notification-rules';

export const NOTIFICATION_RULES: readonly NotificationRules[] = [identityNotificationRules, tradingNotificationRules, aiWalletNotificationRules, agenticMemoryNotificationRules, commerceNotificationRules, billingNotificationRules, newsNotificationRules];
