/** Jest: every suite under test/ (unit, contract, integration, e2e), TypeScript through SWC with decorator metadata for Nest. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  transform: {
    '^.+\\.(ts|js)$': [
      '@swc/jest',
      {
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  // content-disposition 3 (under @fastify/static, which serves Swagger UI) ships only ESM; Node 20 requires it
  // natively but Jest's module system does not, so SWC compiles it to CommonJS for the tests.
  transformIgnorePatterns: ['/node_modules/(?!content-disposition/)'],
  reporters: ['default', '<rootDir>/test/infra/summary-reporter.js'],
  maxWorkers: 2,
  testTimeout: 30000,
};
