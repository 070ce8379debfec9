import { spawn, type ChildProcess } from 'node:child_process';
import { lineSplitter } from './log-render';

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** How many recent output lines are kept to explain a failed start. */
const TAIL_LINES = 30;

/**
 * A child process in its own process group, so stopping it also stops whatever it started (tsx's
 * node, java under a wrapper). Output is handed over line by line; recent lines are kept for errors.
 */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private readonly tail: string[] = [];
  private readonly lineListeners = new Set<(line: string) => void>();
  private exited: Promise<number | null> = Promise.resolve(null);
  exitCode: number | null | undefined;

  constructor(
    readonly spec: ProcessSpec,
    private readonly onLine: (name: string, line: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.exitCode === undefined;
  }

  start(): void {
    this.exitCode = undefined;
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: this.spec.cwd,
      env: { ...process.env, ...this.spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    const handle = (line: string) => {
      this.tail.push(line);
      if (this.tail.length > TAIL_LINES) this.tail.shift();
      this.onLine(this.spec.name, line);
      for (const l of this.lineListeners) l(line);
    };
    const out = lineSplitter(handle);
    const err = lineSplitter(handle);
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    this.exited = new Promise((resolve) => {
      child.once('error', (e) => {
        handle(`failed to start ${this.spec.command}: ${e.message}`);
        this.exitCode = -1;
        resolve(-1);
      });
      child.once('exit', (code, signal) => {
        out.flush();
        err.flush();
        this.exitCode = code ?? (signal ? -1 : null);
        resolve(this.exitCode);
      });
    });
  }

  /** Why the process is not usable, if it has exited, with its last output lines. */
  deathReason(): string | undefined {
    if (this.exitCode === undefined) return undefined;
    return `${this.spec.name} exited (code ${this.exitCode}) before it was ready; last output:\n  ${this.tail.join('\n  ')}`;
  }

  /** Resolves when a line matching `pattern` appears (or rejects when the process dies or time runs out). */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<void> {
    if (this.tail.some((l) => pattern.test(l))) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        clearInterval(poll);
        this.lineListeners.delete(listener);
      };
      const listener = (line: string) => {
        if (pattern.test(line)) {
          cleanup();
          resolve();
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${this.spec.name} did not report ready within ${timeoutMs} ms; last output:\n  ${this.tail.join('\n  ')}`));
      }, timeoutMs);
      const poll = setInterval(() => {
        const dead = this.deathReason();
        if (dead) {
          cleanup();
          reject(new Error(dead));
        }
      }, 100);
      this.lineListeners.add(listener);
    });
  }

  /** Sends `signal` to the whole process group. */
  signal(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined || this.exitCode !== undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  async stop(graceMs = 8_000): Promise<void> {
    if (!this.running) return;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    // The leader is gone; make sure nothing of its group survives it.
    const pid = this.child?.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Nothing left.
      }
    }
  }

  /** Kills the group at once (simulating a crash). */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.signal('SIGKILL');
    await this.exited;
  }
}
