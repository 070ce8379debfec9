/**
 * Runs `stop` once on SIGINT/SIGTERM, then exits: 0 when it finished, 1 when it threw or took longer
 * than `graceMs` (a stuck shutdown must not keep a port or the terminal).
 */
export function onShutdown(stop: () => Promise<void>, log: (msg: string) => void, graceMs = 10_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`received ${signal}, shutting down`);
    const timer = setTimeout(() => {
      log(`shutdown took longer than ${graceMs} ms, exiting`);
      process.exit(1);
    }, graceMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
