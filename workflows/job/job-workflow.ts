import * as wf from '@temporalio/workflow';
import type { JobActivities, JobSessionSummary } from '../../activities/job-workspace';
import type { JobDeliverableReport, JobReport, JobWorkspaceInfo } from '../../contracts/job-report';
import { jobSessionId, jobWorkflowInputSchema, type JobWorkflowInput } from '../../contracts/job-workflow';
import type { Budget } from '../../contracts/session-settings';
import { turnAbortSignal, turnInterruptSignal, type TurnWorkflowInput, type TurnWorkflowResult } from '../../contracts/turn-workflow';
import { TURN_WORKFLOW_TYPE, turnId, turnWorkflowId } from '../../contracts/workflow-ids';
import { storeRetry } from '../retry-policies';
import { jobApprovalPolicy } from './job-policy';
import { buildJobReport } from './job-report';
import { JobRun } from './job-run';
import { wrapUpPrompt } from './wrap-up';

/** Workspace and store work: git on a big repository may take a while; retried like the store's own calls. */
const acts = wf.proxyActivities<JobActivities>({ startToCloseTimeout: '10 minutes', retry: { ...storeRetry, maximumAttempts: 5 } });

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
  const { job_id, spec, owner } = jobWorkflowInputSchema.parse(raw);
  const started_ms = Date.now();
  const run = new JobRun(job_id, spec);
  run.register();
  wf.CancellationScope.current().cancelRequested.catch(() => run.cancel());
  return wf.CancellationScope.nonCancellable(() => runJob(run, job_id, spec, started_ms, owner));
}

async function runJob(run: JobRun, job_id: string, spec: Spec, started_ms: number, owner?: string): Promise<JobReport> {
  const session_id = jobSessionId(job_id);
  const turns: JobReport['turns'] = [];
  let workspace: JobWorkspaceInfo | null = null;
  let deliverable: JobDeliverableReport | null = null;
  let summary: JobSessionSummary | null = null;
  let failure: string | undefined;
  // The deadline counts from the job's start; the wrap-up begins `wrap_up_before_s` before it.
  const { deadline_s, wrap_up_before_s } = spec.limits;
  // No wrap-up time: no soft deadline (two timers due at once may fire in either order).
  if (wrap_up_before_s > 0) void wf.sleep((deadline_s - wrap_up_before_s) * 1000).then(() => run.reachSoft('deadline_soft'));
  void wf.sleep(deadline_s * 1000).then(() => run.stopHard('deadline_hard', 'abort'));
  try {
    workspace = await acts.prepareJobWorkspace({ job_id, project_path: spec.task.project_path, kind: spec.workspace.kind, ...(spec.task.ref ? { ref: spec.task.ref } : {}) });
    const settings = { model: spec.task.model, thinking_level: spec.task.thinking_level, auto_retry: true, auto_compaction: true, approval: jobApprovalPolicy(spec), name: `job ${job_id}` };
    await acts.createJobSession({ job_id, project_path: workspace.path, title: `job ${job_id}: ${spec.task.prompt.split('\n')[0]!.slice(0, 80)}`, settings, ...(owner ? { owner } : {}) });
    run.session_id = session_id;
    const turn = (kind: 'work' | 'wrap_up', n: number, text: string, max_steps: number, budget: Budget | undefined) =>
      runTurn(run, { session_id, project_path: workspace!.path, turn_number: n, text, settings, max_steps, record: { last_turn: n, requests: [] }, thinking_before_next_step: true, ...(budget ? { budget } : {}) }, kind);

    const { max_steps, soft_share } = spec.limits;
    const workSteps = Math.max(1, Math.floor(max_steps * soft_share));
    if (!run.stopped && !run.softLimit) {
      run.phase = 'working';
      turns.push(await turn('work', 1, spec.task.prompt, workSteps, caps(spec, soft_share)));
      summary = await acts.summarizeJobSession({ session_id });
      // The work turn used all its steps and its last step still called tools: no answer yet.
      if (turns[0]!.outcome === 'done' && summary.last_stop === 'function_call' && turns[0]!.steps >= workSteps) run.reachSoft('steps_soft');
    }
    // A wrap-up of work that never started (the deadline came during the workspace's making) has nothing to wrap.
    const stepsLeft = max_steps - (summary?.usage.steps ?? 0);
    // No step left for a wrap-up (a tiny max_steps): the step limit is the hard one already.
    if (run.softLimit && !run.stopped && turns.length > 0 && stepsLeft <= 0) run.stopHard('steps', 'interrupt');
    if (run.softLimit && !run.stopped && turns.length > 0) {
      run.phase = 'wrapping_up';
      turns.push(await turn('wrap_up', 2, wrapUpPrompt(run.softLimit, spec), stepsLeft, caps(spec, 1)));
      summary = await acts.summarizeJobSession({ session_id });
      if (turns[1]!.outcome === 'done' && summary.last_stop === 'function_call') run.stopHard('steps', 'interrupt');
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
      deliverable = await acts.collectJobDeliverable({ job_id, workspace, patch_file: spec.deliverable.patch_file });
      deliverable = await acts.verifyJobDeliverable({ workspace, deliverable });
    } catch (err) {
      if (!(err instanceof wf.ActivityFailure)) throw err;
      failure ??= `collecting the deliverable failed: ${messageOf(err)}`;
    }
  }
  run.phase = 'done';
  return buildJobReport({
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

/** One turn of the job's session as a child workflow; its progress reaches `run` through its reports. */
async function runTurn(run: JobRun, input: TurnWorkflowInput, kind: 'work' | 'wrap_up'): Promise<JobReport['turns'][number]> {
  const workflow_id = turnWorkflowId(input.session_id, input.turn_number);
  const turn_id = turnId(input.turn_number);
  // Set before the start: the turn's first report may arrive in the same activation as its start.
  run.turn = { workflow_id, turn_id, kind };
  try {
    const child = await wf.startChild<(i: TurnWorkflowInput) => Promise<TurnWorkflowResult>>(TURN_WORKFLOW_TYPE, {
      workflowId: workflow_id,
      taskQueue: wf.workflowInfo().taskQueue,
      args: [input],
      staticSummary: `job ${run.jobId}: ${kind === 'work' ? 'work' : 'wrap-up'}`,
      parentClosePolicy: 'TERMINATE',
    });
    // A stop asked for while the child was being started: it hears it now.
    if (run.stopped) await child.signal(turnAbortSignal);
    else if (run.softLimit && kind === 'work') await child.signal(turnInterruptSignal);
    const result = await child.result();
    return { kind, turn_id, outcome: result.outcome, steps: result.steps };
  } catch (err) {
    if (err instanceof wf.ChildWorkflowFailure) return { kind, turn_id, outcome: 'error', steps: 0 };
    throw err;
  } finally {
    run.turn = undefined;
  }
}

function messageOf(err: unknown): string {
  if (err instanceof wf.ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
