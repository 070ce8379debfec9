import net from 'node:net';

/**
 * HTTP/1.1 over a bare TCP socket, for tests that need what a normal client cannot do: send garbage,
 * stop mid-body, never read the answer. `parseResponse` decodes what such a client received.
 */

/** Connects to the gateway's host:port from its base URL. */
export function connectRaw(base: string): Promise<net.Socket> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection (or `timeoutMs` passes: then `closed` is false). */
export function readToEnd(socket: net.Socket, timeoutMs: number): Promise<{ data: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.removeAllListeners('data');
      resolve({ data: Buffer.concat(chunks), closed });
    };
    const timer = setTimeout(() => {
      finish(false);
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('close', () => finish(true));
    socket.on('error', () => undefined);
    socket.resume();
  });
}

/** Sends `request` on a new connection and reads until the server closes it or `timeoutMs` passes. */
export async function rawExchange(base: string, request: string | Buffer, timeoutMs = 10_000): Promise<{ data: Buffer; closed: boolean }> {
  const socket = await connectRaw(base);
  const done = readToEnd(socket, timeoutMs);
  socket.write(request);
  return done;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body: with chunked encoding, the complete chunks only (a cut stream ends mid-chunk). */
  body: string;
}

/** Decodes the first response in `data` (status line, headers, plain or chunked body). Undefined without a full head. */
export function parseResponse(data: Buffer): RawResponse | undefined {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const lines = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  let rest = data.subarray(headEnd + 4);
  if (headers['transfer-encoding'] !== 'chunked') {
    const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : rest.length;
    return { status, headers, body: rest.subarray(0, length).toString('utf8') };
  }
  const parts: Buffer[] = [];
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol < 0) break;
    const size = parseInt(rest.subarray(0, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0 || rest.length < eol + 2 + size + 2) break;
    parts.push(rest.subarray(eol + 2, eol + 2 + size));
    rest = rest.subarray(eol + 2 + size + 2);
  }
  return { status, headers, body: Buffer.concat(parts).toString('utf8') };
}

/** The complete SSE frames of a body (a trailing partial frame is left out); comments are skipped. */
export function sseFrames(body: string): Array<{ id?: string; event: string; data: string }> {
  const frames: Array<{ id?: string; event: string; data: string }> = [];
  const blocks = body.split('\n\n');
  blocks.pop(); // whatever follows the last blank line is not a complete frame
  for (const block of blocks) {
    const frame: { id?: string; event: string; data: string[] } = { event: 'message', data: [] };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'id') frame.id = value;
      else if (field === 'event') frame.event = value;
      else if (field === 'data') frame.data.push(value);
    }
    if (frame.data.length > 0) frames.push({ ...(frame.id !== undefined ? { id: frame.id } : {}), event: frame.event, data: frame.data.join('\n') });
  }
  return frames;
}
