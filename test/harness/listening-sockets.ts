import os from 'node:os';
import { socketInodes, tcpListeners } from '../../infra/stack/proc-table';

/**
 * The TCP sockets processes listen on, read from /proc as `ss -ltnp` does (nothing to install): a
 * process's socket inodes (its fds that link to `socket:[inode]`) looked up among the listeners of its
 * network namespace (/proc/<pid>/net/tcp{,6}; infra/stack/proc-table.ts reads both). Linux only.
 */
export interface ListeningSocket {
  pid: number;
  inode: string;
  /** The bound address as written in a URL host (`127.0.0.1`, `::1`, `0.0.0.0`, `::`). */
  address: string;
  port: number;
}

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

/** Every listening TCP socket held by one of `pids` (a socket shared by several is listed for each). */
export function listeningSockets(pids: number[]): ListeningSocket[] {
  return pids.flatMap((pid) => {
    const listeners = tcpListeners(pid);
    return [...new Set(socketInodes(pid))].flatMap((inode) => {
      const l = listeners.get(inode);
      return l ? [{ pid, inode, address: decodeProcAddress(l.addressHex), port: l.port }] : [];
    });
  });
}
