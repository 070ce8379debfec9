import * as wf from '@temporalio/workflow';
import type { JobLimitHit, JobToolCall } from '../../contracts/job-report';
import { jobRuleFor, type JobSpec } from '../../contracts/job-spec';
import type { JobReport } from '../../contracts/job-report';
import { escalationAnswerSchema, escalationAnswerSignal, jobProgressQuery, jobSteerUpdate, type JobSteered, jobResumeSchema, jobResumeSignal, jobWaitingReportQuery, type EscalationAnswer, type JobProgressView, type JobResume } from '../../contracts/job-workflow';
import { FailureType } from '../../contracts/failures';
import { notifyDeliveryId, type JobNotificationOutcome } from '../../contracts/job-notify';
import { notifyEscalation, wants } from './job-notify';
import type { JobSessionStream } from './job-session-stream';
import type { TurnPulse } from './watchdog';
import { turnAbortSignal, turnApprovalSignal, turnInterruptSignal, turnProgressSignal, turnSteerSignal, type TurnProgress } from '../../contracts/turn-workflow';

/** Patch: an escalation that timed out with `abort` reports `needs_human` and waits for a person to resume the job. */
const JOB_RESUME_PATCH = 'job-resume-needs-human';

/** The job waits for a person to resume it (docs/jobs.md, "Resuming a job that needs a person"). */
type HumanWait = NonNullable<JobProgressView['needs_human']>;

/** Who resumed the job, as the report lists it. */
export type Resumed = NonNullable<JobReport['resumed']>[number];

/** What the job decided about a call that asked (the rest ran on the policy's `allow`). */
export type CallDecision = Pick<JobToolCall, 'decided_by' | 'answered_by' | 'reason'> & { outcome: 'ran' | 'denied' | 'skipped' };

interface Escalation {
  tool: string;
  turn_id: string;
  rule_source: string;
  expires_at: number;
  answer?: EscalationAnswer;
}

/** The turn running now: its workflow id (signals go there) and its id in the session. */
interface RunningTurn {
  workflow_id: string;
  turn_id: string;
  /** The turn's role for the limits (a watchdog's retry has the role of the turn it retries). */
  kind: 'work' | 'wrap_up';
}

/**
 * A job's runtime state and its handlers: the running turn's progress (the turn reports to its
 * parent, the job), calls that wait for an answer, a person's answer to an escalation, and the
 * limits reached. A soft limit (a share of the budget or steps, the wrap-up time before the deadline)
 * interrupts the work turn at its next step boundary so the wrap-up turn can run; a hard one, a
 * cancel, or an escalation that timed out with `abort` aborts the running turn at once.
 */
export class JobRun {
  phase: JobProgressView['phase'] = 'preparing';
  session_id: string | null = null;
  turn: RunningTurn | undefined;
  step: number | null = null;
  readonly decisions = new Map<string, CallDecision>();
  readonly escalations = new Map<string, Escalation>();
  readonly limitsHit: JobLimitHit[] = [];
  /** Escalation notifications by delivery id, in the order sent (docs/jobs.md, "Notification"). */
  readonly notifications = new Map<string, JobNotificationOutcome>();
  /** The soft limit that asked for the wrap-up, once one has. */
  softLimit: JobLimitHit | undefined;
  /** A hard limit stopped the work: no further turn runs. */
  hardStopped = false;
  cancelled = false;
  /** The running turn's last report, for the watchdog (watchdog.ts). */
  pulse: TurnPulse = { seq: 0, phase: 'thinking', step: 0 };
  /** The watchdog's diagnoses, one per stalled turn (the second ends the job). */
  readonly stalls: string[] = [];
  /** Why the job needs a person (an escalation nobody answered, with `on_timeout: abort`). */
  needsHuman: string | undefined;
  /** While the job waits for a person to resume it: why, the call, since and until when. */
  humanWait: HumanWait | undefined;
  /** The person's resume, once it came (taken by the wait). */
  private resume: JobResume | undefined;
  /** Every resume, for the report. */
  readonly resumed: Resumed[] = [];
  /** Time spent waiting for a person: the deadlines move later by it. */
  pausedMs = 0;
  /** The report as the job started waiting for a person (its query answers it meanwhile). */
  waitingReport: JobReport | null = null;
  /**
   * The job's announcements on its session's stream (job-session-stream.ts); undefined for a job
   * started before they existed.
   */
  stream: JobSessionStream | undefined;
  /**
   * Set by the job workflow: reports `needs_human` (the report built and published, the person
   * notified) as the wait for a resume starts, and says the job runs again once resumed.
   */
  hooks: { needsHuman(reason: string, callId: string): Promise<void>; resumed(): void } | undefined;

