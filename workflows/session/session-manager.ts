import * as wf from '@temporalio/workflow';
import {
  abortRetryUpdate,
  abortUpdate,
  abortUserCommandUpdate,
  approvalUpdate,
  clearQueueUpdate,
  compactUpdate,
  interruptUpdate,
  promptUpdate,
  checkedPromptUpdate,
  sessionStateQuery,
  setSettingsUpdate,
  steerUpdate,
  userCommandUpdate,
  type ApprovalCommand,
  type PromptAccepted,
  type PromptCommand,
  type SettingsChange,
  type UserCommand,
  type UserCommandResult,
} from '../../contracts/session-workflow';
import {
  turnApprovalSignal,
  turnBudgetSignal,
  turnProgressPublishedSignal,
  turnProgressSignal,
  turnSteerSignal,
  turnSessionPartSignal,
  type TurnProgress,
} from '../../contracts/turn-workflow';
import { entryIds, turnNumberOf, turnWorkflowId } from '../../contracts/workflow-ids';
import { FailureType } from '../../contracts/failures';
import type { turnWorkflow } from '../turn/turn-workflow';
import { sa, upsertIfChanged } from '../search-attributes';
import { COMPACTION_OPTIONS, compaction, local, stateEvent, statePart, userCommands } from './session-events';
import type { EventQueue } from '../event-queue';
import type { SessionState } from './session-state';
import { registerCheckpoints } from './session-checkpoints';
import { checkPromptAccess } from './prompt-access';
import { TURN_COMMAND_INTENTS, abortRetry, abortTurn, announceDropped, interruptTurn, steerTurn } from './turn-commands';

/** Patch id (2026-11) of the derived phase: clear_queue during a compaction keeps its phase; a revert publishes one. */
export const PHASE_TRANSITIONS = 'phase-transitions';

/** Patch id (2026-11) of the state published when a prompt is queued (SessionManager.told); deprecate once no older run is open. */
const QUEUED_PROMPT_TOLD = 'queued-prompt-told';

/** How long an approval for a call the turn has not reported yet may wait for it. */
const APPROVAL_ARRIVAL_MS = 3_000;

/**
 * The session workflow's message handlers, as methods over its state (safe-message-handlers). Every
 * update has a validator, so a command that cannot apply never reaches history. Handlers that wait
 * (compaction, a user's command, abort) are serialized with turns by `SessionState.canStartTurn`:
 * at most one of them rewrites the conversation at a time.
 */
export class SessionManager {
  /** The running turn's child handle, once it has started. */
  child: wf.ChildWorkflowHandle<typeof turnWorkflow> | undefined;
  /**
   * The running turn publishes `session.state` itself (contracts/session-state-event.ts): the session
   * hands it its part instead of publishing. Set once the child is being started, cleared at its end.
   */
  childPublishesState = false;
  /** The session's part changed before the child's handle was there: delivered once it is. */
  private partPending = false;
  /** The caps changed while a turn ran, not yet handed to it (its handle was not there yet). */
  private budgetPending = false;
  private commandScope: wf.CancellationScope | undefined;

  constructor(
    readonly state: SessionState,
    readonly events: EventQueue,
    /** The run's input says its turns publish their own state (else the `turn-publishes-state` patch decides). */
    readonly turnsPublishState = false,
    /**
     * The run's input says its turns announce their own start (`turns_announce_start`; needs the flag
     * above), and the session's StrandPhase leaves a running turn's phases to the turn's own.
     */
    readonly turnsAnnounceStart = false,
    /** The run's input says its turns keep their own view in their memo (`turns_keep_view`; needs the flags above). */
    readonly turnsKeepView = false,
  ) {}

