import fs from 'node:fs';
import path from 'node:path';

/** Where a running stack records its runner's pid, so `strand down` finds it from anywhere. */
export function pidFilePath(dataDir: string): string {
  return path.join(dataDir, 'stack.pid');
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of a live stack runner, or undefined (a stale file is removed). */
export function readLivePid(dataDir: string): number | undefined {
  const file = pidFilePath(dataDir);
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  const pid = Number(raw);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return pid;
  fs.rmSync(file, { force: true });
  return undefined;
}

export function writePid(dataDir: string, pid: number): void {
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(pidFilePath(dataDir), `${pid}\n`);
}

export function removePid(dataDir: string, pid: number): void {
  const file = pidFilePath(dataDir);
  try {
    if (fs.readFileSync(file, 'utf8').trim() === String(pid)) fs.rmSync(file);
  } catch {
    // Already gone.
  }
}
