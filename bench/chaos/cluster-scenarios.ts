import type { TrialScenario } from './target';

/**
 * The chaos scenarios of the clustered compose stack (docker-compose.cluster.yml), all mid-stream:
 * one part of the cluster faulted while the answer's deltas flow, the rest left running.
 * - `kill`: the container's main process SIGKILLed from the host (a crash: the restart policy starts it
 *   again, unlike `docker kill`);
 * - `stop`: `docker stop` (SIGTERM, then SIGKILL after 10 s), started again after the restart delay;
 * - `partition`: the container disconnected from the stack's network for the outage time, then
 *   connected again (it keeps running, cut off).
 * Which container: `nats-leader` is the NATS node leading the agent-events stream (JetStream's stream
 * info names it), `nats-follower` one that does not; `gateway` the gateway serving the client's SSE
 * stream (the load balancer's log names it); `worker` the worker running the step (Temporal's pending
 * activity names it); `temporal-history` and `temporal-matching` the Temporal service's container.
 */
type ClusterComponent = 'nats-leader' | 'nats-follower' | 'gateway' | 'worker' | 'temporal-history' | 'temporal-matching';

export interface ClusterScenario extends TrialScenario {
  component: ClusterComponent;
  fault: 'kill' | 'stop' | 'partition';
  describe: string;
}

const CLUSTER_SCENARIOS: ClusterScenario[] = [
  { id: 'cluster-nats-leader-kill', component: 'nats-leader', fault: 'kill', mode: 'stream', describe: 'kill -9 the NATS node leading the events stream (one of 3) mid-stream' },
  { id: 'cluster-nats-leader-stop', component: 'nats-leader', fault: 'stop', mode: 'stream', describe: 'docker stop the NATS node leading the events stream mid-stream, start it 0.5 s later' },
  { id: 'cluster-nats-follower-kill', component: 'nats-follower', fault: 'kill', mode: 'stream', describe: 'kill -9 a NATS node that does not lead the events stream mid-stream' },
  { id: 'cluster-gateway-kill', component: 'gateway', fault: 'kill', mode: 'stream', describe: 'kill -9 the gateway (one of 2) serving the client’s SSE stream behind the balancer mid-stream' },
  { id: 'cluster-worker-kill', component: 'worker', fault: 'kill', mode: 'stream', failover: true, describe: 'kill -9 the worker (one of 2) running the step mid-stream' },
  { id: 'cluster-temporal-history-kill', component: 'temporal-history', fault: 'kill', mode: 'stream', describe: 'kill -9 Temporal’s history service mid-stream' },
  { id: 'cluster-temporal-matching-kill', component: 'temporal-matching', fault: 'kill', mode: 'stream', describe: 'kill -9 Temporal’s matching service mid-stream' },
  { id: 'cluster-nats-partition', component: 'nats-leader', fault: 'partition', mode: 'stream', describe: 'the events stream’s leader node cut off the network (docker network disconnect) for the outage time, then reconnected' },
];

/** CHAOS_SCENARIOS for the cluster: scenario ids or components, comma-separated; empty: all. */
export function pickClusterScenarios(filter: string | undefined): ClusterScenario[] {
  const wanted = (filter ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (wanted.length === 0) return CLUSTER_SCENARIOS;
  const unknown = wanted.filter((w) => !CLUSTER_SCENARIOS.some((s) => s.id === w || s.component === w));
  if (unknown.length) throw new Error(`CHAOS_SCENARIOS: unknown ${unknown.join(', ')}; known: ${CLUSTER_SCENARIOS.map((s) => s.id).join(', ')}`);
  return CLUSTER_SCENARIOS.filter((s) => wanted.includes(s.id) || wanted.includes(s.component));
}
