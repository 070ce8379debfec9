import { checkInstanceCounts, type InstanceCounts, type ScalableService } from '../../infra/stack/instances';

/** `strand up` options naming how many of a service to run, and the service each one counts. */
const FLAGS = { gateways: 'gateway', workers: 'worker', stores: 'store' } as const satisfies Record<string, ScalableService>;

/**
 * The instance counts from the values parseArgs read for `--gateways N`, `--workers N`, `--stores N`
 * (cli-args.ts). Throws a message naming the option for a value that is not a count.
 */
export function instanceCountsFromOptions(values: Partial<Record<keyof typeof FLAGS, string | undefined>>): InstanceCounts {
  const counts: InstanceCounts = {};
  for (const [option, service] of Object.entries(FLAGS) as [keyof typeof FLAGS, ScalableService][]) {
    const raw = values[option];
    if (raw === undefined) continue;
    if (!/^\d+$/.test(raw)) throw new Error(`--${option} needs a number of instances, got ${JSON.stringify(raw)}`);
    counts[service] = Number(raw);
  }
  checkInstanceCounts(counts);
  return counts;
}

/**
 * What `strand up` runs when no flag says otherwise: two workers, so that a worker's crash never waits
 * for its restart — the other takes its turns over within a second or two (services/worker/crash-watch/).
 */
export const UP_DEFAULT_COUNTS: InstanceCounts = { worker: 2 };

/** The same counts as options again, for the runner that `up` starts. */
export function instanceFlags(counts: InstanceCounts): string[] {
  return Object.entries(FLAGS).flatMap(([option, service]) => (counts[service] !== undefined ? [`--${option}`, String(counts[service])] : []));
}
