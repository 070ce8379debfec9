import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AcpTestAgent } from '../harness/acp-client';
import { chunkText } from '../harness/acp-fixture';
import { startFakeOpenAIServer, type FakeOpenAIReply } from '../harness/fake-openai-server';
import type { FakeProviderServer } from '../harness/fake-anthropic-server';
import { startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * `strand acp` as an editor starts it: without the stack's provider variables or a default model in
 * its own environment. It takes the stack's default model and model list from the gateway (`GET
 * /api/models`) — here a local OpenAI-compatible server's models — instead of silently using
 * `scripted/echo`; STRAND_DEFAULT_MODEL in its environment still wins; a stack it cannot reach is
 * said on stderr and the session is refused.
 */
jest.setTimeout(120_000);

let stack: TestStack;
let local: FakeProviderServer<FakeOpenAIReply>;
const agents: AcpTestAgent[] = [];
const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-acp-defaults-')));

beforeAll(async () => {
  local = await startFakeOpenAIServer({ models: ['llama3.2:3b', 'qwen2.5-coder:7b'], respond: () => ({ content: 'hello from the local model' }) });
  stack = await startTestStack({ OPENAI_BASE_URL: local.baseURL, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', STRAND_DEFAULT_MODEL: 'openai/llama3.2:3b' });
}, 180_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.kill()));
  await stack?.teardown();
  await local?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

/** An agent whose own environment names no provider and no default model, as an editor's does. */
async function editorAgent(extra: NodeJS.ProcessEnv = {}): Promise<AcpTestAgent> {
  const a = new AcpTestAgent(AcpTestAgent.env(stack.urls, { OPENAI_BASE_URL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '', STRAND_DEFAULT_MODEL: '', ...extra }));
  agents.push(a);
  await a.initialize();
  return a;
}

test("a new session gets the stack's default model, the picker offers the local server's models, and a turn runs on it", async () => {
  const a = await editorAgent();
  const created = await a.agent.request('session/new', { cwd: workspace, mcpServers: [] });
  const model = created.configOptions!.find((o) => o.id === 'model')! as { currentValue: string; options: Array<{ value: string }> };
  expect(model.currentValue).toBe('openai/llama3.2:3b');
  const offered = model.options.map((o) => o.value);
  expect(offered.filter((v) => v.startsWith('openai/'))).toEqual(['openai/llama3.2:3b', 'openai/qwen2.5-coder:7b']);
  // A model of the stack's provider is accepted though this process has no OpenAI settings.
  const switched = await a.agent.request('session/set_config_option', { sessionId: created.sessionId, configId: 'model', value: 'openai/qwen2.5-coder:7b' });
  expect(switched.configOptions.find((o) => o.id === 'model')).toMatchObject({ currentValue: 'openai/qwen2.5-coder:7b' });
  expect(await a.agent.request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'hi' }] })).toEqual({ stopReason: 'end_turn' });
  expect(chunkText(a.updates(created.sessionId), 'agent_message_chunk')).toContain('hello from the local model');
  expect(local.requests.some((r) => r.path.startsWith('/v1/chat/completions') && r.body?.model === 'qwen2.5-coder:7b')).toBe(true);
  expect(a.stderr).toBe('');
});

test('STRAND_DEFAULT_MODEL in the agent\'s environment still wins', async () => {
  const a = await editorAgent({ STRAND_DEFAULT_MODEL: 'scripted/echo' });
  const created = await a.agent.request('session/new', { cwd: workspace, mcpServers: [] });
  expect(created.configOptions!.find((o) => o.id === 'model')).toMatchObject({ currentValue: 'scripted/echo' });
});

test('a gateway that cannot be reached: said on stderr, and the session is refused (no echo session)', async () => {
  const gone = await startFakeOpenAIServer();
  await gone.close(); // a loopback port nothing listens on
  const a = await editorAgent({ STRAND_URL: gone.url });
  await expect(a.agent.request('session/new', { cwd: workspace, mcpServers: [] })).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/not reachable: the gateway at .* did not answer/) });
  await a.until(() => /not reachable/.test(a.stderr), 10_000, 'the reason on stderr');
  expect(a.stderr).toContain(gone.url);
});
