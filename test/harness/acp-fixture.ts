import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { AcpTestAgent } from './acp-client';
import { http, startTestStack, type TestStack } from './stack-fixture';

/**
 * The shared setup of the ACP e2e files: one real stack per file with the scripted provider's test
 * scripts (chosen per session through the `model` config option), a project folder, and `strand acp`
 * processes that are checked after each test for schema violations and killed at the end.
 */
const SLOW_WORDS = Array.from({ length: 60 }, (_, i) => `w${i} `);
export const SLOW_TEXT = `${SLOW_WORDS.join('')}the end.`;

const SCRIPTS: Record<string, unknown[]> = {
  'acp-edit': [
    [{ type: 'thinking', text: 'The note says world.' }, { type: 'text', text: 'I will edit the note.' }, { type: 'tool_call', name: 'edit_file', args: { path: 'notes.txt', old: 'world', new: 'strand' } }],
    [{ type: 'text', text: 'Done: {{tool_result_first_line}}' }],
  ],
  'acp-delete': [[{ type: 'tool_call', name: 'delete_file', args: { path: 'keep.txt' } }], [{ type: 'text', text: 'Understood, I left it.' }]],
  'acp-shell': [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo from-the-shell' } }], [{ type: 'text', text: 'It printed {{tool_result_first_line}}' }]],
  'acp-slow': [SLOW_WORDS.flatMap((w) => [{ type: 'text', text: [w] }, { type: 'delay', ms: 100 }]).concat([{ type: 'text', text: ['the end.'] }])],
};

export interface AcpStack {
  readonly stack: TestStack;
  readonly workspace: string;
  /** A new `strand acp` process, initialized unless told not to. */
  agent(extraEnv?: NodeJS.ProcessEnv, initialize?: boolean): Promise<AcpTestAgent>;
  /** A session in the workspace on the named test script. */
  newSession(agent: AcpTestAgent, script?: string): Promise<acp.NewSessionResponse>;
  /** GET on the gateway's HTTP API. */
  get(route: string): Promise<any>;
  /** Resolves when the session has no running turn. */
  idle(sessionId: string): Promise<void>;
}

export function useAcpStack(name: string): AcpStack {
  jest.setTimeout(90_000);
  const scripts = fs.mkdtempSync(path.join(os.tmpdir(), `strand-${name}-scripts-`));
  const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `strand-${name}-project-`)));
  const agents: AcpTestAgent[] = [];
  let stack: TestStack | undefined;

  beforeAll(async () => {
    for (const [script, steps] of Object.entries(SCRIPTS)) fs.writeFileSync(path.join(scripts, `${script}.json`), JSON.stringify({ steps }));
    stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts, STRAND_SCRIPTED_DELTA_DELAY_MS: '5' });
  }, 180_000);

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.kill()));
    await stack?.teardown();
    fs.rmSync(scripts, { recursive: true, force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  }, 60_000);

  afterEach(() => {
    for (const a of agents) expect(a.violations).toEqual([]);
  });

  const running = () => {
    if (!stack) throw new Error('the stack is not started');
    return stack;
  };
  const get = async (route: string) => {
    const res = await http(running().urls.gateway, 'GET', route);
    if (res.status !== 200) throw new Error(`GET ${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return {
    get stack() {
      return running();
    },
    workspace,
    async agent(extraEnv = {}, initialize = true) {
      const a = new AcpTestAgent(AcpTestAgent.env(running().urls, { STRAND_DEFAULT_MODEL: 'scripted/echo', ...extraEnv }));
      agents.push(a);
      if (initialize) await a.initialize();
      return a;
    },
    async newSession(agent, script) {
      const created = await agent.agent.request('session/new', { cwd: workspace, mcpServers: [] });
      if (script) await agent.agent.request('session/set_config_option', { sessionId: created.sessionId, configId: 'model', value: `scripted/${script}` });
      return created;
    },
    get,
    async idle(sessionId) {
      const deadline = Date.now() + 30_000;
      while ((await get(`/api/sessions/${sessionId}`)).active_turn) {
        if (Date.now() > deadline) throw new Error(`session ${sessionId} still runs a turn`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** The text of the chunks of one kind, joined. */
export function chunkText(updates: acp.SessionUpdate[], kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk'): string {
  return updates.map((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? u.content.text : '')).join('');
}
