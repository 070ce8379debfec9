import type { AgentEvent } from '../../../contracts/agent-events';
import type { ChatReply, WsEvent } from '../../../contracts/ws-rpc';
import type { StreamedEvent, TurnSummary } from '../events/turn-stream';
import { RETRIED_DIFFERENTLY, type StepTextOut } from '../../../contracts/step-text';
import { budgetExceededMessage } from './budget-message';
import { retryNotice } from '../../../contracts/user-texts';

/** Longest tool-argument summary shown in a tool row's header. */
const DETAIL_MAX = 120;

/**
 * Maps one turn's events, as its TurnStream read them, onto the WebSocket RPC event vocabulary
 * (docs/websocket.md). A pure function: the stream (one per chat, following its turn only) knows which
 * tool calls it announced, so `tool-output`/`tool-result` never name an unknown call and one task's
 * calls never show up in another's stream, and what each model step has shown. The protocol has no
 * way to take text back, so after a `stream.reset` only what is new goes out; should the retry say
 * something else, a notice says so and the reply's `output` is authoritative.
 */
export function toWsEvents(s: StreamedEvent): WsEvent[] {
  const e = s.event;
  switch (e.type) {
    case 'turn.started':
      return [{ type: 'status', state: { kind: 'running' } }];
    case 'assistant.delta':
      return deltaEvents(s.text);
    case 'assistant.thinking_delta':
      return s.thinking === undefined ? [] : [{ type: 'reasoning', text: e.text }];
    case 'tool.call':
      return callEvents(e.tool_call_id, e.tool, e.params);
    case 'tool.output':
      if (!s.call || e.content === '') return [];
      return [{ type: 'tool-output', toolCallId: e.tool_call_id, toolName: s.call.name, content: { kind: 'shell-output', stream: 'stdout', text: e.content } }];
    case 'tool.result':
      return s.call ? resultEvents(e, s.call.name) : [];
    case 'usage':
      return [{ type: 'usage', inputTokens: e.input, outputTokens: e.output }];
    case 'checklist':
      // Sent as `tasklist`, the name the reference client parses (see wsEventSchema).
      return [
        {
          type: 'tasklist',
          groupId: s.envelope.turn_id ?? 'checklist',
          groupTitle: 'Checklist',
          items: e.items.map((item, order) => ({ id: item.id, label: item.text || item.id, status: item.status, order })),
        },
      ];
    case 'notice':
      // The protocol knows warn|error only; an informational notice is still worth showing, as a warn.
      return [{ type: 'notice', level: 'warn', message: e.message, source: 'strand' }];
    case 'approval.requested':
      // The protocol cannot answer approvals; saying where to answer keeps the client from waiting blind.
      return [
        {
          type: 'notice',
          level: 'warn',
          message: `${e.tool} waits for approval (tool call ${e.tool_call_id}, ${e.timeout_s} s): POST /api/sessions/${s.envelope.session_id}/approve or /reject`,
          source: 'strand',
        },
      ];
    case 'retry.scheduled':
      return [
        {
          type: 'notice',
          level: 'warn',
          message: retryNotice(e),
          source: 'strand',
        },
      ];
    case 'budget.exceeded':
      // No event of this protocol says it; the notice names the caps and how to go on.
      return [{ type: 'notice', level: 'warn', message: budgetExceededMessage(e, s.envelope.session_id), source: 'strand' }];
    case 'error':
      return [
        {
          type: 'error',
          errorMessage: e.message,
          errorCode: e.code,
          error: { code: e.code, ...(e.kind ? { kind: e.kind } : {}), ...(e.provider ? { source: e.provider } : {}) },
        },
      ];
    default:
      // session.state, stream.reset, assistant.message, tool.executing, file.changed,
      // approval.resolved, compaction.*, turn.finished: no event of this protocol carries them (the
      // final message goes into the reply; turn.finished becomes the terminal frame, chosen by the caller).
      return [];
  }
}

/** The final reply: the last model step's text, the model, and the turn's tokens, tools and steps. */
export function wsReply(sum: TurnSummary, fallbackModel: string): ChatReply {
  return {
    output: sum.finalText,
    outputStreamed: sum.finalStreamed,
    model: sum.model || fallbackModel,
    usage: { inputTokens: sum.inputTokens, outputTokens: sum.outputTokens, totalTokens: sum.inputTokens + sum.outputTokens },
    toolCalls: sum.tools,
    modelCalls: sum.modelCalls,
  };
}

function deltaEvents(out: StepTextOut | undefined): WsEvent[] {
  if (!out?.text) return [];
  if (!out.diverged) return [{ type: 'text-delta', text: out.text }];
  return [
    { type: 'notice', level: 'warn', message: RETRIED_DIFFERENTLY, source: 'strand' },
    { type: 'text-delta', text: out.text },
  ];
}

function callEvents(id: string, tool: string, params: unknown): WsEvent[] {
  const args = params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : { value: params };
  const detail = summarizeArgs(args);
  return [
    { type: 'tool-call', toolCallId: id, toolName: tool, args },
    // The reference client draws a tool row from tool-output parts only: the header is that row.
    { type: 'tool-output', toolCallId: id, toolName: tool, content: { kind: 'tool-header', labelKey: tool, ...(detail ? { detail } : {}) } },
  ];
}

function resultEvents(e: Extract<AgentEvent, { type: 'tool.result' }>, toolName: string): WsEvent[] {
  const failed = e.is_error || e.status !== 'success';
  const out: WsEvent[] = [];
  if (e.summary.trim()) out.push({ type: 'tool-output', toolCallId: e.tool_call_id, toolName, content: { kind: 'text', text: e.summary } });
  out.push({
    type: 'tool-result',
    toolCallId: e.tool_call_id,
    toolName,
    ...(failed ? { isError: true, errorCode: e.status === 'success' ? 'error' : e.status, error: { kind: e.status, tool: toolName } } : {}),
  });
  return out;
}

/** One line naming what a tool call works on: its command, path or pattern, else its arguments as JSON. */
function summarizeArgs(args: Record<string, unknown>): string {
  for (const key of ['command', 'path', 'pattern']) {
    const v = args[key];
    if (typeof v === 'string' && v.trim()) return clip(v.trim());
  }
  const json = JSON.stringify(args);
  return json === '{}' ? '' : clip(json);
}

function clip(s: string): string {
  const line = s.replace(/\s+/g, ' ');
  return line.length > DETAIL_MAX ? `${line.slice(0, DETAIL_MAX - 1)}…` : line;
}