  register(): void {
    const s = this.state;
    wf.setHandler(sessionStateQuery, () => s.snapshot());
    wf.setHandler(promptUpdate, (p) => this.prompt(p), { validator: (p) => s.validatePrompt(p) });
    // A prompt sent without a store read: the run checks the caller first (prompt-access.ts). No new command.
    wf.setHandler(checkedPromptUpdate, ({ principal: _principal, ...p }) => this.prompt(p), {
      validator: (p) => {
        checkPromptAccess(s.sessionId, s.access, (p as { principal?: unknown } | undefined)?.principal);
        s.validatePrompt(p);
      },
    });
    wf.setHandler(abortUpdate, (cmd) => abortTurn(this, cmd), { validator: (cmd) => s.validateTurnCommand('abort', cmd) });
    wf.setHandler(abortRetryUpdate, () => abortRetry(this), { validator: () => s.validateAbortRetry() });
    wf.setHandler(interruptUpdate, (cmd) => interruptTurn(this, cmd), { validator: (cmd) => s.validateTurnCommand('interrupt', cmd) });
    wf.setHandler(steerUpdate, (cmd) => steerTurn(this, cmd), { validator: (cmd) => s.validateSteer(cmd) });
    wf.setHandler(approvalUpdate, (cmd) => this.approve(cmd), { validator: (cmd) => s.validateApproval(cmd) });
    wf.setHandler(setSettingsUpdate, (change) => this.setSettings(change), { validator: (change) => s.validateSettings(change) });
    wf.setHandler(compactUpdate, (cmd) => this.compact(cmd), { validator: (_cmd) => s.validateCompact() });
    wf.setHandler(userCommandUpdate, (cmd) => this.runUserCommand(cmd), { validator: (cmd) => s.validateUserCommand(cmd) });
    wf.setHandler(abortUserCommandUpdate, () => this.abortUserCommand(), { validator: () => s.validateAbortUserCommand() });
    wf.setHandler(clearQueueUpdate, () => this.clearQueue(), { validator: () => s.validateClearQueue() });
    wf.setHandler(turnProgressSignal, (p) => this.progress(p));
    registerCheckpoints(this);
  }

  /**
   * The phase and model as search attributes, so the Temporal UI lists sessions by them. While a turn
   * runs (`turns_announce_start` runs), the session's StrandPhase stays `thinking`, the phase it had at
   * the turn's start: the turn's own view has its phase as it goes (its memo for a `view_in_memo`
   * turn, else its StrandPhase; /api/turns reads either), and the session's copy cost a visibility
   * write per report (two per tool call) for nothing a client reads.
   */
  syncAttributes(): void {
    const s = this.state;
    const phase = this.turnsAnnounceStart && s.activeTurn !== null ? 'thinking' : s.phase;
    upsertIfChanged([{ key: sa.phase, value: phase }, ...(s.record ? [{ key: sa.model, value: s.record.settings.model }] : [])]);
  }

  async publishState(): Promise<{ first_seq?: number }> {
    if (this.childPublishesState && this.state.activeTurn !== null) {
      this.syncAttributes();
      this.partPending = true;
      await this.deliverPart();
      return {};
    }
    return this.publishOwnState();
  }

  /** Publishes `session.state` as the session knows it, whoever else publishes it meanwhile. */
  private publishOwnState(): Promise<{ first_seq?: number }> {
    this.syncAttributes();
    return this.events.publish([{ event: stateEvent(this.state), ...(this.state.activeTurn ? { turn_id: this.state.activeTurn } : {}) }]);
  }

  /** Hands the running turn the session's part of its state, once its handle is there. */
  async deliverPart(): Promise<void> {
    if (!this.partPending || !this.child) return;
    this.partPending = false;
    // A turn that has just ended cannot take it; the session's own state after the turn carries it.
    await this.child.signal(turnSessionPartSignal, statePart(this.state)).catch(() => undefined);
  }