  constructor(
    readonly jobId: string,
    readonly spec: JobSpec,
  ) {}

  register(): void {
    wf.setHandler(turnProgressSignal, (p) => this.onProgress(p));
    wf.setHandler(escalationAnswerSignal, (raw) => {
      const parsed = escalationAnswerSchema.safeParse(raw);
      const waiting = parsed.success ? this.escalations.get(parsed.data.tool_call_id) : undefined;
      if (parsed.success && waiting && !waiting.answer) waiting.answer = parsed.data;
    });
    wf.setHandler(jobResumeSignal, (raw) => {
      const parsed = jobResumeSchema.safeParse(raw);
      if (parsed.success && this.humanWait && !this.resume) this.resume = parsed.data;
    });
    wf.setHandler(jobSteerUpdate, ({ text }) => this.steer(text), {
      validator: ({ text }) => {
        if (typeof text !== 'string' || text.trim() === '') throw wf.ApplicationFailure.nonRetryable('steering needs a text', FailureType.INVALID_COMMAND);
      },
    });
    wf.setHandler(jobWaitingReportQuery, () => (this.humanWait ? this.waitingReport : null));
    wf.setHandler(jobProgressQuery, () => ({
      job_id: this.jobId,
      phase: this.phase,
      session_id: this.session_id,
      turn_id: this.turn?.turn_id ?? null,
      step: this.step,
      ...(this.stream ? { turn_start_seq: this.turn ? this.stream.turnStartSeq : null } : {}),
      escalations: [...this.escalations].filter(([id, e]) => !e.answer && !this.decisions.has(id)).map(([tool_call_id, e]) => ({ tool_call_id, tool: e.tool, turn_id: e.turn_id, rule_source: e.rule_source, expires_at: e.expires_at })),
      // Shown once the waiting report is made: a client that sees needs_human can read that report.
      ...(this.humanWait && this.waitingReport ? { needs_human: this.humanWait } : {}),
    }));
  }

  /** Whether the work has stopped for good (no wrap-up either). */
  get stopped(): boolean {
    return this.cancelled || this.hardStopped || this.needsHuman !== undefined;
  }

  private hit(limit: JobLimitHit): void {
    if (!this.limitsHit.includes(limit)) this.limitsHit.push(limit);
  }

  private onProgress(p: TurnProgress): Promise<void> | void {
    const turn = this.turn;
    const current = turn !== undefined && p.turn_id === turn.turn_id;
    if (current) this.applyProgress(p, turn);
    // A turn that publishes its own states waits for the job to publish (and acknowledge) the one
    // announcing calls that wait for approval, as a session workflow does.
    if (p.report_id !== undefined && this.stream) return this.stream.acknowledge(p, current);
  }

  private applyProgress(p: TurnProgress, turn: RunningTurn): void {
    this.step = p.step;
    this.pulse = { seq: this.pulse.seq + 1, phase: p.phase, step: p.step, ...(p.details ? { details: p.details } : {}) };
    if (p.phase === 'waiting_budget') {
      // The turn runs with the soft caps (work) or the hard ones (wrap-up): either way it stops here.
      if (turn.kind === 'work') this.reachSoft('budget_soft');
      else this.stopHard('budget', 'interrupt');
    }
    if (p.phase === 'waiting_approval') for (const call of p.pending_approvals ?? []) this.onCallWaiting(call.tool_call_id, call.tool, turn);
  }

  private onCallWaiting(callId: string, tool: string, turn: RunningTurn): void {
    if (this.decisions.has(callId) || this.escalations.has(callId)) return;
    const match = jobRuleFor(this.spec.policy, tool);
    if (match.rule === 'allow') return this.answer(callId, { outcome: 'ran', decided_by: 'policy' });
    if (match.rule === 'deny') return this.answer(callId, { outcome: 'denied', decided_by: 'policy', reason: `denied by the job's policy (${match.source})` });
    // Nobody is waited for once the job is wrapping up or stopping.
    if (turn.kind === 'wrap_up' || this.softLimit || this.stopped) return this.answer(callId, { outcome: 'denied', decided_by: 'job', reason: 'the job is wrapping up: escalated calls are not waited for' });
    const timeoutMs = this.spec.policy.escalation.timeout_s * 1000;
    const escalation: Escalation = { tool, turn_id: turn.turn_id, rule_source: match.source, expires_at: Date.now() + timeoutMs };
    this.escalations.set(callId, escalation);
    // Started from a signal handler, i.e. in the workflow's root scope: shielded from the job's cancel,
    // which settles the wait itself (and would otherwise leave a rejected timer nobody handles).
    void wf.CancellationScope.nonCancellable(() => this.awaitAnswer(callId, escalation, timeoutMs));
    if (wants(this.spec.notify, 'job.escalation') && this.session_id) this.notifyEscalation(this.spec.notify, callId, escalation, this.session_id);
  }

