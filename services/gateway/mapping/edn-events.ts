import type { AgentEvent, AgentPhase } from '../../../contracts/agent-events';
import type { StreamedEvent } from '../events/turn-stream';
import { kw, type EdnMap } from '../edn/edn-value';
import { callSummary, contentToEdn, jsonText, stopReasonKeyword, usageToEdn } from '../edn/session/content';
import { RETRIED_DIFFERENTLY } from '../../../contracts/step-text';
import { budgetExceededMessage } from './budget-message';
import { modelParts } from '../../../contracts/models';
import { compactionNotice, retryNotice } from '../../../contracts/user-texts';

/**
 * How much of a running tool's output `tool/update` carries: the client replaces the row's body with
 * each update, so it gets the newest part; the whole output arrives with `tool/result` and is stored.
 */
export const TOOL_UPDATE_MAX_CHARS = 8_192;

/** One EDN event: its topic, its payload and, when a request caused it, that request's id. */
export interface EdnEventOut {
  topic: string;
  data: EdnMap;
  id?: string;
  /** The turn the event belongs to: its prompt's request id may become known only later (TurnStream.requestOf). */
  turn?: string;
}

export interface EdnMapped {
  events: EdnEventOut[];
  /** Set when the footer's facts changed (a turn began or ended, model, thinking, name): send a fresh one from these. */
  footer?: SessionStateFacts;
}

/** What `session/updated` is built from: a `session.state` event, or a snapshot of the session. */
export interface SessionStateFacts {
  phase: AgentPhase;
  /** A turn is running (psi's `is-streaming`: true from the prompt until the turn has ended). */
  turnActive: boolean;
  queueLength: number;
  retryAttempt: number;
  model: string;
  thinkingLevel: string;
  sessionName?: string;
  autoRetry?: boolean;
  autoCompaction?: boolean;
  /** The running turn was asked to stop at its next step boundary (psi's `interrupt`). */
  interruptPending?: boolean;
}

/** psi's phases: idle, streaming, retrying, compacting (strand's own phase travels as `agent-phase`). */
function psiPhase(phase: AgentPhase): string {
  if (phase === 'retrying' || phase === 'compacting') return phase;
  return phase === 'idle' || phase === 'error' ? 'idle' : 'streaming';
}

export function sessionUpdatedPayload(sessionId: string, s: SessionStateFacts): EdnMap {
  const model = modelParts(s.model);
  return {
    'session-id': sessionId,
    phase: psiPhase(s.phase),
    'agent-phase': s.phase,
    'is-streaming': s.turnActive,
    'is-compacting': s.phase === 'compacting',
    'pending-message-count': s.queueLength,
    'retry-attempt': s.retryAttempt,
    retry: s.phase === 'retrying',
    'interrupt-pending': s.interruptPending === true,
    'model-provider': model.provider,
    'model-id': model.model,
    'thinking-level': s.thinkingLevel,
    'session-name': s.sessionName ?? null,
    ...(s.autoRetry !== undefined ? { 'auto-retry': s.autoRetry } : {}),
    ...(s.autoCompaction !== undefined ? { 'auto-compaction': s.autoCompaction } : {}),
  };
}

/**
 * Maps one focus session's events, as its TurnStream read them, onto EDN topics (docs/edn.md),
 * stamping each with the session id. A pure function: the stream keeps deltas true increments across
 * a retried step (the one rule of step-text.ts), accumulates thinking (the Emacs client replaces its
 * thinking block with each event), names tool calls in later tool events, and knows which turns this
 * connection aborted and what a rehydrated transcript already holds. A silenced turn's status
 * (errors, notices, state) still goes out; its content does not.
 */
