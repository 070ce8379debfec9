import type { AgentEvent, AgentEventEnvelope, AgentPhase } from '../../../contracts/agent-events';
import { kw, type EdnMap } from '../edn/edn-value';
import { callSummary, contentToEdn, jsonText, stopReasonKeyword, usageToEdn } from '../edn/session/content';
import { RETRIED_DIFFERENTLY, StepTexts } from './step-text';

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
  /** The turn the event belongs to: its prompt's request id may become known only later (see `requestOf`). */
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
  const slash = s.model.indexOf('/');
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
    'model-provider': slash > 0 ? s.model.slice(0, slash) : '',
    'model-id': slash > 0 ? s.model.slice(slash + 1) : s.model,
    'thinking-level': s.thinkingLevel,
    'session-name': s.sessionName ?? null,
    ...(s.autoRetry !== undefined ? { 'auto-retry': s.autoRetry } : {}),
    ...(s.autoCompaction !== undefined ? { 'auto-compaction': s.autoCompaction } : {}),
  };
}

/**
 * Maps one focus session's canonical agent events onto EDN topics (specs/rpc-edn.md), stamping each
 * with the session id. Fed every event of the session in stream order; remembers what each model
 * step has shown so deltas stay true increments across a retried step (the one rule of
 * step-text.ts: a continuation appends, after a `stream.reset` only new text goes out), accumulates
 * thinking (the Emacs client replaces its thinking block with each event), names tool calls in
 * later tool events, and keeps quiet about turns this connection aborted and about what a rehydrated
 * transcript already holds.
 */
export class EdnEventMapper {
  private readonly steps = new StepTexts();
  private readonly tools = new Map<string, { name: string; summary: string; output: string; turn?: string }>();
  private readonly silenced = new Set<string>();
  private readonly recordedSteps = new Set<string>();
  private readonly recordedResults = new Set<string>();
  private readonly requests = new Map<string, string>();
  private currentTurn: string | undefined;
  /** An abort is on its way and its turn not known yet: no turn content goes out meanwhile. */
  private aborting = false;
  private footerKey: string | undefined;

  constructor(readonly sessionId: string) {}

  /** The turn running as far as the stream has told (the one an abort now applies to). */
  get turn(): string | undefined {
    return this.currentTurn;
  }

  /** From now on the turn's content (deltas, tool rows, its final message) is not sent: the client aborted it. */
  silence(turnId: string | undefined): void {
    if (turnId) this.silenced.add(turnId);
  }

  /**
   * The client sent `abort` (it has dropped its partial answer already): until `aborted` names the
   * turn that was stopped, no turn content goes out, whichever turn it belongs to.
   */
  abortRequested(): void {
    this.aborting = true;
    this.silence(this.currentTurn);
  }

  /** The abort's answer: the turn it stopped (null when none ran) stays silent; others speak again. */
  aborted(turnId: string | null): void {
    this.silence(turnId ?? undefined);
    this.aborting = false;
  }

  /** The turn `requestId` (a prompt) started: its events carry that id. */
  attribute(turnId: string, requestId: string): void {
    this.requests.set(turnId, requestId);
    // The idle state after a turn still names its request; only long-gone turns are forgotten.
    if (this.requests.size > 64) this.requests.delete(this.requests.keys().next().value as string);
  }

  /** The request that started `turnId`, when this connection sent it. */
  requestOf(turnId: string): string | undefined {
    return this.requests.get(turnId);
  }

  /** What a transcript sent with `session/rehydrated` already shows: model steps (`turn:step`) and tool results. */
  recorded(steps: Iterable<string>, toolResults: Iterable<string>): void {
    for (const s of steps) this.recordedSteps.add(s);
    for (const r of toolResults) this.recordedResults.add(r);
  }