  /** "The notification carries it": the person is told where and how to answer, in the background. */
  private notifyEscalation(notify: NonNullable<JobSpec['notify']>, callId: string, e: Escalation, session_id: string): void {
    const on_timeout = this.spec.policy.escalation.on_timeout;
    const request = { job_id: this.jobId, session_id, tool_call_id: callId, tool: e.tool, turn_id: e.turn_id, rule_source: e.rule_source, expires_at: e.expires_at, on_timeout };
    void wf.CancellationScope.nonCancellable(async () => {
      this.notifications.set(callId, { event: 'job.escalation', delivery_id: notifyDeliveryId.escalation(this.jobId, callId), status: 'pending' });
      this.notifications.set(callId, await notifyEscalation(notify, request));
    });
  }

  /** A durable wait for a person's answer; on timeout the spec's outcome (deny, skip, abort). */
  private async awaitAnswer(callId: string, e: Escalation, timeoutMs: number): Promise<void> {
    const answered = await wf.condition(() => e.answer !== undefined || this.decisions.has(callId), timeoutMs);
    if (this.decisions.has(callId)) return;
    if (answered && e.answer) {
      const a = e.answer;
      return this.answer(callId, { outcome: a.decision === 'allow' ? 'ran' : 'denied', decided_by: 'person', answered_by: a.by, ...(a.reason ? { reason: a.reason } : {}) });
    }
    const after = `nobody answered within ${this.spec.policy.escalation.timeout_s} s`;
    switch (this.spec.policy.escalation.on_timeout) {
      case 'deny':
        return this.answer(callId, { outcome: 'denied', decided_by: 'timeout', reason: `${after}: denied` });
      case 'skip':
        return this.answer(callId, { outcome: 'skipped', decided_by: 'timeout', reason: `${after}: skipped, go on without it` });
      case 'abort':
        if (this.hooks && this.spec.policy.escalation.resume_wait_s > 0 && wf.patched(JOB_RESUME_PATCH)) return this.waitForResume(callId, e, `the ${e.tool} call ${callId} needs a person: ${after}`);
        this.needsHuman = `the ${e.tool} call ${callId} needs a person: ${after}`;
        this.answer(callId, { outcome: 'denied', decided_by: 'timeout', reason: `${after}: the job stops` }, this.abortTurn());
        return;
    }
  }

  /**
   * `needs_human`, resumable: the turn stays where it stopped (its call waiting for approval), the
   * job reports `needs_human` and waits up to `resume_wait_s` for a person's resume, which decides
   * the call (an allow's message is steered to the model after the call, a deny's is the refusal's reason).
   * An escalation answer meanwhile resumes it too. Nobody within the wait: the job ends
   * `needs_human` as before (the call denied, the turn aborted). Cancelled meanwhile: the cancel
   * settles the call.
   */
  private async waitForResume(callId: string, e: Escalation, reason: string): Promise<void> {
    const waitMs = this.spec.policy.escalation.resume_wait_s * 1000;
    const since = Date.now();
    this.waitingReport = null;
    this.humanWait = { reason, tool_call_id: callId, tool: e.tool, since, resume_by: since + waitMs };
    await this.hooks!.needsHuman(reason, callId);
    await wf.condition(() => this.resume !== undefined || e.answer !== undefined || this.cancelled || this.decisions.has(callId), Math.max(1, since + waitMs - Date.now()));
    this.humanWait = undefined;
    this.pausedMs += Date.now() - since;
    const answer = this.resume ?? (e.answer ? { decision: e.answer.decision, by: e.answer.by, ...(e.answer.reason ? { message: e.answer.reason } : {}) } : undefined);
    this.resume = undefined;
    if (this.decisions.has(callId)) return;
    if (answer) {
      this.resumed.push({ by: answer.by, at: new Date(Date.now()).toISOString(), tool_call_id: callId, tool: e.tool, decision: answer.decision, ...(answer.message ? { message: answer.message } : {}) });
      this.hooks!.resumed();
      const resumedReason = `resumed by ${answer.by} after the job needed a person${answer.decision === 'deny' && answer.message ? `: ${answer.message}` : ''}`;
      if (answer.decision === 'deny' || !answer.message) return this.answer(callId, { outcome: answer.decision === 'allow' ? 'ran' : 'denied', decided_by: 'person', answered_by: answer.by, reason: resumedReason });
      // An allow's message reaches the model as steering, sent once the approval is delivered: the turn
      // takes steering after the step, whereas steering that comes first would skip the waiting call.
      this.decisions.set(callId, { outcome: 'ran', decided_by: 'person', answered_by: answer.by, reason: resumedReason });
      const turn = this.turn;
      if (!turn) return;
      const text = `${answer.by} allowed the ${e.tool} call and says: ${answer.message}`;
      await this.signalTurn(turn, (h) => h.signal(turnApprovalSignal, { tool_call_id: callId, decision: 'approve' }));
      await this.signalTurn(turn, (h) => h.signal(turnSteerSignal, { text }));
      return;
    }
    const waited = `${reason}; nobody resumed it within ${this.spec.policy.escalation.resume_wait_s} s`;
    this.needsHuman = waited;
    this.answer(callId, { outcome: 'denied', decided_by: 'timeout', reason: 'nobody answered: the job stops' }, this.abortTurn());
  }

