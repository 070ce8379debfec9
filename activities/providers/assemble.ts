import type { ContentBlock } from '../../contracts/session-store/messages';
import type { ProviderChunk } from './types';

/**
 * Builds the assistant message's content blocks from a step's chunks, in the order they came: a text
 * or thinking delta extends the current block of its kind (a change of kind starts a new block), a
 * signature closes the thinking block, and each tool call becomes a `function_call` block when it
 * ends (at the place it started).
 */
export class MessageAssembler {
  readonly blocks: ContentBlock[] = [];
  private readonly calls = new Map<string, { index: number; name: string; raw: string }>();

  add(chunk: ProviderChunk): void {
    const last = this.blocks[this.blocks.length - 1];
    switch (chunk.type) {
      case 'text_delta':
        if (last?.type === 'text') last.text += chunk.text;
        else this.blocks.push({ type: 'text', text: chunk.text });
        return;
      case 'thinking_delta':
        if (last?.type === 'thinking' && !last.signature) last.text += chunk.text;
        else this.blocks.push({ type: 'thinking', text: chunk.text });
        return;
      case 'thinking_signature': {
        const thinking = [...this.blocks].reverse().find((b) => b.type === 'thinking');
        if (thinking && thinking.type === 'thinking') thinking.signature = chunk.signature;
        else this.blocks.push({ type: 'thinking', text: '', signature: chunk.signature });
        return;
      }
      case 'tool_call_start':
        this.blocks.push({ type: 'function_call', id: chunk.id, function_id: chunk.name, arguments: {} });
        this.calls.set(chunk.id, { index: this.blocks.length - 1, name: chunk.name, raw: '' });
        return;
      case 'tool_call_delta': {
        const call = this.calls.get(chunk.id);
        if (call) call.raw += chunk.arguments_delta;
        return;
      }
      case 'tool_call_end': {
        const call = this.calls.get(chunk.id);
        const block: ContentBlock = { type: 'function_call', id: chunk.id, function_id: call?.name ?? 'unknown', arguments: chunk.arguments };
        if (call) this.blocks[call.index] = block;
        else this.blocks.push(block);
        return;
      }
      case 'done':
        return;
    }
  }

  /** Text of the text blocks, joined. */
  get text(): string {
    return this.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
  }

  /** The function calls the model asked for, in order. */
  get toolCalls(): Array<{ id: string; name: string; arguments: unknown }> {
    return this.blocks.flatMap((b) => (b.type === 'function_call' ? [{ id: b.id, name: b.function_id, arguments: b.arguments }] : []));
  }
}
