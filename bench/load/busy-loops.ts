import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Busy loops on the machine, as a build or a test run beside the agent makes it: `count` processes
 * that each keep one core busy until stopped. Separate processes (not worker threads of the bench), so
 * the scheduler shares the cores among them and the stack as it would with a real build.
 */
export class BusyLoops {
  private readonly children: ChildProcess[] = [];

  start(count: number): void {
    for (let i = 0; i < count; i++) {
      const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
      child.unref();
      this.children.push(child);
    }
  }

  stop(): void {
    for (const child of this.children.splice(0)) child.kill('SIGKILL');
  }
}
