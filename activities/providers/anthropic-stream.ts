import type Anthropic from '@anthropic-ai/sdk';
import { parseToolArguments } from './tool-args';
import { ProviderError, type ProviderChunk, type ProviderStopReason, type ProviderUsage } from './types';

type Event = Anthropic.RawMessageStreamEvent;

/** What is open at each content-block index of the streamed message. */
type OpenBlock = { kind: 'text' } | { kind: 'thinking'; signature: string } | { kind: 'tool'; id: string; raw: string } | { kind: 'other' };

const STOP: Record<string, ProviderStopReason> = {
  end_turn: 'end',
  stop_sequence: 'end',
  pause_turn: 'end',
  refusal: 'end',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'function_call',
};

/**
 * Translates the Messages API's stream events into provider chunks: text/thinking deltas as they
 * come, a thinking block's signature when the block closes, tool calls as start → argument deltas →
 * end (parsed), and one `done` at `message_stop` with usage from `message_start` updated by
 * `message_delta`. A stream that ends before `message_stop` is a transient failure (dropped).
 */
export async function* readAnthropicStream(events: AsyncIterable<Event>): AsyncGenerator<ProviderChunk> {
  const blocks = new Map<number, OpenBlock>();
  const usage: ProviderUsage = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
  let native: string | undefined;
  for await (const event of events) {
    switch (event.type) {
      case 'message_start':
        applyUsage(usage, event.message.usage);
        break;
      case 'content_block_start': {
        const b = event.content_block;
        if (b.type === 'text') {
          blocks.set(event.index, { kind: 'text' });
          if (b.text) yield { type: 'text_delta', text: b.text };
        } else if (b.type === 'thinking') {
          blocks.set(event.index, { kind: 'thinking', signature: b.signature ?? '' });
          if (b.thinking) yield { type: 'thinking_delta', text: b.thinking };
        } else if (b.type === 'tool_use') {
          blocks.set(event.index, { kind: 'tool', id: b.id, raw: '' });
          yield { type: 'tool_call_start', id: b.id, name: b.name };
        } else {
          // redacted thinking, server tools: nothing the store can carry back; skipped.
          blocks.set(event.index, { kind: 'other' });
        }
        break;
      }
      case 'content_block_delta': {
        const open = blocks.get(event.index);
        const d = event.delta;
        if (d.type === 'text_delta' && d.text) yield { type: 'text_delta', text: d.text };
        else if (d.type === 'thinking_delta' && d.thinking) yield { type: 'thinking_delta', text: d.thinking };
        else if (d.type === 'signature_delta' && open?.kind === 'thinking') open.signature += d.signature;
        else if (d.type === 'input_json_delta' && open?.kind === 'tool' && d.partial_json) {
          open.raw += d.partial_json;
          yield { type: 'tool_call_delta', id: open.id, arguments_delta: d.partial_json };
        }
        break;
      }
      case 'content_block_stop': {
        const open = blocks.get(event.index);
        blocks.delete(event.index);
        if (open?.kind === 'thinking' && open.signature) yield { type: 'thinking_signature', signature: open.signature };
        if (open?.kind === 'tool') yield { type: 'tool_call_end', id: open.id, ...parseToolArguments(open.raw) };
        break;
      }
      case 'message_delta':
        if (event.delta.stop_reason) native = event.delta.stop_reason;
        applyUsage(usage, event.usage);
        break;
      case 'message_stop':
        yield { type: 'done', stop_reason: (native && STOP[native]) || 'end', ...(native ? { native_stop_reason: native } : {}), usage };
        return;
    }
  }
  throw new ProviderError('transient', 'anthropic: the stream ended before message_stop (connection dropped?)', { provider: 'anthropic' });
}

/** `message_start` carries input and cache counts; `message_delta` carries the final (cumulative) counts. */
function applyUsage(usage: ProviderUsage, u: Partial<Anthropic.MessageDeltaUsage> | null | undefined): void {
  if (!u) return;
  if (typeof u.input_tokens === 'number') usage.input = u.input_tokens;
  if (typeof u.output_tokens === 'number') usage.output = u.output_tokens;
  if (typeof u.cache_read_input_tokens === 'number') usage.cache_read = u.cache_read_input_tokens;
  if (typeof u.cache_creation_input_tokens === 'number') usage.cache_write = u.cache_creation_input_tokens;
  const thinking = u.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') usage.reasoning = thinking;
}
