import net from 'node:net';

/**
 * The stack runner gives every child, as fd 3, one end of a pipe it never writes to and never
 * closes. The kernel closes the runner's end when the runner dies, however it dies (SIGKILL
 * included), and the child then reads EOF: the only reliable "parent gone" signal on Linux
 * without native code (prctl(PR_SET_PDEATHSIG) is not reachable from node).
 */
export const LINK_FD = 3;

/** Tells a TypeScript service (see service-entry.ts) which fd is its link. */
export const LINK_ENV = 'STRAND_SUPERVISOR_FD';

/** How long a child left alone gets to shut down after SIGTERM before its group is killed. */
export const ORPHAN_GRACE_MS = 5_000;

/** Calls `onLost` once, when the other end of `fd` closes. Does nothing if `fd` is not open. */
export function watchLink(fd: number, onLost: () => void): void {
  let socket: net.Socket;
  try {
    socket = new net.Socket({ fd, readable: true, writable: false });
  } catch {
    return;
  }
  let fired = false;
  const lost = () => {
    if (fired) return;
    fired = true;
    onLost();
  };
  // Nothing is ever sent; reading is what makes EOF visible.
  socket.on('data', () => undefined);
  socket.on('end', lost);
  socket.on('close', lost);
  socket.on('error', lost);
  // The link alone must not keep a process alive that has finished its work.
  socket.unref();
}

/**
 * SIGTERM to our own process group (we lead it: the runner starts each child with `detached`), so
 * the process and whatever it started shut down; SIGKILL to the group after `graceMs` for anything
 * still there. `fallback` is signalled instead when we do not lead a group (started by hand).
 */
export function stopOwnGroup(graceMs: number, fallback?: (sig: NodeJS.Signals) => void): void {
  const send = (sig: NodeJS.Signals) => {
    try {
      process.kill(-process.pid, sig);
    } catch {
      fallback?.(sig);
    }
  };
  // Our stdout and stderr were pipes to the runner, now gone: a log line must not crash the shutdown.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  send('SIGTERM');
  setTimeout(() => send('SIGKILL'), graceMs);
}
