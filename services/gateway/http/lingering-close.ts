import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** Bounds on reading and dropping the rest of a request after its answer, before the connection is closed. */
export interface LingeringCloseLimits {
  /** Time from the answer to the close, whatever the client still sends. */
  maxMs: number;
  /** Body bytes read and dropped after the answer; past them the connection is closed at once. */
  maxBytes: number;
}

/** A request body being read and thrown away: what has been dropped, and how it ended. */
export interface BodyDiscard {
  /** Body bytes dropped so far. */
  readonly bytes: number;
  /** True once the whole body has arrived; false if the connection went away first. */
  readonly ended: Promise<boolean>;
  /** Calls `listener` with the size of each chunk dropped; returns what stops it. */
  onChunk(listener: (chunkBytes: number) => void): () => void;
}

/**
 * Reads the rest of a request body and drops it. Whoever was reading the body has given its answer
 * by now; a web stream that @hono/node-server tied to the request pauses it whenever nobody reads
 * that stream (and a stream a handler has locked is never read again), so those readers are
 * detached and the request is read here directly.
 */
export function discardBody(incoming: IncomingMessage): BodyDiscard {
  const listeners = new Set<(chunkBytes: number) => void>();
  let bytes = 0;
  incoming.removeAllListeners('data');
  incoming.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    for (const listener of listeners) listener(chunk.length);
  });
  const ended = new Promise<boolean>((resolve) => {
    if (incoming.readableEnded) return resolve(true);
    const settle = () => {
      incoming.off('end', settle).off('error', settle).off('close', settle);
      // Once its response is sent, Node no longer tells the request that its socket closed.
      incoming.socket?.off('close', settle);
      resolve(incoming.readableEnded);
    };
    incoming.once('end', settle).once('error', settle).once('close', settle);
    incoming.socket?.once('close', settle);
  });
  incoming.resume();
  return {
    get bytes() {
      return bytes;
    },
    ended,
    onChunk(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Sockets answered with `Connection: close` whose client is still sending. */
const lingering = new WeakMap<Socket, (incoming: IncomingMessage) => void>();

/**
 * Closes the connection of a request answered before its body was read (`Connection: close`) the
 * way nginx and Apache do ("lingering close"): the answer goes out, the gateway's side is shut (FIN),
 * and the rest of the body is read and dropped until the client closes its side, `maxBytes` more
 * have been dropped or `maxMs` have passed; only then is the socket closed. Closing at once would
 * leave the client's bytes unread, the kernel would answer them with a reset, and a client that sends
 * its whole body before reading (most do) would lose the answer with an EPIPE or ECONNRESET.
 * Call it before the answer is written.
 */
export function lingerThenClose(incoming: IncomingMessage, discard: BodyDiscard, limits: LingeringCloseLimits): void {
  const socket = incoming.socket;
  if (!socket || socket.destroyed) return;
  let dropped = 0;
  const cut = () => socket.destroy();
  const count = (chunkBytes: number) => {
    dropped += chunkBytes;
    if (dropped > limits.maxBytes) cut();
  };
  const stopCounting = discard.onChunk(count);
  const timer = setTimeout(cut, limits.maxMs);
  timer.unref();
  socket.once('close', () => {
    clearTimeout(timer);
    stopCounting();
  });
  // The client was told to close: a request it sent after this one is not served, only dropped
  // within the same bounds (its body would otherwise stall the connection until the timer).
  lingering.set(socket, (next) => void discardBody(next).onChunk(count));
  // Node ends a `Connection: close` response with destroySoon(): FIN, then close as soon as the
  // answer is written, unread bytes or not. Here only the FIN: the socket closes when the client
  // closes its side, or at the bounds above.
  socket.destroySoon = () => {
    if (!socket.writableEnded) socket.end();
  };
}

/**
 * For a request that arrives on a connection already lingering: drops its body within that
 * connection's bounds and returns true, so it is not served. False on any other connection.
 */
export function dropIfLingering(incoming: IncomingMessage): boolean {
  const drop = incoming.socket ? lingering.get(incoming.socket) : undefined;
  drop?.(incoming);
  return drop !== undefined;
}
