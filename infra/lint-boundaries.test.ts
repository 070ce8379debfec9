import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The import rules (docs/architecture.md) are enforced by eslint.config.mjs; these cases prove each boundary
 * fires (and that allowed imports pass), so a config edit cannot silently switch one off.
 */
const root = path.resolve(__dirname, '..');

const cases: [string, string, string, boolean][] = [
  ['gateway → workflows', 'services/gateway/x.ts', "import { sessionWorkflow } from '../../workflows';\nexport const a = sessionWorkflow;", true],
  ['gateway → activities', 'services/gateway/http/x.ts', "import { createActivities } from '../../../activities';\nexport const a = createActivities;", true],
  ['gateway → store internals', 'services/gateway/x.ts', "import * as s from '../session-store/main';\nexport const a = s;", true],
  ['gateway → store contracts (allowed)', 'services/gateway/x.ts', "import { StoreClient } from '../../contracts/session-store/client';\nexport const a = StoreClient;", false],
  ['gateway ACP → EDN', 'services/gateway/acp/x.ts', "import { modelList } from '../edn/session/models';\nexport const a = modelList;", true],
  ['gateway EDN → ACP', 'services/gateway/edn/session/x.ts', "import { ACP_COMMANDS } from '../../acp/commands';\nexport const a = ACP_COMMANDS;", true],
  ['gateway ACP → workflows (still refused)', 'services/gateway/acp/x.ts', "import { sessionWorkflow } from '../../../workflows';\nexport const a = sessionWorkflow;", true],
  ['gateway ACP → session layer (allowed)', 'services/gateway/acp/x.ts', "import { availableModels } from '../sessions/model-list';\nexport const a = availableModels;", false],
  ['strand acp → rpc-edn stack', 'services/cli/acp.ts', "import { ednStackReady } from './rpc-edn-stack';\nexport const a = ednStackReady;", true],
  ['worker → store internals', 'services/worker/x.ts', "import * as s from '../../services/session-store/main';\nexport const a = s;", true],
  ['workflows → activities (value)', 'workflows/session/x.ts', "import { createActivities } from '../../activities';\nexport const a = createActivities;", true],
  ['workflows → activities (type, allowed)', 'workflows/session/x.ts', "import type { Activities } from '../../activities';\nexport type A = Activities;", false],
  ['workflows → node fs', 'workflows/x.ts', "import fs from 'fs';\nexport const a = fs;", true],
  ['workflows → nats', 'workflows/x.ts', "import { connect } from 'nats';\nexport const a = connect;", true],
  ['activities → workflows', 'activities/x.ts', "import { turnWorkflow } from '../workflows/turn/turn-workflow';\nexport const a = turnWorkflow;", true],
  ['contracts → services', 'contracts/x.ts', "import { runtimeEnv } from '../services/common/env';\nexport const a = runtimeEnv;", true],
  ['terminal chat → gateway', 'clients/terminal/x.ts', "import { TurnStream } from '../../services/gateway/events/turn-stream';\nexport const a = TurnStream;", true],
  ['terminal chat (tui) → gateway', 'clients/terminal/tui/x.tsx', "import { TurnStream } from '../../../services/gateway/events/turn-stream';\nexport const a = TurnStream;", true],
  ['terminal chat → stack runner', 'clients/terminal/x.ts', "import { stackConfigFromEnv } from '../../infra/stack/stack-config';\nexport const a = stackConfigFromEnv;", true],
  ['page → gateway', 'clients/web/src/x.ts', "import { TurnStream } from '../../../services/gateway/events/turn-stream';\nexport const a = TurnStream;", true],
  ['page → workflows', 'clients/web/src/x.ts', "import { sessionWorkflow } from '../../../workflows';\nexport const a = sessionWorkflow;", true],
  ['terminal chat → contracts (allowed)', 'clients/terminal/x.ts', "import { StepTexts } from '../../contracts/step-text';\nexport const a = StepTexts;", false],
  ['page → terminal chat (allowed)', 'clients/web/src/x.ts', "import { ChatView } from '../../terminal/chat-view';\nexport const a = ChatView;", false],
  ['client core → zod', 'clients/core/x.ts', "import { z } from 'zod';\nexport const a = z;", true],
  ['client core → services', 'clients/core/x.ts', "import { runtimeEnv } from '../../services/common/env';\nexport const a = runtimeEnv;", true],
  ['client core → terminal chat', 'clients/core/x.ts', "import { ChatView } from '../terminal/chat-view';\nexport const a = ChatView;", true],
  ['client core → page', 'clients/core/x.ts', "import { tokenStore } from '../web/src/token';\nexport const a = tokenStore;", true],
  ['client core → contracts (allowed)', 'clients/core/x.ts', "import { type HttpEventData } from '../../contracts/http-events';\nexport type A = HttpEventData;", false],
];

let results: string[][] = [];

beforeAll(() => {
  const res = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'infra/test-support/lint-probe.ts')], {
    cwd: root,
    input: JSON.stringify(cases.map(([, file, code]) => ({ file, code }))),
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`lint probe failed: ${res.stderr}`);
  results = JSON.parse(res.stdout) as string[][];
}, 60_000);

describe('import boundaries (docs/architecture.md)', () => {
  test.each(cases.map((c, i) => [...c, i] as const))('%s', (_name, _file, _code, shouldFail, i) => {
    const messages = results[i] ?? [];
    if (shouldFail) expect(messages.length).toBeGreaterThan(0);
    else expect(messages).toEqual([]);
  });
});
