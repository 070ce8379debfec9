import { isWorkflowTaskFailure } from './translate-failure';

/** Waits before each retry: the worker's task retry usually lands within a second. */
const RETRY_DELAYS_MS = [250, 750, 1_500];

/**
 * Runs a session command again while the server refuses it because the workflow's last task failed
 * (isWorkflowTaskFailure): a transient state Temporal itself retries, which a person sending a prompt
 * should not be told about. The caller fixes the update id before the first attempt, so a command the
 * server did take is not run twice. Anything else, or the last refusal, is thrown as it came.
 */
export async function withTaskRetry<T>(command: () => Promise<T>, delaysMs: readonly number[] = RETRY_DELAYS_MS): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await command();
    } catch (err) {
      const delay = delaysMs[attempt];
      if (delay === undefined || !isWorkflowTaskFailure(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
