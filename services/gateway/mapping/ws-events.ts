import type { AgentEvent, AgentEventEnvelope } from '../../../contracts/agent-events';
import type { ChatReply, WsEvent } from '../../../contracts/ws-rpc';
import { RETRIED_DIFFERENTLY, StepTexts } from './step-text';

/** Longest tool-argument summary shown in a tool row's header. */
const DETAIL_MAX = 120;

/**
 * Maps one turn's canonical agent events onto the WebSocket RPC event vocabulary (specs/ws-rpc.md),
 * and gathers what the final reply needs. One instance per chat, fed every event of the turn in
 * stream order: it remembers which tool calls it announced (so `tool-output`/`tool-result` never name
 * an unknown call, and one task's calls never show up in another's stream) and the text each model
 * step has already delivered. A retried step's text follows the one rule of step-text.ts: a
 * continuation appends; the protocol has no way to take text back, so after a `stream.reset` the
 * repeated prefix is swallowed and only what is new goes out; should the retry say something else, a
 * notice says so and the reply's `output` is authoritative.
 */
export class WsTurnMapper {
  private readonly calls = new Map<string, string>();
  private readonly steps = new StepTexts();
  private readonly toolNames: string[] = [];
  private finalText = '';
  private finalStreamed = false;
  private modelCalls = 0;
  private inputTokens = 0;
  private outputTokens = 0;
  private model: string | undefined;

  map(envelope: AgentEventEnvelope): WsEvent[] {
    const e = envelope.event;
    switch (e.type) {
      case 'session.state':
        if (e.model) this.model = e.model;
        return [];
      case 'turn.started':
        return [{ type: 'status', state: { kind: 'running' } }];
      case 'assistant.delta':
        return this.delta(e.step, e.text, envelope.attempt ?? 1);
      case 'assistant.thinking_delta':
        return this.steps.thinking(String(e.step), envelope.attempt ?? 1, e.text) === undefined ? [] : [{ type: 'reasoning', text: e.text }];
      case 'stream.reset':
        this.steps.reset(String(e.step), envelope.attempt ?? 1);
        return [];
      case 'assistant.message':
        return this.message(e);
      case 'tool.call':
        return this.call(e.tool_call_id, e.tool, e.params);
      case 'tool.output': {
        const toolName = this.calls.get(e.tool_call_id);
        if (toolName === undefined || e.content === '') return [];
        return [{ type: 'tool-output', toolCallId: e.tool_call_id, toolName, content: { kind: 'shell-output', stream: 'stdout', text: e.content } }];
      }
      case 'tool.result':
        return this.result(e);
      case 'usage':
        return [{ type: 'usage', inputTokens: e.input, outputTokens: e.output }];
      case 'checklist':
        // Sent as `tasklist`, the name the reference client parses (see wsEventSchema).
        return [
          {
            type: 'tasklist',
            groupId: envelope.turn_id ?? 'checklist',
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
            message: `${e.tool} waits for approval (tool call ${e.tool_call_id}, ${e.timeout_s} s): POST /api/sessions/${envelope.session_id}/approve or /reject`,
            source: 'strand',
          },
        ];
      case 'retry.scheduled':
        return [
          {
            type: 'notice',
            level: 'warn',
            message: `provider retry ${e.attempt}${e.max_attempts ? `/${e.max_attempts}` : ''} in ${e.delay_ms} ms: ${e.reason}`,
            source: 'strand',
          },
        ];
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
        // tool.executing, file.changed, approval.resolved, compaction.*, turn.finished: no event of
        // this protocol carries them (turn.finished becomes the terminal frame, chosen by the caller).
        return [];
    }
  }

  /** The final reply: the last model step's text, the model, and the turn's tokens, tools and steps. */
  reply(fallbackModel: string): ChatReply {
    return {
      output: this.finalText,
      outputStreamed: this.finalStreamed,
      model: this.model || fallbackModel,
      usage: { inputTokens: this.inputTokens, outputTokens: this.outputTokens, totalTokens: this.inputTokens + this.outputTokens },
      toolCalls: [...this.toolNames],
      modelCalls: this.modelCalls,
    };
  }

  private delta(n: number, text: string, attempt: number): WsEvent[] {
    const out = this.steps.delta(String(n), attempt, text);
    if (!out.text) return [];
    if (!out.diverged) return [{ type: 'text-delta', text: out.text }];
    return [
      { type: 'notice', level: 'warn', message: RETRIED_DIFFERENTLY, source: 'strand' },
      { type: 'text-delta', text: out.text },
    ];
  }

  private message(e: Extract<AgentEvent, { type: 'assistant.message' }>): WsEvent[] {
    this.modelCalls += 1;
    this.finalText = e.text;
    this.finalStreamed = this.steps.shows(String(e.step), e.text);
    if (e.usage) {
      this.inputTokens += e.usage.input;
      this.outputTokens += e.usage.output;
    }
    return [];
  }

  private call(id: string, tool: string, params: unknown): WsEvent[] {
    this.calls.set(id, tool);
    this.toolNames.push(tool);
    const args = params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : { value: params };
    const detail = summarizeArgs(args);
    return [
      { type: 'tool-call', toolCallId: id, toolName: tool, args },
      // The reference client draws a tool row from tool-output parts only: the header is that row.
      { type: 'tool-output', toolCallId: id, toolName: tool, content: { kind: 'tool-header', labelKey: tool, ...(detail ? { detail } : {}) } },
    ];
  }

  private result(e: Extract<AgentEvent, { type: 'tool.result' }>): WsEvent[] {
    const toolName = this.calls.get(e.tool_call_id);
    if (toolName === undefined) return [];
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
