import { startFakeSseServer, type FakeProviderServer, type FakeServerOptions, type RecordedRequest, type SsePlan, type StreamCut } from './fake-anthropic-server';

/**
 * A local stand-in for OpenAI's streaming Chat Completions (and so for every compatible server) that
 * speaks the true wire format: `data: {chat.completion.chunk}` lines, tool calls as fragments keyed by
 * index, a final usage chunk with empty `choices` when `stream_options.include_usage` is set, then
 * `data: [DONE]`. Errors are `{error:{message, type, param, code}}` with their status and headers.
 * Shares the SSE engine of fake-anthropic-server.ts.
 */

interface FakeOpenAIToolCall {
  id?: string;
  name: string;
  /** Streamed split in three; `argument_chunks` gives the exact fragments. */
  arguments?: Record<string, unknown>;
  argument_chunks?: string[];
}

export interface FakeOpenAIReply {
  /** A string is streamed word by word; a list is streamed as given. */
  content?: string | string[];
  /** Reasoning as compatible servers stream it (`delta.reasoning_content`). */
  reasoning?: string[];
  tool_calls?: FakeOpenAIToolCall[];
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finish_reason?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number; reasoning_tokens?: number };
  /** An HTTP error instead of a stream, e.g. `{status: 400, code: 'context_length_exceeded', message}`. */
  error?: { status: number; message: string; type?: string; code?: string; headers?: Record<string, string> };
  /** A `data: {"error": …}` line after the content, instead of finishing. */
  stream_error?: { message: string; type?: string; code?: string };
  /** Behave like a server that ignores `stream_options.include_usage` (no usage chunk). */
  omit_usage?: boolean;
  /** Leave out `data: [DONE]` (default: sent). */
  omit_done?: boolean;
  cut?: StreamCut;
  delay_ms?: number;
  headers?: Record<string, string>;
}

const line = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const words = (v: string | string[]) => (typeof v === 'string' ? v.match(/\S+\s*|\s+/g) ?? [] : v);
function thirds(s: string): string[] {
  const n = Math.max(1, Math.ceil(s.length / 3));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

/** The SSE lines the real API sends for a reply. */
function openaiFrames(reply: FakeOpenAIReply, model: string, includeUsage: boolean): string[] {
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model, system_fingerprint: 'fp_fake' };
  const chunk = (delta: unknown, finish: string | null = null) => line({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });
  const frames = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const r of reply.reasoning ?? []) frames.push(chunk({ reasoning_content: r }));
  for (const c of words(reply.content ?? (reply.tool_calls ? [] : 'ok'))) frames.push(chunk({ content: c }));
  (reply.tool_calls ?? []).forEach((tc, index) => {
    const id = tc.id ?? `call_fake_${index}`;
    frames.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: tc.name, arguments: '' } }] }));
    for (const a of tc.argument_chunks ?? thirds(JSON.stringify(tc.arguments ?? {}))) frames.push(chunk({ tool_calls: [{ index, function: { arguments: a } }] }));
  });
  if (reply.stream_error) return [...frames, line({ error: { type: 'server_error', param: null, code: null, ...reply.stream_error } })];
  frames.push(chunk({}, reply.finish_reason ?? (reply.tool_calls?.length ? 'tool_calls' : 'stop')));
  if (includeUsage) {
    const u = reply.usage ?? {};
    const prompt = u.prompt_tokens ?? 10;
    const completion = u.completion_tokens ?? 5;
    frames.push(
      line({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: completion,
          total_tokens: prompt + completion,
          prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
      }),
    );
  }
  if (!reply.omit_done) frames.push('data: [DONE]\n\n');
  return frames;
}

/** vLLM's rule for a continued final message (its add_generation_prompt defaults to true). */
function vllmRefusal(req: RecordedRequest): SsePlan | undefined {
  if (req.body?.continue_final_message !== true || req.body?.add_generation_prompt === false) return undefined;
  return { status: 400, json: { error: { message: 'Cannot set both `continue_final_message` and `add_generation_prompt` to True.', type: 'BadRequestError', param: null, code: 400 } } };
}

function openaiPlan(reply: FakeOpenAIReply, req: RecordedRequest): SsePlan {
  if (reply.error) {
    const { status, headers, ...error } = reply.error;
    return { status, headers, json: { error: { type: 'invalid_request_error', param: null, code: null, ...error } } };
  }
  const includeUsage = req.body?.stream_options?.include_usage === true && !reply.omit_usage;
  return {
    headers: reply.headers,
    frames: openaiFrames(reply, String(req.body?.model ?? 'gpt-fake'), includeUsage),
    malformedFrame: 'data: {"id": "chatcmpl-fake", "choices": [\n\n',
    ...(reply.cut ? { cut: reply.cut } : {}),
    ...(reply.delay_ms ? { delayMs: reply.delay_ms } : {}),
  };
}

/** Starts the fake OpenAI API; point the SDK's `baseURL` at `server.baseURL` (it ends in /v1). */
export function startFakeOpenAIServer(options: FakeServerOptions<FakeOpenAIReply> & { models?: string[] } = {}): Promise<FakeProviderServer<FakeOpenAIReply>> {
  const { models, ...rest } = options;
  return startFakeSseServer({
    ...rest,
    // What a local server (Ollama, vLLM) answers to `GET /v1/models`: the models it serves; without `models`, 404 as before.
    answer: (req) => (models && req.method === 'GET' && /^\/v1\/models(\?|$)/.test(req.path) ? { json: { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'local' })) } } : undefined),
    path: /\/v1\/chat\/completions(\?|$)/,
    basePath: '/v1',
    plan: openaiPlan,
    refuse: vllmRefusal,
    noReply: (i) => ({ status: 500, json: { error: { message: `fake server: no reply scripted for request ${i + 1}`, type: 'server_error', param: null, code: null } } }),
  });
}
