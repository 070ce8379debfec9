import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../infra/stack/free-port';
import { REPO_ROOT } from '../../infra/stack/stack-config';

/**
 * `npm start` / `npm stop` driven the way a terminal drives them: npm leads a process group of its
 * own (what a shell does for a foreground job), so a test can signal the whole group as Ctrl-C does.
 * Each run gets a temporary data dir and free ports, so it never meets a developer's stack.
 */
interface StackPorts {
  gateway: number;
  temporal: number;
  temporalUi: number;
  nats: number;
}

export interface StackPlace {
  dataDir: string;
  ports: StackPorts;
  env: NodeJS.ProcessEnv;
  gateway: string;
}

export interface NpmRun {
  /** npm's pid, which is also its process group's id. */
  pid: number;
  output(): string;
  /** Resolves once `count` output lines match `pattern`; rejects if npm exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs: number, count?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function stackPlace(): Promise<StackPlace> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-signals-'));
  const taken = new Set<number>();
  const pick = async () => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  const ports = { gateway: await pick(), edn: await pick(), temporal: await pick(), temporalUi: await pick(), nats: await pick() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STRAND_DATA_DIR: dataDir,
    STRAND_GATEWAY_PORT: String(ports.gateway),
    STRAND_EDN_PORT: String(ports.edn),
    STRAND_TEMPORAL_PORT: String(ports.temporal),
    STRAND_TEMPORAL_UI_PORT: String(ports.temporalUi),
    STRAND_NATS_PORT: String(ports.nats),
    STRAND_LOG_LEVEL: 'warn',
    FORCE_COLOR: '0',
  };
  return { dataDir, ports, env, gateway: `http://127.0.0.1:${ports.gateway}` };
}

export function runNpm(args: string[], env: NodeJS.ProcessEnv): NpmRun {
  return runDetached('npm', args, env);
}

/** A command in its own process group in the repository, its output kept (runNpm for any command). */
export function runDetached(command: string, args: string[], env: NodeJS.ProcessEnv): NpmRun {
  const child = spawn(command, args, { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`${command} ${args.join(' ')} did not start`);
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const w of waiters) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      for (const w of waiters) w();
      resolve({ code, signal });
    });
  });
  const waitFor = (pattern: RegExp, timeoutMs: number, count = 1) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (text.split('\n').filter((l) => pattern.test(l)).length >= count) {
          finish();
          resolve();
        } else if (done) {
          finish();
          reject(new Error(`${command} ${args.join(' ')} exited before printing ${pattern}; output:\n${text.slice(-3_000)}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no ${pattern} (x${count}) within ${timeoutMs} ms; output:\n${text.slice(-3_000)}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return { pid: child.pid, output: () => text, waitFor, exited };
}

/** GET /healthz, as a status code (0 when nothing answers). */
export async function healthStatus(gateway: string): Promise<number> {
  try {
    const res = await fetch(`${gateway}/healthz`, { signal: AbortSignal.timeout(3_000) });
    return res.status;
  } catch {
    return 0;
  }
}
