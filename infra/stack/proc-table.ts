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

/** Whether a process `pid` exists (a zombie too), without /proc: signal 0 reaches it, or it is another user's (EPERM). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
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

/**
 * Every listening TCP socket (IPv4 and IPv6) of `pid`'s network namespace (this process's by default),
 * from /proc/<pid>/net/tcp{,6}: inode → local address as the kernel prints it (hex, host byte order) and port.
 */
export function tcpListeners(pid: number | 'self' = 'self'): Map<string, { addressHex: string; port: number }> {
  const found = new Map<string, { addressHex: string; port: number }>();
  for (const file of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
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
      const colon = local.lastIndexOf(':');
      found.set(inode, { addressHex: local.slice(0, colon), port: parseInt(local.slice(colon + 1), 16) });
    }
  }
  return found;
}

/** The inodes of the sockets `pid` holds open (none when its fds may not be read). */
export function socketInodes(pid: number): string[] {
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  return fds.flatMap((fd) => {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      return m?.[1] ? [m[1]] : [];
    } catch {
      return [];
    }
  });
}

/** The processes holding a listening socket on TCP `port` (only those whose fds we may read). */
export function portHolders(port: number): ProcInfo[] {
  const inodes = new Set([...tcpListeners()].filter(([, l]) => l.port === port).map(([inode]) => inode));
  if (inodes.size === 0) return [];
  const holders: ProcInfo[] = [];
  for (const pid of allPids()) {
    const info = socketInodes(pid).some((inode) => inodes.has(inode)) ? readProc(pid) : undefined;
    if (info) holders.push(info);
  }
  return holders;
}
