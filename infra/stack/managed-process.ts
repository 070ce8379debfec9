import { spawn, type ChildProcess } from 'node:child_process';
import { lineSplitter } from './log-render';
import { LINK_FD } from './parent-link';

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** How a run of the process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether stop() or kill() asked for it; any other exit is a crash. */
  intended: boolean;
  uptimeMs: number;
}

/** How many recent output lines are kept to explain a failed start. */
const TAIL_LINES = 30;

/**
 * A child process in its own process group, so stopping it also stops whatever it started (tsx's
 * node, java under a wrapper). Output is handed over line by line; recent lines are kept for errors.
 * Fd 3 of the child is our end of a link pipe (parent-link.ts): children that watch it stop by
 * themselves if this process dies without stopping them.
 */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private readonly tail: string[] = [];
  private readonly lineListeners = new Set<(line: string) => void>();
  private readonly exitListeners = new Set<(exit: ProcessExit) => void>();
  private exited: Promise<number | null> = Promise.resolve(null);
  private stopRequested = false;
  private startedAt = 0;
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

  /** Calls `listener` after every exit of the process, with why it ended. */
  onExit(listener: (exit: ProcessExit) => void): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  start(): void {
    this.exitCode = undefined;
    this.stopRequested = false;
    // A new run: an earlier run's `ready` line must not count as this one's.
    this.tail.length = 0;
    this.startedAt = Date.now();
    const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe'];
    stdio[LINK_FD] = 'pipe';
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: this.spec.cwd,
      env: { ...process.env, ...this.spec.env },
      stdio,
      detached: true,
    });
    this.child = child;
    // Never written to and never closed while the child runs: only our death closes it.
    const link = child.stdio[LINK_FD];
    link?.on('error', () => undefined);
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
        link?.destroy();
        this.exitCode = code ?? (signal ? -1 : null);
        resolve(this.exitCode);
        const exit: ProcessExit = { code, signal, intended: this.stopRequested, uptimeMs: Date.now() - this.startedAt };
        for (const l of this.exitListeners) l(exit);
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
    this.stopRequested = true;
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

  /** Kills the group at once (tests simulate a crash this way; being asked for, supervision leaves it down). */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.stopRequested = true;
    this.signal('SIGKILL');
    await this.exited;
  }
}
