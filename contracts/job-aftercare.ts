import { defineQuery } from '@temporalio/workflow';
import type { JobNotificationOutcome, JobNotify } from './job-notify';
import type { JobReport } from './job-report';

/**
 * What follows a job's end (docs/jobs.md, "Notification" and "Retention"): a workflow of its own,
 * started by the job as an abandoned child, so the job's result (its report) is there at once while
 * the webhook may be retried for a day and the workspace kept for days.
 */
export const JOB_AFTERCARE_WORKFLOW_TYPE = 'jobAftercareWorkflow';

export function jobAftercareWorkflowId(jobId: string): string {
  return `job:${jobId}:after`;
}

export interface JobAftercareInput {
  job_id: string;
  report: JobReport;
  notify?: JobNotify;
  /** The job made a workspace (else there is nothing to remove). */
  has_workspace: boolean;
  /** How long the workspace is kept: the worker's `STRAND_JOB_RETENTION_HOURS` as the job ended; null: for good. */
  retention_hours: number | null;
  /** The task queue of the host holding the workspace (its removal runs there); absent: the workflow's own. */
  workspace_task_queue?: string;
}

export interface JobAftercareView {
  job_id: string;
  /** The `job.finished` delivery; null when the spec asks for none. */
  notification: JobNotificationOutcome | null;
  /** When the workspace is due for removal, and when it was removed (ISO 8601); null without a workspace. */
  workspace_remove_at: string | null;
  workspace_removed_at: string | null;
}

export const jobAftercareQuery = defineQuery<JobAftercareView>('jobAftercare');
