import { type ServiceName } from './stack-specs';

/**
 * More than one of a service on one Temporal and one NATS (docs/multi-instance.md). Gateways are
 * stateless, workers share Temporal's task queue, and stores share one state through the store's
 * jetstream adapter; nats-server and the Temporal dev server stay single.
 */
export const SCALABLE_SERVICES = ['store', 'worker', 'gateway'] as const;
export type ScalableService = (typeof SCALABLE_SERVICES)[number];

/** How many instances of each scalable service; a service left out runs once. */
export type InstanceCounts = Partial<Record<ScalableService, number>>;

/**
 * One running process of the stack. The first instance keeps the service's own name ('gateway'),
 * so every single-instance caller means it; the others are numbered from 2 ('gateway#2').
 */
export type InstanceName = ServiceName | `${ScalableService}#${number}`;

/** More would only oversubscribe one machine; a real deployment spreads instances over machines. */
export const MAX_INSTANCES = 8;

export function isScalable(name: string): name is ScalableService {
  return (SCALABLE_SERVICES as readonly string[]).includes(name);
}

/** The service an instance belongs to: 'gateway#2' → 'gateway'. */
export function serviceOf(name: InstanceName): ServiceName {
  return name.split('#')[0] as ServiceName;
}

/** Which instance of its service a name is, from 1: 'gateway' → 1, 'gateway#2' → 2. */
export function ordinalOf(name: InstanceName): number {
  const [, n] = name.split('#');
  return n === undefined ? 1 : Number(n);
}

export function instanceCount(counts: InstanceCounts | undefined, service: ServiceName): number {
  return isScalable(service) ? (counts?.[service] ?? 1) : 1;
}

/** Every instance of `service`, first to last. */
export function instanceNames(counts: InstanceCounts | undefined, service: ServiceName): InstanceName[] {
  const n = instanceCount(counts, service);
  return Array.from({ length: n }, (_, i) => (i === 0 ? service : (`${service}#${i + 1}` as InstanceName)));
}

/** Throws a message naming the service when a count is not a whole number from 1 to MAX_INSTANCES. */
export function checkInstanceCounts(counts: InstanceCounts | undefined): void {
  for (const [service, n] of Object.entries(counts ?? {})) {
    if (!isScalable(service)) throw new Error(`${service} cannot run as several instances (only ${SCALABLE_SERVICES.join(', ')})`);
    if (!Number.isInteger(n) || n < 1 || n > MAX_INSTANCES) throw new Error(`${service} instances: ${n} is not a whole number from 1 to ${MAX_INSTANCES}`);
  }
}

export interface GatewayPorts {
  http: number;
  edn: number;
}

/**
 * The ports of every gateway. The first has the configured ones; each further gateway takes the two
 * ports right above the highest of the gateway before it (HTTP, then EDN): 9420/9421, then 9422/9423,
 * 9424/9425. A port 0 stays 0 (picked free at start), and so do the ports of every later gateway.
 */
export function gatewayPortPlan(ports: { gateway: number; edn?: number }, count: number): GatewayPorts[] {
  const plan: GatewayPorts[] = [{ http: ports.gateway, edn: ports.edn ?? 0 }];
  for (let k = 2; k <= count; k++) {
    const prev = plan[plan.length - 1]!;
    if (prev.http === 0) {
      plan.push({ http: 0, edn: 0 });
      continue;
    }
    const http = Math.max(prev.http, prev.edn) + 1;
    const edn = prev.edn === 0 ? 0 : http + 1;
    if (Math.max(http, edn) > 65535) throw new Error(`gateway ${k} would need a port above 65535 (first gateway on ${ports.gateway})`);
    plan.push({ http, edn });
  }
  return plan;
}

/**
 * The store's environment when several instances run: they must share one state, which only the
 * jetstream adapter does (fs instances would each keep their own copy of one directory).
 */
export function sharedStoreEnv(counts: InstanceCounts | undefined, configured: string | undefined): NodeJS.ProcessEnv {
  if (instanceCount(counts, 'store') === 1) return {};
  const adapter = configured?.trim();
  if (adapter && adapter !== 'jetstream') {
    throw new Error(`STRAND_STORE_ADAPTER=${adapter}: ${counts?.store} store instances need the jetstream adapter (only it shares one state between instances)`);
  }
  return { STRAND_STORE_ADAPTER: 'jetstream' };
}
