import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../..');

/** A `strand chat` child process run the way a script runs it: no terminal, output collected. */
export interface ChatRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (a signal's death as 128 + its number is not expected here: null). */
  exited: Promise<number | null>;
  /** Resolves once stdout satisfies `until` (rejects when the process ends first or after `timeoutMs`). */
  waitForStdout(until: (text: string) => boolean, timeoutMs?: number): Promise<string>;
}

/**
 * Starts `bin/strand.cjs chat <args>` in `cwd` against the gateway at `gateway`. `stdin` is written
 * and closed (a prompt from a pipe); without it stdin is closed at once. Only the given `env` and
 * the test process's PATH reach the child, so a STRAND_URL of the machine cannot leak in.
 */
export function runChat(args: string[], options: { cwd: string; gateway: string; stdin?: string; env?: NodeJS.ProcessEnv }): ChatRun {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, STRAND_URL: options.gateway, ...options.env };
  const child = spawn(process.execPath, [path.join(REPO, 'bin/strand.cjs'), 'chat', ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    for (const w of waiters) w();
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-50_000)));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => {
    for (const w of waiters) w();
    resolve(code);
  }));
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  else child.stdin!.end();
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForStdout(until, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`stdout never matched within ${timeoutMs} ms:\n${out}\n--- stderr ---\n${err}`)), timeoutMs);
        const check = () => {
          if (until(out)) done();
          else if (child.exitCode !== null) done(new Error(`strand chat exited (${child.exitCode}) first:\n${out}\n--- stderr ---\n${err}`));
        };
        const done = (error?: Error) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve(out);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
