import { modelsReplySchema, type ModelsReply } from '../../../contracts/http-replies';
import { startFakeOpenAIServer } from '../../../test/harness/fake-openai-server';
import { startModelsGateway } from '../../../test/harness/models-gateway';

/**
 * `GET /api/models` over a real HTTP server, its SessionService built from the environment as the
 * gateway builds it (config.ts): hosted providers list the catalog, a local OpenAI-compatible server
 * lists what its `GET /v1/models` answers, and a server that does not answer gives the default only
 * and a notice, never an error.
 */
const closers: Array<() => unknown> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function gateway(env: NodeJS.ProcessEnv): Promise<string> {
  const g = await startModelsGateway(env);
  closers.push(() => g.close());
  return g.url;
}

async function models(base: string): Promise<ModelsReply> {
  const res = await fetch(`${base}/api/models`);
  expect(res.status).toBe(200);
  return modelsReplySchema.parse(await res.json());
}

test('hosted providers: the catalog models of configured providers (and scripted), not those of a provider without a key', async () => {
  const got = await models(await gateway({ ANTHROPIC_API_KEY: 'sk-test' }));
  expect(got.default_model).toMatch(/^anthropic\//);
  expect(got.notice).toBeUndefined();
  const providers = new Set(got.models.map((m) => m.provider));
  expect([...providers].sort()).toEqual(['anthropic', 'scripted']);
  expect(got.models.find((m) => m.ref === 'anthropic/claude-sonnet-4-5')).toMatchObject({ provider: 'anthropic', id: 'claude-sonnet-4-5', name: 'Claude Sonnet 4.5', context_window: 200_000, thinking: true });
  expect(got.models.some((m) => m.ref === 'scripted/echo')).toBe(true);
});

test("a local server (OPENAI_BASE_URL): what its /v1/models answers, not OpenAI's hosted models; asked once while cached", async () => {
  const local = await startFakeOpenAIServer({ models: ['llama3.2:3b', 'qwen2.5-coder:7b'] });
  closers.push(() => local.close());
  const base = await gateway({ OPENAI_BASE_URL: local.baseURL, STRAND_DEFAULT_MODEL: 'openai/llama3.2:3b' });
  const got = await models(base);
  expect(got.default_model).toBe('openai/llama3.2:3b');
  expect(got.notice).toBeUndefined();
  expect(got.models.filter((m) => m.provider === 'openai').map((m) => m.id)).toEqual(['llama3.2:3b', 'qwen2.5-coder:7b']);
  expect(got.models.find((m) => m.id === 'qwen2.5-coder:7b')).toMatchObject({ ref: 'openai/qwen2.5-coder:7b', context_window: expect.any(Number) });
  await models(base);
  expect(local.requests.filter((r) => r.path === '/v1/models')).toHaveLength(1);
});

test('a local server that does not answer: the default model only, and a notice that says why (200, not 500)', async () => {
  const gone = await startFakeOpenAIServer();
  const url = gone.baseURL;
  await gone.close();
  const got = await models(await gateway({ OPENAI_BASE_URL: url, STRAND_DEFAULT_MODEL: 'openai/llama3.2:3b' }));
  expect(got.models.filter((m) => m.provider === 'openai').map((m) => m.ref)).toEqual(['openai/llama3.2:3b']);
  expect(got.notice).toContain(`${url}/models`);
  expect(got.notice).toMatch(/did not answer \(ECONNREFUSED\)/);

  const noList = await startFakeOpenAIServer(); // answers 404 to /v1/models
  closers.push(() => noList.close());
  const refused = await models(await gateway({ OPENAI_BASE_URL: noList.baseURL, STRAND_DEFAULT_MODEL: 'openai/llama3.2:3b' }));
  expect(refused.notice).toMatch(/HTTP 404/);
});
