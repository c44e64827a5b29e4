/** Jest: every suite under test/ (unit, contract, integration, e2e), TypeScript through ts-jest (transpile only). */
const transpileOnly = (tsconfig) => ['ts-jest', { tsconfig, diagnostics: false }];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': transpileOnly({ isolatedModules: true, module: 'commonjs', target: 'es2022', experimentalDecorators: true, emitDecoratorMetadata: true, esModuleInterop: true, resolveJsonModule: true }),
    // content-disposition 3 (under @fastify/static, which serves Swagger UI) and otplib 13's @noble/hashes and
    // @scure/base ship only ESM; Node 20.19+ requires them natively but Jest's module system does not, so they are
    // compiled to CommonJS for the tests.
    '^.+\\.js$': transpileOnly({ isolatedModules: true, allowJs: true, module: 'commonjs', target: 'es2022' }),
  },
  transformIgnorePatterns: ['/node_modules/(?!(content-disposition|@noble/hashes|@scure/base)/)'],
  // A real Kafka broker for the Kafka suites (test/infra/kafka): started unless KAFKA_BROKERS names one, stopped after.
  globalSetup: '<rootDir>/test/infra/global-setup.js',
  globalTeardown: '<rootDir>/test/infra/kafka/global-teardown.js',
  reporters: ['default', '<rootDir>/test/infra/summary-reporter.js'],
  maxWorkers: 2,
  testTimeout: 30000,
};
