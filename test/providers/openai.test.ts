import { createOpenAIProvider, openAIPrefillFromEnv } from '../../activities/providers/openai';
import { builtinModelCatalog, lookupModel, mergeCatalogs, modelCatalogFileSchema } from '../../contracts/model-catalog';
import { ProviderError, type ProviderChunk, type ProviderRequest } from '../../activities/providers/types';
import type { FakeProviderServer } from '../harness/fake-anthropic-server';
import { startFakeOpenAIServer, type FakeOpenAIReply } from '../harness/fake-openai-server';

/**
 * The OpenAI Chat Completions adapter with the real SDK against a local server speaking the
 * streaming chunk format: text, tool calls by index, usage, request mapping and failures.
 */

let server: FakeProviderServer<FakeOpenAIReply>;
beforeEach(async () => (server = await startFakeOpenAIServer()));
afterEach(() => server.close());

const provider = () => createOpenAIProvider({ apiKey: 'test-key', baseURL: server.baseURL });
const tool = { name: 'read_file', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } };

function req(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return { model: 'gpt-5-mini', system: 'Be terse.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], thinking_level: 'off', signal: new AbortController().signal, ...overrides };
}
async function collect(it: AsyncIterable<ProviderChunk>): Promise<ProviderChunk[]> {
  const out: ProviderChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}
const failure = (it: AsyncIterable<ProviderChunk>): Promise<any> =>
  collect(it).then(
    () => {
      throw new Error('expected the stream to fail');
    },
    (err: unknown) => err,
  );
const joined = (chunks: ProviderChunk[], type: 'text_delta' | 'thinking_delta') => chunks.flatMap((c) => (c.type === type ? [c.text] : [])).join('');

test('streams content and ends with usage from the final chunk (cached tokens out of input)', async () => {
  server.reply({ content: 'Hello there, friend.', usage: { prompt_tokens: 1000, completion_tokens: 40, cached_tokens: 800, reasoning_tokens: 32 } });
  const chunks = await collect(provider().stream(req()));
  expect(chunks.filter((c) => c.type === 'text_delta').length).toBeGreaterThan(1);
  expect(joined(chunks, 'text_delta')).toBe('Hello there, friend.');
  expect(chunks.at(-1)).toEqual({ type: 'done', stop_reason: 'end', native_stop_reason: 'stop', usage: { input: 200, output: 40, cache_read: 800, cache_write: 0, reasoning: 32 } });
  expect(server.requests[0]!.body.stream_options).toEqual({ include_usage: true });
});

test('tool calls: fragments by index become start → deltas → end, two calls in index order', async () => {
  server.reply({
    tool_calls: [
      { id: 'call_a', name: 'read_file', argument_chunks: ['{"pa', 'th":"a', '.ts"}'] },
      { id: 'call_b', name: 'read_file', arguments: { path: 'b.ts' } },
    ],
  });
  const chunks = await collect(provider().stream(req({ tools: [tool] })));
  const a = chunks.filter((c) => 'id' in c && c.id === 'call_a');
  expect(a).toEqual([
    { type: 'tool_call_start', id: 'call_a', name: 'read_file' },
    { type: 'tool_call_delta', id: 'call_a', arguments_delta: '{"pa' },
    { type: 'tool_call_delta', id: 'call_a', arguments_delta: 'th":"a' },
    { type: 'tool_call_delta', id: 'call_a', arguments_delta: '.ts"}' },
    { type: 'tool_call_end', id: 'call_a', arguments: { path: 'a.ts' } },
  ]);
  const ends = chunks.filter((c) => c.type === 'tool_call_end');
  expect(ends).toEqual([
    { type: 'tool_call_end', id: 'call_a', arguments: { path: 'a.ts' } },
    { type: 'tool_call_end', id: 'call_b', arguments: { path: 'b.ts' } },
  ]);
  expect(chunks.at(-1)).toMatchObject({ type: 'done', stop_reason: 'function_call', native_stop_reason: 'tool_calls' });
});

test('compatible servers: reasoning_content becomes thinking; tool calls finished with "stop" still ask for tools', async () => {
  server.reply({ reasoning: ['Thinking ', 'hard.'], content: 'Answer.' }, { tool_calls: [{ name: 'read_file', arguments: { path: 'x' } }], finish_reason: 'stop' });
  const first = await collect(provider().stream(req()));
  expect(joined(first, 'thinking_delta')).toBe('Thinking hard.');
  const second = await collect(provider().stream(req()));
  expect(second.at(-1)).toMatchObject({ stop_reason: 'function_call', native_stop_reason: 'stop' });
});

test('length maps to length; a server that ignores include_usage gives zero usage', async () => {
  server.reply({ content: 'cut', finish_reason: 'length' });
  const done = (await collect(provider().stream(req()))).at(-1);
  expect(done).toMatchObject({ stop_reason: 'length', native_stop_reason: 'length' });
  server.reply({ content: 'x', omit_usage: true });
  expect((await collect(provider().stream(req({ model: 'llama3' })))).at(-1)).toEqual({
    type: 'done', stop_reason: 'end', native_stop_reason: 'stop', usage: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
  });
  expect(server.requests[1]!.body.reasoning_effort).toBeUndefined(); // unknown model: nothing beyond the common dialect
});

test('request mapping: system first, images as data URLs, assistant tool_calls, tool messages, function tools', async () => {
  server.reply({});
  await collect(
    provider().stream(
      req({
        tools: [tool],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', data: 'aGVsbG8=', mime: 'image/png' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', text: 'not sent back', signature: 'x' },
              { type: 'text', text: 'Reading.' },
              { type: 'function_call', id: 'call_1', function_id: 'read_file', arguments: { path: 'a' } },
            ],
          },
          { role: 'function_result', function_call_id: 'call_1', function_id: 'read_file', content: [{ type: 'text', text: 'A' }], is_error: false },
        ],
      }),
    ),
  );
  const body = server.requests[0]!.body;
  expect(server.requests[0]!.path).toBe('/v1/chat/completions');
  expect(body).toMatchObject({ model: 'gpt-5-mini', stream: true, stream_options: { include_usage: true } });
  expect(body.tools).toEqual([{ type: 'function', function: { name: 'read_file', description: 'Reads a file.', parameters: tool.input_schema } }]);
  expect(body.messages).toEqual([
    { role: 'system', content: 'Be terse.' },
    { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,aGVsbG8=' } }] },
    { role: 'assistant', content: 'Reading.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'A' },
  ]);
});

