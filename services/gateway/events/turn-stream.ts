import type { AgentEvent, AgentEventEnvelope } from '../../../contracts/agent-events';
import { StepTexts, type StepTextOut } from '../../../contracts/step-text';
import { subagentProgressLine } from './subagent-progress';
import { ToolCalls, type ToolCallView } from './tool-calls';

;

/**
 * One canonical event as a client's stream sees it: which turn it belongs to, whether the client is
 * to be shown it, and what it means for what the client shows. Protocol mappers are pure functions
 * of this (mapping/*-events.ts); every stream rule lives here, once.
 */
export interface StreamedEvent {
  envelope: AgentEventEnvelope;
  event: AgentEvent;
  /** The turn the event belongs to: the envelope's, else the event's own. */
  turn: string | undefined;
  /** The request that started the turn, when this stream was told (`attribute`). */
  request: string | undefined;
  /** The client aborted the turn (or an abort of the running turn is on its way): its content is not shown. */
  silenced: boolean;
  /** Turn content (text, tools, approvals) as opposed to status (session state, notices, errors, turn ends). */
  content: boolean;
  /** The client already holds this (a transcript it was sent): model steps and tool results. */
  known: boolean;
  /** `assistant.delta`: what extends the client's text (step-text.ts; '' for nothing). */
  text?: StepTextOut;
  /** `assistant.thinking_delta`: the step's whole thinking so far; undefined for a straggler. */
  thinking?: string;
  /** `assistant.thinking_delta`: what extends the thinking of a client that only appends (the text's rule). */
  thinkingText?: StepTextOut;
  /** `assistant.message`: the client's text of the step is exactly the final text. */
  streamed?: boolean;
  /** `tool.*`, `approval.requested`: the call as this stream announced it (undefined when it never saw it). */
  call?: ToolCallView;
  /** `tool.output`: the newest part of the call's output so far (see `outputTailChars`). */
  output?: { tail: string; clipped: boolean };
  /** `session.state`: what a status line shows changed (turn running, model, thinking, name, waiting for approval). */
  statusChanged?: boolean;
}

/** What a turn added up to, for a protocol whose last frame sums it up. */
export interface TurnSummary {
  finalText: string;
  /** The final text is what the client was streamed (nothing diverged, nothing missing). */
  finalStreamed: boolean;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  tools: string[];
  /** The model as the last session state named it. */
  model: string | undefined;
  /** Why the turn's last model step stopped (`length`: the output limit; `function_call` at the end: the step limit or an interrupt). */
  stopReason?: AssistantStopReason;
  /** How the turn ended, once its `turn.finished` was read. */
  outcome?: TurnOutcome;
  /** The turn's last `error` event: what a client says when the turn failed. */
  error?: { code: string; message: string; kind?: string; provider?: string };
}

type AssistantStopReason = Extract<AgentEvent, { type: 'assistant.message' }>['stop_reason'];
type TurnOutcome = Extract<AgentEvent, { type: 'turn.finished' }>['outcome'];

export interface TurnStreamOptions {
  /** Follow this one turn only: other turns' events are skipped, turnless ones count from its first event on. */
  only?: string;
  /** How much of a running tool's output is kept for `output` (default 8 KiB). */
  outputTailChars?: number;
}

const CONTENT: ReadonlySet<AgentEvent['type']> = new Set([
  'assistant.delta',
  'assistant.thinking_delta',
  'assistant.message',
  'stream.reset',
  'tool.call',
  'tool.executing',
  'tool.output',
  'tool.result',
  'approval.requested',
  'approval.resolved',
  'usage',
  'file.changed',
  'checklist',
  'compaction.started',
]);

/** Turns whose request attribution is kept: the idle state after a turn still names its request. */
const REMEMBERED_TURNS = 64;

/**
 * The protocol-neutral state machine of one client's event stream, fed every event in stream order
 * (no I/O). It knows which turn an event belongs to, applies the one step-text rule, silences turns
 * the client aborted, remembers what the client already holds, names tool calls in later tool
 * events, keeps the approvals still open and sums up each turn. WebSocket, EDN and the ACP agent
 * read it; SSE clients apply the rules themselves from the event fields, so SSE maps events raw.
 */
