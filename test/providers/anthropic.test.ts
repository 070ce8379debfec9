import { createAnthropicProvider } from '../../activities/providers/anthropic';
import { builtinModelCatalog, lookupModel, mergeCatalogs, modelCatalogFileSchema } from '../../contracts/model-catalog';
import { ProviderError, type ProviderChunk, type ProviderRequest } from '../../activities/providers/types';
import { startFakeAnthropicServer, type FakeAnthropicReply, type FakeProviderServer } from '../harness/fake-anthropic-server';

/**
 * The Anthropic adapter with the real SDK against a local server speaking the Messages API's SSE
 * format: streaming, mapping of requests, usage, and the classification of every failure.
 */

let server: FakeProviderServer<FakeAnthropicReply>;
beforeEach(async () => (server = await startFakeAnthropicServer()));
afterEach(() => server.close());

const provider = () => createAnthropicProvider({ apiKey: 'test-key', baseURL: server.baseURL });
const tool = { name: 'read_file', description: 'Reads a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } };

function req(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return { model: 'claude-sonnet-4-6', system: 'Be terse.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], thinking_level: 'off', signal: new AbortController().signal, ...overrides };
}
async function collect(it: AsyncIterable<ProviderChunk>): Promise<ProviderChunk[]> {
  const out: ProviderChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}
async function failure(it: AsyncIterable<ProviderChunk>): Promise<any> {
  return collect(it).then(
    () => {
      throw new Error('expected the stream to fail');
    },
    (err: unknown) => err,
  );
}
const joined = (chunks: ProviderChunk[], type: 'text_delta' | 'thinking_delta') => chunks.flatMap((c) => (c.type === type ? [c.text] : [])).join('');

test('streams text deltas and ends with usage including the cache', async () => {
  server.reply({ blocks: [{ type: 'text', text: 'Hello there, friend.' }], usage: { input_tokens: 30, output_tokens: 7, cache_read_input_tokens: 1200, cache_creation_input_tokens: 80 } });
  const chunks = await collect(provider().stream(req()));
  expect(chunks.filter((c) => c.type === 'text_delta').length).toBeGreaterThan(1);
  expect(joined(chunks, 'text_delta')).toBe('Hello there, friend.');
  expect(chunks.at(-1)).toEqual({ type: 'done', stop_reason: 'end', native_stop_reason: 'end_turn', usage: { input: 30, output: 7, cache_read: 1200, cache_write: 80 } });
});

test('streams thinking with its signature, then text', async () => {
  server.reply({ blocks: [{ type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' }, { type: 'text', text: 'Done.' }] });
  const chunks = await collect(provider().stream(req({ thinking_level: 'medium' })));
  expect(joined(chunks, 'thinking_delta')).toBe('Let me think.');
  const sig = chunks.findIndex((c) => c.type === 'thinking_signature');
  expect(chunks[sig]).toEqual({ type: 'thinking_signature', signature: 'sig-abc' });
  expect(sig).toBeLessThan(chunks.findIndex((c) => c.type === 'text_delta'));
  expect(server.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
  expect(server.requests[0]!.body.max_tokens).toBeGreaterThan(8192);
});

test('tool use: arguments split across input_json_delta events become start → deltas → end with parsed args', async () => {
  server.reply({ blocks: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_1', name: 'read_file', input_json: ['{"pa', 'th": "src/', 'a.ts"}'] }] });
  const chunks = await collect(provider().stream(req({ tools: [tool] })));
  const calls = chunks.filter((c) => c.type.startsWith('tool_call'));
  expect(calls).toEqual([
    { type: 'tool_call_start', id: 'toolu_1', name: 'read_file' },
    { type: 'tool_call_delta', id: 'toolu_1', arguments_delta: '{"pa' },
    { type: 'tool_call_delta', id: 'toolu_1', arguments_delta: 'th": "src/' },
    { type: 'tool_call_delta', id: 'toolu_1', arguments_delta: 'a.ts"}' },
    { type: 'tool_call_end', id: 'toolu_1', arguments: { path: 'src/a.ts' } },
  ]);
  expect(chunks.at(-1)).toMatchObject({ type: 'done', stop_reason: 'function_call', native_stop_reason: 'tool_use' });
});

test('unparseable tool arguments give {} plus the raw text', async () => {
  server.reply({ blocks: [{ type: 'tool_use', id: 'toolu_2', name: 'read_file', input_json: ['{"path": '] }] });
  const chunks = await collect(provider().stream(req({ tools: [tool] })));
  expect(chunks.find((c) => c.type === 'tool_call_end')).toEqual({ type: 'tool_call_end', id: 'toolu_2', arguments: {}, invalid_arguments: '{"path": ' });
});

test('max_tokens maps to length', async () => {
  server.reply({ blocks: [{ type: 'text', text: 'cut' }], stop_reason: 'max_tokens' });
  expect((await collect(provider().stream(req()))).at(-1)).toMatchObject({ stop_reason: 'length', native_stop_reason: 'max_tokens' });
});

test('request mapping: system and tools with cache breakpoints, tool results merged into one user message, images, thinking kept', async () => {
  server.reply({});
  await collect(
    provider().stream(
      req({
        tools: [tool, { ...tool, name: 'list_files' }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', data: 'aGVsbG8=', mime: 'image/png' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', text: 'plan', signature: 'sig1' },
              { type: 'thinking', text: 'unsigned, from elsewhere' },
              { type: 'function_call', id: 'toolu_a', function_id: 'read_file', arguments: { path: 'a' } },
              { type: 'function_call', id: 'call.b', function_id: 'list_files', arguments: {} },
            ],
          },
          { role: 'function_result', function_call_id: 'toolu_a', function_id: 'read_file', content: [{ type: 'text', text: 'A' }], is_error: false },
          { role: 'function_result', function_call_id: 'call.b', function_id: 'list_files', content: [{ type: 'text', text: 'nope' }], is_error: true },
        ],
      }),
    ),
  );
  const body = server.requests[0]!.body;
  expect(server.requests[0]!.path).toBe('/v1/messages');
  expect(body).toMatchObject({ model: 'claude-sonnet-4-6', stream: true, max_tokens: 64000 });
  expect(body.thinking).toBeUndefined();
  expect(body.system).toEqual([{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }]);
  expect(body.tools[0].cache_control).toBeUndefined();
  expect(body.tools[1]).toEqual({ name: 'list_files', description: 'Reads a file.', input_schema: tool.input_schema, cache_control: { type: 'ephemeral' } });
  expect(body.messages).toEqual([
    { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'aGVsbG8=' } }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 'sig1' },
        { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: 'a' } },
        { type: 'tool_use', id: 'call_b', name: 'list_files', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', is_error: false, content: [{ type: 'text', text: 'A' }] },
        { type: 'tool_result', tool_use_id: 'call_b', is_error: true, content: [{ type: 'text', text: 'nope' }], cache_control: { type: 'ephemeral' } },
      ],
    },
  ]);
});

test('thinking levels map to budgets, max_tokens stays above the budget and within the model', async () => {
  server.reply({}, {}, {}, {}, {});
  await collect(provider().stream(req({ thinking_level: 'minimal', max_output_tokens: 2000 })));
  await collect(provider().stream(req({ thinking_level: 'xhigh' })));
  await collect(provider().stream(req({ model: 'claude-opus-4-1', thinking_level: 'xhigh' })));
  await collect(provider().stream(req({ model: 'claude-opus-4-6', thinking_level: 'high' })));
  await collect(provider().stream(req({ model: 'claude-3-5-haiku-latest', thinking_level: 'high' })));
  const [a, b, c, d, e] = server.requests.map((r) => r.body);
  expect(a.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  expect(a.max_tokens).toBeGreaterThan(1024);
  expect(b.thinking).toEqual({ type: 'enabled', budget_tokens: 32000 });
  expect(b.max_tokens).toBe(64000);
  expect(c.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 }); // opus 4.1 tops out at high
  expect(c.max_tokens).toBeLessThanOrEqual(32000);
  expect(d).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }); // budgets are deprecated there
  expect(e.thinking).toBeUndefined(); // no thinking on this model
});

