import type { ChaosStack, LogLine } from './chaos-stack';
import type { ChaosConfig } from './config';
import { injectFault, type FaultRecord } from './fault';
import type { TrialMode } from './provider-script';
import type { Scenario } from './scenarios';
import { workerRunning, type TurnActivity } from './step-runner';

/** What a trial needs to know of its scenario (scenarios.ts for the local stack, cluster-scenarios.ts for the cluster). */
export interface TrialScenario {
  id: string;
  /** What is faulted, for messages. */
  component: string;
  fault: string;
  mode: TrialMode;
  failover?: boolean;
  /** The fault as the table describes it (default: derived from the local stack's fault kinds). */
  describe?: string;
}

/**
 * The stack a trial runs against: the local one (`npm run chaos`) or the clustered compose stack
 * (`npm run chaos:cluster`). The trial's flow, checks and figures are the same on both.
 */
export interface ChaosTarget {
  /** Where clients go: the gateway, or the load balancer in front of the gateways. */
  readonly base: string;
  /**
   * Every gateway a client may go to, `base` first, when there are several addresses (a local stack
   * with two gateways): the client's stream moves to the next one when its connection drops.
   */
  readonly bases?: string[];
  /** The bearer token every request carries, when the gateways have tokens. */
  readonly token?: string;
  /** The services' recent output: evidence for a failed trial. */
  readonly recent: LogLine[];
  /**
   * Which instance the fault lands on, chosen mid-turn (the worker running `activity`, the NATS node
   * leading the events stream, the gateway serving the client); a name for the record. Undefined: the
   * scenario's component as it is.
   */
  aim(scenario: TrialScenario, sessionId: string, turn: string, activity: TurnActivity): Promise<string | undefined>;
  /** Lands the fault on what `aim` chose; resolves once that part is back (or could not be brought back: `error`). */
  inject(scenario: TrialScenario, aimed: string | undefined): Promise<FaultRecord | undefined>;
  /** How long the fault keeps its part down on purpose (an outage, a partition): added to the turn's deadline. */
  downMs(scenario: TrialScenario): number;
}

/** The local stack (infra/stack) as a target: faults are signals to its processes (fault.ts). */
export function localTarget(chaos: ChaosStack, config: ChaosConfig): ChaosTarget {
  return {
    base: chaos.stack.urls.gateway,
    bases: chaos.stack.urls.gateways,
    recent: chaos.recent,
    // A failover kills the worker running the turn's step, or the gateway the client follows (the first).
    aim: (scenario, sessionId, turn, activity) =>
      !scenario.failover ? Promise.resolve(undefined) : scenario.component === 'gateway' ? Promise.resolve('gateway') : workerRunning(chaos.stack, sessionId, turn, activity),
    inject: (scenario, aimed) => injectFault(chaos.stack, scenario as Scenario, config, aimed as Parameters<typeof injectFault>[3]),
    downMs: (scenario) => (scenario.fault === 'outage' ? config.outageMs : 0),
  };
}
