import net from 'node:net';
import { parseResponse, type RawResponse } from './raw-http';

/**
 * A client that uploads a large request body over a bare TCP socket the way real clients do, for
 * tests of what a server does with a body it will not take: flat out or in paced pieces, with
 * `Content-Length` or chunked, a given size or without end, reading the answer only once the whole
 * body is sent (as most clients do) or while sending.
 */
export interface UploadPlan {
  /** Request line and headers without the framing header and without the blank line, e.g. `POST /x HTTP/1.1\r\nHost: x`. */
  head: string;
  framing: 'content-length' | 'chunked';
  /** Body bytes to send; `endless` keeps sending until the server closes the connection. */
  bytes: number | 'endless';
  /** `flat-out` hands every piece over as soon as the socket takes it; otherwise a pause after each piece. */
  pace: 'flat-out' | { pauseMs: number };
  /** `after-sending`: the socket is not read at all until the last byte of the body is written. */
  read: 'after-sending' | 'while-sending';
  /** Size of each write (and of each chunk when chunked). */
  pieceBytes?: number;
  /** The test's own bound: give up (outcome `gave-up`) if the server has not closed by then. */
  giveUpMs: number;
}

export interface UploadOutcome {
  /** The first response, if its head arrived. */
  response?: RawResponse;
  /** Everything the server sent. */
  received: Buffer;
  /** Body bytes written to the socket before it ended. */
  sentBytes: number;
  /** Whether the whole planned body was written (never, for `endless`). */
  sentAll: boolean;
  /**
   * How the connection ended: `closed` the server closed it in order (FIN) with nothing lost,
   * `reset` the client's socket failed (EPIPE, ECONNRESET), `gave-up` the server never closed it.
   */
  ending: 'closed' | 'reset' | 'gave-up';
  /** The socket error, if any (its code). */
  error?: string;
  /** The client's port, which names the connection on the server's side too. */
  localPort: number;
}

const DEFAULT_PIECE = 256 * 1024;

export async function upload(base: string, plan: UploadPlan): Promise<UploadOutcome> {
  const socket = await connectHalfOpen(base);
  const localPort = socket.localPort ?? 0;
  const pieceBytes = plan.pieceBytes ?? DEFAULT_PIECE;
  const chunks: Buffer[] = [];
  let error: string | undefined;
  let gaveUp = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // The server's FIN does not stop the client: it closes its own side only once it has sent all it meant to.
  let doneSending = false;
  let serverEnded = false;
  socket.once('end', () => {
    serverEnded = true;
    if (doneSending) socket.end();
  });
  socket.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code ?? err.message));
  const read = () => {
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.resume();
  };
  if (plan.read === 'while-sending') read();
  else socket.pause();
  const giveUp = setTimeout(() => {
    gaveUp = true;
    socket.destroy();
  }, plan.giveUpMs);

  const framingHeader = plan.framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${plan.bytes === 'endless' ? 2 ** 50 : plan.bytes}`;
  let sentBytes = 0;
  let sentAll = false;
  const open = () => !socket.destroyed && error === undefined && !gaveUp;
  try {
    await write(socket, `${plan.head}\r\n${framingHeader}\r\n\r\n`);
    const piece = Buffer.alloc(pieceBytes, 'x');
    while (open() && (plan.bytes === 'endless' || sentBytes < plan.bytes)) {
      const size = plan.bytes === 'endless' ? pieceBytes : Math.min(pieceBytes, plan.bytes - sentBytes);
      const data = plan.framing === 'chunked' ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), piece.subarray(0, size), Buffer.from('\r\n')]) : piece.subarray(0, size);
      await write(socket, data);
      sentBytes += size;
      if (plan.pace !== 'flat-out') await new Promise((r) => setTimeout(r, (plan.pace as { pauseMs: number }).pauseMs));
    }
    if (open() && plan.framing === 'chunked') await write(socket, '0\r\n\r\n');
    sentAll = open() && plan.bytes !== 'endless';
  } catch {
    // The socket failed mid-write: `error` says how.
  }
  doneSending = true;
  if (serverEnded) socket.end();
  if (plan.read === 'after-sending') read();
  await closed;
  clearTimeout(giveUp);
  const received = Buffer.concat(chunks);
  return {
    ...(parseResponse(received) ? { response: parseResponse(received) } : {}),
    received,
    sentBytes,
    sentAll,
    ending: gaveUp ? 'gave-up' : error !== undefined ? 'reset' : 'closed',
    ...(error !== undefined ? { error } : {}),
    localPort,
  };
}

/** A connection that stays writable after the server's FIN (a client that goes on sending whatever it is told). */
function connectHalfOpen(base: string): Promise<net.Socket> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Writes and waits until the socket has taken the data (its callback), or rejects when it failed. */
function write(socket: net.Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return reject(new Error('socket closed'));
    const onClose = () => reject(new Error('socket closed'));
    socket.once('close', onClose);
    socket.write(data, (err) => {
      socket.off('close', onClose);
      if (err) reject(err);
      else resolve();
    });
  });
}