  /**
   * Hands the running turn the session's caps after a change, once its handle is there: a change made
   * while the turn was being started (its input already taken) is delivered as soon as it has started.
   */
  async deliverBudget(): Promise<void> {
    if (!this.budgetPending || !this.child) return;
    this.budgetPending = false;
    const budget = this.state.settings.budget;
    await this.child.signal(turnBudgetSignal, { ...(budget ? { budget } : {}) }).catch(() => undefined);
  }

  /**
   * Signals the running turn; false when it had already ended (Temporal answers "Unable to signal
   * external workflow because it was not found"): a command racing the turn's end is answered, not failed.
   */
  async signalChild<Args extends unknown[]>(signal: wf.SignalDefinition<Args>, ...args: Args): Promise<boolean> {
    const child = this.child;
    if (!child) return false;
    try {
      await child.signal(signal, ...args);
      return true;
    } catch (err) {
      if (wf.isCancellation(err)) throw err;
      return false;
    }
  }

  /** The turn has ended: the session publishes its state itself again. */
  releaseChild(): void {
    this.child = undefined;
    this.childPublishesState = false;
    this.partPending = false;
    this.budgetPending = false;
  }

  async prompt(prompt: PromptCommand): Promise<PromptAccepted> {
    const s = this.state;
    // Steering a running turn: delivered to it, no new turn.
    const running = s.activeTurn;
    const steered = (turn: string): PromptAccepted => ({ turn_id: turn, turn_number: turnNumberOf(turn) ?? 0, agent_state: s.phase, queued: false, duplicate: false, steered: true });
    if (prompt.behavior === 'steer' && running && this.child) {
      if (await this.signalChild(turnSteerSignal, { text: prompt.text })) return steered(running);
      // The turn had just ended: the prompt starts a turn of its own, as it would have a moment later.
      if (!wf.patched(TURN_COMMAND_INTENTS)) throw wf.ApplicationFailure.nonRetryable(`turn ${running} has ended`, FailureType.INVALID_COMMAND);
    } else if (prompt.behavior === 'steer' && running && wf.patched(TURN_COMMAND_INTENTS)) {
      // Chosen but not started yet: the turn takes it as soon as it has.
      s.intents.steer(running, prompt.text);
      return steered(running);
    }
    if (s.loaded) return this.told(s.accept(prompt));
    s.claimUnloaded();
    try {
      await wf.condition(() => s.loaded);
    } finally {
      s.releaseUnloaded();
    }
    return this.told(s.accept(prompt));
  }

  /**
   * A prompt that waits in the queue changes what every client is shown (the state's queue length):
   * the state is published, or handed to the running turn that publishes it, before the prompt is
   * answered. Before QUEUED_PROMPT_TOLD it waited for the next state anyone published (the running
   * turn's next report, or its end).
   */
  private told(accepted: PromptAccepted): PromptAccepted | Promise<PromptAccepted> {
    // Answered in the same microtask as before when there is nothing to tell: older histories replay
    // with the update's completion where it was.
    if (!accepted.queued || !wf.patched(QUEUED_PROMPT_TOLD)) return accepted;
    return this.publishState().then(() => accepted);
  }

  async approve(cmd: ApprovalCommand) {
    const s = this.state;
    // Announced but not yet reported as waiting: give the turn a moment (it reports right after the step).
    const turn = s.activeTurn;
    await wf.condition(() => s.isPending(cmd.tool_call_id) || s.activeTurn !== turn, APPROVAL_ARRIVAL_MS);
    if (!s.isPending(cmd.tool_call_id)) {
      throw wf.ApplicationFailure.nonRetryable(`no tool call ${cmd.tool_call_id} is waiting for approval`, FailureType.UNKNOWN_TOOL_CALL);
    }
    const { settingsChanged } = s.applyApproval(cmd);
    await this.signalChild(turnApprovalSignal, cmd);
    // The turn reports what it does next (tool_execution); only a settings change is news here.
    if (settingsChanged) {
      await this.persistSettings();
      await this.publishState();
    }
    return { resolved: true };
  }