test('reasoning_effort only where the catalog says the model reasons; xhigh → high; off → lowest (or none)', async () => {
  server.reply({}, {}, {}, {}, {});
  await collect(provider().stream(req({ thinking_level: 'medium' })));
  await collect(provider().stream(req({ thinking_level: 'xhigh' })));
  await collect(provider().stream(req({ thinking_level: 'off' })));
  await collect(provider().stream(req({ model: 'gpt-4.1', thinking_level: 'high' })));
  await collect(provider().stream(req({ model: 'gpt-5.1', thinking_level: 'off' })));
  expect(server.requests.map((r) => r.body.reasoning_effort)).toEqual(['medium', 'high', 'minimal', undefined, 'none']);
});

describe('failures', () => {
  test('429 is rate_limited with retry-after-ms', async () => {
    server.reply({ error: { status: 429, type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for gpt-5-mini', headers: { 'retry-after-ms': '1500' } } });
    const err = await failure(provider().stream(req()));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 1500, provider: 'openai' });
    expect(err.message).toContain('Rate limit reached for gpt-5-mini');
  });

  test('context_length_exceeded is context_overflow; 401 auth; 503 overloaded; 500 transient; 404 permanent', async () => {
    server.reply(
      { error: { status: 400, code: 'context_length_exceeded', message: "This model's maximum context length is 400000 tokens." } },
      { error: { status: 401, code: 'invalid_api_key', message: 'Incorrect API key provided' } },
      { error: { status: 503, type: 'server_error', message: 'The server is overloaded or not ready yet.' } },
      { error: { status: 500, type: 'server_error', message: 'The server had an error' } },
      { error: { status: 404, code: 'model_not_found', message: 'The model `gpt-nope` does not exist' } },
    );
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'context_overflow', status: 400 });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'auth', status: 401 });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'overloaded', status: 503 });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'transient', status: 500 });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'permanent', status: 404 });
  });

  test('an error object mid-stream is transient', async () => {
    server.reply({ content: 'par', stream_error: { message: 'The server had an error while processing your request.' } });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'transient', message: expect.stringContaining('server had an error') });
  });

  test('a dropped connection, a malformed chunk and a stream without finish_reason are transient', async () => {
    server.reply({ content: 'one two three', cut: { after: 2, how: 'drop' } }, { content: 'one two', cut: { after: 2, how: 'malformed' } }, { content: 'x', cut: { after: 2, how: 'end' } });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'transient', message: expect.stringContaining('broke off') });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'transient', message: expect.stringContaining('malformed') });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'transient', message: expect.stringContaining('without a finish_reason') });
  });

  // How fast the abort lands is not asserted (a loaded machine decides that): the stalled stream never ends by
  // itself, so a stream that settles at all was ended by the abort; it must end with the signal's reason.
  test('aborting a stream the server stopped sending ends it with the signal reason', async () => {
    server.reply({ content: 'one two three', cut: { after: 3, how: 'stall' } });
    const controller = new AbortController();
    const reason = new Error('user abort');
    const seen: ProviderChunk[] = [];
    const run = (async () => {
      for await (const c of provider().stream(req({ signal: controller.signal }))) {
        seen.push(c);
        // The first text arrived: the server sends a little more, then stalls.
        if (c.type === 'text_delta' && !controller.signal.aborted) controller.abort(reason);
      }
    })();
    await expect(run).rejects.toBe(reason);
    const text = joined(seen, 'text_delta');
    expect(text.length).toBeGreaterThan(0);
    expect('one two three'.startsWith(text) && text !== 'one two three').toBe(true);
  });
});

