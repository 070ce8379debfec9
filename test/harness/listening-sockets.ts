import fs from 'node:fs';
import os from 'node:os';

/**
 * The TCP sockets processes listen on, read from /proc as `ss -ltnp` does (nothing to install): a
 * process's socket inodes are its fds that link to `socket:[inode]`, and its network namespace's
 * /proc/<pid>/net/tcp{,6} give each listening inode's local address. Linux only.
 */
export interface ListeningSocket {
  pid: number;
  inode: string;
  /** The bound address as written in a URL host (`127.0.0.1`, `::1`, `0.0.0.0`, `::`). */
  address: string;
  port: number;
}

const LISTEN = '0A';

/** `hex` is a 32-bit word as the kernel prints it: in host byte order. */
function wordBytes(hex: string): number[] {
  const bytes = [0, 2, 4, 6].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return os.endianness() === 'LE' ? bytes.reverse() : bytes;
}

/** An address of /proc/net/tcp (8 hex digits) or tcp6 (32) as text; IPv4-mapped IPv6 as its IPv4 address. */
export function decodeProcAddress(hex: string): string {
  const bytes = Array.from({ length: hex.length / 8 }, (_, i) => wordBytes(hex.slice(i * 8, i * 8 + 8))).flat();
  if (bytes.length === 4) return bytes.join('.');
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0)).toString(16));
  // The URL parser writes IPv6 in its shortest form (`::1`, `::`).
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** Whether a listener on `address` is reachable from this machine only. */
export function isLoopback(address: string): boolean {
  return address === '::1' || /^127\.\d+\.\d+\.\d+$/.test(address);
}

/** inode → local address and port of every listening TCP socket in `pid`'s network namespace. */
function listenersSeenBy(pid: number): Map<string, { address: string; port: number }> {
  const found = new Map<string, { address: string; port: number }>();
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
      const [local, state, inode] = [cols[1], cols[3], cols[9]];
      if (!local || !inode || state !== LISTEN) continue;
      const [addressHex = '', portHex = ''] = local.split(':');
      found.set(inode, { address: decodeProcAddress(addressHex), port: parseInt(portHex, 16) });
    }
  }
  return found;
}

function socketInodes(pid: number): string[] {
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

/** Every listening TCP socket held by one of `pids` (a socket shared by several is listed for each). */
export function listeningSockets(pids: number[]): ListeningSocket[] {
  return pids.flatMap((pid) => {
    const listeners = listenersSeenBy(pid);
    return [...new Set(socketInodes(pid))].flatMap((inode) => {
      const l = listeners.get(inode);
      return l ? [{ pid, inode, ...l }] : [];
    });
  });
}
