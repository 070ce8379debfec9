import { startFakeOpenAIServer } from '../../test/harness/fake-openai-server';
import { startModelsGateway } from '../../test/harness/models-gateway';
import { ChatController } from './chat-controller';
import { runSlashCommand } from './slash-actions';

/**
 * `/model` without a name offers what the stack can run (GET /api/models), so a person whose
 * OPENAI_BASE_URL is a local server picks among that server's models, not OpenAI's hosted ones.
 * A real gateway HTTP app and a local server answering `/v1/models`.
 */
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function chatAgainst(env: NodeJS.ProcessEnv): Promise<ChatController> {
  const gateway = await startModelsGateway(env);
  closers.push(() => gateway.close());
  const chat = new ChatController({ url: gateway.url }, '/tmp/strand-model-picker');
  chat.sessionId = 'picker-session'; // the picker itself reads no session
  return chat;
}

test("a local server's models are the choices, with the catalog's names where it has them", async () => {
  const local = await startFakeOpenAIServer({ models: ['llama3.2:3b', 'qwen2.5-coder:7b'] });
  closers.push(() => local.close());
  const chat = await chatAgainst({ OPENAI_BASE_URL: local.baseURL, STRAND_DEFAULT_MODEL: 'openai/llama3.2:3b' });
  await runSlashCommand(chat, { name: 'model' });
  const values = chat.picker!.items.map((i) => i.value);
  expect(values.filter((v) => v.startsWith('openai/'))).toEqual(['openai/llama3.2:3b', 'openai/qwen2.5-coder:7b']);
  expect(values.some((v) => v.startsWith('openai/gpt-'))).toBe(false);
  expect(values).toContain('scripted/echo');
});

test('a local server that does not answer: the default is offered, and the chat says why', async () => {
  const gone = await startFakeOpenAIServer();
  await gone.close();
  const chat = await chatAgainst({ OPENAI_BASE_URL: gone.baseURL, STRAND_DEFAULT_MODEL: 'openai/llama3.2:3b' });
  await runSlashCommand(chat, { name: 'model' });
  expect(chat.picker!.items.map((i) => i.value).filter((v) => v.startsWith('openai/'))).toEqual(['openai/llama3.2:3b']);
  const notices = chat.view.blocks.filter((b) => b.kind === 'notice').map((b) => (b as { text: string }).text);
  expect(notices.join('\n')).toMatch(/did not answer/);
});
