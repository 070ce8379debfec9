import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { ServerType } from '@hono/node-server';
import type { GatewayAuth } from '../auth/tokens';
import { ConnectionLimiter } from '../limits/connection-limiter';
import { DEFAULT_LIMITS } from '../limits/limits-config';
import { MessagePacer } from '../limits/message-pacer';
import { ClientOutbox } from '../events/client-outbox';
import { encodeFrame } from './frames';
import { RpcConnection, type RpcConnectionDeps } from './rpc-connection';

/** Where the WebSocket RPC endpoint lives on the gateway's HTTP port. */
const RPC_PATH = '/v1/rpc';

/** How long a socket cut as a slow consumer gets to take its close frame before it is destroyed. */
const CUT_GRACE_MS = 1_000;

export interface RpcServerDeps extends RpcConnectionDeps {
  auth: GatewayAuth;
  /** Defaults: DEFAULT_LIMITS (1024 sockets, 4 MiB unsent per socket, 10 s to catch up, 16 MiB per client frame). */
  limits?: {
    /** Open sockets (handshakes included), against STRAND_MAX_WS_CONNECTIONS. */
    connections?: ConnectionLimiter;
    maxSendBufferBytes?: number;
    slowConsumerMs?: number;
    maxFrameBytes?: number;
    /** Ping every this often; no pong by the next ping drops the socket (default 30 s). */
    pingIntervalMs?: number;
  };
}

/** The running endpoint: `close` ends every socket (code 1001, going away) so the HTTP server can stop. */
export interface RpcServer {
  close(): void;
}

/** The subprotocols a client offered (`Sec-WebSocket-Protocol`, comma-separated). */
function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  return (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((p) => p.trim()).filter(Boolean);
}

function bearerProtocol(protocols: Iterable<string>): string | undefined {
  for (const p of protocols) if (p.startsWith('bearer.')) return p;
  return undefined;
}

function reject(socket: Duplex, status: string, extra: string[] = [], body = ''): void {
  const length = Buffer.byteLength(body);
  socket.end(`HTTP/1.1 ${status}\r\n${[...extra, 'Connection: close', `Content-Length: ${length}`].join('\r\n')}\r\n\r\n${body}`);
}

/**
 * Serves the WebSocket JSON RPC protocol (docs/websocket.md) at `/v1/rpc` on the gateway's own HTTP
 * server. With tokens configured, the `bearer.<token>` subprotocol is checked before the upgrade (an
 * HTTP 401 otherwise) and echoed in the handshake, as browsers require.
 *
 * Limits: past the maximum of open sockets an upgrade is refused with HTTP 503 UNAVAILABLE and
 * Retry-After (the socket is counted from its upgrade until its TCP connection closes, however it
 * ends). A client frame over the frame limit closes the socket with 1009. While a socket has more
 * unsent bytes than the send buffer bound, its chats read no further events (they wait in
 * JetStream); a client that does not take enough to get back to half the bound within the slow
 * consumer time, or lets unsent replies pass twice the bound, is a slow consumer: the socket is
 * closed with 1013 and a reason saying so (destroyed if it does not take the close within a
 * second), its chats are detached (their turns go on), and it may re-attach with
 * `chat.attach {taskId, afterSeq}` to get the rest.
 */
export function attachRpcServer(server: ServerType, deps: RpcServerDeps): RpcServer {
  const connections = deps.limits?.connections ?? new ConnectionLimiter(DEFAULT_LIMITS.maxWsConnections);
  const maxSendBufferBytes = deps.limits?.maxSendBufferBytes ?? DEFAULT_LIMITS.maxSendBufferBytes;
  const slowConsumerMs = deps.limits?.slowConsumerMs ?? DEFAULT_LIMITS.slowConsumerMs;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: deps.limits?.maxFrameBytes ?? DEFAULT_LIMITS.maxWsFrameBytes,
    handleProtocols: (protocols) => bearerProtocol(protocols) ?? false,
  });

  (server as Server).on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://gateway').pathname;
    if (path !== RPC_PATH) return reject(socket, '404 Not Found');
    const token = bearerProtocol(offeredProtocols(req))?.slice('bearer.'.length);
    const principal = deps.auth.principalOf(token);
    if (principal === undefined) return reject(socket, '401 Unauthorized', ['WWW-Authenticate: Bearer']);
    const release = connections.tryAcquire();
    if (!release) {
      const body = JSON.stringify({ error: { code: 'UNAVAILABLE', message: `too many WebSocket connections (at most ${connections.max}): try again later`, details: {} } });
      return reject(socket, '503 Service Unavailable', ['Retry-After: 2', 'Content-Type: application/json'], body);
    }
    if (socket.destroyed) return release();
    socket.once('close', release);
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, principal));
  });

  // Dead peers (gone without a close, half-open TCP) would hold their slot and session feed forever:
  // every socket is pinged, and one that has not answered the previous ping by the next is dropped.
  const alive = new WeakMap<WebSocket, boolean>();
  const pinger = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        deps.log.warn('WebSocket client dropped: no pong to the last ping');
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, deps.limits?.pingIntervalMs ?? DEFAULT_LIMITS.wsPingIntervalMs);
  pinger.unref();

  const serveSocket = (ws: WebSocket, principal: string) => {
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
    // Events are paced by `ready`; replies to requests are not, so a client that sends requests and
    // never reads is stopped by the hard limit (twice the bound). One frame always goes into an empty buffer.
    const outbox = new ClientOutbox(
      {
        write: (text) => ws.send(text),
        unsent: () => ws.bufferedAmount,
        open: () => ws.readyState === WebSocket.OPEN,
        end: (reason) => ws.close(1013, reason === undefined ? undefined : String(reason)),
        destroy: () => ws.terminate(),
      },
      { maxUnsentBytes: maxSendBufferBytes, slowConsumerMs, hardLimitBytes: 2 * maxSendBufferBytes, graceMs: CUT_GRACE_MS },
      () => 'slow consumer: too much unsent data; reconnect and re-attach with chat.attach afterSeq',
      () => {
        deps.log.warn({ unsent_bytes: ws.bufferedAmount }, 'WebSocket client cut: slow consumer');
        connection.close();
      },
    );
    const connection = new RpcConnection({ ...deps, sessions: deps.sessions.paced(() => outbox.ready()) }, {
      authenticated: !deps.auth.enabled || principal !== undefined,
      principal: deps.auth.enabled ? principal : undefined,
      send: (frame) => {
        if (!outbox.live) return;
        const text = encodeFrame(frame, deps.log);
        if (text !== undefined) outbox.send(text);
      },
      close: (code, reason) => ws.close(code, reason),
    });
    // At most a batch of this socket's messages per turn of the event loop (limits/message-pacer.ts says why).
    const pacer = new MessagePacer<string>(
      (text) => {
        if (!outbox.cut) connection.handle(text);
      },
      ws,
    );
    ws.on('message', (data, isBinary) => {
      if (outbox.cut) return;
      const text = isBinary ? undefined : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
      pacer.push(text ?? '');
    });
    ws.on('close', () => {
      pacer.flush();
      outbox.close();
      connection.close();
    });
    ws.on('error', (err) => deps.log.warn({ err }, 'RPC socket error'));
  };

  return {
    close() {
      clearInterval(pinger);
      for (const ws of wss.clients) ws.close(1001, 'the gateway is stopping');
      // Sockets that do not finish the closing handshake promptly are cut.
      setTimeout(() => {
        for (const ws of wss.clients) ws.terminate();
      }, 1_000).unref();
      wss.close();
    },
  };
}