export class TurnStream {
  private readonly steps = new StepTexts();
  private readonly tools: ToolCalls;
  private readonly silencedTurns = new Set<string>();
  private readonly knownSteps = new Set<string>();
  private readonly knownResults = new Set<string>();
  private readonly knownPrompts = new Set<string>();
  private readonly requests = new Map<string, string>();
  private readonly summaries = new Map<string, TurnSummary>();
  private readonly approvals = new Map<string, string | undefined>();
  private current: string | undefined;
  private aborting = false;
  private started = false;
  private statusKey: string | undefined;
  private model: string | undefined;

  constructor(private readonly opts: TurnStreamOptions = {}) {
    this.tools = new ToolCalls(opts.outputTailChars ?? 8_192);
  }

  /** The turn running as far as the stream has told (the one an abort now applies to). */
  get turn(): string | undefined {
    return this.current;
  }

  /** Tool calls announced and not answered yet, in the order they were asked. */
  get pendingApprovals(): string[] {
    return [...this.approvals.keys()];
  }

  /** From now on the turn's content is silenced: the client aborted it. */
  silence(turnId: string | undefined): void {
    if (turnId) this.silencedTurns.add(turnId);
  }

  /** The client asked to abort: until `aborted` names the turn stopped, all turn content is silenced. */
  abortRequested(): void {
    this.aborting = true;
    this.silence(this.current);
  }

  /** The abort's answer: the turn it stopped (null when none ran) stays silent; others speak again. */
  aborted(turnId: string | null): void {
    this.silence(turnId ?? undefined);
    this.aborting = false;
  }

  /** The turn `requestId` started: its events carry that request. */
  attribute(turnId: string, requestId: string): void {
    this.requests.set(turnId, requestId);
    if (this.requests.size > REMEMBERED_TURNS) this.requests.delete(this.requests.keys().next().value as string);
  }

  requestOf(turnId: string | undefined): string | undefined {
    return turnId === undefined ? undefined : this.requests.get(turnId);
  }

  /**
   * What a transcript sent to the client already holds: model steps (`turn:step`), tool results (call
   * ids) and the prompts of turns (turn ids: their `turn.started` is marked known).
   */
  known(steps: Iterable<string>, toolResults: Iterable<string>, prompts: Iterable<string> = []): void {
    for (const s of steps) this.knownSteps.add(s);
    for (const r of toolResults) this.knownResults.add(r);
    for (const t of prompts) this.knownPrompts.add(t);
  }

  /** The turn's sums so far (empty for a turn the stream has not seen). */
  summary(turnId: string): TurnSummary {
    const sum = this.summaries.get(turnId) ?? emptySummary();
    return { ...sum, tools: [...sum.tools], model: this.model };
  }

  /** Reads the next event; undefined when it is not this stream's (another turn than the one followed). */
  next(envelope: AgentEventEnvelope): StreamedEvent | undefined {
    // A sub-agent's event (docs/subagents.md) is not the turn's content: its text is not the turn's
    // answer, its usage is summed by the task's own result, its approvals nobody answers. What it
    // does is read as output of its task call (SSE maps the marked events raw instead).
    if (envelope.subagent) {
      const progress = subagentProgressLine(envelope);
      return progress && this.next({ ...envelope, subagent: undefined, event: { type: 'tool.output', tool_call_id: progress.tool_call_id, content: progress.line } });
    }
    const event = envelope.event;
    const turn = envelope.turn_id ?? ('turn_id' in event && typeof event.turn_id === 'string' ? event.turn_id : undefined);
    if (this.opts.only !== undefined) {
      if (turn !== undefined ? turn !== this.opts.only : !this.started) return undefined;
      this.started = true;
    }
    const silenced = this.aborting || (turn !== undefined && this.silencedTurns.has(turn));
    const content = CONTENT.has(event.type);
    const out: StreamedEvent = { envelope, event, turn, request: this.requestOf(turn), silenced, content, known: false };
    this.apply(out, envelope.attempt ?? 1);
    return out;
  }

