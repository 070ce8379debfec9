import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bootstrapAll } from '../../infra/bootstrap/main';
import { readChildRecords } from '../../infra/stack/child-records';
import { gatewayPortPlan, type InstanceCounts } from '../../infra/stack/instances';
import { describeProc, findStackProcesses } from '../../infra/stack/leftovers';
import { REPO_ROOT, stackConfigFromEnv } from '../../infra/stack/stack-config';
import { instanceFlags } from './instance-flags';
import { CLI_MAIN } from './launcher';
import { isStackRunner, readLivePid, readRecordedPid } from './pid-file';
import { say, sayError } from './safe-output';
import { stopLeftovers } from './stale-stack';

export { upForeground } from './launcher';

/** How long `strand down` waits for the runner before killing it (its own stop takes at most ~10 s). */
const STOP_WAIT_MS = 15_000;
const START_WAIT_MS = 300_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isStackRunner(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  try {
    if (pid !== undefined) process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/** `strand up -d`: starts the runner detached, logs to <data dir>/stack.log, returns once ready. */
export async function upDetached(instances: InstanceCounts = {}): Promise<void> {
  const config = stackConfigFromEnv();
  // Only a quick check; the runner itself reports and clears what a crashed run left behind.
  const recorded = readRecordedPid(config.dataDir);
  if (recorded !== undefined && isStackRunner(recorded)) {
    throw new Error(`a stack is already running (pid ${recorded}); stop it with \`npm stop\``);
  }
  await bootstrapAll();
  fs.mkdirSync(config.dataDir, { recursive: true });
  const logFile = path.join(config.dataDir, 'stack.log');
  const out = fs.openSync(logFile, 'a');
  const from = fs.statSync(logFile).size;
  const child = spawn(process.execPath, ['--import', 'tsx', CLI_MAIN, 'supervise', '--detached', ...instanceFlags(instances)], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  fs.closeSync(out);
  child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));
  say(`[strand] starting in the background (pid ${child.pid}); logs: ${logFile}`);
  // The runner has its own session, so a Ctrl-C while we wait does not reach it: pass it on.
  let interrupted = false;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      interrupted = true;
      // The child's handle, not its pid: nothing is sent once it has exited (its pid may be reused).
      child.kill('SIGTERM');
    });
  }
  const deadline = Date.now() + START_WAIT_MS;
  for (;;) {
    await sleep(300);
    const text = fs.readFileSync(logFile).subarray(from).toString('utf8');
    const ready = text.split('\n').find((l) => l.startsWith('[strand] ready'));
    if (ready && !interrupted) {
      say(ready);
      return;
    }
    if (interrupted) {
      say('[strand] interrupted: stopping the background stack…');
      if (child.pid !== undefined) await waitUntilGone(child.pid, STOP_WAIT_MS);
      process.exitCode = 130;
      return;
    }
    const timedOut = Date.now() > deadline;
    if (exited || timedOut) {
      if (timedOut) child.kill('SIGTERM');
      throw new Error(`the stack did not come up; see ${logFile}:\n${text.split('\n').slice(-25).join('\n')}`);
    }
  }
}

/** `strand down`: stops a stack started by `strand up` (detached or in another terminal). */
export async function down(): Promise<void> {
  const config = stackConfigFromEnv();
  const pid = readLivePid(config.dataDir);
  if (pid) {
    say(`[strand] stopping the stack (runner pid ${pid})…`);
    signal(pid, 'SIGTERM');
    if (!(await waitUntilGone(pid, STOP_WAIT_MS))) {
      sayError(`[strand] the runner did not stop within ${STOP_WAIT_MS / 1000} s; killing it`);
      signal(pid, 'SIGKILL');
      await waitUntilGone(pid, 2_000);
    }
  }
  // Whatever a runner that died (or was just killed) left behind.
  const leftovers = await stopLeftovers(config.dataDir);
  if (!pid && leftovers === 0) {
    say(`[strand] no stack is running (data dir ${config.dataDir})`);
    return;
  }
  say('[strand] stopped');
}

/** `strand status`: is a stack running, and is its gateway healthy? */
export async function status(): Promise<void> {
  const config = stackConfigFromEnv();
  const pid = readLivePid(config.dataDir);
  if (!pid) {
    const leftovers = findStackProcesses(config.dataDir);
    say('[strand] not running');
    if (leftovers.length > 0) {
      say(`[strand] but ${leftovers.length} process(es) of an earlier run are left (\`npm stop\` stops them): ${leftovers.map(describeProc).join('; ')}`);
    }
    process.exitCode = 1;
    return;
  }
  const children = readChildRecords(config.dataDir)?.children ?? [];
  // Extra gateways (`up --gateways N`) sit on the ports after the first's (instances.ts).
  const gateways = Math.max(1, children.filter((c) => c.name.split('#')[0] === 'gateway').length);
  for (const [i, ports] of gatewayPortPlan(config.ports, gateways).entries()) {
    const who = i === 0 ? `running (pid ${pid})` : `gateway#${i + 1}`;
    const url = `http://${config.host}:${ports.http}/healthz`;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
      say(`[strand] ${who}; ${url} → ${res.status} ${await res.text()}`);
    } catch (err) {
      say(`[strand] ${who}; ${url} unreachable: ${(err as Error).message}`);
    }
  }
  if (children.length > 0) say(`[strand] processes: ${children.map((c) => `${c.name} ${c.pid}`).join(', ')}`);
}
