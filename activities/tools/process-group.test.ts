import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { pidExists } from '../../infra/stack/proc-table';
import { spawnGroup } from './process-group';

/**
 * A command's process group is stopped by its number. Once the group is gone that number can go to a
 * new process (pid numbers wrap quickly on a busy machine), which a late stop must not signal: it may
 * lead another command's group (a polite-stop test once saw its shell killed by a SIGTERM it never asked for).
 */
const LAST_PID = '/proc/sys/kernel/ns_last_pid';
const canPlacePids = (() => {
  try {
    fs.accessSync(LAST_PID, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
})();

/** A detached `sleep` given exactly `pid` (Linux, as root: the next pid is set through ns_last_pid; another fork may win, so it tries again). */
async function sleeperWithPid(pid: number): Promise<ChildProcess> {
  for (let attempt = 0; attempt < 50; attempt++) {
    fs.writeFileSync(LAST_PID, String(pid - 1));
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    if (child.pid === pid) return child;
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  throw new Error(`could not start a process with pid ${pid}`);
}

test('pidExists: this process is, an exited and reaped child is not', async () => {
  expect(pidExists(process.pid)).toBe(true);
  const run = spawnGroup('sh', ['-c', 'exit 0'], { cwd: os.tmpdir(), killGraceMs: 200 });
  await run.done;
  expect(pidExists(run.pgid)).toBe(false);
});

(canPlacePids ? test : test.skip)('stopping a run whose group is gone does not signal the new process that took its number', async () => {
  const run = spawnGroup('sh', ['-c', 'exit 0'], { cwd: os.tmpdir(), killGraceMs: 200 });
  await run.done;
  const other = await sleeperWithPid(run.pgid);
  const ended = new Promise<NodeJS.Signals | null>((resolve) => other.once('exit', (_code, signal) => resolve(signal)));
  try {
    await run.stop();
    // A signal, had one been sent, would have ended it by now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect({ exitCode: other.exitCode, signal: other.signalCode }).toEqual({ exitCode: null, signal: null });
  } finally {
    process.kill(-other.pid!, 'SIGKILL');
    expect(await ended).toBe('SIGKILL');
  }
});

test('stopping a running command still stops its whole group', async () => {
  const run = spawnGroup('sh', ['-c', 'sleep 30 & sleep 30'], { cwd: os.tmpdir(), killGraceMs: 500 });
  await run.stop();
  const { signal } = await run.done;
  expect(signal).toBe('SIGTERM');
  expect(pidExists(run.pgid)).toBe(false);
});
