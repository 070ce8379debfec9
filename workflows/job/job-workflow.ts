import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { JobAftercareActivities } from '../../activities/job-notify';
import type { JobActivities, JobSessionSummary } from '../../activities/job-workspace';
import { JOB_AFTERCARE_WORKFLOW_TYPE, jobAftercareWorkflowId, type JobAftercareInput } from '../../contracts/job-aftercare';
import type { JobDeliverableReport, JobReport, JobWorkspaceInfo } from '../../contracts/job-report';
import { jobSessionId, jobWorkflowInputSchema, type JobWorkflowInput } from '../../contracts/job-workflow';
import type { Budget } from '../../contracts/session-settings';
import { turnAbortSignal, turnInterruptSignal, type TurnOutcome, type TurnWorkflowInput, type TurnWorkflowResult } from '../../contracts/turn-workflow';
import { TURN_WORKFLOW_TYPE, turnId, turnWorkflowId } from '../../contracts/workflow-ids';
import { storeRetry } from '../retry-policies';
import { JOB_TURNS_ON_STREAM_PATCH, JobSessionStream, jobStatePart } from './job-session-stream';
import { notifyDeliveryId } from '../../contracts/job-notify';
import { deliverNotification, wants } from './job-notify';
import { jobApprovalPolicy } from './job-policy';
import { buildJobReport } from './job-report';
import { JobRun } from './job-run';
import { JobSearchAttributes } from './job-search-attributes';
import { stallDiagnosis, watchTurn } from './watchdog';
import { retryPrompt, wrapUpPrompt } from './wrap-up';

/** Workspace and store work: git on a big repository may take a while; retried like the store's own calls. */
const acts = wf.proxyActivities<JobActivities>({ startToCloseTimeout: '10 minutes', retry: { ...storeRetry, maximumAttempts: 5 } });

/**
 * The workspace's own activities, on the task queue of the host that made it (docs/jobs.md, "Worker
 * faults and several hosts"): a host that is gone holds them until it is back.
 */
function workspaceActivities(taskQueue: string) {
  return wf.proxyActivities<Pick<JobActivities, 'collectJobDeliverable' | 'verifyJobDeliverable'>>({ taskQueue, startToCloseTimeout: '10 minutes', retry: { ...storeRetry, maximumAttempts: 5 } });
}

/** Patch: a job's work after its workspace runs on the queue of the host that made it. */
const JOB_HOST_QUEUE_PATCH = 'job-host-queue';

/** The worker's settings for jobs: a quick read, retried a few times. */
const workerSettings = wf.proxyActivities<Pick<JobAftercareActivities, 'jobRetentionHours'>>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });

type Spec = ReturnType<typeof jobWorkflowInputSchema.parse>['spec'];

/**
 * One unattended job (`job:<id>`, docs/jobs.md): its workspace, a session whose project is the
 * workspace, the prompt run as the session's turn (a child turn workflow, which reports its progress
 * here), limits enforced around it (steps and budget through the turn's own caps at the soft share,
 * the deadline by timers), a wrap-up turn after a soft limit, then the deliverable collected and
 * verified, and the typed report returned. A Temporal cancel aborts the running turn and still
 * collects and reports (`cancelled`): the job's own work runs in a non-cancellable scope, and the
 * cancel is turned into the turn's abort, as a person's abort of a session's turn is.
 */
export async function jobWorkflow(raw: JobWorkflowInput): Promise<JobReport> {
  const { job_id, spec, owner, schedule_id } = jobWorkflowInputSchema.parse(raw);
  const started_ms = Date.now();
  const run = new JobRun(job_id, spec);
  run.register();
  wf.CancellationScope.current().cancelRequested.catch(() => run.cancel());
  return wf.CancellationScope.nonCancellable(async () => {
    const attributes = new JobSearchAttributes();
    await attributes.start(spec.task.project_path, schedule_id);
    const report = await runJob(run, job_id, spec, started_ms, owner, attributes);
    attributes.finish(report.status);
    return report;
  });
}

