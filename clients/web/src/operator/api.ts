import type { z } from 'zod';
import type { turnSchema } from '../../../../contracts/http-replies';
import type { OperatorOverview } from '../../../../contracts/operator';
import { ApiClient } from '../../../core/api-client';
import { jobCallsOn, type JobFacts, type JobView } from '../../../core/job-calls';
import { tokenStore } from '../token';

/**
 * The operator view's calls (docs/operator.md): the running turns (`GET /api/turns`), the unattended
 * jobs (`GET /api/jobs`, and each running one's progress), the cluster's history and failures
 * (`GET /api/operator`), a turn's or a job's cancellation, against the origin the page was loaded
 * from, with the tab's token (token.ts, shared with the chat page) when one was given.
 */

/**
 * A running turn as `GET /api/turns` lists it. The model, tokens, retry attempt and Temporal link are
 * read as optional: a gateway older than them lists turns without them, and the table shows a dash.
 */
export type RunningTurn = z.infer<typeof turnSchema> & {
  model?: string;
  tokens?: { input: number; output: number };
  retry_attempt?: number;
  workflow_url?: string | null;
};

export type { OperatorOverview };

/** A job as listed, with its progress (spending, escalations waiting) when it runs and its worker answered. */
export type ListedJob = JobFacts & { progress?: JobView['progress'] };

/** The running jobs whose progress is read at each poll: a request each, so not without bound. */
const PROGRESS_OF_AT_MOST = 20;

/** The operator view's client: same origin, the tab's token; a failure is an ApiError (status 0: no answer). */
const gateway = new ApiClient({ baseUrl: '', token: () => tokenStore.get() });
const jobCalls = jobCallsOn(gateway);

/**
 * The caller's jobs, each running one with its progress. `GET /api/jobs` lists no spending and no
 * escalations, so they come from each running job's own route (a job that ended in between, or
 * whose worker did not answer, is listed without them).
 */
async function jobsWithProgress(): Promise<ListedJob[]> {
  const jobs = await jobCalls.list(200);
  const running = jobs.filter((j) => j.status === 'running').slice(0, PROGRESS_OF_AT_MOST);
  const views = await Promise.all(running.map((j) => jobCalls.view(j.job_id).catch(() => undefined)));
  const progress = new Map(views.flatMap((v) => (v ? [[v.job_id, v] as const] : [])));
  return jobs.map((j) => {
    const view = progress.get(j.job_id);
    return view ? { ...j, status: view.status, closed_at: view.closed_at, progress: view.progress } : j;
  });
}

export const operatorApi = {
  turns: () => gateway.call<{ turns: RunningTurn[] }>('GET', '/api/turns').then((r) => r.turns),
  jobs: jobsWithProgress,
  cancelJob: (jobId: string) => jobCalls.cancel(jobId),
  /** With `since` (the last point's `at`), only the newer points. */
  overview: (since?: number) => gateway.call<OperatorOverview>('GET', since === undefined ? '/api/operator' : `/api/operator?since=${since}`),
  cancelTurn: (turnJobId: string) => gateway.call<{ status: 'cancelled' | 'not_running' }>('POST', `/api/turns/${encodeURIComponent(turnJobId)}/cancel`, {}),
};
