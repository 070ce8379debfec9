import type { JobCancelReply, JobFacts, JobView, JobViewStatus } from '../../contracts/job-http';
import type { ApiClient } from './api-client';

/**
 * The routes of unattended jobs (docs/http.md, "Unattended jobs") as the page and the operator view
 * call them, over the clients' one API client. A job's conversation is its session's, `job-<id>`,
 * followed like any session's; everything else about it is read and done here.
 */

export type { JobFacts, JobView, JobViewStatus };
export type JobEscalation = NonNullable<JobView['progress']>['escalations'][number];
export type JobDecision = 'allow' | 'deny';

const at = (id: string) => `/api/jobs/${encodeURIComponent(id)}`;

export interface JobCalls {
  /** The caller's jobs, the running ones first (`limit`: at most 200). */
  list(limit?: number): Promise<JobFacts[]>;
  /** The job, with its progress while it runs (escalations waiting) and its report once it ended. */
  view(id: string): Promise<JobView>;
  cancel(id: string): Promise<JobCancelReply>;
  /** A person's answer to an escalated call: the job is signalled with the caller as who answered. */
  answer(id: string, toolCallId: string, decision: JobDecision, reason?: string): Promise<{ by: string }>;
  /** The report as the gateway writes it in markdown (409 JOB_NOT_FINISHED while the job runs). */
  reportMarkdown(id: string): Promise<string>;
}

export function jobCallsOn(client: ApiClient): JobCalls {
  return {
    list: (limit = 50) => client.call<{ jobs: JobFacts[] }>('GET', `/api/jobs?limit=${limit}`).then((r) => r.jobs),
    view: (id) => client.call<JobView>('GET', at(id)),
    cancel: (id) => client.call<JobCancelReply>('POST', `${at(id)}/cancel`, {}),
    answer: (id, toolCallId, decision, reason) => client.call<{ by: string }>('POST', `${at(id)}/escalations/${encodeURIComponent(toolCallId)}`, { decision, ...(reason ? { reason } : {}) }),
    reportMarkdown: (id) => client.text(`${at(id)}/report?format=markdown`),
  };
}

/** The session a job's work is recorded in (docs/jobs.md, "How a job runs"). */
export const jobSessionId = (jobId: string) => `job-${jobId}`;

/** The job a session id names if it is a job's session (to be confirmed by the job's route: an ordinary session may be so named). */
export const jobIdOfSession = (sessionId: string): string | undefined => (sessionId.startsWith('job-') && sessionId.length > 4 ? sessionId.slice(4) : undefined);

/** Still running: it may be cancelled, and its escalations answered. */
export const jobRunning = (status: JobViewStatus) => status === 'running';

/** How long the job ran, or has been running at `now`. */
export const jobDurationMs = (job: Pick<JobFacts, 'started_at' | 'closed_at'>, now: number) => Math.max(0, (job.closed_at ?? now) - job.started_at);

/** A status as people read it: `needs_human` → `needs a person`. */
export function jobStatusText(status: JobViewStatus): string {
  switch (status) {
    case 'needs_human':
      return 'needs a person';
    case 'timed_out':
      return 'timed out';
    default:
      return status;
  }
}
