/**
 * An intent as the API shows it (GET /api/v1/ai-wallets/intents/{intent_uuid}, the binding's intent list) and as its
 * topic (`<prefix>.projections.ai-wallet-intents`) carries it: the record the read model keeps, unchanged. Every field
 * of an intent is `internal` (src/modules/ai-wallets/domain/privacy.ts: the purpose, destination and rationale are
 * the agent's, not a person's words), and none depends on who asks or when.
 */
import type { AiWalletIntent } from '../../src/modules/ai-wallets/domain/binding';

/** The intent of a row's `record` column. */
export const intentRecord = (row: { record: string }): AiWalletIntent => JSON.parse(row.record) as AiWalletIntent;
