import { ApplicationFailure } from '@temporalio/workflow';
import { FailureType } from '../../contracts/failures';
import {
  boundSeenRequests,
  type SeenRequest,
  type SessionRecord,
  type SessionSettings,
} from '../../contracts/session-settings';
import {
  NOTHING_RUNNING,
  approvalCommandSchema,
  promptCommandSchema,
  steerCommandSchema,
  turnCommandSchema,
  settingsChangeSchema,
  userCommandSchema,
  type SettingsChange,
  type ApprovalCommand,
  type PromptAccepted,
  type PromptCommand,
  type QueuedPrompt,
  type SessionAccess,
  type SessionSnapshot,
} from '../../contracts/session-workflow';
import type { TurnProgress } from '../../contracts/turn-workflow';
import { turnId } from '../../contracts/workflow-ids';
import type { AgentPhase } from '../../contracts/agent-events';
import type { TurnOutcome } from '../../contracts/turn-workflow';
import { TurnIntents } from './turn-intents';
import { applySettingsChange } from '../../contracts/settings-change';

/** Work other than a turn that holds the session while it runs; each has its phase. */
type ExclusiveWork = 'compaction' | 'command' | 'revert';
const WORK_PHASE: Record<ExclusiveWork, AgentPhase> = { compaction: 'compacting', command: 'tool_execution', revert: 'tool_execution' };

/**
 * The session workflow's runtime state and the rules for changing it. The workflow function owns the
 * loop and the side effects; this class owns the invariants: one turn at a time, a real FIFO queue,
 * turn numbers never reused, a request id accepted once (across runs: the seen ids are persisted and
 * carried), and a phase that is only `idle` when a prompt would be accepted.
 *
 * The phase is derived in one place (`phase`) from what runs, changed only by named transitions:
 * startNext/finishTurn (a turn), begin/endWork (a compaction, a user's command, a revert). The running
 * turn's own phase comes from its reports (applyProgress).
 */
export class SessionState {
  record: SessionRecord | undefined;
  activeTurn: string | null = null;
  step: number | null = null;
  streaming = false;
  retryAttempt = 0;
  details: string | undefined;
  /**
   * Stream sequence of the running turn's first event (its `thinking` state): the one the session
   * published, or, when the turn announces its own start, the one after the session's last event.
   */
  turnStartSeq: number | null = null;
  /** Between taking the next queued prompt and knowing turnStartSeq (runNextTurn). */
  startingTurn = false;
  /** The running turn was asked to stop at its next step boundary. */
  interruptPending = false;
  /**
   * The running turn keeps its own view in its memo (`view_in_memo`) and reports here only the phases
   * the session acts on: readers take the rest from the turn (snapshot's `turn_keeps_view`).
   */
  turnKeepsView = false;
  /** Tool calls of the running turn waiting for a person's answer. */
  pendingApprovals: Array<{ tool_call_id: string; tool: string }> = [];
  readonly queue: QueuedPrompt[];
  /** Prompts accepted by a fresh run before its record was loaded (they claim the session). */
  private unloadedPrompts = 0;
  /** The running turn's phase as it last reported it. */
  #turnPhase: AgentPhase = 'thinking';
  /** A compaction, a user's command or a revert runs (the session takes no turn meanwhile). */
  #work: ExclusiveWork | null = null;
  /**
   * Only for histories recorded before `phase-transitions`: clear_queue during a compaction or a
   * command published `idle` there, and replay must publish (and upsert) the same. Cleared by the next transition.
   */
  #legacyPhase: AgentPhase | null = null;
  /** Abort, interrupt and steering for turns whose child does not exist yet; ended turns' outcomes. */
  readonly intents = new TurnIntents();

  constructor(
    readonly sessionId: string,
    carried?: { record: SessionRecord; queue: QueuedPrompt[] },
    /** Who may prompt the session, as its run was started (undefined: a run an older gateway started). */
    readonly access?: SessionAccess,
  ) {
    this.record = carried?.record;
    this.queue = carried ? [...carried.queue] : [];
  }

  get loaded(): boolean {
    return this.record !== undefined;
  }

