import fs from 'node:fs';
import path from 'node:path';
import { loadTokens } from '../../services/gateway/auth/tokens';
import { ensureServicesBuilt } from '../build/build-freshness';
import { writeChildRecords, type ChildRecord } from './child-records';
import { freePort, waitForTcp } from './free-port';
import { checkInstanceCounts, gatewayPortPlan, instanceCount, instanceNames, ordinalOf, serviceOf, type InstanceName } from './instances';
import { ManagedProcess } from './managed-process';
import { readProc } from './proc-table';
import { type RestartPolicy } from './restart-policy';
import { type StackConfig } from './stack-config';
import { instanceSpec, serviceSpecs, type ServiceName } from './stack-specs';
import { createSupervisor, type Supervisor } from './supervision';
import { warmUp } from './warm-up';

export type { ServiceName } from './stack-specs';
export type { InstanceCounts, InstanceName } from './instances';

/** A running local stack. */
export interface Stack {
  config: StackConfig;
  /**
   * `edn` is the gateway's EDN TCP listener as host:port (docs/edn.md). `gateway` and `edn` are
   * the first gateway's; `gateways` and `edns` list every gateway's, in instance order.
   */
  urls: { gateway: string; edn: string; gateways: string[]; edns: string[]; temporalUi?: string; temporal: string; nats: string };
  /** One process of the stack: 'gateway' is the first gateway, 'gateway#2' the second (instances.ts). */
  process(name: InstanceName): ManagedProcess;
  /** Every instance of `service`, first to last: ['worker', 'worker#2']. */
  instances(service: ServiceName): InstanceName[];
  /** Starts one instance again after it was stopped or killed, and waits until it is ready. */
  restart(name: InstanceName): Promise<void>;
  /** Stops every service (in dependency order, independent ones in parallel). Safe to call twice. */
  stop(): Promise<void>;
}

export interface StackOptions {
  /**
   * Restart a service that dies on its own, with backoff. `strand up` turns it on; tests leave it
   * off, since they kill services on purpose and restart them when they choose.
   */
  supervise?: boolean;
  /** Overrides the restart backoff (tests). */
  restartPolicy?: RestartPolicy;
  /** Aborting it while the stack starts stops whatever has started; startStack then rejects. */
  signal?: AbortSignal;
  /**
   * Serve a few throwaway turns before resolving, so the first real prompt is as fast as the next
   * ones (warm-up.ts). `strand up` turns it on; tests that count sessions or turns leave it off.
   */
  warmUp?: boolean;
}

/** Each of our services prints `[<name>] ready …` once it serves, whatever its log level. */
const READY_LINE = /^\[(store|worker|gateway)\] ready\b/;
const EXIT_NOTICE_MS = 250;
const START_TIMEOUT_MS = 90_000;

/**
 * Stop order: the services that use the others first, then the store, then the servers; every
 * instance of a phase's services stops together. Graces are short so that a whole stop stays well
 * under 15 s even when every phase needs its SIGKILL.
 */
const STOP_PHASES: { names: ServiceName[]; graceMs: number }[] = [
  { names: ['gateway', 'worker'], graceMs: 4_000 },
  { names: ['store'], graceMs: 2_000 },
  { names: ['temporal', 'nats'], graceMs: 3_000 },
];

/**
 * Picks free ports for the servers started first. The gateway's (HTTP and EDN) are picked only after Temporal is up,
 * because the dev server binds several internal ports of its own at random and could take it.
 */
async function resolvePorts(config: StackConfig): Promise<StackConfig> {
  const pick = async (p: number) => (p === 0 ? freePort() : p);
  const p = config.ports;
  return { ...config, ports: { ...p, temporal: await pick(p.temporal), temporalUi: await pick(p.temporalUi), nats: await pick(p.nats) } };
}

