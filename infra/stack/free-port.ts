import fs from 'node:fs';
import net from 'node:net';

/**
 * Ports in the picked range that fetch() refuses to connect to (the Fetch standard's "bad ports";
 * undici answers "fetch failed"): a gateway given one is unreachable by every HTTP client in Node.
 */
const FETCH_BAD_PORTS = new Set([10080]);

/** Ports this process has handed out: never handed out twice (each is released before its user binds it). */
const given = new Set<number>();

/**
 * A free loopback port, outside the range the kernel assigns on its own (Linux's
 * ip_local_port_range, 32768–60999 by default). Ports from that range can be taken between our pick
 * and our bind by anything that lets the kernel choose: an outgoing connection's local port, or the
 * Temporal dev server, which puts its internal services on such ports once it runs (a gateway given
 * one of them failed with EADDRINUSE). Below the range only explicit binds compete, and the port is
 * checked free. Falls back to a kernel-assigned port when no such range is known or nothing is free.
 */
export async function freePort(): Promise<number> {
  const low = 10_000;
  const high = ephemeralRangeStart() - 1;
  for (let attempt = 0; high - low > 1_000 && attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (given.has(port) || FETCH_BAD_PORTS.has(port)) continue;
    given.add(port); // reserved before the check, so concurrent callers never share one
    if (await bindable(port)) return port;
    given.delete(port);
  }
  return kernelAssignedPort();
}

/** Where the kernel's own port range starts (the Linux default where /proc does not say). */
function ephemeralRangeStart(): number {
  try {
    const start = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 0 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

/** True when a loopback listener can be opened on `port` right now (it is closed again at once). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port }, () => server.close(() => resolve(true)));
  });
}

/** A port the kernel picks (from its own range): the fallback. */
function kernelAssignedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error('no port assigned'));
      server.close(() => resolve(address.port));
    });
  });
}

/** Resolves once something accepts TCP connections on host:port, or rejects after `timeoutMs`. */
export async function waitForTcp(host: string, port: number, timeoutMs: number, isDead?: () => string | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dead = isDead?.();
    if (dead) throw new Error(dead);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
