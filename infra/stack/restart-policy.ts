/**
 * When a supervised service dies on its own it is restarted after 0.5 s, then 1 s, 2 s, 4 s … at
 * most 30 s apart, so a service that cannot start does not spin the two cores. One that then stays
 * up for a minute counts as healthy again: its next crash starts over at 0.5 s.
 */
export interface RestartPolicy {
  initialMs: number;
  maxMs: number;
  resetAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 };

export class RestartBackoff {
  private failures = 0;

  constructor(private readonly policy: RestartPolicy = DEFAULT_RESTART_POLICY) {}

  /** The wait before restarting a process that has just died after running `uptimeMs`. */
  next(uptimeMs: number): { delayMs: number; attempt: number } {
    if (uptimeMs >= this.policy.resetAfterMs) this.failures = 0;
    const delayMs = Math.min(this.policy.maxMs, this.policy.initialMs * 2 ** this.failures);
    this.failures++;
    return { delayMs, attempt: this.failures };
  }
}
