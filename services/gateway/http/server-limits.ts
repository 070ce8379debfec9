import type { Server, ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GatewayLimits } from '../limits/limits-config';
import type { UnreadBodyLimits } from './unread-body';

/**
 * Node's HTTP server options for the gateway's timeouts: a client has `headersTimeoutMs` to send its
 * headers and `requestTimeoutMs` for the whole request, body included, so a slowloris client that
 * trickles bytes and stalls is cut. The time is measured while a request is being received only: a
 * long SSE response or an upgraded WebSocket is not affected. Node checks connections every
 * `connectionsCheckingInterval`, so that is kept well below the timeouts.
 */
export function httpServerOptions(limits: GatewayLimits): ServerOptions {
  return {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    connectionsCheckingInterval: Math.max(250, Math.min(5_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/**
 * What is done with a body left unread by an early answer (413 over `maxBodyBytes`, 401, …): up to
 * four times the body limit is read within 5 s before the answer, so the connection stays usable;
 * past that the answer says `Connection: close` and the connection lingers within the configured
 * bounds (STRAND_LINGERING_CLOSE_MS / _MAX_BYTES) before it is closed.
 */
export function unreadBodyLimits(maxBodyBytes: number, limits: GatewayLimits): UnreadBodyLimits {
  return {
    maxDrainBytes: 4 * maxBodyBytes,
    maxDrainMs: 5_000,
    linger: { maxMs: limits.lingeringCloseMs, maxBytes: limits.lingeringCloseMaxBytes },
  };
}

function answer(socket: Duplex, status: string, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message, details: {} } });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // A client that does not read its answer does not keep the socket.
  setTimeout(() => socket.destroy(), 1_000).unref();
}

/**
 * Requests Node cannot parse or that arrive too slowly never reach the app; they are answered here
 * with the contract's error body and the connection is closed: 400 INVALID_REQUEST for malformed
 * HTTP, 413 PAYLOAD_TOO_LARGE for oversized headers, 408 (body code INVALID_REQUEST) when the
 * request was not received in time. A socket that is already gone or mid-response is just closed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const inResponse = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (err.code === 'ECONNRESET' || !socket.writable || inResponse) return void socket.destroy();
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return answer(socket, '408 Request Timeout', 'INVALID_REQUEST', 'the request was not received in time');
    if (err.code === 'HPE_HEADER_OVERFLOW') return answer(socket, '413 Payload Too Large', 'PAYLOAD_TOO_LARGE', 'request headers are too large');
    answer(socket, '400 Bad Request', 'INVALID_REQUEST', 'malformed HTTP request');
  });
}
