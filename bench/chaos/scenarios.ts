import type { ServiceName } from '../../infra/stack/stack';
import type { TrialMode } from './provider-script';

/**
 * The chaos scenarios: every process of the stack killed with SIGKILL mid-stream and mid-tool (then
 * started again, as `npm start`'s supervisor would), Temporal and NATS down for a while mid-stream,
 * the polite stops people make every day — SIGTERM of each process (a deploy), a rolling restart of
 * the workers, the whole stack stopped and started as Ctrl-C and `npm start` do — and a control with
 * no fault at all, whose silences are the floor the others are read against.
 * - `kill`: SIGKILL, then a start; `stop`: SIGTERM (the process exits by itself), then a start;
 * - `rolling`: each worker in turn stopped with SIGTERM and started again before the next (the one
 *   running the turn first);
 * - `stack`: every process stopped with SIGTERM in the runner's order, then all started again.
 */
type FaultKind = 'none' | 'kill' | 'outage' | 'stop' | 'rolling' | 'stack';

export interface Scenario {
  id: string;
  /** The process that is faulted (`none` for the control, `stack` for all of them). */
  component: ServiceName | 'none' | 'stack';
  fault: FaultKind;
  /** Where the fault lands: while deltas flow (stream) or while a shell command runs (tool). */
  mode: TrialMode;
  /**
   * Two of each (two workers, as `npm start` runs them, and two gateways). A worker scenario kills the
   * worker running the turn's model step or tool: the turn must go on on the other one, without
   * waiting for the killed one's restart. A gateway scenario kills the gateway the client follows: the
   * client reconnects to the other one, as a client behind a balancer would.
   */
  failover?: boolean;
}

const KILLED: ServiceName[] = ['gateway', 'worker', 'store', 'nats', 'temporal'];

export const ALL_SCENARIOS: Scenario[] = [
  { id: 'none-stream', component: 'none', fault: 'none', mode: 'stream' },
  { id: 'none-tool', component: 'none', fault: 'none', mode: 'tool' },
  ...KILLED.flatMap((component): Scenario[] => [
    { id: `${component}-stream`, component, fault: 'kill', mode: 'stream' },
    { id: `${component}-tool`, component, fault: 'kill', mode: 'tool' },
  ]),
  { id: 'gateway-failover-stream', component: 'gateway', fault: 'kill', mode: 'stream', failover: true },
  { id: 'gateway-failover-tool', component: 'gateway', fault: 'kill', mode: 'tool', failover: true },
  { id: 'worker-failover-stream', component: 'worker', fault: 'kill', mode: 'stream', failover: true },
  { id: 'worker-failover-tool', component: 'worker', fault: 'kill', mode: 'tool', failover: true },
  { id: 'temporal-outage', component: 'temporal', fault: 'outage', mode: 'stream' },
  { id: 'nats-outage', component: 'nats', fault: 'outage', mode: 'stream' },
  ...KILLED.map((component): Scenario => ({ id: `${component}-sigterm-stream`, component, fault: 'stop', mode: 'stream' })),
  { id: 'worker-failover-sigterm-stream', component: 'worker', fault: 'stop', mode: 'stream', failover: true },
  { id: 'worker-failover-sigterm-tool', component: 'worker', fault: 'stop', mode: 'tool', failover: true },
  { id: 'worker-rolling-stream', component: 'worker', fault: 'rolling', mode: 'stream', failover: true },
  { id: 'stack-stop-stream', component: 'stack', fault: 'stack', mode: 'stream' },
];

/**
 * The scenarios named by CHAOS_SCENARIOS (comma-separated): a scenario id (`worker-tool`,
 * `nats-outage`) or a component, which picks all of its scenarios (`nats`: kills and the outage;
 * `none`: the control). Empty or unset: all of them.
 */
export function pickScenarios(filter: string | undefined): Scenario[] {
  const wanted = (filter ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (wanted.length === 0) return ALL_SCENARIOS;
  const unknown = wanted.filter((w) => !ALL_SCENARIOS.some((s) => s.id === w || s.component === w));
  if (unknown.length) {
    throw new Error(`CHAOS_SCENARIOS: unknown ${unknown.join(', ')}; known: ${ALL_SCENARIOS.map((s) => s.id).join(', ')} (or a component: none, ${KILLED.join(', ')}, stack)`);
  }
  return ALL_SCENARIOS.filter((s) => wanted.includes(s.id) || wanted.includes(s.component));
}