describe('prefill (a retried step continuing its answer)', () => {
  const entry = (ref: string) => lookupModel(builtinModelCatalog, ref);

  test('OpenAI models do not continue a prefill unless STRAND_OPENAI_PREFILL says the server does', () => {
    expect(provider().canContinue?.(entry('openai/gpt-5-mini'))).toBe(false);
    expect(provider().canContinue?.(entry('openai/llama3.1:8b'))).toBe(false);
    const on = createOpenAIProvider({ apiKey: 'k', baseURL: server.baseURL, prefill: 'final-message' });
    expect(on.canContinue?.(entry('openai/llama3.1:8b'))).toBe(true);
    const off = createOpenAIProvider({ apiKey: 'k', baseURL: server.baseURL, prefill: 'off' });
    const own = modelCatalogFileSchema.parse({ models: [{ provider: 'openai', id: '*', name: 'llama.cpp', context_window: 32000, max_output_tokens: 4096, supports: { prefill: true } }] });
    expect(provider().canContinue?.(lookupModel(mergeCatalogs(builtinModelCatalog, own), 'openai/qwen'))).toBe(true);
    expect(off.canContinue?.(lookupModel(mergeCatalogs(builtinModelCatalog, own), 'openai/qwen'))).toBe(false);
  });

  test('final-message (llama.cpp, Ollama): the prefill, whitespace and all, is the last message; nothing else is added', async () => {
    server.reply({ content: ['world', '!'] });
    const p = createOpenAIProvider({ apiKey: 'k', baseURL: server.baseURL, prefill: 'final-message' });
    const chunks = await collect(p.stream(req({ model: 'qwen', prefill: 'Hello ' })));
    const body = server.requests[0]!.body;
    expect(body.messages.at(-1)).toEqual({ role: 'assistant', content: 'Hello ' });
    expect(body.continue_final_message).toBeUndefined();
    expect(body.add_generation_prompt).toBeUndefined();
    expect(`Hello ${joined(chunks, 'text_delta')}`).toBe('Hello world!');
  });

  test("continue-final-message (vLLM): continue_final_message with add_generation_prompt off, as vLLM demands", async () => {
    server.reply({ content: ['world'] });
    const p = createOpenAIProvider({ apiKey: 'k', baseURL: server.baseURL, prefill: 'continue-final-message' });
    await collect(p.stream(req({ model: 'qwen', prefill: 'Hello ' })));
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({ continue_final_message: true, add_generation_prompt: false });
    expect(body.messages.at(-1)).toEqual({ role: 'assistant', content: 'Hello ' });
    // Without a prefill nothing of it is sent (OpenAI itself refuses unknown fields).
    server.reply({ content: ['x'] });
    await collect(p.stream(req({ model: 'qwen' })));
    expect(server.requests[1]!.body.continue_final_message).toBeUndefined();
    // What the fake (as vLLM) refuses: continue_final_message alone.
    const alone = await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen', continue_final_message: true, messages: [] }) });
    expect(alone.status).toBe(400);
  });

  test('STRAND_OPENAI_PREFILL: off, final-message, continue-final-message; anything else is refused naming the values', () => {
    expect(openAIPrefillFromEnv({})).toBeUndefined();
    expect(openAIPrefillFromEnv({ STRAND_OPENAI_PREFILL: ' continue-final-message ' })).toBe('continue-final-message');
    expect(openAIPrefillFromEnv({ STRAND_OPENAI_PREFILL: 'off' })).toBe('off');
    expect(() => openAIPrefillFromEnv({ STRAND_OPENAI_PREFILL: 'yes' })).toThrow(/off, final-message, continue-final-message \(got "yes"\)/);
  });
});
