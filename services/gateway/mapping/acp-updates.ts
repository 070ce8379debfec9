import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { AgentEvent } from '../../../contracts/agent-events';
import { entryIds } from '../../../contracts/workflow-ids';
import type { StreamedEvent } from '../events/turn-stream';
import { RETRIED_DIFFERENTLY } from '../../../contracts/step-text';
import { budgetExceededMessage } from './budget-message';
import { contextTokens, type UsageTotals } from '../events/usage-totals';
import { textContent, toolCallStart, toolResultContent } from '../acp/tool-calls';
import { compactionNotice, retryNotice } from '../../../contracts/user-texts';

/** What the mapping needs to know of the session and the client besides the event. */
export interface AcpMapFacts {
  /** The session's project: tool paths are sent absolute. */
  project: string;
  /** The client said it shows `notice` updates (clientCapabilities.session.notices). */
  notices: boolean;
}

const text = (t: string) => ({ type: 'text' as const, text: t });

/**
 * Maps one event, as the session's TurnStream read it, onto ACP `session/update` payloads (the
 * `update` field). A pure function, like the other protocol mappings: the stream decides which turn
 * an event belongs to, what extends the client's text and thinking after a retried step, what an
 * aborted turn no longer shows, what a replayed transcript already holds, and names tool calls in
 * their later events. A turn this client prompted (`s.request` set) ends with the prompt's answer;
 * a turn started elsewhere shows its prompt and its end here.
 */
export function toAcpUpdates(s: StreamedEvent, facts: AcpMapFacts): SessionUpdate[] {
  const e = s.event;
  const own = s.request !== undefined;
  // Status first: a silenced turn's failure or end is still the session's news.
  switch (e.type) {
    case 'turn.finished':
      return own ? [] : [{ sessionUpdate: 'session_info_update', updatedAt: new Date(s.envelope.ts).toISOString(), _meta: { strand: { turnId: e.turn_id, outcome: e.outcome } } }];
    case 'error':
      // Our own prompt answers with the error; a turn started elsewhere says it in the conversation.
      return own || s.silenced ? [] : [{ sessionUpdate: 'agent_message_chunk', content: text(`\n\n[strand] the turn failed: ${e.message} (${e.code})\n`) }];
    case 'notice':
      return notice(facts, e.level, e.message);
    case 'retry.scheduled':
      return notice(facts, 'warning', retryNotice(e));
    case 'budget.exceeded': {
      // The turn waits for a person: said as a notice where the client shows them, else in the conversation.
      const message = budgetExceededMessage(e, s.envelope.session_id);
      if (facts.notices) return notice(facts, 'warning', message);
      return s.silenced ? [] : [{ sessionUpdate: 'agent_message_chunk', content: text(`\n\n[strand] ${message}\n`) }];
    }
    case 'compaction.finished':
      return notice(facts, 'info', compactionNotice(e.tokens_before));
    default:
      break;
  }
  if (s.silenced || s.known) return [];
  const turn = s.turn ?? '';
  switch (e.type) {
    case 'turn.started':
      return own ? [] : [{ sessionUpdate: 'user_message_chunk', content: text(e.prompt), messageId: entryIds.user(e.turn_id) }];
    case 'assistant.delta':
      return chunks('agent_message_chunk', s.text, entryIds.assistant(turn, e.step));
    case 'assistant.thinking_delta':
      return chunks('agent_thought_chunk', s.thinkingText, entryIds.assistant(turn, e.step));
    case 'tool.call':
      return [{ sessionUpdate: 'tool_call', ...toolCallStart(e.tool_call_id, e.tool, e.params, facts.project) }];
    case 'tool.executing':
      return s.call ? [{ sessionUpdate: 'tool_call_update', toolCallId: e.tool_call_id, status: 'in_progress' }] : [];
    case 'tool.output': {
      if (!s.call || !s.output) return [];
      // ACP replaces a call's content with each update: it gets the newest part of the output so far.
      const tail = s.output.clipped ? `…${s.output.tail.slice(1)}` : s.output.tail;
      return [{ sessionUpdate: 'tool_call_update', toolCallId: e.tool_call_id, status: 'in_progress', content: [textContent(tail)] }];
    }
    case 'tool.result': {
      if (!s.call) return [];
      const ok = e.status === 'success' && !e.is_error;
      const result = typeof e.result === 'string' ? e.result : e.summary;
      return [{ sessionUpdate: 'tool_call_update', toolCallId: e.tool_call_id, ...toolResultContent(s.call.name, s.call.params, facts.project, ok, result), rawOutput: { status: e.status, summary: e.summary } }];
    }
    case 'checklist':
      return [{ sessionUpdate: 'plan', entries: e.items.map((item) => ({ content: item.text || item.id, priority: 'medium', status: item.status === 'done' ? 'completed' : item.status })) }];
    default:
      // session.state, usage (usageUpdate), approval.* (session/request_permission), stream.reset
      // (applied by the stream), assistant.message (its text was streamed), file.changed (the
      // tool's diff shows it), compaction.started: no update of their own.
      return [];
  }
}

function chunks(kind: 'agent_message_chunk' | 'agent_thought_chunk', out: { text: string; diverged?: true } | undefined, messageId: string): SessionUpdate[] {
  if (!out?.text) return [];
  // ACP cannot take text back: a retried step that answered differently says so, then goes on.
  const said: SessionUpdate[] = out.diverged ? [{ sessionUpdate: kind, content: text(`\n\n[strand] ${RETRIED_DIFFERENTLY}\n\n`), messageId }] : [];
  return [...said, { sessionUpdate: kind, content: text(out.text), messageId }];
}

function notice(facts: AcpMapFacts, severity: 'info' | 'warning', message: string): SessionUpdate[] {
  return facts.notices && message.trim() ? [{ sessionUpdate: 'notice', severity, title: message }] : [];
}

/**
 * What `usage_update` says after a step: the context the step used out of the model's window, and
 * the session's cost so far (`totals`, kept with usage-totals.ts from the store's sums and each step).
 */
export function usageUpdate(step: Extract<AgentEvent, { type: 'usage' }>, totals: UsageTotals, window: number): SessionUpdate {
  return { sessionUpdate: 'usage_update', used: contextTokens(step), size: window, cost: { amount: totals.cost_usd, currency: 'USD' } };
}
