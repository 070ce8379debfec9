import fs from 'node:fs';
import path from 'node:path';
import { pidExists, readProc } from '../../infra/stack/proc-table';

/** Where a running stack records its runner's pid, so `strand down` finds it from anywhere. */
function pidFilePath(dataDir: string): string {
  return path.join(dataDir, 'stack.pid');
}

const HAS_PROC = fs.existsSync('/proc/self/stat');

/**
 * Whether `pid` is a live strand stack runner. After a crash the pid in the file may have been
 * reused by anything; where /proc exists its command line must be ours.
 */
export function isStackRunner(pid: number): boolean {
  if (!HAS_PROC) return pidExists(pid);
  const info = readProc(pid);
  return info !== undefined && !info.zombie && info.command.includes('services/cli/main.ts');
}

/** The pid recorded in the file, whatever it refers to now. */
export function readRecordedPid(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(pidFilePath(dataDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of a live stack runner, or undefined (a stale file is removed). */
export function readLivePid(dataDir: string): number | undefined {
  const pid = readRecordedPid(dataDir);
  if (pid !== undefined && isStackRunner(pid)) return pid;
  fs.rmSync(pidFilePath(dataDir), { force: true });
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
