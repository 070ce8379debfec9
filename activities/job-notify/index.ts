import { createDeliverJobNotification, type NotifyDeps } from './deliver';

/**
 * `STRAND_JOB_RETENTION_HOURS` (default 72): how long a finished job's workspace is kept (docs/jobs.md,
 * "Retention"); `never` keeps it (no timer). Anything else that is no number ≥ 0 is the default.
 */
export function jobRetentionHoursFromEnv(env: NodeJS.ProcessEnv = process.env): number | null {
  const raw = env.STRAND_JOB_RETENTION_HOURS?.trim();
  if (raw === 'never') return null;
  const n = raw ? Number(raw) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : 72;
}

/**
 * What happens after a job: its notification is delivered (signed with a secret only the worker
 * holds) and its workspace is kept for the retention time the worker is configured with.
 */
export function createJobAftercareActivities(deps: NotifyDeps & { retentionHours: number | null }) {
  return {
    deliverJobNotification: createDeliverJobNotification(deps),
    /** Read by the workflow once (recorded in its history), so the worker's setting at the job's end applies. */
    jobRetentionHours: async (): Promise<number | null> => deps.retentionHours,
  };
}
export type JobAftercareActivities = ReturnType<typeof createJobAftercareActivities>;
