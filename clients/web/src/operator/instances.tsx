import type { OperatorOverview } from './api';
import { counted } from './format';

/** "2 gateways, 1 worker": the processes that sent telemetry lately. */
export function Instances({ overview }: { overview: OperatorOverview | null | undefined }) {
  if (!overview) return <p class="instances">Instances: no data yet.</p>;
  const gateways = overview.instances.filter((i) => i.service === 'gateway');
  const workers = overview.instances.filter((i) => i.service === 'worker');
  const names = overview.instances.map((i) => `${i.service} ${i.instance}`).join(', ');
  return (
    <p class="instances" title={names}>
      Instances: {counted(gateways.length, 'gateway')}, {counted(workers.length, 'worker')}
    </p>
  );
}
