import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Prints a bootstrap progress line. */
export function say(message: string): void {
  console.log(`[bootstrap] ${message}`);
}

/** The absolute path of `command` on PATH, or undefined. */
export function which(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Runs a short command and returns its combined output, or undefined if it failed to run or exited non-zero. */
export function outputOf(command: string, args: string[], timeoutMs = 20_000): string | undefined {
  const res = spawnSync(command, args, { encoding: 'utf8', timeout: timeoutMs });
  if (res.error || res.status !== 0) return undefined;
  return `${res.stdout ?? ''}${res.stderr ?? ''}`;
}

/**
 * Runs a long command (a build), streaming its output with a prefix, and rejects with the last lines
 * of output when it fails, so the error says what went wrong.
 */
export function runLogged(label: string, command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        console.log(`[bootstrap] ${label}: ${line}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (err) => reject(new Error(`${label}: could not run ${command}: ${err.message}`)));
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${label}: \`${command} ${args.join(' ')}\` failed (${signal ?? `exit ${code}`}):\n  ${tail.join('\n  ')}`));
    });
  });
}
