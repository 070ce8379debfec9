import fs from 'node:fs';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../contracts/task-queues';
import { binaryPaths } from '../bootstrap/paths';
import { freePort, waitForTcp } from './free-port';
import { ManagedProcess, type ProcessSpec } from './managed-process';
import { REPO_ROOT, type StackConfig } from './stack-config';

export type ServiceName = 'nats' | 'temporal' | 'store' | 'worker' | 'gateway';

/** A running local stack. */
export interface Stack {
  config: StackConfig;
  urls: { gateway: string; temporalUi?: string; temporal: string; nats: string };
  process(name: ServiceName): ManagedProcess;
  /** Starts one service again after it was stopped or killed, and waits until it is ready. */
  restart(name: ServiceName): Promise<void>;
  stop(): Promise<void>;
}

/** Each of our services prints `[<name>] ready …` once it serves, whatever its log level. */
const READY_LINE = /^\[(store|worker|gateway)\] ready\b/;
const START_TIMEOUT_MS = 90_000;

/**
 * Picks free ports for the servers started first. The gateway's is picked only after Temporal is up,
 * because the dev server binds several internal ports of its own at random and could take it.
 */
async function resolvePorts(config: StackConfig): Promise<StackConfig> {
  const pick = async (p: number) => (p === 0 ? freePort() : p);
  const p = config.ports;
  return { ...config, ports: { ...p, temporal: await pick(p.temporal), temporalUi: await pick(p.temporalUi), nats: await pick(p.nats) } };
}

/** Starts a service written in TypeScript with node's tsx loader (no wrapper process in between). */
function tsService(name: string, entry: string, env: NodeJS.ProcessEnv): ProcessSpec {
  return { name, command: process.execPath, args: ['--import', 'tsx', path.join(REPO_ROOT, entry)], env, cwd: REPO_ROOT };
}

async function specs(config: StackConfig): Promise<Record<ServiceName, ProcessSpec>> {
  const bins = binaryPaths();
  const { host, ports, dataDir } = config;
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
    '--sqlite-pragma', 'journal_mode=wal',
    '--sqlite-pragma', 'synchronous=normal',
    ...Object.values(SEARCH_ATTRIBUTES).flatMap((sa) => ['--search-attribute', `${sa.name}=${sa.type}`]),
    ...(config.ui ? ['--ui-ip', host, '--ui-port', String(ports.temporalUi)] : ['--headless']),
  ];
  const serviceEnv: NodeJS.ProcessEnv = {
    STRAND_NATS_URL: `nats://${host}:${ports.nats}`,
    STRAND_TEMPORAL_ADDRESS: `${host}:${ports.temporal}`,
    STRAND_GATEWAY_HOST: host,
    STRAND_GATEWAY_PORT: String(ports.gateway),
    STRAND_STORE_DATA_DIR: path.join(dataDir, 'store'),
    ...config.serviceEnv,
  };
  return {
    nats: { name: 'nats', command: bins.natsServer, args: ['-a', host, '-p', String(ports.nats), '-js', '-sd', path.join(dataDir, 'nats'), '-n', 'strand-local'] },
    temporal: { name: 'temporal', command: bins.temporal, args: temporalArgs, env: { TEMPORAL_VERSION_CHECK_DISABLED: '1' } },
    store: tsService('store', 'services/session-store/main.ts', serviceEnv),
    worker: tsService('worker', 'services/worker/main.ts', serviceEnv),
    gateway: tsService('gateway', 'services/gateway/main.ts', serviceEnv),
  };
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
 * its own process group, and waits until each is ready (the gateway's /healthz answers 200). On any
 * failure everything already started is stopped before the error propagates.
 */
export async function startStack(input: StackConfig, onLine: (name: string, line: string) => void): Promise<Stack> {
  const config = await resolvePorts(input);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const procs = new Map<ServiceName, ManagedProcess>();
  const { host, ports } = config;
  const urls = {
    gateway: '',
    temporal: `${host}:${ports.temporal}`,
    nats: `nats://${host}:${ports.nats}`,
    ...(config.ui ? { temporalUi: `http://${host}:${ports.temporalUi}` } : {}),
  };

  const readiness: Record<ServiceName, (p: ManagedProcess) => Promise<void>> = {
    nats: (p) => waitForTcp(host, ports.nats, START_TIMEOUT_MS, () => p.deathReason()),
    temporal: (p) => waitForTcp(host, ports.temporal, START_TIMEOUT_MS, () => p.deathReason()),
    store: (p) => p.waitForLine(READY_LINE, START_TIMEOUT_MS),
    worker: (p) => p.waitForLine(READY_LINE, START_TIMEOUT_MS),
    gateway: (p) => waitForHealth(`${urls.gateway}/healthz`, p, START_TIMEOUT_MS),
  };

  const launch = async (name: ServiceName) => {
    if (name === 'gateway' && ports.gateway === 0) ports.gateway = await freePort();
    urls.gateway = `http://${host}:${ports.gateway}`;
    const proc = procs.get(name) ?? new ManagedProcess((await specs(config))[name], onLine);
    procs.set(name, proc);
    proc.start();
    await readiness[name](proc);
  };

  const stopAll = async () => {
    for (const name of ['gateway', 'worker', 'store', 'temporal', 'nats'] as const) await procs.get(name)?.stop();
  };

  try {
    await Promise.all([launch('nats'), launch('temporal')]);
    await launch('store');
    await Promise.all([launch('worker'), launch('gateway')]);
  } catch (err) {
    await stopAll();
    throw err;
  }

  return {
    config,
    urls,
    process: (name) => {
      const p = procs.get(name);
      if (!p) throw new Error(`${name} was never started`);
      return p;
    },
    restart: async (name) => {
      await procs.get(name)?.stop();
      await launch(name);
    },
    stop: stopAll,
  };
}
