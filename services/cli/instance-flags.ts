import { checkInstanceCounts, type InstanceCounts, type ScalableService } from '../../infra/stack/instances';

/** `strand up` flags naming how many of a service to run, and the service each one counts. */
const FLAGS: Record<string, ScalableService> = { '--gateways': 'gateway', '--workers': 'worker', '--stores': 'store' };

/**
 * Reads `--gateways N`, `--workers N`, `--stores N` (or `--gateways=N`) from `up`'s arguments; other
 * arguments (`-d`) are left to the caller. Throws a message naming the flag for a missing or bad value.
 */
export function parseInstanceFlags(args: string[]): InstanceCounts {
  const counts: InstanceCounts = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.split('=', 2) as [string, string | undefined];
    const service = FLAGS[flag];
    if (!service) continue;
    const raw = inline ?? args[++i];
    if (raw === undefined || !/^\d+$/.test(raw)) throw new Error(`${flag} needs a number of instances, got ${raw === undefined ? 'nothing' : `"${raw}"`}`);
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

/** `up`'s counts: the defaults, then the flags given. */
export function upInstanceCounts(args: string[]): InstanceCounts {
  return { ...UP_DEFAULT_COUNTS, ...parseInstanceFlags(args) };
}

/** The same counts as flags again, for the runner that `up` starts. */
export function instanceFlags(counts: InstanceCounts): string[] {
  return Object.entries(FLAGS).flatMap(([flag, service]) => (counts[service] !== undefined ? [flag, String(counts[service])] : []));
}
