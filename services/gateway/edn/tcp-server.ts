import net from 'node:net';
import type { Logger } from '../../common/logger';
import type { GatewayAuth } from '../auth/tokens';
import { ClientOutbox, type OutboxSink } from '../events/client-outbox';
import type { EdnConfig } from './edn-config';
import { EdnConnection } from './edn-connection';
import { errorLine } from './frames';
import { PacedFramer } from './paced-framer';
import { EdnErrorCode, type EdnSessionHandlerFactory } from './protocol';

export interface EdnTcpServerDeps {
  factory: EdnSessionHandlerFactory;
  auth: GatewayAuth;
  log: Logger;
  config: Pick<EdnConfig, 'maxPending' | 'maxFrameBytes' | 'maxConnections' | 'maxSendBufferBytes' | 'handshakeTimeoutMs'>;
  /** Project path of sessions a TCP client creates (the gateway's working directory). */
  cwd: string;
}

export interface EdnTcpServer {
  /** The port bound (the one asked for, or the free one picked for 0). */
  readonly port: number;
  /** Open connections. */
  readonly connections: number;
  /** Stops listening and ends every connection (their turns go on in the worker). */
  close(): Promise<void>;
}

/** How long a client cut off (slow consumer, full server) gets to take its last frame before the socket is destroyed. */
const CUT_GRACE_MS = 1_000;
/** How long a client that half-closed its side waits for answers to what it had sent. */
const HALF_CLOSE_DRAIN_MS = 5_000;

/**
 * Serves docs/edn.md on a TCP port: one protocol session per connection, the token checked by
 * the handshake when tokens are configured. Past `maxConnections` a new connection gets one
 * `:error` frame and is closed. Frames go out without waiting for the client; a socket whose unsent
 * bytes pass `maxSendBufferBytes` is a slow consumer: it gets a last `:error` naming the reason and is
 * destroyed if it does not take it within a second. It can reconnect and replay with subscribe. A
 * connection without a successful handshake after `handshakeTimeoutMs` is closed the same way, so
 * idle strangers cannot hold every slot.
 */
export function startEdnTcpServer(host: string, port: number, deps: EdnTcpServerDeps): Promise<EdnTcpServer> {
  const { config, log } = deps;
  const sockets = new Set<net.Socket>();

  const cut = (socket: net.Socket, line: string) => {
    socket.end(line);
    setTimeout(() => socket.destroy(), CUT_GRACE_MS).unref();
  };

  // Half-open: a client that closes its side after its last request still gets the answers.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', (err) => log.debug({ err }, 'EDN socket error'));
    if (sockets.size >= config.maxConnections) {
      log.warn({ max: config.maxConnections }, 'EDN connection refused: too many connections');
      return cut(socket, errorLine({
        code: EdnErrorCode.failed,
        message: `too many EDN connections (at most ${config.maxConnections}): try again later`,
        retryable: true,
        data: { reason: 'max-connections' },
      }));
    }
    sockets.add(socket);
    socket.setNoDelay(true);
    let cutOff = false;
    const sink: OutboxSink = {
      write: (line) => void socket.write(line),
      unsent: () => socket.writableLength,
      open: () => !socket.destroyed && !socket.writableEnded,
      end: (last) => (last === undefined ? socket.end() : socket.end(last)),
      destroy: () => socket.destroy(),
    };
    // Frames go out without pacing (EDN has no flow control of its own): only the hard limit cuts.
    const outbox = new ClientOutbox(
      sink,
      { maxUnsentBytes: config.maxSendBufferBytes, slowConsumerMs: 0, hardLimitBytes: config.maxSendBufferBytes, graceMs: CUT_GRACE_MS },
      () =>
        errorLine({
          code: EdnErrorCode.failed,
          message: `the client reads too slowly (more than ${config.maxSendBufferBytes} bytes unsent): reconnect and replay with subscribe`,
          retryable: true,
          data: { reason: 'slow-consumer' },
        }),
      () => {
        cutOff = true;
        log.warn({ buffered: socket.writableLength }, 'EDN client cut off as a slow consumer');
        conn.close();
      },
    );
    const conn = new EdnConnection({
      transport: {
        write: (line) => {
          if (!cutOff) outbox.send(line);
        },
        end: () => socket.end(),
      },
      factory: deps.factory,
      peer: { transport: 'tcp', cwd: deps.cwd },
      auth: deps.auth,
      maxPending: config.maxPending,
      log,
    });
    const handshakeTimer = setTimeout(() => {
      if (conn.isReady || cutOff) return;
      cutOff = true;
      cut(socket, errorLine({ code: EdnErrorCode.notReady, message: `no handshake within ${config.handshakeTimeoutMs} ms: closing the connection`, retryable: true }));
      conn.close();
    }, config.handshakeTimeoutMs);
    handshakeTimer.unref();
    // At most 64 of this connection's frames per turn of the event loop: a client writing thousands of
    // lines at once does not hold every other connection meanwhile (paced-framer.ts).
    const framer = new PacedFramer(conn, config.maxFrameBytes, socket);
    socket.on('data', (chunk: Buffer) => framer.push(chunk));
    socket.on('end', () => {
      framer.end();
      void conn.drain(HALF_CLOSE_DRAIN_MS).then(() => socket.end());
    });
    socket.on('close', () => {
      clearTimeout(handshakeTimer);
      sockets.delete(socket);
      framer.close();
      conn.close();
    });
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      server.on('error', (err) => log.error({ err }, 'EDN listener error'));
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        get connections() {
          return sockets.size;
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const s of sockets) s.destroy();
          }),
      });
    });
  });
}