  /**
   * Records the decision and tells the turn (approve or reject, with the reason the model reads),
   * once `after` has been delivered: an interrupt must be in the turn's history before the answer
   * that lets its step end, or the turn may start its next step first (signals sent in one workflow
   * task may arrive in any order).
   */
  private answer(callId: string, d: CallDecision, after: Promise<void> = Promise.resolve()): void {
    this.decisions.set(callId, d);
    const turn = this.turn;
    if (!turn) return;
    const decision = d.outcome === 'ran' ? 'approve' : 'reject';
    const who = d.decided_by === 'person' ? ` (${d.answered_by})` : '';
    void after.then(() => this.signalTurn(turn, (h) => h.signal(turnApprovalSignal, { tool_call_id: callId, decision, ...(d.reason ? { reason: `${d.reason}${who}` } : {}) })));
  }

  /** Calls still waiting are answered now (after `after`): the job is not going to wait for them. */
  private settleWaiting(reason: string, after?: Promise<void>): void {
    for (const [callId] of [...this.escalations].filter(([id, e]) => !e.answer && !this.decisions.has(id))) this.answer(callId, { outcome: 'denied', decided_by: 'job', reason }, after);
  }

  /** A soft limit: the work turn stops after its current step, then the wrap-up runs (once). */
  reachSoft(limit: 'budget_soft' | 'steps_soft' | 'deadline_soft'): void {
    if (this.softLimit || this.stopped || (this.phase !== 'working' && this.phase !== 'preparing')) return;
    this.hit(limit);
    this.softLimit = limit;
    this.settleWaiting(`the job is wrapping up (${limit})`, this.interruptTurn());
  }

  /** A hard limit: the running turn is aborted (`abort`) or stopped at its step boundary (`interrupt`). */
  stopHard(limit: 'budget' | 'steps' | 'deadline_hard', how: 'abort' | 'interrupt'): void {
    if (this.phase === 'collecting' || this.phase === 'done') return;
    this.hit(limit);
    this.hardStopped = true;
    this.settleWaiting(`the job stopped (${limit})`, how === 'abort' ? this.abortTurn() : this.interruptTurn());
  }

  private interruptTurn(): Promise<void> {
    return this.turn ? this.signalTurn(this.turn, (h) => h.signal(turnInterruptSignal)) : Promise.resolve();
  }

  /** The job was cancelled: the running turn is aborted, and what was done is collected. */
  cancel(): void {
    this.cancelled = true;
    this.settleWaiting('the job was cancelled', this.abortTurn());
  }

  /** The watchdog found the running turn stalled: it is aborted (its step cut, what it did recorded). */
  stalled(diagnosis: string): Promise<void> {
    this.stalls.push(diagnosis);
    return this.abortTurn();
  }

  private abortTurn(): Promise<void> {
    return this.turn ? this.signalTurn(this.turn, (h) => h.signal(turnAbortSignal)) : Promise.resolve();
  }

  /** A person's steering, passed to the running turn (it takes it after its current step). */
  private async steer(text: string): Promise<JobSteered> {
    const turn = this.turn;
    if (!turn || this.stopped) return { delivered: false, turn_id: null };
    try {
      await wf.CancellationScope.nonCancellable(() => wf.getExternalWorkflowHandle(turn.workflow_id).signal(turnSteerSignal, { text }));
      return { delivered: true, turn_id: turn.turn_id, agent_state: this.pulse.phase };
    } catch {
      // The turn ended meanwhile: nothing took the text.
      return { delivered: false, turn_id: turn.turn_id };
    }
  }

  /**
   * A signal to the running turn; one that has just ended needs none (its error is not the job's).
   * Non-cancellable: the job's cancel is itself sent as a signal, from the cancelled root scope.
   */
  private async signalTurn(turn: RunningTurn, send: (h: wf.ExternalWorkflowHandle) => Promise<void>): Promise<void> {
    await wf.CancellationScope.nonCancellable(() => send(wf.getExternalWorkflowHandle(turn.workflow_id))).catch(() => undefined);
  }
}
