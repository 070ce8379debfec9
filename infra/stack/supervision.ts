import { type ProcessExit } from './managed-process';
import { RestartBackoff, type RestartPolicy } from './restart-policy';

/**
 * Restarts services that die on their own, with backoff (restart-policy.ts). A service stopped or
 * killed on purpose (ManagedProcess.stop/kill, the stack stopping) is left alone.
 */
export interface Supervisor {
  /** Report an exit of `name`; schedules a restart when it was not intended. */
  exited(name: string, exit: ProcessExit): void;
  /** Drop a pending restart of `name` (someone restarts it by hand). */
  cancel(name: string): void;
  /** No more restarts: the stack is stopping. */
  close(): void;
}

function describeExit(exit: ProcessExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

export function createSupervisor(
  restart: (name: string) => Promise<void>,
  log: (name: string, line: string) => void,
  policy?: RestartPolicy,
): Supervisor {
  const backoffs = new Map<string, RestartBackoff>();
  const timers = new Map<string, NodeJS.Timeout>();
  let closed = false;

  const cancel = (name: string) => {
    clearTimeout(timers.get(name));
    timers.delete(name);
  };

  return {
    exited(name, exit) {
      if (closed || exit.intended) return;
      let backoff = backoffs.get(name);
      if (!backoff) backoffs.set(name, (backoff = new RestartBackoff(policy)));
      const { delayMs, attempt } = backoff.next(exit.uptimeMs);
      log(name, `exited unexpectedly (${describeExit(exit)}); restarting in ${delayMs / 1000} s (restart ${attempt})`);
      cancel(name);
      timers.set(
        name,
        setTimeout(() => {
          timers.delete(name);
          if (closed) return;
          // A start that fails because the process died again is reported by exited() once more.
          restart(name).then(
            () => log(name, `restarted (restart ${attempt})`),
            (err: unknown) => log(name, `restart ${attempt} failed: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`),
          );
        }, delayMs),
      );
    },
    cancel,
    close() {
      closed = true;
      for (const name of [...timers.keys()]) cancel(name);
    },
  };
}
