/**
 * Jest runs the TypeScript sources through ts-jest; got (ESM only) loads through Jest's require(esm) on Node 24.
 * Two workers: the engine suites spend much of their time waiting on the engine's processes, so two of them side by
 * side on two cores take far less than one after the other (Jest's default on two cores is one worker). Each suite
 * has its own emulator, backend and PULUMI_HOME (test/e2e/harness.ts), so they cannot see each other.
 */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/src'],
  testMatch: ['**/*.test.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  testSequencer: '<rootDir>/scripts/jest-sequencer.cjs',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
};
