import fs from 'node:fs';

export interface MarkedProcess {
  pid: number;
  command: string;
}

/**
 * Processes whose environment contains `name=value`. Every process a test run starts inherits the
 * run's marker, so anything still carrying it after the run is a leak. Linux only (/proc).
 */
export function findMarkedProcesses(name: string, value: string, self: number = process.pid): MarkedProcess[] {
  const needle = `${name}=${value}`;
  const found: MarkedProcess[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === self) continue;
    try {
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (!env.includes(needle)) continue;
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      found.push({ pid, command: command.slice(0, 160) });
    } catch {
      // Exited, or not ours to read.
    }
  }
  return found;
}
