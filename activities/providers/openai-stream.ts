import type OpenAI from 'openai';
import { parseToolArguments } from './tool-args';
import { ProviderError, type ProviderChunk, type ProviderStopReason, type ProviderUsage } from './types';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

const STOP: Record<string, ProviderStopReason> = { stop: 'end', length: 'length', tool_calls: 'function_call', function_call: 'function_call', content_filter: 'end' };

/**
 * Translates Chat Completions chunks into provider chunks. Tool calls arrive as fragments keyed by
 * `index` (id and name in the first, argument text spread over the rest); each call is closed, with
 * its arguments parsed, when the choice finishes. Usage comes in the last chunk (empty `choices`)
 * when `stream_options.include_usage` is honoured; servers that ignore it give zeros.
 * OpenAI-compatible servers that stream reasoning (`reasoning_content` / `reasoning`) give thinking.
 */
export async function* readOpenAIStream(provider: string, chunks: AsyncIterable<Chunk>): AsyncGenerator<ProviderChunk> {
  const calls = new Map<number, { id: string; raw: string }>();
  const usage: ProviderUsage = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
  let finish: string | undefined;
  for await (const chunk of chunks) {
    if (chunk.usage) applyUsage(usage, chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Chunk['choices'][number]['delta'] & { reasoning_content?: unknown; reasoning?: unknown };
    const reasoning = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : delta.reasoning;
    if (typeof reasoning === 'string' && reasoning) yield { type: 'thinking_delta', text: reasoning };
    if (delta.content) yield { type: 'text_delta', text: delta.content };
    for (const tc of delta.tool_calls ?? []) {
      let call = calls.get(tc.index);
      if (!call) {
        // Some compatible servers omit ids; the call still needs one the result can answer.
        call = { id: tc.id || `call_${chunk.id || 'x'}_${tc.index}`, raw: '' };
        calls.set(tc.index, call);
        yield { type: 'tool_call_start', id: call.id, name: tc.function?.name ?? '' };
      }
      const fragment = tc.function?.arguments;
      if (fragment) {
        call.raw += fragment;
        yield { type: 'tool_call_delta', id: call.id, arguments_delta: fragment };
      }
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  if (!finish) throw new ProviderError('transient', `${provider}: the stream ended without a finish_reason (connection dropped?)`, { provider });
  for (const index of [...calls.keys()].sort((a, b) => a - b)) {
    const call = calls.get(index)!;
    yield { type: 'tool_call_end', id: call.id, ...parseToolArguments(call.raw) };
  }
  let stop = STOP[finish] ?? 'end';
  // Several compatible servers (Ollama among them) finish tool calls with `stop`.
  if (stop === 'end' && calls.size > 0) stop = 'function_call';
  yield { type: 'done', stop_reason: stop, native_stop_reason: finish, usage };
}

/**
 * OpenAI counts cached and cache-written tokens inside `prompt_tokens` and reasoning inside
 * `completion_tokens`; the contract counts input without the cache (as Anthropic does) so that one
 * price table applies to both.
 */
function applyUsage(usage: ProviderUsage, u: OpenAI.CompletionUsage): void {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  const written = u.prompt_tokens_details?.cache_write_tokens ?? 0;
  usage.input = Math.max(0, (u.prompt_tokens ?? 0) - cached - written);
  usage.output = u.completion_tokens ?? 0;
  usage.cache_read = cached;
  usage.cache_write = written;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') usage.reasoning = reasoning;
}
