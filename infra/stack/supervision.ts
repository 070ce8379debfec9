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
  /** Resolves once no restart is waiting or under way (at once when none is, or once closed). */
  settled(): Promise<void>;
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
  // Names from an unintended exit until their restart has come up or failed (a failure that is
  // another exit schedules the next try through exited() before the first one settles).
  const restarting = new Set<string>();
  let waiters: Array<() => void> = [];
  let closed = false;

  const settle = (name: string) => {
    restarting.delete(name);
    if (restarting.size > 0 && !closed) return;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  };
  const cancel = (name: string) => {
    clearTimeout(timers.get(name));
    timers.delete(name);
    settle(name);
  };

  return {
    exited(name, exit) {
      if (closed || exit.intended) return;
      let backoff = backoffs.get(name);
      if (!backoff) backoffs.set(name, (backoff = new RestartBackoff(policy)));
      const { delayMs, attempt } = backoff.next(exit.uptimeMs);
      log(name, `exited unexpectedly (${describeExit(exit)}); restarting in ${delayMs / 1000} s (restart ${attempt})`);
      clearTimeout(timers.get(name));
      restarting.add(name);
      timers.set(
        name,
        setTimeout(() => {
          timers.delete(name);
          if (closed) return;
          // A start that fails because the process died again is reported by exited() once more,
          // which has scheduled the next try (and kept the name restarting) by the time this settles.
          restart(name).then(
            () => {
              log(name, `restarted (restart ${attempt})`);
              if (!timers.has(name)) settle(name);
            },
            (err: unknown) => {
              log(name, `restart ${attempt} failed: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
              if (!timers.has(name)) settle(name);
            },
          );
        }, delayMs),
      );
    },
    cancel,
    close() {
      closed = true;
      for (const name of [...timers.keys()]) cancel(name);
      for (const name of [...restarting]) settle(name);
    },
    settled() {
      if (restarting.size === 0 || closed) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
