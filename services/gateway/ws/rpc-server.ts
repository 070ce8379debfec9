import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { ServerType } from '@hono/node-server';
import type { GatewayAuth } from '../auth/tokens';
import { encodeFrame } from './frames';
import { RpcConnection, type RpcConnectionDeps } from './rpc-connection';

/** Where the WebSocket RPC endpoint lives on the gateway's HTTP port. */
export const RPC_PATH = '/v1/rpc';

/** Largest client frame accepted (a chat request with its whole history fits well within it). */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface RpcServerDeps extends RpcConnectionDeps {
  auth: GatewayAuth;
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

function reject(socket: Duplex, status: string, extra: string[] = []): void {
  socket.end(`HTTP/1.1 ${status}\r\n${[...extra, 'Connection: close', 'Content-Length: 0'].join('\r\n')}\r\n\r\n`);
}

/**
 * Serves the WebSocket JSON RPC protocol (specs/ws-rpc.md) at `/v1/rpc` on the gateway's own HTTP
 * server. With tokens configured, the `bearer.<token>` subprotocol is checked before the upgrade (an
 * HTTP 401 otherwise) and echoed in the handshake, as browsers require.
 */
export function attachRpcServer(server: ServerType, deps: RpcServerDeps): RpcServer {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    handleProtocols: (protocols) => bearerProtocol(protocols) ?? false,
  });

  (server as Server).on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://gateway').pathname;
    if (path !== RPC_PATH) return reject(socket, '404 Not Found');
    const token = bearerProtocol(offeredProtocols(req))?.slice('bearer.'.length);
    const principal = deps.auth.principalOf(token);
    if (principal === undefined) return reject(socket, '401 Unauthorized', ['WWW-Authenticate: Bearer']);
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, principal));
  });

  const serveSocket = (ws: WebSocket, principal: string) => {
    const connection = new RpcConnection(deps, {
      authenticated: !deps.auth.enabled || principal !== undefined,
      principal: deps.auth.enabled ? principal : undefined,
      send: (frame) => {
        const text = encodeFrame(frame, deps.log);
        if (text !== undefined && ws.readyState === WebSocket.OPEN) ws.send(text);
      },
      close: (code, reason) => ws.close(code, reason),
    });
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? undefined : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
      connection.handle(text ?? '');
    });
    ws.on('close', () => connection.close());
    ws.on('error', (err) => deps.log.warn({ err }, 'RPC socket error'));
  };

  return {
    close() {
      for (const ws of wss.clients) ws.close(1001, 'the gateway is stopping');
      // Sockets that do not finish the closing handshake promptly are cut.
      setTimeout(() => {
        for (const ws of wss.clients) ws.terminate();
      }, 1_000).unref();
      wss.close();
    },
  };
}
