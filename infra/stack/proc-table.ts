import fs from 'node:fs';

/**
 * Reading the process table from /proc (Linux only; elsewhere every function finds nothing). The
 * stack runner uses it to find processes an earlier run left behind and to name who holds a port.
 */
export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** Start time in clock ticks since boot: with the pid, it tells a process from a later one reusing the pid. */
  startTime: number;
  /** Zombies have exited and hold nothing; they only wait for their parent to reap them. */
  zombie: boolean;
  command: string;
}

export function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command name) may hold spaces and parentheses: the fixed fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    // fields[0] is stat field 3 (state); field n is fields[n - 3].
    return {
      pid,
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      startTime: Number(fields[19]),
      zombie: fields[0] === 'Z',
      command,
    };
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a live (not zombie) process, and the same one as when `startTime` was read. */
export function isRunning(pid: number, startTime?: number): boolean {
  const info = readProc(pid);
  return info !== undefined && !info.zombie && (startTime === undefined || info.startTime === startTime);
}

export function allPids(): number[] {
  try {
    return fs.readdirSync('/proc').map(Number).filter((n) => Number.isInteger(n) && n > 0);
  } catch {
    return [];
  }
}

/** Whether the process's environment (as it was at exec) contains exactly `NAME=value`. */
export function environHas(pid: number, entry: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry);
  } catch {
    return false;
  }
}

/** The value of one variable in a process's environment at exec, if readable. */
export function environValue(pid: number, name: string): string | undefined {
  try {
    const prefix = `${name}=`;
    const hit = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((e) => e.startsWith(prefix));
    return hit?.slice(prefix.length);
  } catch {
    return undefined;
  }
}

/** `pid` and all its ancestors: processes a cleanup must never signal (it would kill itself or its shell). */
export function lineage(pid: number = process.pid): Set<number> {
  const seen = new Set<number>();
  for (let p: number | undefined = pid; p !== undefined && p > 0 && !seen.has(p); p = readProc(p)?.ppid) seen.add(p);
  return seen;
}

/** Socket inodes listening on TCP `port` (IPv4 or IPv6), from /proc/net/tcp{,6}. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      const inode = cols[9];
      if (!local || !inode || cols[3] !== '0A') continue; // 0A = LISTEN
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(inode);
    }
  }
  return inodes;
}

/** The processes holding a listening socket on TCP `port` (only those whose fds we may read). */
export function portHolders(port: number): ProcInfo[] {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return [];
  const holders: ProcInfo[] = [];
  for (const pid of allPids()) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    const holds = fds.some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m !== null && inodes.has(m[1] ?? '');
      } catch {
        return false;
      }
    });
    const info = holds ? readProc(pid) : undefined;
    if (info) holders.push(info);
  }
  return holders;
}
