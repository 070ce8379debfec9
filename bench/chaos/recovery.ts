/** How long the client waited around a fault, in ms (undefined where there is nothing to measure). */
export interface RecoveryTimes {
  /** The longest silence on the client between two deltas around the fault: last before → first after. */
  silence?: number;
  /** From the fault to the first delta after it (for the worker: kill → the turn streams again). */
  faultToFirstDelta?: number;
  /** From the fault to the faulted turn's `turn.finished` at the client. */
  faultToFinished?: number;
}

/**
 * Recovery figures from the client's delta arrival times (any clock, same as `faultAt`). Deltas that
 * arrive at once after a reconnect (replayed) end the silence: that is when the client has text again.
 */
export function recoveryTimes(deltaArrivals: number[], faultAt: number, finishedAt: number | undefined): RecoveryTimes {
  const before = deltaArrivals.filter((t) => t <= faultAt);
  const after = deltaArrivals.filter((t) => t > faultAt);
  const lastBefore = before.length ? Math.max(...before) : undefined;
  const firstAfter = after.length ? Math.min(...after) : undefined;
  return {
    silence: lastBefore !== undefined && firstAfter !== undefined ? firstAfter - lastBefore : undefined,
    faultToFirstDelta: firstAfter !== undefined ? firstAfter - faultAt : undefined,
    faultToFinished: finishedAt !== undefined ? finishedAt - faultAt : undefined,
  };
}
