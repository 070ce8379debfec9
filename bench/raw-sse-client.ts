import net from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { nowMs } from './stats';

/** One SSE frame as a client received it: when the bytes that completed it arrived, its event name and data line. */
export interface TimedFrame {
  at: number;
  event: string;
  data: string;
}

/** One read buffer for every client: each read is copied out of it at once, in the callback. */
const READ_BUFFER = Buffer.alloc(64 * 1024);

/**
 * An SSE client for fan-out benchmarks, where one process plays a hundred clients: on each socket read
 * it only notes the bytes and the time, so that the k-th client's arrival is not delayed by the HTTP
 * and SSE parsing of the k−1 before it (an artifact of one process, not a cost of the server). The
 * bytes are parsed after the stream ends: HTTP/1.1 status line, headers, chunked body, SSE frames,
 * each frame timed by the read that completed it. `endMarker` (e.g. `event: turn.finished`) ends it.
 */
export function rawSseSubscribe(url: string, endMarker: string, timeoutMs: number): { connected: Promise<void>; done: Promise<TimedFrame[]>; close: () => void } {
  const { hostname, port, pathname, search } = new URL(url);
  const reads: Array<{ at: number; bytes: Buffer }> = [];
  const marker = Buffer.from(endMarker);
  let closed = false;
  let onConnected!: () => void;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  let onRead: (bytes: Buffer) => void = () => undefined;
  // `onread` hands each read to a callback from one buffer, without the stream machinery of 'data'
  // events: the cheapest read Node offers, so the client side adds as little as it can.
  const socket = net.connect({
    host: hostname,
    port: Number(port),
    noDelay: true,
    onread: {
      buffer: READ_BUFFER,
      callback: (n, buf) => {
        onRead(Buffer.from(buf.subarray(0, n)));
        return true;
      },
    },
  });
  const done = new Promise<TimedFrame[]>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no "${endMarker}" within ${timeoutMs} ms`)), timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (!closed) reject(err);
    };
    let headersSeen = false;
    let tail: Buffer = Buffer.alloc(0);
    socket.on('connect', () => socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`));
    onRead = (bytes) => {
      reads.push({ at: nowMs(), bytes });
      if (!headersSeen && Buffer.concat(reads.map((r) => r.bytes)).includes('\r\n\r\n')) {
        headersSeen = true;
        onConnected();
      }
      // The marker may straddle two reads: look in the previous read's tail too.
      if (bytes.includes(marker) || Buffer.concat([tail, bytes.subarray(0, marker.length)]).includes(marker)) {
        clearTimeout(timer);
        try {
          resolve(parseTimedFrames(reads));
        } catch (err) {
          fail(err as Error);
        }
      }
      tail = bytes.subarray(Math.max(0, bytes.length - marker.length));
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the stream closed early')));
  });
  done.catch(() => undefined);
  return {
    connected,
    done,
    close: () => {
      closed = true;
      socket.destroy();
    },
  };
}

/** Parses what the reads carried (an HTTP/1.1 200 answer with a chunked SSE body) into timed frames. */
function parseTimedFrames(reads: Array<{ at: number; bytes: Buffer }>): TimedFrame[] {
  const frames: TimedFrame[] = [];
  let raw: Buffer = Buffer.alloc(0);
  let headersDone = false;
  let chunkLeft = 0; // body bytes left in the current chunk
  let needCrlf = 0; // bytes of the CRLF after a chunk still to skip
  let body = '';
  const utf8 = new StringDecoder('utf8'); // a character may straddle two chunks
  for (const { at, bytes } of reads) {
    raw = Buffer.concat([raw, bytes]);
    if (!headersDone) {
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) continue;
      const head = raw.subarray(0, end).toString('latin1');
      if (!/^HTTP\/1\.1 200 /.test(head)) throw new Error(`events answered: ${head.split('\r\n')[0]}`);
      if (!/\r\ntransfer-encoding: chunked/i.test(head)) throw new Error('expected a chunked event stream');
      headersDone = true;
      raw = raw.subarray(end + 4);
    }
    // De-chunk as far as this read allows.
    for (;;) {
      if (needCrlf > 0) {
        const skip = Math.min(needCrlf, raw.length);
        raw = raw.subarray(skip);
        needCrlf -= skip;
        if (needCrlf > 0) break;
      }
      if (chunkLeft > 0) {
        const take = Math.min(chunkLeft, raw.length);
        if (take === 0) break;
        body += utf8.write(raw.subarray(0, take));
        raw = raw.subarray(take);
        chunkLeft -= take;
        if (chunkLeft === 0) needCrlf = 2;
        continue;
      }
      const lineEnd = raw.indexOf('\r\n');
      if (lineEnd < 0) break;
      chunkLeft = parseInt(raw.subarray(0, lineEnd).toString('latin1'), 16);
      raw = raw.subarray(lineEnd + 2);
      if (chunkLeft === 0) return frames; // the last chunk
    }
    let end: number;
    while ((end = body.indexOf('\n\n')) >= 0) {
      const frame = body.slice(0, end);
      body = body.slice(end + 2);
      const lines = frame.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
      const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
      if (event !== undefined && data !== undefined) frames.push({ at, event, data });
    }
  }
  return frames;
}