export function toEdnEvents(sessionId: string, s: StreamedEvent): EdnMapped {
  const { event: e, turn, request: id } = s;
  const out = (topic: string, data: EdnMap): EdnMapped => ({ events: [{ topic, data: { 'session-id': sessionId, ...data }, ...(id ? { id } : {}), ...(turn ? { turn } : {}) }] });
  const none: EdnMapped = { events: [] };
  if (e.type === 'session.state') return stateEvents(sessionId, e, s);
  if (e.type === 'error') return out('error', { 'error-code': 'runtime/failed', 'error-message': e.message, 'strand-code': e.code, ...(id ? { id, op: 'prompt' } : {}), ...(e.kind ? { 'error-kind': e.kind } : {}) });
  if (e.type === 'retry.scheduled') return out('ui/notification', { id: `retry:${turn ?? ''}:${e.attempt}`, message: retryNotice(e), level: 'warning' });
  // psi's Emacs client shows ui/notification in the echo area: the cap, what was spent and how to go on.
  if (e.type === 'budget.exceeded') return out('ui/notification', { id: `budget:${turn ?? ''}:${s.envelope.seq ?? s.envelope.ts}`, message: budgetExceededMessage(e, sessionId), level: 'warning' });
  if (e.type === 'notice') return out('ui/notification', { id: `notice:${s.envelope.seq ?? s.envelope.ts}`, message: e.message, level: e.level === 'warning' ? 'warning' : 'info' });
  if (e.type === 'compaction.finished') return out('ui/notification', { id: `compaction:${s.envelope.seq ?? s.envelope.ts}`, message: compactionNotice(e.tokens_before), level: 'info' });
  if (s.silenced || s.known) return none;
  const call = s.call ?? { name: 'tool', params: undefined, turn: undefined };
  const summary = s.call ? callSummary(s.call.name, s.call.params) : 'tool';
  const toolBase = (callId: string): EdnMap => ({ 'tool-id': callId, 'tool-name': call.name, 'call-summary': summary });
  const toolResult = (callId: string, topic: string, output: string, isError: boolean) =>
    out(topic, { ...toolBase(callId), content: [{ type: kw('text'), text: output }], 'result-text': output, 'is-error': isError });
  switch (e.type) {
    case 'assistant.delta': {
      if (!s.text?.text) return none;
      // The retry says something else: it goes on from here; the final assistant/message replaces the line.
      const notice = s.text.diverged ? out('ui/notification', { id: `retried:${turn}:${e.step}`, message: RETRIED_DIFFERENTLY, level: 'warning' }).events : [];
      return { events: [...notice, ...out('assistant/delta', { text: s.text.text }).events] };
    }
    case 'assistant.thinking_delta':
      return s.thinking === undefined ? none : out('assistant/thinking-delta', { text: s.thinking });
    case 'assistant.message':
      return messageEvents(e, out);
    case 'tool.call':
      return out('tool/start', { 'tool-id': e.tool_call_id, 'tool-name': e.tool, 'call-summary': callSummary(e.tool, e.params), arguments: jsonText(e.params ?? {}) });
    case 'tool.executing':
      return out('tool/executing', toolBase(e.tool_call_id));
    case 'tool.output': {
      const { tail, clipped } = s.output ?? { tail: e.content, clipped: false };
      return toolResult(e.tool_call_id, 'tool/update', clipped ? `…${tail.slice(1)}` : tail, false);
    }
    case 'tool.result': {
      const text = typeof e.result === 'string' ? e.result : e.result === undefined ? e.summary : jsonText(e.result);
      return toolResult(e.tool_call_id, 'tool/result', text, e.is_error || e.status !== 'success');
    }
    case 'approval.requested':
      return out('ui/dialog-requested', approvalDialog(e));
    default:
      // usage, file.changed, approval.resolved, compaction.started, checklist, stream.reset, turn.*:
      // session/updated and footer/updated carry what the client shows of them.
      return none;
  }
}

/** An approval as psi's confirm dialog (its id is the tool call id, the answer goes to resolve_dialog). */
function approvalDialog(e: { tool_call_id: string; tool: string; params: unknown; timeout_s: number }): EdnMap {
  return { 'dialog-id': e.tool_call_id, kind: 'confirm', title: `Allow ${e.tool}?`, message: `Allow ${callSummary(e.tool, e.params)}? (answer within ${e.timeout_s} s)`, 'tool-name': e.tool, arguments: jsonText(e.params ?? {}) };
}

function stateEvents(sessionId: string, e: Extract<AgentEvent, { type: 'session.state' }>, s: StreamedEvent): EdnMapped {
  const facts: SessionStateFacts = {
    phase: e.phase,
    turnActive: e.turn_id !== null,
    queueLength: e.queue_length,
    retryAttempt: e.retry_attempt,
    model: e.model,
    thinkingLevel: e.thinking_level,
    ...(e.session_name !== undefined ? { sessionName: e.session_name } : {}),
    ...(e.auto_retry !== undefined ? { autoRetry: e.auto_retry } : {}),
    ...(e.auto_compaction !== undefined ? { autoCompaction: e.auto_compaction } : {}),
    ...(e.interrupt_pending ? { interruptPending: true } : {}),
  };
  const event: EdnEventOut = { topic: 'session/updated', data: sessionUpdatedPayload(sessionId, facts), ...(s.request ? { id: s.request } : {}), ...(s.turn ? { turn: s.turn } : {}) };
  return { events: [event], ...(s.statusChanged ? { footer: facts } : {}) };
}

/**
 * Only a step that ends the answer becomes `assistant/message` (the client finalizes its line and
 * goes idle on it): not a step that calls tools, not an aborted one (the client already dropped
 * its partial line).
 */
function messageEvents(e: Extract<AgentEvent, { type: 'assistant.message' }>, out: (t: string, d: EdnMap) => EdnMapped): EdnMapped {
  if (e.stop_reason === 'function_call' || e.stop_reason === 'aborted') return { events: [] };
  return out('assistant/message', {
    role: 'assistant',
    content: contentToEdn(e.content),
    ...(e.text.trim() ? { text: e.text } : {}),
    'stop-reason': stopReasonKeyword(e.stop_reason),
    ...(e.usage ? { usage: usageToEdn(e.usage) } : {}),
    ...(e.stop_reason === 'error' ? { 'error-message': e.text || 'the model step failed' } : {}),
  });
}
