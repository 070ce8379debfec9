import type { InstanceName, Stack } from '../../infra/stack/stack';
import type { ChaosConfig } from './config';
import type { Scenario } from './scenarios';

/** What was done to the faulted process, when (performance.now()) and how long it took. */
export interface FaultRecord {
  /** When the kill or stop was issued. */
  at: number;
  /** When the process had exited. */
  downAt: number;
  /** When the restart was issued, and when the process was ready again. */
  restartAt?: number;
  upAt?: number;
  /** Why the restart failed, if it did (the trial then fails; the stack is repaired before the next). */
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A kill: SIGKILL to the process group at once, then, after the supervisor's delay, a start that
 * waits until the process is ready. An outage: a normal stop (SIGTERM), the configured time down,
 * then the same start. The control scenario does nothing. `target` names the instance when the
 * service runs more than one (default: the first, which has the service's own name).
 */
export async function injectFault(stack: Stack, scenario: Scenario, config: ChaosConfig, target?: InstanceName): Promise<FaultRecord | undefined> {
  if (scenario.component === 'none') return undefined;
  const name = target ?? scenario.component;
  const proc = stack.process(name);
  const record: FaultRecord = { at: performance.now(), downAt: 0 };
  if (scenario.fault === 'kill') await proc.kill();
  else await proc.stop(5_000);
  record.downAt = performance.now();
  // Counted from the exit, as the supervisor counts its backoff.
  await sleep(scenario.fault === 'kill' ? config.restartDelayMs : config.outageMs);
  record.restartAt = performance.now();
  try {
    await stack.restart(name);
    record.upAt = performance.now();
  } catch (err) {
    record.error = (err as Error).message.split('\n').slice(0, 4).join(' | ');
  }
  return record;
}
