/**
 * The commerce commands: merchants and their reviews, products, invoices with their payments, wallets, settlement
 * intents, the rail's and the treasury's reports, and the expiry sweep. Each loads what it decides on from the
 * streams (never from a read model that may lag) except where lagging is safe (a merchant's settled total only grows),
 * decides with the module's pure deciders and appends through CommandExecutor. A step-up token is checked before and
 * spent only when the decision appends (CommandExecutor's OneUseSpend): a 400, 403, 404, 409 or 422 never costs it.
 */
export * from './merchants';
export * from './invoices';
export * from './wallets';
export * from './settlements';
export * from './expiry-sweep';
export * from './transfers';