async function runJob(run: JobRun, job_id: string, spec: Spec, started_ms: number, owner: string | undefined, attributes: JobSearchAttributes): Promise<JobReport> {
  const session_id = jobSessionId(job_id);
  const turns: JobReport['turns'] = [];
  let workspace: JobWorkspaceInfo | null = null;
  let deliverable: JobDeliverableReport | null = null;
  let summary: JobSessionSummary | null = null;
  let failure: string | undefined;
  // Where the workspace's work runs: the workflow's own queue until a workspace names its host's.
  let onHost: Pick<JobActivities, 'collectJobDeliverable' | 'verifyJobDeliverable'> = acts;
  let hostQueue: string | undefined;
  // The deadline counts from the job's start; the wrap-up begins `wrap_up_before_s` before it.
  const { deadline_s, wrap_up_before_s } = spec.limits;
  // No wrap-up time: no soft deadline (two timers due at once may fire in either order).
  // Both move later by the time the job waits for a person to resume it (pausableSleep).
  if (wrap_up_before_s > 0) void pausableSleep(run, (deadline_s - wrap_up_before_s) * 1000).then(() => run.reachSoft('deadline_soft'));
  void pausableSleep(run, deadline_s * 1000).then(() => run.stopHard('deadline_hard', 'abort'));
  try {
    workspace = await acts.prepareJobWorkspace({ job_id, project_path: spec.task.project_path, kind: spec.workspace.kind, ...(spec.task.ref ? { ref: spec.task.ref } : {}) });
    if (workspace.task_queue && wf.patched(JOB_HOST_QUEUE_PATCH)) {
      hostQueue = workspace.task_queue;
      onHost = workspaceActivities(hostQueue);
    }
    const settings = { model: spec.task.model, thinking_level: spec.task.thinking_level, auto_retry: true, auto_compaction: true, approval: jobApprovalPolicy(spec), name: `job ${job_id}` };
    await acts.createJobSession({ job_id, project_path: workspace.path, title: `job ${job_id}: ${spec.task.prompt.split('\n')[0]!.slice(0, 80)}`, settings, ...(owner ? { owner } : {}) });
    run.session_id = session_id;
    // The job's turns announced on its session's stream, as a session workflow's are (docs/jobs.md).
    if (wf.patched(JOB_TURNS_ON_STREAM_PATCH)) run.stream = new JobSessionStream(session_id, jobStatePart(settings));
    const ws = workspace;
    run.hooks = {
      // The report of a job that needs a person, as it starts to wait for one (docs/jobs.md, "Resuming a job that needs a person").
      needsHuman: async (reason, callId) => {
        run.waitingReport = await reportNeedsHuman(run, { job_id, spec, session_id, workspace: ws, onHost, turns, started_ms, reason });
        attributes.finish('needs_human');
        notifyNeedsHuman(run, callId);
      },
      resumed: () => attributes.finish('running'),
    };
    let nextTurn = 1;
    // A turn that publishes its own states is handed the session's part of them (contracts/turn-workflow.ts).
    const publishes = run.stream ? { publishes_state: true, session_part: run.stream.part } : {};
    const turn = (kind: TurnKind, role: 'work' | 'wrap_up', text: string, max_steps: number, budget: Budget | undefined) =>
      runTurn(run, hostQueue, { session_id, project_path: workspace!.path, turn_number: nextTurn, text, settings, max_steps, record: { last_turn: nextTurn++, requests: [] }, thinking_before_next_step: true, ...publishes, ...(budget ? { budget } : {}) }, kind, role);
    // One role's turn, and the watchdog's one retry when it stalled (docs/jobs.md, "Watchdog"):
    // a stall cuts the turn; a second stall in the job ends it failed, with the diagnosis.
    const runRole = async (role: 'work' | 'wrap_up', text: string, max_steps: number, budget: Budget | undefined) => {
      const stallsBefore = run.stalls.length;
      let last = await turn(role, role, text, max_steps, budget);
      turns.push(last);
      let steps = last.steps;
      if (run.stalls.length > stallsBefore && run.stalls.length === 1 && !run.stopped && !(role === 'work' && run.softLimit)) {
        last = await turn('retry', role, retryPrompt(run.stalls[0]!), Math.max(1, max_steps - steps), budget);
        turns.push(last);
        steps += last.steps;
      }
      if (run.stalls.length >= 2) throw wf.ApplicationFailure.nonRetryable(`${run.stalls.at(-1)!} (a stalled step is cut and retried once; the retry stalled too)`, 'JobStalled');
      return { last, steps };
    };

    const { max_steps, soft_share } = spec.limits;
    const workSteps = Math.max(1, Math.floor(max_steps * soft_share));
    let worked = false;
    if (!run.stopped && !run.softLimit) {
      run.phase = 'working';
      const work = await runRole('work', spec.task.prompt, workSteps, caps(spec, soft_share));
      worked = true;
      summary = await acts.summarizeJobSession({ session_id });
      // The work used all its steps and its last step still called tools: no answer yet.
      if (work.last.outcome === 'done' && summary.last_stop === 'function_call' && work.steps >= workSteps) run.reachSoft('steps_soft');
    }
    // A wrap-up of work that never started (the deadline came during the workspace's making) has nothing to wrap.
    const stepsLeft = max_steps - (summary?.usage.steps ?? 0);
    // No step left for a wrap-up (a tiny max_steps): the step limit is the hard one already.
    if (run.softLimit && !run.stopped && worked && stepsLeft <= 0) run.stopHard('steps', 'interrupt');
    if (run.softLimit && !run.stopped && worked) {
      run.phase = 'wrapping_up';
      const wrap = await runRole('wrap_up', wrapUpPrompt(run.softLimit, spec), stepsLeft, caps(spec, 1));
      summary = await acts.summarizeJobSession({ session_id });
      if (wrap.last.outcome === 'done' && summary.last_stop === 'function_call') run.stopHard('steps', 'interrupt');
    }
  } catch (err) {
    // An activity that gave up (a refused workspace, a store that stayed down): reported as failed.
    // Anything else is a bug in this code: the workflow task fails and is retried once it is fixed.
    if (!(err instanceof wf.ActivityFailure || err instanceof wf.ApplicationFailure)) throw err;
    failure = messageOf(err);
  }
  run.phase = 'collecting';
  if (workspace) {
    try {
      summary = await acts.summarizeJobSession({ session_id });
      deliverable = await onHost.collectJobDeliverable({ job_id, workspace, patch_file: spec.deliverable.patch_file });
      deliverable = await onHost.verifyJobDeliverable({ workspace, deliverable });
    } catch (err) {
      if (!(err instanceof wf.ActivityFailure)) throw err;
      failure ??= `collecting the deliverable failed: ${messageOf(err)}`;
    }
  }
  run.phase = 'done';
  const report = buildJobReport({
    job_id,
    spec,
    session_id,
    workspace,
    deliverable,
    summary,
    decisions: run.decisions,
    turns,
    limits_hit: run.limitsHit,
    cancelled: run.cancelled,
    ...(run.needsHuman ? { needs_human: run.needsHuman } : {}),
    ...(failure ? { failure } : {}),
    started_ms,
    finished_ms: Date.now(),
    notifications: [...run.notifications.values()],
    stalls: run.stalls,
    resumed: run.resumed,
  });
  // Read here, while the job runs, so the aftercare's first task schedules nothing but its timer.
  // A worker that cannot say (an older one, without the activity) keeps the workspace: nothing is lost.
  const retention_hours = workspace ? await workerSettings.jobRetentionHours().catch(() => null) : null;
  // Nothing to notify and no workspace to remove: no aftercare.
  if (spec.notify?.events.includes('job.finished') || retention_hours !== null) {
    await startAftercare({ job_id, report, ...(spec.notify ? { notify: spec.notify } : {}), has_workspace: workspace !== null, retention_hours, ...(hostQueue ? { workspace_task_queue: hostQueue } : {}) });
  }
  return report;
}