test('a tool call without a recorded result gets an error result instead of a 400', async () => {
  server.reply({});
  await collect(
    provider().stream(
      req({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', content: [{ type: 'function_call', id: 'toolu_x', function_id: 'read_file', arguments: {} }] },
          { role: 'user', content: [{ type: 'text', text: 'what happened?' }] },
        ],
      }),
    ),
  );
  const last = server.requests[0]!.body.messages.at(-1);
  expect(last.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_x', is_error: true });
  expect(last.content[1]).toMatchObject({ type: 'text', text: 'what happened?' });
});

describe('failures', () => {
  test('429 is rate_limited with retry-after in seconds', async () => {
    server.reply({ error: { status: 429, type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit', headers: { 'retry-after': '7' } } });
    const err = await failure(provider().stream(req()));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 7000, provider: 'anthropic' });
    expect(err.message).toBe('anthropic: HTTP 429 rate_limit_error: Number of requests has exceeded your rate limit');
  });

  test('529 and an overloaded_error event mid-stream are overloaded', async () => {
    server.reply({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, { blocks: [{ type: 'text', text: 'par' }], stream_error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'overloaded', status: 529 });
    const chunks: ProviderChunk[] = [];
    const err = await (async () => {
      for await (const c of provider().stream(req())) chunks.push(c);
    })().catch((e: unknown) => e);
    expect(joined(chunks, 'text_delta')).toBe('par');
    expect(err).toMatchObject({ kind: 'overloaded', status: undefined });
  });

  test('500 is transient, 401 is auth, other 4xx permanent', async () => {
    server.reply(
      { error: { status: 500, type: 'api_error', message: 'Internal server error' } },
      { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } },
      { error: { status: 404, type: 'not_found_error', message: 'model: claude-nope' } },
    );
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'transient', status: 500 });
    const auth = await failure(provider().stream(req()));
    expect(auth).toMatchObject({ kind: 'auth', status: 401 });
    expect(auth.message).toContain('invalid x-api-key');
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'permanent', status: 404 });
  });

  test('"prompt is too long" is context_overflow', async () => {
    server.reply({ error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'context_overflow', status: 400 });
  });

  test('a connection dropped mid-stream, or before any byte, is transient', async () => {
    server.reply({ blocks: [{ type: 'text', text: 'one two three four' }], cut: { after: 5, how: 'drop' } }, { cut: { after: 0, how: 'drop' } });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'transient' });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'transient', message: expect.stringContaining('connection error') });
  });

  test('a stream that ends before message_stop is transient', async () => {
    server.reply({ blocks: [{ type: 'text', text: 'one two' }], cut: { after: 4, how: 'end' } });
    expect(await failure(provider().stream(req()))).toMatchObject({ kind: 'transient', message: expect.stringContaining('before message_stop') });
  });

  test('a malformed event is transient', async () => {
    server.reply({ blocks: [{ type: 'text', text: 'one two' }], cut: { after: 4, how: 'malformed' } });
    const err = await failure(provider().stream(req()));
    expect(err).toMatchObject({ kind: 'transient', message: expect.stringContaining('malformed') });
  });

  // How fast the abort lands is not asserted (a loaded machine decides that): the stalled stream never ends by
  // itself, so a stream that settles at all was ended by the abort; it must end with the signal's reason.
  test('aborting a stream the server stopped sending ends it with the signal reason', async () => {
    server.reply({ blocks: [{ type: 'text', text: 'one two three' }], cut: { after: 4, how: 'stall' } });
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

  test('an abort between slow events rethrows the reason, not a provider error', async () => {
    server.reply({ delay_ms: 2000 });
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 50);
    await expect(collect(provider().stream(req({ signal: controller.signal })))).rejects.toBe(reason);
  });
});