  private apply(out: StreamedEvent, attempt: number): void {
    const { event: e, turn } = out;
    const stepKey = (step: number) => `${turn}:${step}`;
    const quiet = out.silenced;
    switch (e.type) {
      case 'session.state':
        if (e.turn_id) this.current = e.turn_id;
        if (e.model) this.model = e.model;
        out.statusChanged = this.statusMoved([e.turn_id !== null, e.model, e.thinking_level, e.session_name ?? '', e.phase === 'waiting_approval'].join('|'));
        return;
      case 'turn.started':
        this.current = e.turn_id;
        out.known = this.knownPrompts.has(e.turn_id);
        return;
      case 'turn.finished':
        this.summaryOf(e.turn_id).outcome = e.outcome;
        this.forget(e.turn_id);
        return;
      case 'error':
        this.summaryOf(turn).error = { code: e.code, message: e.message, ...(e.kind ? { kind: e.kind } : {}), ...(e.provider ? { provider: e.provider } : {}) };
        return;
      case 'assistant.delta':
        out.known = this.knownSteps.has(stepKey(e.step));
        if (!quiet && !out.known) out.text = this.steps.delta(stepKey(e.step), attempt, e.text);
        return;
      case 'assistant.thinking_delta':
        out.known = this.knownSteps.has(stepKey(e.step));
        if (!quiet && !out.known) {
          const got = this.steps.thinkingDelta(stepKey(e.step), attempt, e.text);
          if (got) {
            out.thinking = got.whole;
            out.thinkingText = got.out;
          }
        }
        return;
      case 'stream.reset':
        if (!quiet) this.steps.reset(stepKey(e.step), attempt);
        return;
      case 'assistant.message': {
        out.known = this.knownSteps.has(stepKey(e.step));
        out.streamed = this.steps.shows(stepKey(e.step), e.text);
        const sum = this.summaryOf(turn);
        sum.modelCalls += 1;
        sum.finalText = e.text;
        sum.finalStreamed = out.streamed;
        sum.stopReason = e.stop_reason;
        sum.inputTokens += e.usage?.input ?? 0;
        sum.outputTokens += e.usage?.output ?? 0;
        return;
      }
      case 'tool.call':
        out.call = this.tools.announce(e.tool_call_id, e.tool, e.params, turn);
        out.known = this.knownResults.has(e.tool_call_id);
        this.summaryOf(turn).tools.push(e.tool);
        return;
      case 'tool.executing':
        out.call = this.tools.get(e.tool_call_id);
        out.known = this.knownResults.has(e.tool_call_id);
        return;
      case 'tool.output':
        out.call = this.tools.get(e.tool_call_id);
        out.output = this.tools.output(e.tool_call_id, e.content);
        out.known = this.knownResults.has(e.tool_call_id);
        return;
      case 'tool.result':
        out.call = this.tools.get(e.tool_call_id);
        out.known = this.knownResults.has(e.tool_call_id);
        this.approvals.delete(e.tool_call_id);
        return;
      case 'approval.requested':
        out.call = this.tools.get(e.tool_call_id);
        out.known = this.knownResults.has(e.tool_call_id);
        if (!out.known) this.approvals.set(e.tool_call_id, turn);
        return;
      case 'approval.resolved':
        this.approvals.delete(e.tool_call_id);
        return;
      default:
        return;
    }
  }

  private statusMoved(key: string): boolean {
    const moved = key !== this.statusKey;
    this.statusKey = key;
    return moved;
  }

  private summaryOf(turn: string | undefined): TurnSummary {
    const key = turn ?? '';
    let sum = this.summaries.get(key);
    if (!sum) this.summaries.set(key, (sum = emptySummary()));
    return sum;
  }

  /** A finished turn: its step texts, tool calls and open approvals go (its sums stay for the reply). */
  private forget(turnId: string): void {
    this.steps.forget(`${turnId}:`);
    this.tools.forgetTurn(turnId);
    for (const [callId, turn] of this.approvals) if (turn === turnId) this.approvals.delete(callId);
    if (this.summaries.size > REMEMBERED_TURNS) this.summaries.delete(this.summaries.keys().next().value as string);
    if (this.current === turnId) this.current = undefined;
  }
}

function emptySummary(): TurnSummary {
  return { finalText: '', finalStreamed: false, modelCalls: 0, inputTokens: 0, outputTokens: 0, tools: [], model: undefined };
}
