/**
 * The dependency rules of docs/architecture.md ("Dependencies"), checked by test/integration/dependency-rules.spec.ts
 * on every run (dependency-cruiser, pinned). A violation's message says which rule and how to fix it.
 */
const MODULE_OF_PROJECTION = {
  identity: 'identity-',
  trading: 'trading-',
  'ai-wallets': 'ai-wallet-',
  'agentic-memory': 'agentic-memory-',
  commerce: 'commerce-',
  billing: 'billing-',
  news: 'news-',
  'asset-collections': 'asset-collections',
  arena: 'arena-',
  notifications: 'notification-',
  audit: 'audit-',
};

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Two files import each other (directly or through others), so neither can be read or changed alone. Move what both need to one side (usually the domain or the read model) and import it from there.',
      from: { path: '^(src|projections)/' },
      to: { circular: true },
    },
    {
      name: 'platform-imports-no-module',
      severity: 'error',
      comment: 'src/platform is what every module stands on: it imports no module and no read model. Give the platform a port (an interface or a registration) and let the module implement or register it.',
      from: { path: '^src/platform/' },
      to: { path: '^(src/modules|projections)/' },
    },
    {
      name: 'module-imports-only-published-event-types-of-others',
      severity: 'error',
      comment: "A module reaches another module through its events or its query interface (the QueryBus), never its code: import only the other module's domain event types (src/modules/<other>/domain/) or its query classes (src/modules/<other>/queries/) to send with the QueryBus.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/(domain|queries)/'] },
    },
    ...Object.entries(MODULE_OF_PROJECTION).map(([module, prefix]) => ({
      name: `${module}-imports-only-its-own-read-models`,
      severity: 'error',
      comment: `The ${module} module's queries read its own read models (projections/${prefix}*); another module's rows are that module's to answer for: send it a query.`,
      from: { path: `^src/modules/${module}/` },
      to: { path: '^projections/', pathNot: `^projections/${prefix}` },
    })),
    {
      name: 'notifications-imports-no-other-module',
      severity: 'error',
      comment: "The notifications module composes the rules other modules register with it (each module owns the notification rules of its own events) and imports no other module, not even its event types. Move the rule into the module whose event it reads.",
      from: { path: '^(src/modules/notifications|projections/notification-)' },
      to: { path: '^src/modules/(?!notifications/)' },
    },
    {
      name: 'modules-reach-notifications-through-its-rule-port',
      severity: 'error',
      comment: "A module tells the inbox about its events by registering NotificationRules (src/modules/notifications/domain/rule-port.ts, listed in src/notification-rules.ts); the rest of the notifications module is its own. Import the port, not the inbox's records or projector.",
      from: { path: '^src/modules/(?!notifications/)' },
      to: { path: '^src/modules/notifications/', pathNot: '^src/modules/notifications/domain/rule-port\\.ts$' },
    },
    {
      name: 'sqlite-through-the-driver',
      severity: 'error',
      comment: "Open SQLite with SqliteDatabase (src/platform/sqlite-driver.ts), which loads the better-sqlite3 major that is safe on the running Node.js; import better-sqlite3 itself for its types only (import type).",
      from: { path: '^(src|projections)/', pathNot: '^src/platform/sqlite-driver\\.ts$' },
      to: { path: '^(node_modules/)?better-sqlite3(-13)?(/|$)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'audit-reads-no-read-model',
      severity: 'error',
      comment: 'The audit module reads the log itself and its own stream; the one read model it may import is its own Merkle tree over the log (projections/audit-merkle).',
      from: { path: '^src/modules/audit/' },
      to: { path: '^projections/', pathNot: '^projections/audit-' },
    },
    ...Object.entries(MODULE_OF_PROJECTION).map(([module, prefix]) => ({
      name: `projections-of-${module}-import-their-module-domain-and-the-platform`,
      severity: 'error',
      comment: `A read model of ${module} (projections/${prefix}*) imports its module's domain (event types, pure helpers) and the platform, nothing else of a module: the module's queries use the read model, not the other way round.`,
      from: { path: `^projections/${prefix}` },
      to: { path: '^src/modules/', pathNot: `^src/modules/${module}/domain/` },
    })),
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // node_modules is not excluded, only not followed: the imports of packages stay visible (sqlite-through-the-driver).
    exclude: { path: '^(test|dist)/' },
  },
};
