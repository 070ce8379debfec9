import type { InstanceName, ServiceName, Stack } from '../../infra/stack/stack';
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

/** The order the local stack stops in (infra/stack/stack.ts) and starts in. */
const STOP_ORDER: ServiceName[][] = [['gateway', 'worker'], ['store'], ['temporal', 'nats']];
const START_ORDER: ServiceName[] = ['temporal', 'nats', 'store', 'worker', 'gateway'];
/** How long a polite stop may take before it counts as stuck (the stack runner waits 4 s for a worker, then SIGKILL). */
const STOP_GRACE_MS = 5_000;

/**
 * A kill: SIGKILL to the process group at once, then, after the supervisor's delay, a start that
 * waits until the process is ready. A stop: SIGTERM and the process's own exit, then the same start.
 * An outage: a stop, the configured time down, then the same start. A rolling restart: each worker
 * (`target` first) stopped and started before the next. The whole stack: every process stopped in
 * the runner's order, then all started again. The control scenario does nothing. `target` names the
 * instance when the service runs more than one (default: the first, which has the service's own name).
 * A polite stop that needed SIGKILL is recorded as an error: the trial then fails.
 */
export async function injectFault(stack: Stack, scenario: Scenario, config: ChaosConfig, target?: InstanceName): Promise<FaultRecord | undefined> {
  if (scenario.component === 'none') return undefined;
  const record: FaultRecord = { at: performance.now(), downAt: 0 };
  const stopPolitely = async (name: InstanceName) => {
    const proc = stack.process(name);
    await proc.stop(STOP_GRACE_MS);
    if (proc.exitCode !== 0 && !record.error) record.error = `${name} did not stop by itself on SIGTERM (exit ${String(proc.exitCode)})`;
  };
  const restart = async (names: InstanceName[]) => {
    record.restartAt = performance.now();
    try {
      for (const name of names) await stack.restart(name);
      record.upAt = performance.now();
    } catch (err) {
      record.error = (err as Error).message.split('\n').slice(0, 4).join(' | ');
    }
  };
  if (scenario.fault === 'rolling') {
    const workers = stack.instances('worker');
    const order = target ? [target, ...workers.filter((w) => w !== target)] : workers;
    for (const [i, name] of order.entries()) {
      await stopPolitely(name);
      if (i === 0) record.downAt = performance.now();
      await restart([name]);
    }
    return record;
  }
  if (scenario.fault === 'stack') {
    for (const phase of STOP_ORDER) await Promise.all(phase.flatMap((service) => stack.instances(service)).map(stopPolitely));
    record.downAt = performance.now();
    await sleep(config.restartDelayMs);
    await restart(START_ORDER.flatMap((service) => stack.instances(service)));
    return record;
  }
  const name = target ?? (scenario.component as ServiceName);
  if (scenario.fault === 'kill') await stack.process(name).kill();
  else await stopPolitely(name);
  record.downAt = performance.now();
  // Counted from the exit, as the supervisor counts its backoff.
  await sleep(scenario.fault === 'outage' ? config.outageMs : config.restartDelayMs);
  await restart([name]);
  return record;
}
