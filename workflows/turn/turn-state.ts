import * as wf from '@temporalio/workflow';
import type { AgentEvent } from '../../contracts/agent-events';
import type { ApprovalPolicy, Budget } from '../../contracts/session-settings';
import {
  PHASES_THE_SESSION_ACTS_ON,
  TURN_VIEW_MEMO_KEY,
  turnAbortRetrySignal,
  turnAbortSignal,
  turnApprovalSignal,
  turnBudgetSignal,
  turnInterruptSignal,
  turnProgressPublishedSignal,
  turnProgressSignal,
  turnSessionPartSignal,
  turnSteerSignal,
} from '../../contracts/turn-protocol';
import type { TurnProgress } from '../../contracts/turn-workflow';
import { composeSessionState } from '../../contracts/session-state-compose';
import type { SessionStatePart } from '../../contracts/session-state-event';
import { turnId, turnStartStateId } from '../../contracts/workflow-ids';
import { EventQueue } from '../event-queue';
import { sa, upsertIfChanged } from '../search-attributes';
import type { PublishTurnStateInput } from '../../activities/events/turn-state-report';
import type { ToolBatch } from './tool-batch';
import type { TurnInput } from './turn-input';

import { declareLocalActivitiesInOrder, local } from '../local-activities';

export { local };

/** Patch id of the move of the `thinking` report (2026-11); deprecate once no turn started before it runs. */
const THINKING_BEFORE_NEXT_STEP = 'thinking-reported-before-next-step';
/**
 * Patch id (2026-11) of a session part published before the turn's first report (see
 * publishStartPart); before it, a prompt queued while a turn's first step streamed was not told to
 * anyone until the next state, for a one-step turn its end. Deprecate once no turn started before it runs.
 */
const PART_BEFORE_FIRST_REPORT = 'part-before-first-report';


/**
 * A turn's runtime state and its signal handlers: what the person asked for meanwhile (abort, steer,
 * interrupt, approvals, giving up a retry) and how the turn tells its session where it is. The turn
 * workflow's loop reads these flags at step boundaries; the handlers never run work of their own
 * except the abort's fast path.
 */
export class TurnState {
  readonly turnId: string;
  /** Steering messages not yet taken by a step boundary. */
  readonly steering: string[];
  /** The tool batch of the current step while it waits for approvals or runs. */
  batch: ToolBatch | undefined;
  retryAborted = false;
  interrupted = false;
  /** `always` applies to the rest of this turn too (the session keeps it for later turns). */
  readonly policy: ApprovalPolicy;
  /** The session's spending caps, kept current by `turnBudgetSignal` (the prompt's own are in the input). */
  budget: Budget | undefined;
  /** Counts caps received, so a turn waiting in `waiting_budget` knows a new cap has come (docs/budgets.md). */
  budgetVersion = 0;
  /** Everything the turn does runs in here, so an abort cancels it as a whole. */
  readonly scope = new wf.CancellationScope();
  /**
   * `thinking` is reported right before the next step (after steering, compaction and an interrupt
   * check), so it never follows the final answer. Turns that started on code reporting it right after
   * the tool results keep doing so (docs/workflow-versioning.md).
   */
  readonly reportsThinkingBeforeNextStep: boolean;
  /**
   * The session's part of `session.state` when this turn publishes the state itself
   * (`publishes_state`), kept current by `turnSessionPartSignal`; undefined for an older session.
   */
  sessionPart: SessionStatePart | undefined;
  /** The delivery of the last report the session does not acknowledge (see `reportsDelivered`). */
  private lastReport: Promise<unknown> = Promise.resolve();
  /** The last report: what a new session part is published with. */
  private progress: Omit<TurnProgress, 'turn_id' | 'report_id'> | undefined;
  /** A turn that publishes its state keeps all its events in one order (states, tool events, notices). */
  private readonly events: EventQueue | undefined;
  private readonly published = new Set<string>();
  /** The phase the session last heard of (`view_in_memo`): it starts the turn as `thinking`. */
  private sessionHeard = 'thinking';

