import * as wf from '@temporalio/workflow';
import type { ScheduleActivities } from '../../activities/schedules';
import type { JobReport } from '../../contracts/job-report';
import { dueTimeOfRunWorkflow, scheduledJobId, scheduledJobRunInputSchema, triggerWorkflowId, type ScheduledJobRunInput } from '../../contracts/job-schedule';
import { JOB_WORKFLOW_TYPE, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';
import type { RunRecord } from '../../contracts/schedule-ledger-kv';
import { storeRetry } from '../retry-policies';
import { withPreviousRunNote } from './run-notes';

/** Ledger writes: small KV puts, retried like the store's calls. */
const acts = wf.proxyActivities<ScheduleActivities>({ startToCloseTimeout: '1 minute', retry: { ...storeRetry, maximumAttempts: 10 } });

export interface ScheduledJobRunResult {
  job_id: string;
  status: RunRecord['status'];
}

/**
 * One due run of a job schedule (docs/jobs.md, "Schedules"), started by the Temporal Schedule's
 * action with the id `job-schedule:<name>:run-<due time>`: it records the run in the schedule's
 * ledger, starts the job (`job:<name>-<yyyymmdd>-<hhmmss>`) as its child and records how the job
 * ended. It fails when the job failed, so a schedule with `pause_on_failure` pauses (Temporal's own
 * policy); that pause is recorded too, so the ledger can explain the due times it skips.
 */
export async function scheduledJobRun(raw: ScheduledJobRunInput): Promise<ScheduledJobRunResult> {
  const input = scheduledJobRunInputSchema.parse(raw);
  const info = wf.workflowInfo();
  // Temporal's suffix is the run's due time; a run started by other means is due when it started.
  const due_ms = dueTimeOfRunWorkflow(info.workflowId) ?? Math.floor(info.startTime.getTime() / 1000) * 1000;
  const job_id = scheduledJobId(input.schedule, due_ms);
  const started: RunRecord = { due_ms, job_id, workflow_id: jobWorkflowId(job_id), started_ms: Date.now(), status: 'running' };
  await acts.recordScheduledRunStart({ generation: input.generation, run: started });

  let ended: RunRecord;
  try {
    let prompt = input.spec.task.prompt;
    if (input.notes) prompt = withPreviousRunNote(prompt, await acts.previousScheduledRun({ generation: input.generation, due_ms }));
    const jobInput: JobWorkflowInput = { job_id, spec: { ...input.spec, task: { ...input.spec.task, prompt } }, schedule_id: input.schedule };
    const report = await wf.executeChild<(i: JobWorkflowInput) => Promise<JobReport>>(JOB_WORKFLOW_TYPE, { workflowId: jobWorkflowId(job_id), args: [jobInput] });
    ended = { ...started, status: report.status, ...(report.reason ? { reason: report.reason } : {}), summary: report.summary, finished_ms: Date.now() };
  } catch (err) {
    // Cancelled (the `cancel_other` overlap policy, or a person) or the job's workflow itself failed.
    const cancelled = wf.isCancellation(err);
    ended = { ...started, status: cancelled ? 'cancelled' : 'failed', reason: cancelled ? 'the run was cancelled' : messageOf(err), finished_ms: Date.now() };
  }
  const failed = ended.status === 'failed';
  // Temporal pauses the schedule after a failed run of its own; a trigger's run is the gateway's (triggerWorkflowId).
  const byTemporal = info.workflowId !== triggerWorkflowId(input.schedule, due_ms);
  await wf.CancellationScope.nonCancellable(() => acts.recordScheduledRunEnd({ generation: input.generation, run: ended, paused_after_failure: failed && input.pause_on_failure && byTemporal }));
  if (failed) throw wf.ApplicationFailure.nonRetryable(`job ${job_id} failed: ${ended.reason ?? 'no reason given'}`, 'ScheduledJobFailed');
  return { job_id, status: ended.status };
}

function messageOf(err: unknown): string {
  const cause = (err as { cause?: { message?: string } }).cause;
  return cause?.message ?? (err as Error).message ?? String(err);
}
