import { spawn } from 'node:child_process';
import { processCpuMs } from './process-cpu';

test("a process's CPU time grows with the work it does, and is undefined once it is gone", async () => {
  const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 400; while (Date.now() < end); setInterval(() => {}, 1000);'], { stdio: 'ignore' });
  try {
    // Busy for 400 ms of wall time: at least some of it is CPU, however loaded the machine.
    let cpu: number | undefined = 0;
    for (let i = 0; i < 100 && (cpu ?? 0) < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      cpu = processCpuMs(child.pid);
    }
    expect(cpu).toBeGreaterThanOrEqual(100);
    expect(processCpuMs(process.pid)).toBeGreaterThan(0);
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  expect(processCpuMs(child.pid)).toBeUndefined();
  expect(processCpuMs(undefined)).toBeUndefined();
});
