/**
 * Runs `fn` every `intervalMs` at wall-clock instants `k * intervalMs + offsetMs`, so that processes
 * on clocks that agree (NTP) act in step: every process publishes its telemetry snapshot at the
 * interval's start and every gateway closes a point at its middle, so each point holds exactly one
 * snapshot of each process rather than none or two (which would make the charts saw-toothed).
 * Instants missed while the event loop was busy are skipped, not caught up. Returns the stop
 * function; the timer never keeps the process alive.
 */
export function everyAlignedInterval(intervalMs: number, offsetMs: number, fn: () => void, now: () => number = Date.now): () => void {
  /** The first aligned instant strictly after `t`. */
  const after = (t: number) => Math.floor((t - offsetMs) / intervalMs) * intervalMs + offsetMs + intervalMs;
  let target = after(now());
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(fire, Math.max(0, target - now()));
    timer.unref();
  };
  const fire = () => {
    if (stopped) return;
    fn();
    // A timer that fired a little early must not fire again for the same instant.
    target = Math.max(target + intervalMs, after(now()));
    arm();
  };
  arm();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