  constructor(readonly input: TurnInput) {
    this.turnId = turnId(input.turn_number);
    this.steering = [...input.steering];
    this.interrupted = input.interrupted === true;
    this.policy = { ...input.settings.approval, always_allow: [...input.settings.approval.always_allow] };
    this.budget = input.settings.budget;
    this.reportsThinkingBeforeNextStep = input.thinking_before_next_step ?? wf.patched(THINKING_BEFORE_NEXT_STEP);
    if (input.local_activities_in_order) declareLocalActivitiesInOrder();
    this.sessionPart = input.publishes_state ? input.session_part : undefined;
    this.events = this.sessionPart ? new EventQueue(input.session_id, this.turnId) : undefined;
  }

  register(): void {
    wf.setHandler(turnAbortSignal, () => this.abort());
    wf.setHandler(turnSteerSignal, ({ text }) => void this.steering.push(text));
    wf.setHandler(turnAbortRetrySignal, () => void (this.retryAborted = true));
    wf.setHandler(turnInterruptSignal, () => void (this.interrupted = true));
    wf.setHandler(turnApprovalSignal, ({ tool_call_id, decision, reason }) => this.decide(tool_call_id, decision, reason));
    wf.setHandler(turnBudgetSignal, ({ budget }) => {
      this.budget = budget;
      this.budgetVersion += 1;
    });
    wf.setHandler(turnProgressPublishedSignal, ({ report_id }) => void this.published.add(report_id));
    wf.setHandler(turnSessionPartSignal, async (part) => {
      if (!this.sessionPart) return;
      this.sessionPart = part;
      if (this.progress) await this.publishState(this.progress);
      else if (wf.patched(PART_BEFORE_FIRST_REPORT)) await this.publishStartPart();
    });
  }

  private async abort(): Promise<void> {
    this.scope.cancel();
    // The fast path: running activities hear this within milliseconds (heartbeats take up to a second).
    await local.announceTurnCancel({ session_id: this.input.session_id, turn_id: this.turnId }).catch(() => undefined);
  }

  private decide(callId: string, decision: 'approve' | 'reject' | 'always', reason?: string): void {
    const call = this.batch?.calls.find((c) => c.id === callId);
    if (!this.batch?.decide(callId, decision, reason) || !call) return;
    if (decision === 'always' && !this.policy.always_allow.includes(call.name)) this.policy.always_allow.push(call.name);
  }

  /**
   * Resolves once the last unacknowledged report has reached the session. Signals sent in one workflow
   * task may arrive in any order: a report that must not be overtaken by the one before it (the
   * `thinking` before a budget pause, sent in the same task) waits for this first.
   */
  reportsDelivered(): Promise<unknown> {
    return this.lastReport;
  }

  publish(events: AgentEvent[], report?: PublishTurnStateInput['report']): Promise<unknown> {
    if (this.events) return this.events.publish(events.map((event) => ({ event, turn_id: this.turnId })), report);
    return local.publishEvents(this.input.session_id, events.map((event) => ({ id: `${this.turnId}:${wf.uuid4()}`, turn_id: this.turnId, event })));
  }

  /**
   * What the first model step announces before `turn.started` when the session left it to the turn
   * (`announces_start`): the turn's first `session.state`, as the session would have published it
   * (thinking, streaming, step 0), with the session's part as the turn has it now. A part that changes
   * later, before the turn's first report, is published by the turn itself (publishStartPart).
   */
  startAnnouncement(step: number): { state?: AgentEvent } {
    if (step !== 0 || !this.input.announces_start || !this.sessionPart) return {};
    return { state: this.startState() };
  }

  /** The turn's first state with the session's part as the turn has it now. */
  private startState(): AgentEvent {
    return composeSessionState(this.sessionPart!, { phase: 'thinking', turn_id: this.turnId, streaming: true, retry_attempt: 0, details: undefined });
  }

  /**
   * A session part that changed before the turn's first report (its first model step streaming, or
   * about to), published with the state the turn started in. When the turn announces its own start,
   * the first step publishes that state from its activity (`turnStartStateId`), outside this turn's
   * ordered publishes, with the part as it was: the new one goes first under that same id, so
   * JetStream stores whichever of the two comes first and drops the other as a duplicate, then again
   * under an id of its own, so it is the last word whichever came first.
   */
  private publishStartPart(): Promise<unknown> {
    const event = this.startState();
    const claim = this.input.announces_start ? [{ event, turn_id: this.turnId, id: turnStartStateId(this.turnId) }] : [];
    return this.events!.publish([...claim, { event, turn_id: this.turnId }]);
  }

