import { spawn } from 'node:child_process';

/** What a finished command left: its exit code (null when it could not start or was killed) and output. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the command could not be started at all (ENOENT: not installed). */
  spawnError?: NodeJS.ErrnoException;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Killed (SIGKILL) after this long; the result then has code null. */
  timeoutMs?: number;
  /** Output goes to this process's stderr as well as into the result (long builds show progress). */
  echo?: boolean;
}

/** Runs a command to its end; never throws (callers decide what a failure means). */
export function runCommand(command: string, args: string[], options: RunOptions = {}): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      if (options.echo) process.stderr.write(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      if (options.echo) process.stderr.write(b);
    });
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      resolve({ code: null, stdout, stderr, spawnError: err });
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like runCommand, but a non-zero exit is an error carrying the command and the end of its output. */
export async function mustRun(command: string, args: string[], options: RunOptions = {}): Promise<string> {
  const r = await runCommand(command, args, options);
  if (r.code === 0) return r.stdout;
  const what = r.spawnError ? r.spawnError.message : r.code === null ? 'was killed (timeout)' : `exited with ${r.code}`;
  throw new Error(`${[command, ...args].join(' ')} ${what}: ${lastLines(`${r.stdout}\n${r.stderr}`, 15)}`);
}

/** The last `n` non-empty lines of some output, for error messages. */
export function lastLines(text: string, n: number): string {
  return text.split('\n').filter((l) => l.trim()).slice(-n).join('\n');
}