test('a prefill goes as the final assistant message without its trailing whitespace and with thinking off; the continuation joins it', async () => {
  server.reply({ blocks: [{ type: 'text', text: ' world, friend.' }] });
  const prefill = 'Hello ';
  const chunks = await collect(provider().stream(req({ prefill, thinking_level: 'high' })));
  const body = server.requests[0]!.body;
  expect(body.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Hello' }] });
  expect(body.messages.at(-2)).toMatchObject({ role: 'user' });
  expect(body.thinking).toBeUndefined();
  // The model repeated the held-back space; the client already has it.
  expect(prefill + joined(chunks, 'text_delta')).toBe('Hello world, friend.');
  expect(chunks.at(-1)).toMatchObject({ type: 'done', stop_reason: 'end' });
});

test('the fake refuses a prefill as the real API does (trailing whitespace; thinking without a thinking block)', async () => {
  // The adapter never sends these; the rules are what the previous test passes against.
  const raw = async (body: unknown) => (await fetch(`${server.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
  const messages = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: 'Hello ' }] }];
  expect(await raw({ model: 'm', max_tokens: 10, stream: true, messages })).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringMatching(/trailing whitespace/) } });
  const trimmed = [messages[0], { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] }];
  expect(await raw({ model: 'm', max_tokens: 9000, stream: true, thinking: { type: 'enabled', budget_tokens: 8192 }, messages: trimmed })).toMatchObject({ error: { message: expect.stringMatching(/must start with a thinking block/) } });
});

test('prefill capability: the catalog says so per model; ids it does not know continue (the API does)', () => {
  const p = provider();
  expect(p.canContinue?.(lookupModel(builtinModelCatalog, 'anthropic/claude-sonnet-4-6'))).toBe(true);
  expect(p.canContinue?.(lookupModel(builtinModelCatalog, 'anthropic/claude-next-9'))).toBe(true);
  const off = modelCatalogFileSchema.parse({ models: [{ provider: 'anthropic', id: 'claude-sonnet-4-6', name: 'no prefill', context_window: 200000, max_output_tokens: 64000, supports: { prefill: false } }] });
  expect(p.canContinue?.(lookupModel(mergeCatalogs(builtinModelCatalog, off), 'anthropic/claude-sonnet-4-6'))).toBe(false);
});
