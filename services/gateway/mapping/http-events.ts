import type { AgentEventEnvelope } from '../../../contracts/agent-events';

/** One SSE frame's `event:` name and `data:` object (docs/http.md). */
export interface HttpEvent {
  event: string;
  data: Record<string, unknown>;
}

/**
 * Maps a canonical agent event onto the HTTP+SSE vocabulary. Events the HTTP contract has no frame
 * for (turn.started, approval.*, …) return undefined and are not sent; their sequence numbers are
 * simply absent from the stream, which Last-Event-ID resumption does not mind. SSE clients apply the
 * step-text rule themselves (step-text.ts): deltas carry their `step` and `attempt`, and
 * `stream.reset` is passed on for them to replace the step's text.
 */
export function toHttpEvent(envelope: AgentEventEnvelope): HttpEvent | undefined {
  // A sub-agent's event (docs/subagents.md) travels as a `subagent` frame wrapping what it would be
  // on its own: clients that do not know the name ignore it, so its text never joins the turn's.
  if (envelope.subagent) {
    const { subagent, ...own } = envelope;
    const inner = toHttpEvent(own);
    return inner && { event: 'subagent', data: { type: 'subagent', tool_call_id: subagent.tool_call_id, session_id: subagent.session_id, event: inner.event, data: inner.data } };
  }
  const e = envelope.event;
  switch (e.type) {
    case 'session.state':
      return { event: 'agent.state', data: { type: 'agent.state', state: e.phase, ...(e.details ? { details: e.details } : {}) } };
    case 'assistant.delta':
      return { event: 'message.delta', data: { type: 'message.delta', content: e.text, role: 'assistant', turn_id: e.turn_id, step: e.step, attempt: envelope.attempt ?? 1 } };
    case 'assistant.thinking_delta':
      return { event: 'thinking.delta', data: { type: 'thinking.delta', content: e.text, turn_id: e.turn_id, step: e.step, attempt: envelope.attempt ?? 1 } };
    case 'assistant.message':
      return {
        event: 'message.done',
        data: { type: 'message.done', entry_id: e.entry_id, content: e.text, stop_reason: e.stop_reason, usage: e.usage ?? null },
      };
    case 'tool.call':
      return { event: 'tool.call', data: { type: 'tool.call', tool_call_id: e.tool_call_id, tool: e.tool, params: e.params, requires_approval: e.requires_approval } };
    case 'tool.output':
      return { event: 'tool.output', data: { type: 'tool.output', tool_call_id: e.tool_call_id, content: e.content } };
    case 'tool.result':
      // HTTP knows success|error|rejected: a call skipped by steering was not run, as a rejected one.
      return { event: 'tool.result', data: { type: 'tool.result', tool_call_id: e.tool_call_id, status: e.status === 'skipped' ? 'rejected' : e.status, result: e.result } };
    case 'file.changed':
      return { event: 'file.changed', data: { type: 'file.changed', path: e.path, operation: e.operation, timestamp: e.timestamp } };
    case 'conversation.moved':
      return { event: 'conversation.moved', data: { type: 'conversation.moved', reason: e.reason, active_leaf: e.active_leaf } };
    case 'retry.scheduled':
      return {
        event: 'retry',
        data: { type: 'retry', attempt: e.attempt, delay_ms: e.delay_ms, reason: e.reason, ...(e.kind ? { kind: e.kind } : {}), ...(e.max_attempts ? { max_attempts: e.max_attempts } : {}) },
      };
    case 'stream.reset':
      return { event: 'stream.reset', data: { type: 'stream.reset', turn_id: e.turn_id, step: e.step, attempt: envelope.attempt ?? 1 } };
    case 'usage':
      return {
        event: 'usage',
        data: { type: 'usage', input: e.input, output: e.output, cache_read: e.cache_read, cache_write: e.cache_write, cost_usd: e.cost_usd },
      };
    case 'error':
      return { event: 'error', data: { type: 'error', message: e.message, code: e.code } };
    case 'turn.finished':
      return { event: 'turn.finished', data: { type: 'turn.finished', turn_id: e.turn_id, outcome: e.outcome } };
    case 'compaction.started':
      return { event: 'compaction.started', data: { type: 'compaction.started', reason: e.reason } };
    case 'compaction.finished':
      return { event: 'compaction.finished', data: { type: 'compaction.finished', summary: e.summary, tokens_before: e.tokens_before } };
    case 'budget.exceeded':
      return { event: 'budget.exceeded', data: { type: 'budget.exceeded', ...(e.turn_id ? { turn_id: e.turn_id } : {}), spent_usd: e.spent_usd, spent_tokens: e.spent_tokens, limit: e.limit } };
    case 'notice':
      return { event: 'notice', data: { type: 'notice', level: e.level, message: e.message } };
    default:
      return undefined;
  }
}