  map(envelope: AgentEventEnvelope): EdnMapped {
    const e = envelope.event;
    const turn = envelope.turn_id ?? ('turn_id' in e && typeof e.turn_id === 'string' ? e.turn_id : undefined);
    const id = turn ? this.requests.get(turn) : undefined;
    const out = (topic: string, data: EdnMap): EdnMapped => ({ events: [{ topic, data: { 'session-id': this.sessionId, ...data }, ...(id ? { id } : {}), ...(turn ? { turn } : {}) }] });
    const none: EdnMapped = { events: [] };
    if (e.type === 'session.state') return this.state(e, id, turn);
    if (e.type === 'turn.started') {
      this.currentTurn = e.turn_id;
      return none;
    }
    if (e.type === 'turn.finished') {
      this.forgetTurn(e.turn_id);
      return none;
    }
    if (e.type === 'error') return out('error', { 'error-code': 'runtime/failed', 'error-message': e.message, 'strand-code': e.code, ...(id ? { id, op: 'prompt' } : {}), ...(e.kind ? { 'error-kind': e.kind } : {}) });
    if (e.type === 'retry.scheduled') return out('ui/notification', { id: `retry:${turn ?? ''}:${e.attempt}`, message: `provider retry ${e.attempt}${e.max_attempts ? `/${e.max_attempts}` : ''} in ${e.delay_ms} ms: ${e.reason}`, level: 'warning' });
    if (e.type === 'notice') return out('ui/notification', { id: `notice:${envelope.seq ?? envelope.ts}`, message: e.message, level: e.level === 'warning' ? 'warning' : 'info' });
    if (e.type === 'compaction.finished') return out('ui/notification', { id: `compaction:${envelope.seq ?? envelope.ts}`, message: `conversation compacted (${e.tokens_before} tokens before)`, level: 'info' });
    if (this.aborting || (turn && this.silenced.has(turn))) return none;
    switch (e.type) {
      case 'assistant.delta': {
        if (this.recordedSteps.has(`${turn}:${e.step}`)) return none;
        const sent = this.steps.delta(`${turn}:${e.step}`, envelope.attempt ?? 1, e.text);
        if (!sent.text) return none;
        // The retry says something else: it goes on from here; the final assistant/message replaces the line.
        const notice = sent.diverged ? out('ui/notification', { id: `retried:${turn}:${e.step}`, message: RETRIED_DIFFERENTLY, level: 'warning' }).events : [];
        return { events: [...notice, ...out('assistant/delta', { text: sent.text }).events] };
      }
      case 'assistant.thinking_delta': {
        const key = `${turn}:${e.step}`;
        if (this.recordedSteps.has(key)) return none;
        const thinking = this.steps.thinking(key, envelope.attempt ?? 1, e.text);
        return thinking === undefined ? none : out('assistant/thinking-delta', { text: thinking });
      }
      case 'stream.reset':
        this.steps.reset(`${turn}:${e.step}`, envelope.attempt ?? 1);
        return none;
      case 'assistant.message':
        return this.message(e, turn, out, none);
      case 'tool.call': {
        const summary = callSummary(e.tool, e.params);
        this.tools.set(e.tool_call_id, { name: e.tool, summary, output: '', ...(turn ? { turn } : {}) });
        if (this.recordedResults.has(e.tool_call_id)) return none;
        return out('tool/start', { 'tool-id': e.tool_call_id, 'tool-name': e.tool, 'call-summary': summary, arguments: jsonText(e.params ?? {}) });
      }
      case 'tool.executing':
        return this.tool(e.tool_call_id, 'tool/executing', out, none);
      case 'tool.output': {
        const tool = this.tools.get(e.tool_call_id);
        const all = (tool?.output ?? '') + e.content;
        const kept = all.length > TOOL_UPDATE_MAX_CHARS ? `…${all.slice(all.length - TOOL_UPDATE_MAX_CHARS + 1)}` : all;
        if (tool) tool.output = kept;
        return this.tool(e.tool_call_id, 'tool/update', out, none, { output: kept, isError: false });
      }
      case 'tool.result': {
        const text = typeof e.result === 'string' ? e.result : e.result === undefined ? e.summary : jsonText(e.result);
        return this.tool(e.tool_call_id, 'tool/result', out, none, { output: text, isError: e.is_error || e.status !== 'success' });
      }
      case 'approval.requested': {
        if (this.recordedResults.has(e.tool_call_id)) return none;
        const summary = callSummary(e.tool, e.params);
        return out('ui/dialog-requested', { 'dialog-id': e.tool_call_id, kind: 'confirm', title: `Allow ${e.tool}?`, message: `Allow ${summary}? (answer within ${e.timeout_s} s)`, 'tool-name': e.tool, arguments: jsonText(e.params ?? {}) });
      }
      default:
        // usage, file.changed, approval.resolved, compaction.started, checklist: session/updated and
        // footer/updated carry what the client shows of them.
        return none;
    }
  }

  private state(e: Extract<AgentEvent, { type: 'session.state' }>, id: string | undefined, turn: string | undefined): EdnMapped {
    if (e.turn_id) this.currentTurn = e.turn_id;
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
    const key = [facts.turnActive, facts.model, facts.thinkingLevel, facts.sessionName ?? '', facts.phase === 'waiting_approval'].join('|');
    const changed = key !== this.footerKey;
    this.footerKey = key;
    return { events: [{ topic: 'session/updated', data: sessionUpdatedPayload(this.sessionId, facts), ...(id ? { id } : {}), ...(turn ? { turn } : {}) }], ...(changed ? { footer: facts } : {}) };
  }

  /**
   * Only a step that ends the answer becomes `assistant/message` (the client finalizes its line and
   * goes idle on it): not a step that calls tools, not an aborted one (the client already dropped
   * its partial line), not one the rehydrated transcript holds.
   */
  private message(e: Extract<AgentEvent, { type: 'assistant.message' }>, turn: string | undefined, out: (t: string, d: EdnMap) => EdnMapped, none: EdnMapped): EdnMapped {
    if (e.stop_reason === 'function_call' || e.stop_reason === 'aborted' || this.recordedSteps.has(`${turn}:${e.step}`)) return none;
    return out('assistant/message', {
      role: 'assistant',
      content: contentToEdn(e.content),
      ...(e.text.trim() ? { text: e.text } : {}),
      'stop-reason': stopReasonKeyword(e.stop_reason),
      ...(e.usage ? { usage: usageToEdn(e.usage) } : {}),
      ...(e.stop_reason === 'error' ? { 'error-message': e.text || 'the model step failed' } : {}),
    });
  }

  private tool(callId: string, topic: string, out: (t: string, d: EdnMap) => EdnMapped, none: EdnMapped, result?: { output: string; isError: boolean }): EdnMapped {
    if (this.recordedResults.has(callId)) return none;
    const tool = this.tools.get(callId) ?? { name: 'tool', summary: 'tool', output: '' };
    const base: EdnMap = { 'tool-id': callId, 'tool-name': tool.name, 'call-summary': tool.summary };
    if (!result) return out(topic, base);
    return out(topic, { ...base, content: [{ type: kw('text'), text: result.output }], 'result-text': result.output, 'is-error': result.isError });
  }

  private forgetTurn(turnId: string): void {
    this.steps.forget(`${turnId}:`);
    for (const [callId, tool] of this.tools) if (tool.turn === turnId) this.tools.delete(callId);
    if (this.currentTurn === turnId) this.currentTurn = undefined;
  }
}
