import path from 'node:path';
import type { JobDeliverableReport, JobWorkspaceInfo } from '../../contracts/job-report';
import { collectJobDeliverable, verifyJobDeliverable, type CollectDeliverableInput } from './deliverable';
import { createJobSessionActivities, type JobSessionDeps } from './job-session';
import { prepareJobWorkspace, removeJobWorkspace, type PrepareJobWorkspaceInput } from './workspace';


export interface JobWorkspaceDeps {
  /** The folder under which each job has `<id>/workspace`, `<id>/workspace.json` and `<id>/job.patch`. */
  jobsDir: string;
  /**
   * This worker's own task queue (`<task queue>@<host id>`), which only workers of this host poll:
   * a workspace made here names it, so the job's later work comes here, where its files are.
   */
  hostTaskQueue?: string;
}

/** `STRAND_JOBS_DIR`, else `.strand/data/jobs` under the worker's folder (docs/jobs.md). */
export function jobsDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.STRAND_JOBS_DIR?.trim() || path.join('.strand', 'data', 'jobs'));
}

/**
 * A job's workspace and deliverable (docs/jobs.md): each activity is safe to run twice, since
 * Temporal may retry any of them after a worker dies half-way.
 */
export function createJobWorkspaceActivities(deps: JobWorkspaceDeps) {
  return {
    prepareJobWorkspace: (input: PrepareJobWorkspaceInput): Promise<JobWorkspaceInfo> => prepareJobWorkspace(deps.jobsDir, input, deps.hostTaskQueue),
    collectJobDeliverable: (input: CollectDeliverableInput): Promise<JobDeliverableReport> => collectJobDeliverable(deps.jobsDir, input),
    verifyJobDeliverable: (input: { workspace: JobWorkspaceInfo; deliverable: JobDeliverableReport }): Promise<JobDeliverableReport> => verifyJobDeliverable(input),
    removeJobWorkspace: (input: { job_id: string }): Promise<{ removed: boolean }> => removeJobWorkspace(deps.jobsDir, input),
  };
}

/** Every activity the job workflow calls besides the turn's: the workspace and the job's session. */
export function createJobActivities(deps: JobWorkspaceDeps & JobSessionDeps) {
  return { ...createJobWorkspaceActivities(deps), ...createJobSessionActivities(deps) };
}
export type JobActivities = ReturnType<typeof createJobActivities>;
export type { JobSessionSummary } from './job-session';
