import { removeChildRecords } from '../../infra/stack/child-records';
import { type InstanceCounts } from '../../infra/stack/instances';
import { renderLogLine } from '../../infra/stack/log-render';
import { startStack, type Stack } from '../../infra/stack/stack';
import { stackConfigFromEnv } from '../../infra/stack/stack-config';
import { removePid, writePid } from './pid-file';
import { readyLine } from './ready-line';
import { runningTurns, stoppedLine } from './running-turns';
import { say } from './safe-output';
import { checkPorts, clearStaleStack } from './stale-stack';

const COLORS: Record<string, string> = { nats: '36', temporal: '35', store: '33', worker: '32', gateway: '34' };

function prefixed(name: string, line: string): void {
  // An instance ('gateway#2') has its service's colour; the service itself prints `[gateway] …`.
  const service = name.split('#')[0]!;
  const tag = `[${name}]`.padEnd(11);
  const colored = process.stdout.isTTY ? `\x1b[${COLORS[service] ?? '0'}m${tag}\x1b[0m` : tag;
  // Services announce readiness as `[name] ready …`; the prefix is already there.
  const own = [`[${name}] `, `[${service}] `].find((p) => line.startsWith(p));
  const text = own ? line.slice(own.length) : line;
  say(`${colored} ${renderLogLine(text)}`);
}

/** Resolves once stdin reaches EOF: the launcher that holds its other end has exited or died. */
function launcherGone(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.on('data', () => undefined);
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.stdin.once('error', () => resolve());
  });
}

/**
 * `strand supervise`: the stack runner. Started by `strand up` (the launcher, in the terminal's
 * process group) in a process group of its own, so the terminal's Ctrl-C never reaches it twice or
 * half-way: it stops the stack when the launcher forwards a signal, or when the launcher vanishes
 * (EOF on stdin), whichever comes first. With `detached`, started by `strand up -d`: no launcher,
 * only signals (`strand down` sends SIGTERM). Services that crash are restarted with backoff.
 */
export async function supervise(opts: { detached: boolean; instances?: InstanceCounts }): Promise<void> {
  const config = { ...stackConfigFromEnv(), ...(opts.instances ? { instances: opts.instances } : {}) };
  const stop = new AbortController();
  const requestStop = (why: string) => {
    if (stop.signal.aborted) return; // A second Ctrl-C (or the same one relayed) changes nothing.
    say(`[strand] ${why}: stopping…`);
    stop.abort();
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => requestStop(`received ${sig}`));
  if (!opts.detached) void launcherGone().then(() => requestStop('the `strand up` that started it is gone'));

  await clearStaleStack(config);
  await checkPorts(config);
  if (stop.signal.aborted) return;
  writePid(config.dataDir, process.pid);
  let stack: Stack;
  try {
    say(`[strand] starting the stack (data dir ${config.dataDir}, runner pid ${process.pid})`);
    stack = await startStack(config, prefixed, { supervise: true, signal: stop.signal, warmUp: true });
  } catch (err) {
    removePid(config.dataDir, process.pid);
    removeChildRecords(config.dataDir);
    if (stop.signal.aborted) {
      say('[strand] stopped');
      return;
    }
    throw err;
  }
  const how = opts.detached ? 'stop it with `npm stop`' : 'Ctrl-C stops';
  if (!stop.signal.aborted) {
    const { gateways, edns, temporalUi } = stack.urls;
    say(readyLine({ gateways, edns, ...(temporalUi ? { temporalUi } : {}), workers: stack.instances('worker').length, stores: stack.instances('store').length }, how));
    await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
  }
  const started = Date.now();
  // Asked beside the stop (workers and gateways stop first; Temporal last), so it costs the stop nothing.
  const [turns] = await Promise.all([runningTurns(stack.urls.temporal), stack.stop()]);
  removePid(config.dataDir, process.pid);
  removeChildRecords(config.dataDir);
  say(stoppedLine((Date.now() - started) / 1000, turns));
}
