/**
 * How long a worker that is asked to stop (SIGTERM, Ctrl-C, `npm stop`, a deploy) lets its running
 * activities go on before it hands them back, and how long it waits in all before it exits anyway.
 * During the grace time a short tool call or the end of an answer still finishes here; after it, a
 * model step is handed back with every delta published (another worker continues the answer) and a
 * tool call is run again elsewhere or reported interrupted (docs/local-stack.md, "Stopping mid-answer").
 * Both stay below the kill timers that follow SIGTERM: the local stack runner's 4 s for workers and
 * Docker's 10 s.
 */
export interface ShutdownTimes {
  graceMs: number;
  forceMs: number;
}

const DEFAULTS: ShutdownTimes = { graceMs: 1_500, forceMs: 3_000 };

export function shutdownTimesFromEnv(env: NodeJS.ProcessEnv = process.env): ShutdownTimes {
  const read = (name: string, fallback: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number of milliseconds (got ${JSON.stringify(raw)})`);
    return value;
  };
  const graceMs = read('STRAND_WORKER_SHUTDOWN_GRACE_MS', DEFAULTS.graceMs);
  const forceMs = read('STRAND_WORKER_SHUTDOWN_FORCE_MS', Math.max(DEFAULTS.forceMs, graceMs + 1_500));
  if (forceMs <= graceMs) throw new Error(`STRAND_WORKER_SHUTDOWN_FORCE_MS (${forceMs}) must be longer than STRAND_WORKER_SHUTDOWN_GRACE_MS (${graceMs}): the handed-back activities need time to report`);
  return { graceMs, forceMs };
}
