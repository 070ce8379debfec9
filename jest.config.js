// Jest runs TypeScript through SWC (no type checking here: `tsc --noEmit` does that in `npm test`).
// Two projects: `unit` (pure logic and single-process tests beside the code) and `integration`
// (tests under test/ that start real processes; `npm test` runs two files at a time: infra/run-tests.ts says why).
// The ACP SDK ships ES modules only, which Jest's CommonJS runtime cannot load: SWC compiles it too.
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
  '/node_modules/@agentclientprotocol/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
const common = { transform, transformIgnorePatterns: ['/node_modules/(?!@agentclientprotocol/)'], testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{contracts,clients,workflows,activities,services,infra,bench}/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      // Jest's 5 s default is a trap for tests that drive real servers: on a busy machine three
      // workflow tests that take 3-4 s on a quiet one ran out of it. A test's own timeout still wins.
      testTimeout: 60_000,
    },
  ],
};
