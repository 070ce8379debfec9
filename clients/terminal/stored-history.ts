import type { ContentBlock } from '../../contracts/session-store/messages';
import { resultText, turnOfEntry, type ChatBlock } from './chat-blocks';
import type { StoredMessageItem } from './gateway-client';

const texts = (content: ContentBlock[], type: 'text' | 'thinking') =>
  content
    .filter((b): b is Extract<ContentBlock, { type: 'text' | 'thinking' }> => b.type === type)
    .map((b) => b.text)
    .join('');

/** The row a compaction leaves in the conversation, live (`compaction.finished`) or read from the store. */
export function compactionText(summary: unknown): string {
  return typeof summary === 'string' && summary.trim() ? `Compacted: ${summary.trim()}` : 'the conversation before this point was compacted';
}

/**
 * A session's stored messages (`GET …/messages`) as chat blocks: what a reopened chat shows of the
 * turns that ran before, including those that ran while no client watched. `liveTurn` is a turn still
 * running: only its prompt is taken from the store, the rest comes from its events (replayed from the
 * turn's start), so nothing shows twice.
 */
export function blocksOfHistory(items: StoredMessageItem[], liveTurn?: string): ChatBlock[] {
  const blocks: ChatBlock[] = [];
  const tools = new Map<string, Extract<ChatBlock, { kind: 'tool' }>>();
  const turnsSeen = new Set<string>();
  for (const { entry_id: entryId, message, custom } of items) {
    if (custom?.custom_type === 'compaction') blocks.push({ kind: 'notice', key: `custom:${entryId}`, level: 'info', text: compactionText((custom.data as { summary?: unknown } | undefined)?.summary) });
    if (!message) continue;
    const turn = turnOfEntry(entryId);
    if (turn !== undefined && turn === liveTurn && message.role !== 'user') continue;
    switch (message.role) {
      case 'user': {
        // A turn's prompt (`t3:user`) opens it; a steering message (`t3:s1:steer:0`) is a user message of the same turn, shown where it was read.
        const prompt = turn !== undefined && entryId === `${turn}:user`;
        if (prompt) turnsSeen.add(turn);
        blocks.push({ kind: 'user', key: prompt ? `user:${turn}` : `user:${entryId}`, ...(prompt ? { turn } : {}), text: texts(message.content, 'text'), entryId });
        break;
      }
      case 'assistant': {
        const step = /:s(\d+):assistant$/.exec(entryId);
        const text = texts(message.content, 'text');
        const thinking = texts(message.content, 'thinking');
        if (text || thinking || message.stop_reason !== 'function_call')
          blocks.push({ kind: 'assistant', key: turn && step ? `${turn}:${step[1]}` : entryId, turn: turn ?? '', step: step ? Number(step[1]) : 0, entryId, text, thinking, done: true, stopReason: message.stop_reason });
        if (message.stop_reason === 'error' && message.error_message) blocks.push({ kind: 'notice', key: `error:${entryId}`, level: 'error', text: message.error_message });
        for (const block of message.content) {
          if (block.type !== 'function_call') continue;
          const tool: Extract<ChatBlock, { kind: 'tool' }> = { kind: 'tool', key: `tool:${block.id}`, ...(turn ? { turn } : {}), callId: block.id, tool: block.function_id, params: block.arguments, output: '' };
          tools.set(block.id, tool);
          blocks.push(tool);
        }
        break;
      }
      case 'function_result': {
        const tool = tools.get(message.function_call_id);
        if (!tool) break;
        tool.result = resultText(texts(message.content, 'text'));
        // A person's "no" is recorded as an error result marked `details.rejected` (record-results.ts).
        const rejected = (message.details as { rejected?: boolean } | undefined)?.rejected === true;
        tool.outcome = rejected ? 'rejected' : message.is_error ? 'error' : 'success';
        break;
      }
      case 'custom':
        break;
    }
  }
  return blocks;
}
