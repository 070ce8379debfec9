import net from 'node:net';
import { removeChildRecords } from '../../infra/stack/child-records';
import { gatewayPortPlan, instanceCount } from '../../infra/stack/instances';
import { describeProc, findStackProcesses, STACK_MARKER, stopProcesses } from '../../infra/stack/leftovers';
import { environValue, portHolders } from '../../infra/stack/proc-table';
import { type StackConfig } from '../../infra/stack/stack-config';
import { readLivePid, readRecordedPid } from './pid-file';
import { say } from './safe-output';

/**
 * What a start (and `strand down`) does about an earlier stack of the same data dir: a runner that
 * still runs is an error; processes left behind by a runner that died are stopped; a port still
 * taken afterwards is reported with the pid holding it.
 */

/** Stops the leftovers of a dead runner of `dataDir`; returns how many there were. */
export async function stopLeftovers(dataDir: string, graceMs = 3_000): Promise<number> {
  const leftovers = findStackProcesses(dataDir);
  if (leftovers.length > 0) {
    say(`[strand] stopping ${leftovers.length} process(es) left over from an earlier run of ${dataDir}:`);
    for (const p of leftovers) say(`[strand]   ${describeProc(p)}`);
    const survivors = await stopProcesses(leftovers, graceMs);
    if (survivors.length > 0) throw new Error(`could not stop leftover processes: ${survivors.map(describeProc).join('; ')}`);
  }
  removeChildRecords(dataDir);
  return leftovers.length;
}

/** Throws if a runner of this data dir is alive; otherwise clears what a dead one left. */
export async function clearStaleStack(config: StackConfig): Promise<void> {
  const recorded = readRecordedPid(config.dataDir);
  const running = readLivePid(config.dataDir);
  if (running) {
    throw new Error(`a stack is already running (pid ${running}, data dir ${config.dataDir}); stop it with \`npm stop\``);
  }
  if (recorded !== undefined) say(`[strand] the stack runner recorded in ${config.dataDir} (pid ${recorded}) is gone; cleaning up after it`);
  await stopLeftovers(config.dataDir);
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port }, () => server.close(() => resolve(true)));
  });
}

/**
 * Whether `port` is free, or becomes free within a moment when no process holds it: a leftover just
 * stopped (stopLeftovers) can leave its socket to the kernel for a little while after the process is
 * gone, and a start must not fail on that. A port a live process holds is reported at once.
 */
async function portFreeSoon(host: string, port: number, waitMs = 2_000): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (await portFree(host, port)) return true;
    if (portHolders(port).length > 0 || Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Who holds `port`, for the error message: pids, commands, and which strand stack if one. */
function describeHolders(port: number): string {
  const holders = portHolders(port);
  if (holders.length === 0) return '';
  const parts = holders.map((p) => {
    const stackDir = environValue(p.pid, STACK_MARKER);
    const hint = stackDir ? `; it belongs to the strand stack of ${stackDir}: STRAND_DATA_DIR=${stackDir} npm stop` : '';
    return `${describeProc(p)}${hint}`;
  });
  return ` by pid ${parts.join(', ')}`;
}

export async function checkPorts(config: StackConfig): Promise<void> {
  const gateways = gatewayPortPlan(config.ports, instanceCount(config.instances, 'gateway'));
  const named: [string, number, string?][] = [
    ['STRAND_TEMPORAL_PORT', config.ports.temporal],
    ['STRAND_TEMPORAL_UI_PORT', config.ports.temporalUi],
    ['STRAND_NATS_PORT', config.ports.nats],
    ['STRAND_GATEWAY_PORT', config.ports.gateway],
    ['STRAND_EDN_PORT', config.ports.edn ?? 0],
    // Extra gateways take the ports after the first one's: moving those moves them too.
    ...gateways.slice(1).flatMap((g, i): [string, number, string][] => [
      ['STRAND_GATEWAY_PORT', g.http, ` (gateway#${i + 2})`],
      ['STRAND_GATEWAY_PORT', g.edn, ` (gateway#${i + 2}'s EDN)`],
    ]),
  ];
  for (const [name, port, who = ''] of named) {
    if (port !== 0 && !(await portFreeSoon(config.host, port))) {
      throw new Error(`port ${port}${who} is already in use${describeHolders(port)} (set ${name} to use another one)`);
    }
  }
}