  private publishState(p: Omit<TurnProgress, 'turn_id' | 'report_id'>, report?: PublishTurnStateInput['report']): Promise<unknown> {
    const event = composeSessionState(this.sessionPart!, { phase: p.phase, turn_id: this.turnId, streaming: p.streaming ?? false, retry_attempt: p.retry_attempt ?? 0, details: p.details });
    return this.publish([event], report);
  }

  /**
   * Tells the session where the turn is, and makes sure the state is published before the turn goes
   * on, so what it does next (a model step streaming its answer, tools printing) always follows the
   * state that announced it on every client's stream: published here when the session handed the
   * turn its part (but for calls waiting for approval), else by the session, which acknowledges it
   * (older sessions do neither).
   */
  async report(p: Omit<TurnProgress, 'turn_id' | 'report_id'>): Promise<void> {
    const parent = wf.workflowInfo().parent;
    const inMemo = parent !== undefined && !this.input.subagent && this.sessionPart !== undefined && this.input.reports_by_activity === true && this.input.view_in_memo === true;
    if (inMemo) {
      // Readers take the running turn's phase from here (contracts/session-live-view.ts, withTurnView),
      // and so do the running-turn lists (services/gateway/temporal/jobs.ts): the StrandPhase search
      // attribute, a second visibility write per report, keeps the phase the turn started with.
      wf.upsertMemo({ [TURN_VIEW_MEMO_KEY]: { phase: p.phase, step: p.step, streaming: p.streaming ?? false, retry_attempt: p.retry_attempt ?? 0, ...(p.details !== undefined ? { details: p.details } : {}) } });
    } else {
      upsertIfChanged([{ key: sa.phase, value: p.phase }]);
    }
    wf.setCurrentDetails(`step ${p.step} · ${p.phase}${p.details ? ` · ${p.details}` : ''}`);
    // A sub-agent's parent is a turn, which keeps no phase of its children.
    if (!parent || this.input.subagent) return;
    if (this.sessionPart) this.progress = p;
    // Calls waiting for approval are news the session must hold before anyone hears of them (a client
    // told so lists or answers them at once): the session publishes that state and acknowledges it.
    if (this.sessionPart && p.phase !== 'waiting_approval' && this.input.reports_by_activity) {
      // The session hears only what it acts on, and what ends it (see PHASES_THE_SESSION_ACTS_ON).
      const tell = !inMemo || PHASES_THE_SESSION_ACTS_ON.includes(p.phase) || PHASES_THE_SESSION_ACTS_ON.includes(this.sessionHeard);
      if (tell) this.sessionHeard = p.phase;
      // One local activity publishes the state and then reports it to the session (no task of the
      // turn's own for a signal's confirmation); the session has it once this resolves.
      const delivered = this.publishState(p, tell ? { workflow_id: parent.workflowId, progress: { turn_id: this.turnId, ...p } } : undefined);
      this.lastReport = delivered.catch(() => undefined);
      await delivered;
      return;
    }
    if (this.sessionPart && p.phase !== 'waiting_approval') {
      // The session only keeps its view: nothing to wait for (a session that is gone changes nothing).
      this.lastReport = wf.getExternalWorkflowHandle(parent.workflowId).signal(turnProgressSignal, { turn_id: this.turnId, ...p }).catch(() => undefined);
      await this.publishState(p);
      return;
    }
    this.sessionHeard = p.phase;
    const reportId = this.input.progress_acks || this.sessionPart ? wf.uuid4() : undefined;
    const sent = wf
      .getExternalWorkflowHandle(parent.workflowId)
      .signal(turnProgressSignal, { turn_id: this.turnId, ...p, ...(reportId ? { report_id: reportId } : {}) })
      .then(
        () => true,
        () => false,
      );
    if (reportId === undefined) return;
    // A session that is gone cannot answer: go on rather than wait for nobody.
    if (!(await sent)) return;
    await wf.condition(() => this.published.has(reportId));
    this.published.delete(reportId);
  }
}
