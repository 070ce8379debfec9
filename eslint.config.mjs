// Lint for all TypeScript, plus the import boundaries (docs/architecture.md). The boundaries are enforced
// with no-restricted-imports per folder so a violation names the rule it breaks.
// infra/lint-boundaries.test.ts proves each boundary fires.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Import patterns (gitignore-style) matching a folder itself and anything inside it. */
const dir = (...names) => names.flatMap((n) => [`**/${n}`, `**/${n}/**`]);

const boundary = (files, patterns) => ({
  files,
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
});

// Nothing outside the store service may reach into its internals (it is reached over NATS).
const storeInternals = {
  group: [...dir('services/session-store'), '../session-store', '../session-store/**'],
  message: 'services/session-store internals are private: talk to the store over NATS (contracts/session-store).',
};

// The gateway's own rule: it talks to Temporal and NATS only, and to the store over NATS.
const gatewayPatterns = [
  { group: dir('workflows', 'activities', 'services/worker', 'services/cli', 'worker', 'cli'), message: 'the gateway talks to Temporal and NATS only: never import workflows/ or activities/.' },
  storeInternals,
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', '.strand/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  // contracts/: pure schemas and helpers; depends on nothing else of ours.
  boundary(['contracts/**/*.ts'], [
    { group: dir('workflows', 'activities', 'services', 'infra', 'test', 'bench'), message: 'contracts/ depends on nothing else in strand.' },
  ]),
  // workflows/: deterministic; contracts, @temporalio/workflow, and activities as types only.
  boundary(['workflows/**/*.ts'], [
    {
      group: [...dir('services', 'infra'), 'nats', 'fs', 'node:*', 'child_process', '@temporalio/worker', '@temporalio/client', '@temporalio/activity'],
      message: 'workflows/ are deterministic: only contracts, @temporalio/workflow and activity types.',
    },
    { group: dir('activities'), allowTypeImports: true, message: 'workflows/ may import activities as types only.' },
  ]),
  // activities/: side effects; never imports workflows.
  boundary(['activities/**/*.ts'], [
    { group: dir('workflows', 'services'), message: 'activities/ never import workflows/ or services/.' },
  ]),
  // gateway: translates protocols; never imports workflows' code or activities.
  boundary(['services/gateway/**/*.ts'], gatewayPatterns),
  // ACP and EDN are two protocols over the gateway's session layer (sessions/, events/, mapping/): neither
  // reaches into the other. A later block replaces the rule's options, so each repeats the gateway's.
  boundary(['services/gateway/acp/**/*.ts'], [...gatewayPatterns, { group: dir('edn'), message: 'ACP does not import EDN: what both need lives in the session layer (sessions/, events/, mapping/).' }]),
  boundary(['services/gateway/edn/**/*.ts'], [...gatewayPatterns, { group: dir('acp'), message: 'EDN does not import ACP: what both need lives in the session layer (sessions/, events/, mapping/).' }]),
  boundary(['services/worker/**/*.ts', 'services/cli/**/*.ts', 'services/common/**/*.ts'], [storeInternals]),
  // `strand acp` and `strand rpc-edn` share the stack link (services/cli/stack-link.ts), not each other's code.
  boundary(['services/cli/acp.ts'], [storeInternals, { group: ['./rpc-edn*', ...dir('gateway/edn')], message: '`strand acp` does not import EDN: the stack comes from stack-link.ts.' }]),
  // The clients (the terminal chat, the page): the gateway and the stack runner are on the other side of HTTP.
  boundary(['clients/terminal/**/*.ts', 'clients/terminal/**/*.tsx', 'clients/web/**/*.ts', 'clients/web/**/*.tsx'], [
    { group: dir('services/gateway', 'infra', 'workflows', 'activities'), message: 'a client imports nothing of the gateway or the stack runner: shared rules live in contracts/ or clients/core.' },
  ]),
  // clients/core: what every client of strand shares; contracts only, and no schema library (the page's bundle).
  boundary(['clients/core/**/*.ts'], [
    {
      group: [...dir('workflows', 'activities', 'services', 'infra', 'clients/terminal', 'clients/web', 'test', 'bench'), '../terminal', '../terminal/**', '../web', '../web/**', 'zod'],
      message: 'clients/core depends on contracts (types) and small libraries only: no services, nothing of the terminal or the page, no zod.',
    },
  ]),
  // Tests read loosely-typed JSON replies; `any` there keeps assertions short.
  { files: ['test/**/*.ts', '**/*.test.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
