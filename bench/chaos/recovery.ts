/** How long the client waited around a fault, in ms (undefined where there is nothing to measure). */
export interface RecoveryTimes {
  /**
   * The longest silence on the client between two consecutive deltas of the faulted turn that starts
   * at the last delta before the fault or at one still in flight then (IN_FLIGHT_MS): the wait the
   * fault caused. Replayed deltas end it, since that is when the client has text again.
   */
  silence?: number;
  /** From the fault to the delta that ended that silence (for the worker: kill → the turn streams again). */
  faultToResume?: number;
  /** From the fault to the faulted turn's `turn.finished` at the client. */
  faultToFinished?: number;
}

/**
 * Deltas published before the fault can still reach the client this long after it; a gap that starts
 * later is the stream's own pace, not the fault's doing.
 */
const IN_FLIGHT_MS = 250;

/** Recovery figures from the client's delta arrival times (any clock, the same as `faultAt`'s). */
export function recoveryTimes(deltaArrivals: number[], faultAt: number, finishedAt: number | undefined): RecoveryTimes {
  const sorted = [...deltaArrivals].sort((a, b) => a - b);
  const before = sorted.filter((t) => t <= faultAt);
  const window = [...before.slice(-1), ...sorted.filter((t) => t > faultAt)];
  let longest: { from: number; to: number } | undefined;
  for (let i = 1; i < window.length; i++) {
    const [from, to] = [window[i - 1]!, window[i]!];
    if (from > faultAt + IN_FLIGHT_MS) break;
    if (!longest || to - from > longest.to - longest.from) longest = { from, to };
  }
  return {
    silence: longest ? longest.to - longest.from : undefined,
    faultToResume: longest ? Math.max(0, longest.to - faultAt) : undefined,
    faultToFinished: finishedAt !== undefined ? finishedAt - faultAt : undefined,
  };
}