/**
 * The report's notification and the workspace's retention run in a workflow of their own, which
 * outlives this one (job-aftercare.ts). Awaiting the start is what makes the abandoned child outlive
 * the job: a child not yet started when its parent completes is never started.
 */
async function startAftercare(input: JobAftercareInput): Promise<void> {
  try {
    await wf.startChild(JOB_AFTERCARE_WORKFLOW_TYPE, {
      workflowId: jobAftercareWorkflowId(input.job_id),
      taskQueue: wf.workflowInfo().taskQueue,
      args: [input],
      staticSummary: `job ${input.job_id}: notification and retention`,
      parentClosePolicy: 'ABANDON',
    });
  } catch (err) {
    // A job id used again (its older run's aftercare still open): that one keeps the workspace's timer.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * A durable timer of the job's clock: `ms` after now, plus the time the job spent waiting for a
 * person to resume it meanwhile (the deadlines do not run while nobody can work). A job that never
 * waits schedules the one timer it always did.
 */
async function pausableSleep(run: JobRun, ms: number): Promise<void> {
  await wf.sleep(ms);
  let counted = 0;
  for (;;) {
    if (run.humanWait) await wf.condition(() => run.humanWait === undefined);
    if (run.pausedMs <= counted) return;
    const extra = run.pausedMs - counted;
    counted = run.pausedMs;
    await wf.sleep(extra);
  }
}

interface NeedsHumanContext {
  job_id: string;
  spec: Spec;
  session_id: string;
  workspace: JobWorkspaceInfo;
  onHost: Pick<JobActivities, 'collectJobDeliverable' | 'verifyJobDeliverable'>;
  turns: JobReport['turns'];
  started_ms: number;
  reason: string;
}

/**
 * The report of a job that waits for a person: what was done so far, collected and verified as at
 * the job's end (the agent's uncommitted work is committed), with status `needs_human`. A collection
 * that fails leaves the report without its deliverable rather than the job without a report.
 */
async function reportNeedsHuman(run: JobRun, c: NeedsHumanContext): Promise<JobReport> {
  let summary: JobSessionSummary | null = null;
  let deliverable: JobDeliverableReport | null = null;
  try {
    summary = await acts.summarizeJobSession({ session_id: c.session_id });
    deliverable = await c.onHost.collectJobDeliverable({ job_id: c.job_id, workspace: c.workspace, patch_file: c.spec.deliverable.patch_file });
    deliverable = await c.onHost.verifyJobDeliverable({ workspace: c.workspace, deliverable });
  } catch (err) {
    if (!(err instanceof wf.ActivityFailure)) throw err;
  }
  return buildJobReport({
    job_id: c.job_id,
    spec: c.spec,
    session_id: c.session_id,
    workspace: c.workspace,
    deliverable,
    summary,
    decisions: run.decisions,
    // The turns ended so far: the one waiting at the call is still running.
    turns: [...c.turns],
    limits_hit: run.limitsHit,
    cancelled: false,
    needs_human: c.reason,
    started_ms: c.started_ms,
    finished_ms: Date.now(),
    notifications: [...run.notifications.values()],
    stalls: run.stalls,
    resumed: run.resumed,
  });
}

/** `job.needs_human`: the waiting report, to whoever asked for the job's end or for this event; retried while the job waits. */
function notifyNeedsHuman(run: JobRun, callId: string): void {
  const notify = run.spec.notify;
  if (!notify || !(wants(notify, 'job.needs_human') || wants(notify, 'job.finished')) || !run.waitingReport || !run.humanWait) return;
  const delivery_id = notifyDeliveryId.needsHuman(run.jobId, callId);
  const report = run.waitingReport;
  const forMs = Math.max(1000, run.humanWait.resume_by - Date.now());
  void wf.CancellationScope.nonCancellable(async () => {
    run.notifications.set(delivery_id, { event: 'job.needs_human', delivery_id, status: 'pending' });
    run.notifications.set(delivery_id, await deliverNotification(notify, 'job.needs_human', delivery_id, report, forMs));
  });
}

/** The caps at `share` of the spec's (the work turn runs with the soft ones, the wrap-up with the hard ones). */
function caps(spec: Spec, share: number): Budget | undefined {
  const { max_cost_usd, max_tokens } = spec.limits;
  if (max_cost_usd === undefined && max_tokens === undefined) return undefined;
  return {
    ...(max_cost_usd !== undefined ? { max_cost_usd: max_cost_usd * share } : {}),
    ...(max_tokens !== undefined ? { max_tokens: Math.floor(max_tokens * share) } : {}),
  };
}

type TurnKind = JobReport['turns'][number]['kind'];

/**
 * One turn of the job's session, announced on the session's stream when the job does that
 * (JobSessionStream): the state it enters before it, `turn.finished` and `idle` after it.
 */
async function runTurn(run: JobRun, hostQueue: string | undefined, input: TurnWorkflowInput, kind: TurnKind, role: 'work' | 'wrap_up'): Promise<JobReport['turns'][number]> {
  const turn_id = turnId(input.turn_number);
  const stream = run.stream;
  // The state the turn enters goes out before any of the turn's events, as a session's does.
  if (stream) await stream.turnStarts(turn_id);
  const ended = await runTurnChild(run, hostQueue, input, kind, role);
  if (stream) await stream.turnEnded(turn_id, ended.outcome, ended.steps);
  return { kind, turn_id, ...ended };
}

/**
 * The turn as a child workflow; its progress reaches `run` through its reports, which the watchdog
 * also hears: a turn silent for `limits.stall_s` is aborted. On the workspace's host queue when there
 * is one: the turn's activities (its tools) run on its queue.
 */
async function runTurnChild(run: JobRun, hostQueue: string | undefined, input: TurnWorkflowInput, kind: TurnKind, role: 'work' | 'wrap_up'): Promise<{ outcome: TurnOutcome; steps: number }> {
  const workflow_id = turnWorkflowId(input.session_id, input.turn_number);
  const turn_id = turnId(input.turn_number);
  // Set before the start: the turn's first report may arrive in the same activation as its start.
  run.turn = { workflow_id, turn_id, kind: role };
  run.pulse = { seq: 0, phase: 'thinking', step: 0 };
  try {
    const child = await wf.startChild<(i: TurnWorkflowInput) => Promise<TurnWorkflowResult>>(TURN_WORKFLOW_TYPE, {
      workflowId: workflow_id,
      taskQueue: hostQueue ?? wf.workflowInfo().taskQueue,
      args: [input],
      staticSummary: `job ${run.jobId}: ${kind === 'wrap_up' ? 'wrap-up' : kind}`,
      parentClosePolicy: 'TERMINATE',
    });
    // A stop asked for while the child was being started: it hears it now.
    if (run.stopped) await child.signal(turnAbortSignal);
    else if (run.softLimit && role === 'work') await child.signal(turnInterruptSignal);
    let ended = false;
    const result = child.result().finally(() => (ended = true));
    const stall_s = run.spec.limits.stall_s;
    void watchTurn(() => run.pulse, () => ended || run.stopped, stall_s * 1000).then((seen) => (seen && !ended ? run.stalled(stallDiagnosis(seen, turn_id, stall_s)) : undefined));
    const outcome = await result;
    return { outcome: outcome.outcome, steps: outcome.steps };
  } catch (err) {
    if (err instanceof wf.ChildWorkflowFailure) return { outcome: 'error', steps: 0 };
    throw err;
  } finally {
    run.turn = undefined;
  }
}

function messageOf(err: unknown): string {
  if (err instanceof wf.ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
