import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ContentBlock } from '../../../contracts/session-store/messages';
import type { TranscriptItem } from '../sessions/session-transcript';
import { textContent, toolCallStart, toolResultContent } from './tool-calls';

/** A stored conversation as `session/load` replays it, and what the live stream must not send again. */
export interface Replay {
  updates: SessionUpdate[];
  /** Model steps (`turn:step`), tool results (call ids) and prompts (turn ids) the client now holds. */
  known: { steps: string[]; toolResults: string[]; prompts: string[] };
}

const text = (t: string) => ({ type: 'text' as const, text: t });
const textOf = (blocks: ContentBlock[]) => blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');

/**
 * The session's active branch as ACP updates, oldest first: user messages, the agent's thinking and
 * text, each tool call with its result (a diff for an edit or a write). A call with no result is
 * left pending when its turn still runs (the live stream goes on with it) and marked failed
 * otherwise (its turn was aborted before the call ran). Compaction summaries and other custom
 * entries are the agent's bookkeeping, not conversation: they are not replayed.
 */
export function replayTranscript(items: TranscriptItem[], project: string, runningTurn: string | null): Replay {
  const updates: SessionUpdate[] = [];
  const known: Replay['known'] = { steps: [], toolResults: [], prompts: [] };
  const calls = new Map<string, { name: string; params: unknown; turn: string | undefined }>();
  for (const item of items) {
    const m = item.message;
    const messageId = item.entry_id;
    if (m.role === 'user') {
      if (item.turn !== undefined && item.entry_id.endsWith(':user')) known.prompts.push(item.turn);
      const t = textOf(m.content);
      if (t) updates.push({ sessionUpdate: 'user_message_chunk', content: text(t), messageId });
    } else if (m.role === 'assistant') {
      if (item.turn !== undefined && item.step !== undefined) known.steps.push(`${item.turn}:${item.step}`);
      for (const b of m.content) {
        if (b.type === 'thinking' && b.text) updates.push({ sessionUpdate: 'agent_thought_chunk', content: text(b.text), messageId });
        if (b.type === 'text' && b.text) updates.push({ sessionUpdate: 'agent_message_chunk', content: text(b.text), messageId });
        if (b.type === 'function_call') {
          calls.set(b.id, { name: b.function_id, params: b.arguments ?? {}, turn: item.turn });
          updates.push({ sessionUpdate: 'tool_call', ...toolCallStart(b.id, b.function_id, b.arguments ?? {}, project) });
        }
      }
    } else if (m.role === 'function_result') {
      known.toolResults.push(m.function_call_id);
      const call = calls.get(m.function_call_id);
      calls.delete(m.function_call_id);
      const ok = !m.is_error;
      const result = textOf(m.content);
      const shown = call ? toolResultContent(call.name, call.params, project, ok, result) : { status: ok ? ('completed' as const) : ('failed' as const), content: result ? [textContent(result)] : [] };
      updates.push({ sessionUpdate: 'tool_call_update', toolCallId: m.function_call_id, ...shown });
    }
  }
  for (const [callId, call] of calls) {
    if (call.turn === undefined || call.turn !== runningTurn) updates.push({ sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'failed' });
  }
  return { updates, known };
}