async function waitForHealth(url: string, proc: ManagedProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const dead = proc.deathReason();
    if (dead) throw new Error(dead);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
      if (res.ok) return;
      last = await res.text();
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${url} not healthy after ${timeoutMs} ms: ${last}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Starts nats-server, the Temporal dev server, the session store, the worker and the gateway, each in
 * its own process group, and waits until each is ready (the gateway's /healthz answers 200). With
 * `config.instances`, as many stores, workers and gateways as it says (instances.ts). On any
 * failure everything already started is stopped before the error propagates. The children's pids
 * are kept in `<data dir>/stack.children`; each child stops by itself if this process dies.
 */
export async function startStack(
  input: StackConfig,
  onLine: (name: string, line: string) => void,
  options: StackOptions = {},
): Promise<Stack> {
  checkInstanceCounts(input.instances);
  // Never the build of other sources: a stale dist/services is rebuilt first, and the log says why.
  if (input.code === 'built') await ensureServicesBuilt({ log: (m) => onLine('strand', m) });
  const config = await resolvePorts(input);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const procs = new Map<InstanceName, ManagedProcess>();
  const { host, ports } = config;
  const all = (service: ServiceName) => instanceNames(config.instances, service);
  const gatewayPorts = gatewayPortPlan(ports, instanceCount(config.instances, 'gateway'));
  const urls = {
    gateway: '',
    edn: '',
    gateways: [] as string[],
    edns: [] as string[],
    temporal: `${host}:${ports.temporal}`,
    nats: `nats://${host}:${ports.nats}`,
    ...(config.ui ? { temporalUi: `http://${host}:${ports.temporalUi}` } : {}),
  };
  let stopping: Promise<void> | undefined;
  // Supervision starts with the stack, not once it is all up: a service that dies after it was ready
  // (during the warm-up turns, say, before `[strand] ready`) is restarted like any other. One that
  // dies before it was ever ready fails the start instead, with its reason.
  const supervisor: Supervisor | undefined = options.supervise ? createSupervisor((name) => launch(name as InstanceName), onLine, options.restartPolicy) : undefined;
  const everReady = new Set<InstanceName>();

  const readiness: Record<ServiceName, (p: ManagedProcess, ordinal: number) => Promise<void>> = {
    nats: (p) => waitForTcp(host, ports.nats, START_TIMEOUT_MS, () => p.deathReason()),
    temporal: (p) => waitForTcp(host, ports.temporal, START_TIMEOUT_MS, () => p.deathReason()),
    store: (p) => p.waitForLine(READY_LINE, START_TIMEOUT_MS),
    worker: (p) => p.waitForLine(READY_LINE, START_TIMEOUT_MS),
    gateway: (p, ordinal) => waitForHealth(`${urls.gateways[ordinal - 1]}/healthz`, p, START_TIMEOUT_MS),
  };

  /** Ports of the `ordinal`th gateway: free ones picked for 0, never one another gateway has. */
  const placeGateway = async (ordinal: number) => {
    const own = gatewayPorts[ordinal - 1]!;
    // freePort releases what it found, so two picks (this gateway's two, or two gateways') can agree.
    const pick = async () => {
      for (;;) {
        const port = await freePort();
        if (!gatewayPorts.some((g) => g.http === port || g.edn === port)) return port;
      }
    };
    if (own.http === 0) own.http = await pick();
    if (own.edn === 0 || own.edn === own.http) own.edn = await pick();
    if (ordinal === 1) Object.assign(ports, { gateway: own.http, edn: own.edn });
    urls.gateways[ordinal - 1] = `http://${host}:${own.http}`;
    urls.edns[ordinal - 1] = `${host}:${own.edn}`;
    urls.gateway = urls.gateways[0] ?? '';
    urls.edn = urls.edns[0] ?? '';
  };

  const recordChildren = () => {
    const children: ChildRecord[] = [];
    for (const [name, p] of procs) {
      const pid = p.pid;
      const startTime = p.running && pid !== undefined ? readProc(pid)?.startTime : undefined;
      if (pid !== undefined && startTime !== undefined) children.push({ name, pid, startTime });
    }
    writeChildRecords(config.dataDir, children);
  };

  const create = async (name: InstanceName) => {
    const gateway = serviceOf(name) === 'gateway' ? gatewayPorts[ordinalOf(name) - 1] : undefined;
    const proc = new ManagedProcess(instanceSpec(await serviceSpecs(config), name, gateway), onLine);
    proc.onExit((exit) => {
      recordChildren();
      if (everReady.has(name)) supervisor?.exited(name, exit);
    });
    procs.set(name, proc);
    return proc;
  };

  const launch = async (name: InstanceName) => {
    const service = serviceOf(name);
    if (service === 'gateway') await placeGateway(ordinalOf(name));
    const proc = procs.get(name) ?? (await create(name));
    // A stop requested meanwhile wins: nothing new may start after it.
    if (stopping) throw new Error(`not starting ${name}: the stack is stopping`);
    proc.start();
    recordChildren();
    await readiness[service](proc, ordinalOf(name));
    everReady.add(name);
  };

  const stopAll = () =>
    (stopping ??= (async () => {
      supervisor?.close();
      for (const phase of STOP_PHASES) {
        await Promise.all(phase.names.flatMap(all).map((name) => procs.get(name)?.stop(phase.graceMs)));
      }
      recordChildren();
    })());

  // A request to a service that was just killed can fail a moment before its exit is seen here, so
  // the wait for its restart starts a little later.
  const untilSettled = async () => {
    await new Promise((resolve) => setTimeout(resolve, EXIT_NOTICE_MS));
    await supervisor?.settled();
  };

  const onAbort = () => void stopAll();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (options.signal?.aborted) throw new Error('the stack was stopped before it started');
    await Promise.all([launch('nats'), launch('temporal')]);
    await Promise.all(all('store').map(launch));
    await Promise.all([...all('worker'), ...all('gateway')].map(launch));
    // A service may still have come up after the stop began (the worker finishing its bundle).
    if (stopping) throw new Error('the stack was stopped while it was starting');
    if (options.warmUp) {
      const projectDir = path.join(config.dataDir, 'warm-up');
      // The gateways' tokens, read from the environment they get (stack-specs.ts); the first one will do.
      const [token] = loadTokens({ ...process.env, ...config.serviceEnv }, () => undefined).keys();
      const extra = { ...(token ? { token } : {}), ...(options.signal ? { signal: options.signal } : {}), ...(supervisor ? { untilSettled } : {}) };
      onLine('strand', await warmUp({ gateways: urls.gateways, workers: all('worker').length, projectDir, ...extra }));
      if (stopping) throw new Error('the stack was stopped while it was starting');
    }
    // Whoever reads `[strand] ready` next may use every service at once: one that died meanwhile (a
    // gateway killed during the warm-up, say) is up again first.
    await supervisor?.settled();
    if (stopping) throw new Error('the stack was stopped while it was starting');
  } catch (err) {
    await stopAll();
    throw options.signal?.aborted ? new Error('the stack was stopped while it was starting') : err;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }

  return {
    config,
    urls,
    process: (name) => {
      const p = procs.get(name);
      if (!p) throw new Error(`${name} was never started`);
      return p;
    },
    instances: all,
    restart: async (name) => {
      supervisor?.cancel(name);
      await procs.get(name)?.stop();
      await launch(name);
    },
    stop: stopAll,
  };
}