  /** The one place the session's phase is decided: idle only when nothing runs and nothing waits. */
  get phase(): AgentPhase {
    if (this.activeTurn !== null) return this.#turnPhase;
    if (this.#legacyPhase) return this.#legacyPhase;
    if (this.#work) return WORK_PHASE[this.#work];
    return this.queue.length > 0 ? 'thinking' : 'idle';
  }

  get compacting(): boolean {
    return this.#work === 'compaction';
  }

  /** A compaction, a user's command or a revert runs. */
  get working(): boolean {
    return this.#work !== null;
  }

  get runningCommand(): boolean {
    return this.#work === 'command';
  }

  /** A compaction, a user's command or a revert begins (their validators refused them unless idle). */
  beginWork(work: ExclusiveWork): void {
    this.#work = work;
    this.#legacyPhase = null;
  }

  /** It ended: thinking when a queued prompt is about to start, else idle. */
  endWork(): void {
    this.#work = null;
    this.#legacyPhase = null;
  }

  /** True while a turn runs, one is queued, or a prompt is being accepted. */
  get busy(): boolean {
    return this.activeTurn !== null || this.queue.length > 0 || this.unloadedPrompts > 0 || this.#work !== null;
  }

  /**
   * The one rule for starting the next queued turn. A turn, a manual compaction and a user's command
   * each rewrite the conversation, so they never overlap: compaction and commands are refused unless
   * the session is idle (their validators), and a queued prompt waits until whichever runs has ended.
   */
  get canStartTurn(): boolean {
    return this.loaded && this.queue.length > 0 && this.activeTurn === null && this.#work === null;
  }

  /** Work other than a turn that must end before the run may continue as new. */
  get holdsRun(): boolean {
    return this.activeTurn !== null || this.unloadedPrompts > 0 || this.#work !== null;
  }

  /**
   * The turn an abort, interrupt or steer means: the one it names, or (none named) the running one,
   * else the next queued one. Null when that turn has ended or never was.
   */
  commandTarget(turn_id: string | undefined): string | null {
    if (turn_id === undefined) return this.activeTurn ?? (this.queue[0] ? turnId(this.queue[0].turn_number) : null);
    if (turn_id === this.activeTurn || this.isQueued(turn_id)) return turn_id;
    return null;
  }

  isQueued(turn: string): boolean {
    return this.queue.some((q) => turnId(q.turn_number) === turn);
  }

  /** abort, interrupt: only for a turn that runs or waits (otherwise the command never reaches history). */
  validateTurnCommand(command: string, cmd: unknown): void {
    const parsed = turnCommandSchema.safeParse(cmd);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(parsed.error.issues.map((i) => i.message).join('; '), FailureType.INVALID_COMMAND);
    if (this.commandTarget(parsed.data?.turn_id) === null) {
      throw nothingRunning(`${command}: ${parsed.data?.turn_id ? `turn ${parsed.data.turn_id}` : 'no turn'} of session ${this.sessionId} is ${parsed.data?.turn_id ? 'not running or queued' : 'running'}`);
    }
  }

  validateSteer(cmd: unknown): void {
    const parsed = steerCommandSchema.safeParse(cmd);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(parsed.error.issues.map((i) => i.message).join('; '), FailureType.INVALID_COMMAND);
    this.validateTurnCommand('steer', { ...(parsed.data.turn_id ? { turn_id: parsed.data.turn_id } : {}) });
  }

  validateAbortRetry(): void {
    if (this.activeTurn === null || this.phase !== 'retrying') throw nothingRunning(`abort_retry: no turn of session ${this.sessionId} waits to retry`);
  }
  validateClearQueue(): void {
    if (this.queue.length === 0) throw nothingRunning(`clear_queue: nothing is queued in session ${this.sessionId}`);
  }
  validateAbortUserCommand(): void {
    if (!this.runningCommand) throw nothingRunning(`abort_command: no command of session ${this.sessionId} is running`);
  }

  /** The prompt validator: synchronous; a rejected prompt never reaches history. */
  validatePrompt(raw: PromptCommand): void {
    const parsed = promptCommandSchema.safeParse(raw);
    if (!parsed.success) {
      throw ApplicationFailure.nonRetryable(parsed.error.issues.map((i) => i.message).join('; '), FailureType.INVALID_COMMAND);
    }
    const prompt = parsed.data;
    if (prompt.request_id && this.seen(prompt.request_id)) return;
    if (this.busy && prompt.behavior === 'reject') {
      throw ApplicationFailure.nonRetryable(
        `session ${this.sessionId} is busy with turn ${this.activeTurn ?? this.queue[0]?.turn_number ?? '(starting)'}`,
        FailureType.SESSION_BUSY,
      );
    }
  }

  /** Called synchronously at the top of the prompt handler of a run whose record is not loaded yet. */
  claimUnloaded(): void {
    this.unloadedPrompts += 1;
  }

  releaseUnloaded(): void {
    this.unloadedPrompts -= 1;
  }

  /**
   * Accepts a validated prompt once the record is loaded: answers a seen request id with its turn, or
   * hands out the next turn number and queues it. Synchronous, so two prompts in one activation
   * cannot both take the idle session.
   */
  accept(raw: PromptCommand): PromptAccepted {
    const record = this.requireRecord();
    const prompt = promptCommandSchema.parse(raw);
    const known = prompt.request_id ? this.seen(prompt.request_id) : undefined;
    if (known) {
      return { turn_id: known.turn_id, turn_number: known.turn_number, agent_state: this.phase, queued: false, duplicate: true };
    }
    const wasBusy = this.busy;
    record.last_turn += 1;
    const turn: QueuedPrompt = {
      turn_number: record.last_turn,
      text: prompt.text,
      ...(prompt.request_id ? { request_id: prompt.request_id } : {}),
      ...(prompt.images?.length ? { images: prompt.images } : {}),
      ...(prompt.budget ? { budget: prompt.budget } : {}),
    };
    this.queue.push(turn);
    if (prompt.request_id) {
      record.requests = boundSeenRequests([...record.requests, { request_id: prompt.request_id, turn_id: turnId(turn.turn_number), turn_number: turn.turn_number }]);
    }
    return {
      turn_id: turnId(turn.turn_number),
      turn_number: turn.turn_number,
      agent_state: this.phase,
      queued: wasBusy,
      // Between turns the head of the queue is about to start; behind a turn, compaction or command it waits.
      ...(wasBusy ? { queue_position: Math.max(1, this.queue.length - (this.activeTurn || this.#work ? 0 : 1)) } : {}),
      duplicate: false,
    };
  }

  /** Takes the next queued prompt as the running turn. */
  startNext(): QueuedPrompt | undefined {
    const next = this.queue.shift();
    if (!next) return undefined;
    this.activeTurn = turnId(next.turn_number);
    this.#turnPhase = 'thinking';
    this.#legacyPhase = null;
    // An interrupt sent while the turn waited applies from its start.
    this.interruptPending = this.intents.peek(this.activeTurn)?.interrupt === true;
    this.step = 0;
    this.streaming = true;
    this.retryAttempt = 0;
    this.details = undefined;
    return next;
  }

  /** The running turn ended: idle unless another prompt waits (then it is about to start). */
  finishTurn(outcome: TurnOutcome = 'done'): void {
    if (this.activeTurn !== null) this.intents.ended(this.activeTurn, outcome);
    this.activeTurn = null;
    this.turnKeepsView = false;
    this.step = null;
    this.streaming = false;
    this.retryAttempt = 0;
    this.details = undefined;
    this.pendingApprovals = [];
    this.turnStartSeq = null;
    this.interruptPending = false;
    this.#legacyPhase = null;
  }

  /** A queued turn aborted before it started: it leaves the queue and ends without running. */
  dropQueued(turn: string): boolean {
    const at = this.queue.findIndex((q) => turnId(q.turn_number) === turn);
    if (at < 0) return false;
    this.queue.splice(at, 1);
    this.intents.ended(turn, 'aborted');
    return true;
  }

  applyProgress(p: TurnProgress): boolean {
    if (p.turn_id !== this.activeTurn) return false;
    this.#turnPhase = p.phase;
    this.step = p.step;
    this.streaming = p.streaming ?? false;
    this.retryAttempt = p.retry_attempt ?? 0;
    this.details = p.details;
    this.pendingApprovals = p.pending_approvals ?? [];
    return true;
  }

  /** A user command runs only while the session is idle (psi's `bash`: between turns). */
  validateUserCommand(cmd: unknown): void {
    if (!userCommandSchema.safeParse(cmd).success) throw ApplicationFailure.nonRetryable('a command needs `command` (a non-empty string) and an optional whole `timeout_s` up to 3600', FailureType.INVALID_COMMAND);
    if (this.busy) throw ApplicationFailure.nonRetryable(`session ${this.sessionId} is busy: run the command once the turn is done`, FailureType.SESSION_BUSY);
  }

  /** A manual compaction needs an idle session (a turn compacts on its own when it must). */
  validateCompact(): void {
    if (this.busy) throw ApplicationFailure.nonRetryable(`session ${this.sessionId} is busy: compact it once the turn is done`, FailureType.SESSION_BUSY);
  }

  /** The approval validator: only a call that waits for an answer can be answered. */
  validateApproval(cmd: ApprovalCommand): void {
    const parsed = approvalCommandSchema.safeParse(cmd);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(parsed.error.issues.map((i) => i.message).join('; '), FailureType.INVALID_COMMAND);
    // A client may answer the moment it sees the call announced, a few milliseconds before the turn has
    // reported it as waiting: while a turn runs, the answer is taken and waits for it (see awaitPending).
    if (!this.isPending(cmd.tool_call_id) && this.activeTurn === null) {
      throw ApplicationFailure.nonRetryable(`no tool call ${cmd.tool_call_id} is waiting for approval`, FailureType.UNKNOWN_TOOL_CALL);
    }
  }

  isPending(callId: string): boolean {
    return this.pendingApprovals.some((p) => p.tool_call_id === callId);
  }

  get settings(): SessionSettings {
    return this.requireRecord().settings;
  }

  /** Records an answer; `always` also allows the tool from now on (a settings change). */
  applyApproval(cmd: ApprovalCommand): { settingsChanged: boolean } {
    const call = this.pendingApprovals.find((p) => p.tool_call_id === cmd.tool_call_id);
    this.pendingApprovals = this.pendingApprovals.filter((p) => p.tool_call_id !== cmd.tool_call_id);
    const approval = this.requireRecord().settings.approval;
    if (cmd.decision !== 'always' || !call || approval.always_allow.includes(call.tool)) return { settingsChanged: false };
    approval.always_allow = [...approval.always_allow, call.tool];
    return { settingsChanged: true };
  }

  validateSettings(change: SettingsChange): void {
    const parsed = settingsChangeSchema.safeParse(change);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), FailureType.INVALID_COMMAND);
  }

  /** Applies a validated change; true when anything changed. */
  applySettings(change: SettingsChange): boolean {
    const record = this.requireRecord();
    const before = JSON.stringify(record.settings);
    record.settings = applySettingsChange(record.settings, change);
    return JSON.stringify(record.settings) !== before;
  }

  /** Drops every queued prompt; the turns it drops. */
  clearQueue(): string[] {
    const dropped = this.queue.map((q) => turnId(q.turn_number));
    for (const turn of dropped) this.intents.ended(turn, 'aborted');
    this.queue.length = 0;
    return dropped;
  }

  /** What clear_queue did before `phase-transitions` while a compaction or command ran (replay only). */
  legacyIdle(): void {
    if (this.activeTurn === null) this.#legacyPhase = 'idle';
  }

  snapshot(): SessionSnapshot {
    const record = this.record;
    return {
      session_id: this.sessionId,
      project_path: record?.project_path ?? '',
      phase: this.phase,
      settings: record?.settings ?? null,
      active_turn: this.activeTurn,
      step: this.step,
      streaming: this.streaming,
      retry_attempt: this.retryAttempt,
      last_turn: record?.last_turn ?? 0,
      queue: [...this.queue],
      pending_approvals: [...this.pendingApprovals],
      turn_start_seq: this.turnStartSeq,
      interrupt_pending: this.interruptPending,
      ...(this.details ? { details: this.details } : {}),
      ...(this.activeTurn !== null && this.turnKeepsView ? { turn_keeps_view: true } : {}),
    };
  }

  private seen(requestId: string): SeenRequest | undefined {
    return this.record?.requests.find((r) => r.request_id === requestId);
  }

  private requireRecord(): SessionRecord {
    if (!this.record) throw ApplicationFailure.nonRetryable('session record used before it was loaded', FailureType.INVALID_COMMAND);
    return this.record;
  }
}

const nothingRunning = (message: string) => ApplicationFailure.nonRetryable(message, NOTHING_RUNNING);
