import os from 'node:os';

/**
 * Each worker also polls a task queue of its own host, `<task queue>@<host id>` (docs/jobs.md,
 * "Worker faults and several hosts"): work that must run where some files are (a job's workspace)
 * is sent there. Workers of one host share it, so any of them may run that work.
 */
export function workerHostFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.STRAND_WORKER_HOST?.trim() || os.hostname();
}

/** The task queue only workers of `host` poll. */
export function hostTaskQueue(taskQueue: string, host: string): string {
  return `${taskQueue}@${host}`;
}
