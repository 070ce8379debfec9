import fs from 'node:fs';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../contracts/task-queues';
import { binaryPaths } from '../bootstrap/paths';
import { freePort } from './free-port';
import { serviceOf, sharedStoreEnv, type GatewayPorts, type InstanceName } from './instances';
import { stackMarkerEnv } from './leftovers';
import { type ProcessSpec } from './managed-process';
import { LINK_ENV, LINK_FD } from './parent-link';
import { REPO_ROOT, type ServiceCode, type StackConfig } from './stack-config';
import { bundlePath, SERVICE_ENTRIES, type ServiceBundle } from '../build/services-build';

export type ServiceName = 'nats' | 'temporal' | 'store' | 'worker' | 'gateway';

/**
 * How node runs one of our entries. From source: tsx's loader compiles the TypeScript at every start.
 * Built: the bundle of the same entry in dist/services (infra/build/services-build.ts), plain
 * JavaScript. Source maps are written beside it but not turned on: `--enable-source-maps` parses the
 * map of every module loaded, node_modules' too, which cost a gateway start 150–190 ms (bench:startup);
 * NODE_OPTIONS=--enable-source-maps turns them on when a stack trace should name the .ts lines.
 */
export function nodeArgs(code: ServiceCode, bundle: ServiceBundle, ...rest: string[]): string[] {
  return code === 'built'
    ? [bundlePath(bundle), ...rest]
    : ['--import', 'tsx', path.join(REPO_ROOT, SERVICE_ENTRIES[bundle]), ...rest];
}

/**
 * A service of ours, run by node (no wrapper process in between). service-entry makes it stop by
 * itself if the runner dies, then loads the service in the same process.
 */
function nodeService(name: string, bundle: ServiceBundle, code: ServiceCode, env: NodeJS.ProcessEnv): ProcessSpec {
  const service = code === 'built' ? bundlePath(bundle) : path.join(REPO_ROOT, SERVICE_ENTRIES[bundle]);
  return {
    name,
    command: process.execPath,
    args: nodeArgs(code, 'service-entry', service),
    env: { ...env, [LINK_ENV]: String(LINK_FD) },
    cwd: REPO_ROOT,
  };
}

/** A server binary, run under the watchdog that stops it if the runner dies (a Go binary cannot watch fd 3). */
function binaryService(name: string, code: ServiceCode, command: string, args: string[], env: NodeJS.ProcessEnv): ProcessSpec {
  return { name, command: process.execPath, args: nodeArgs(code, 'watchdog', command, ...args), env, cwd: REPO_ROOT };
}

/** How to start each service of the stack described by `config` (ports already resolved). */
export async function serviceSpecs(config: StackConfig): Promise<Record<ServiceName, ProcessSpec>> {
  const bins = binaryPaths();
  const { host, ports, dataDir } = config;
  const code = config.code ?? 'source';
  for (const dir of ['nats', 'store']) fs.mkdirSync(path.join(dataDir, dir), { recursive: true });
  const temporalArgs = [
    'server', 'start-dev',
    '--ip', host,
    '--port', String(ports.temporal),
    '--http-port', String(await freePort()),
    '--metrics-port', String(await freePort()),
    '--db-filename', path.join(dataDir, 'temporal.db'),
    '--namespace', 'default',
    '--log-level', 'warn',
    // Nothing may call outside this machine: the server's version check is off.
    '--dynamic-config-value', 'frontend.enableServerVersionCheck=false',
    // The activity a workflow task schedules comes back in that task's reply: one hop less per step.
    '--dynamic-config-value', 'system.enableActivityEagerExecution=true',
    // The dev server has one history shard, whose transfer queue (a new workflow task, a child's start,
    // a signal to another workflow) is read at most 20 times a second by default: each hop of a turn
    // then waited up to 50 ms for the next read. Reads are still driven by new tasks, not polling.
    '--dynamic-config-value', 'history.transferProcessorMaxPollRPS=1000',
    '--sqlite-pragma', 'journal_mode=wal',
    '--sqlite-pragma', 'synchronous=normal',
    ...Object.values(SEARCH_ATTRIBUTES).flatMap((sa) => ['--search-attribute', `${sa.name}=${sa.type}`]),
    ...(config.ui ? ['--ui-ip', host, '--ui-port', String(ports.temporalUi)] : ['--headless']),
  ];
  // Every process of the stack, and what it starts, carries the marker that identifies leftovers.
  const marker = stackMarkerEnv(dataDir);
  const serviceEnv: NodeJS.ProcessEnv = {
    STRAND_NATS_URL: `nats://${host}:${ports.nats}`,
    STRAND_TEMPORAL_ADDRESS: `${host}:${ports.temporal}`,
    STRAND_GATEWAY_HOST: host,
    STRAND_GATEWAY_PORT: String(ports.gateway),
    STRAND_EDN_PORT: String(ports.edn ?? 0),
    STRAND_STORE_DATA_DIR: path.join(dataDir, 'store'),
    STRAND_TOOL_OUTPUT_DIR: path.join(dataDir, 'tool-output'),
    STRAND_CHECKPOINT_DIR: path.join(dataDir, 'checkpoints'),
    // The gateway links jobs to their workflows in the UI this stack runs; an address set by the
    // caller (a proxy in front of the UI) wins.
    ...(config.ui && !process.env.STRAND_TEMPORAL_UI_URL ? { STRAND_TEMPORAL_UI_URL: `http://${host}:${ports.temporalUi}` } : {}),
    ...config.serviceEnv,
    ...sharedStoreEnv(config.instances, config.serviceEnv.STRAND_STORE_ADAPTER ?? process.env.STRAND_STORE_ADAPTER),
    ...marker,
  };
  const natsArgs = ['-a', host, '-p', String(ports.nats), '-js', '-sd', path.join(dataDir, 'nats'), '-n', 'strand-local'];
  return {
    nats: binaryService('nats', code, bins.natsServer, natsArgs, marker),
    temporal: binaryService('temporal', code, bins.temporal, temporalArgs, { TEMPORAL_VERSION_CHECK_DISABLED: '1', ...marker }),
    store: nodeService('store', 'store', code, serviceEnv),
    worker: nodeService('worker', 'worker', code, serviceEnv),
    gateway: nodeService('gateway', 'gateway', code, serviceEnv),
  };
}

/** One instance: its service's spec under the instance's own name; a gateway on its own ports. */
export function instanceSpec(specs: Record<ServiceName, ProcessSpec>, name: InstanceName, gateway?: GatewayPorts): ProcessSpec {
  const spec = specs[serviceOf(name)];
  const env = gateway ? { ...spec.env, STRAND_GATEWAY_PORT: String(gateway.http), STRAND_EDN_PORT: String(gateway.edn) } : spec.env;
  return { ...spec, name, env };
}