  async setSettings(change: SettingsChange) {
    await wf.condition(() => this.state.loaded);
    if (this.state.applySettings(change)) {
      // New caps reach the running turn at once (one waiting in waiting_budget checks again); other settings apply from the next turn.
      if (change.budget && this.state.activeTurn !== null) {
        this.budgetPending = true;
        await this.deliverBudget();
      }
      await this.persistSettings();
      await this.publishState();
    }
    return this.state.settings;
  }

  async compact({ instructions }: { instructions?: string | undefined }) {
    const s = this.state;
    s.beginWork('compaction');
    try {
      await wf.condition(() => s.loaded);
      await this.publishState();
      const model = s.settings.model;
      return await compaction.compactSession.executeWithOptions({ ...COMPACTION_OPTIONS, summary: `compact (manual) · ${model}` }, [
        { session_id: s.sessionId, compaction_id: entryIds.manualCompaction(wf.uuid4()), model, reason: 'manual', context_window: 0, ...(instructions ? { instructions } : {}) },
      ]);
    } finally {
      s.endWork();
      await this.publishState();
    }
  }

  async runUserCommand(cmd: UserCommand): Promise<UserCommandResult> {
    const s = this.state;
    s.beginWork('command');
    try {
      await wf.condition(() => s.loaded);
      await this.publishState();
      const scope = new wf.CancellationScope();
      this.commandScope = scope;
      return await scope.run(() =>
        userCommands.runUserCommand({ session_id: s.sessionId, project_path: s.record!.project_path, id: entryIds.userCommand(wf.uuid4()), ...cmd }),
      );
    } catch (err) {
      if (wf.isCancellation(err)) return { output: 'the command was stopped', exit_code: null, cancelled: true, truncated: false };
      throw err;
    } finally {
      this.commandScope = undefined;
      s.endWork();
      await this.publishState();
    }
  }

  abortUserCommand() {
    if (!this.commandScope) return { stopped: false };
    this.commandScope.cancel();
    return { stopped: true };
  }

  async clearQueue() {
    const dropped = this.state.clearQueue();
    // Before the patch this published `idle` while a compaction or command still ran (replayed as it was).
    if (this.state.working && !wf.patched(PHASE_TRANSITIONS)) this.state.legacyIdle();
    if (dropped.length === 0) return { cleared: 0 };
    // Each dropped turn is announced as ended (a client waiting for it would wait forever otherwise).
    if (wf.patched(TURN_COMMAND_INTENTS)) await announceDropped(this, dropped);
    else await this.publishState();
    return { cleared: dropped.length };
  }

  /**
   * A turn's report (from the turn's workflow, or from the local activity that published its state:
   * `reports_by_activity`). A turn that publishes its state itself only tells the session where it is; for
   * an older turn the report is published as `session.state`, then acknowledged when the turn asked
   * for it, so the turn's next events (a model step's deltas) cannot overtake the state that announces them.
   */
  async progress(p: TurnProgress): Promise<void> {
    if (this.childPublishesState && p.report_id === undefined) {
      // The turn has published this state itself: the session only keeps its view (queries, approvals).
      if (this.state.applyProgress(p)) this.syncAttributes();
      return;
    }
    // A report to acknowledge (calls waiting for approval, or an older turn): the session publishes it.
    if (this.state.applyProgress(p)) await this.publishOwnState().catch(() => undefined);
    const turnNumber = turnNumberOf(p.turn_id);
    if (p.report_id === undefined || turnNumber === undefined) return;
    await wf
      .getExternalWorkflowHandle(turnWorkflowId(this.state.sessionId, turnNumber))
      .signal(turnProgressPublishedSignal, { report_id: p.report_id })
      .catch(() => undefined);
  }

  private persistSettings() {
    const record = this.state.record!;
    return local.persistSessionRecord({ session_id: this.state.sessionId, last_turn: record.last_turn, requests: record.requests, settings: record.settings });
  }
}
