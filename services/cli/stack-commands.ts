import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { bootstrapAll } from '../../infra/bootstrap/main';
import { renderLogLine } from '../../infra/stack/log-render';
import { startStack } from '../../infra/stack/stack';
import { REPO_ROOT, stackConfigFromEnv, type StackConfig } from '../../infra/stack/stack-config';
import { isAlive, readLivePid, removePid, writePid } from './pid-file';

const COLORS: Record<string, string> = { nats: '36', temporal: '35', store: '33', worker: '32', gateway: '34' };

function prefixed(name: string, line: string): void {
  const tag = `[${name}]`.padEnd(11);
  const colored = process.stdout.isTTY ? `\x1b[${COLORS[name] ?? '0'}m${tag}\x1b[0m` : tag;
  // Services announce readiness as `[name] ready …`; the prefix is already there.
  const own = `[${name}] `;
  const text = line.startsWith(own) ? line.slice(own.length) : line;
  process.stdout.write(`${colored} ${renderLogLine(text)}\n`);
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port }, () => server.close(() => resolve(true)));
  });
}

async function checkPorts(config: StackConfig): Promise<void> {
  const named = [
    ['STRAND_TEMPORAL_PORT', config.ports.temporal],
    ['STRAND_TEMPORAL_UI_PORT', config.ports.temporalUi],
    ['STRAND_NATS_PORT', config.ports.nats],
    ['STRAND_GATEWAY_PORT', config.ports.gateway],
  ] as const;
  for (const [name, port] of named) {
    if (port !== 0 && !(await portFree(config.host, port))) {
      throw new Error(`port ${port} is already in use (set ${name} to use another one)`);
    }
  }
}

/** `strand up`: runs the stack in the foreground until Ctrl-C, then stops everything it started. */
export async function upForeground(): Promise<void> {
  const config = stackConfigFromEnv();
  const running = readLivePid(config.dataDir);
  if (running) throw new Error(`a stack is already running (pid ${running}, data dir ${config.dataDir}); stop it with \`npm stop\``);
  await checkPorts(config);
  await bootstrapAll();
  writePid(config.dataDir, process.pid);
  console.log(`[strand] starting the stack (data dir ${config.dataDir})`);
  let stack: Awaited<ReturnType<typeof startStack>>;
  try {
    stack = await startStack(config, prefixed);
  } catch (err) {
    removePid(config.dataDir, process.pid);
    throw err;
  }
  console.log(`[strand] ready — gateway ${stack.urls.gateway}  ·  Temporal UI ${stack.urls.temporalUi ?? '(off)'}  ·  Ctrl-C stops`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  console.log('[strand] stopping…');
  await stack.stop();
  removePid(config.dataDir, process.pid);
  console.log('[strand] stopped');
}

/** `strand up -d`: starts the runner detached, logs to <data dir>/stack.log, returns once ready. */
export async function upDetached(): Promise<void> {
  const config = stackConfigFromEnv();
  const running = readLivePid(config.dataDir);
  if (running) throw new Error(`a stack is already running (pid ${running}); stop it with \`npm stop\``);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const logFile = path.join(config.dataDir, 'stack.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'services/cli/main.ts'), 'up'], {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  child.unref();
  console.log(`[strand] starting in the background (pid ${child.pid}); logs: ${logFile}`);
  const deadline = Date.now() + 300_000;
  const start = fs.statSync(logFile).size;
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const text = fs.readFileSync(logFile, 'utf8').slice(start);
    const ready = text.split('\n').find((l) => l.startsWith('[strand] ready'));
    if (ready) {
      console.log(ready);
      return;
    }
    if (child.pid === undefined || !isAlive(child.pid) || Date.now() > deadline) {
      throw new Error(`the stack did not come up; see ${logFile}:\n${text.split('\n').slice(-25).join('\n')}`);
    }
  }
}

/** `strand down`: stops a stack started by `strand up` (detached or in another terminal). */
export async function down(): Promise<void> {
  const config = stackConfigFromEnv();
  const pid = readLivePid(config.dataDir);
  if (!pid) {
    console.log(`[strand] no stack is running (data dir ${config.dataDir})`);
    return;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 60_000;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`stack runner ${pid} did not stop within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log('[strand] stopped');
}

/** `strand status`: is a stack running, and is its gateway healthy? */
export async function status(): Promise<void> {
  const config = stackConfigFromEnv();
  const pid = readLivePid(config.dataDir);
  if (!pid) {
    console.log('[strand] not running');
    process.exitCode = 1;
    return;
  }
  const url = `http://${config.host}:${config.ports.gateway}/healthz`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    console.log(`[strand] running (pid ${pid}); ${url} → ${res.status} ${await res.text()}`);
  } catch (err) {
    console.log(`[strand] running (pid ${pid}); ${url} unreachable: ${(err as Error).message}`);
  }
}
