import net from 'node:net';
import { encodeEdn, parseEdn } from '../services/gateway/edn/codec';
import { isEdnMap, isKeyword, kw, type EdnMap, type EdnValue } from '../services/gateway/edn/edn-value';

/**
 * The benchmarks' one EDN RPC client connection over TCP (docs/edn.md): requests as single lines with
 * ids, frames read with the repo's strict codec, each request answered by its `response` or `error`
 * frame, every other frame handed on with the time its chunk was read (before any parsing). What a
 * session does with the frames is its own (bench/edn-latency.bench.ts, bench/soak/edn-session.ts).
 */

export const kindOf = (f: EdnMap) => (isKeyword(f.kind) ? f.kind.name : undefined);
export const dataOf = (f: EdnMap): EdnMap => (isEdnMap(f.data) ? f.data : {});

export interface EdnConnectionOptions {
  /** Request ids are `<idPrefix>-<n>`. */
  idPrefix: string;
  requestTimeoutMs: number;
  /** The clock a frame's arrival is read with. */
  now: () => number;
  /** Who the connection is, for messages (the session, once the handshake named it). */
  who: () => string;
  /** A frame that is no answer to a request, with when its chunk was read. */
  onFrame(frame: EdnMap, at: number, line: string): void;
  /** A line that is no frame, or an answer to no pending request. */
  onBadFrame(message: string): void;
  /** The connection failed or closed, not by `close` (every pending request is rejected with it first). */
  onLost(message: string): void;
}

export class EdnConnection {
  private buffer = '';
  private nextId = 0;
  private readonly pending = new Map<string, { resolve: (data: EdnMap) => void; reject: (err: Error) => void; op: string }>();
  private failure: Error | undefined;

  private constructor(
    private readonly socket: net.Socket,
    private readonly options: EdnConnectionOptions,
  ) {
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => this.receive(chunk, options.now()));
    socket.on('error', (err) => this.lost(`the EDN connection of ${options.who()} failed: ${err.message}`));
    socket.on('close', () => this.lost(`the EDN connection of ${options.who()} closed`));
  }

  /** Connects to `host:port`. */
  static async open(address: string, options: EdnConnectionOptions): Promise<EdnConnection> {
    const colon = address.lastIndexOf(':');
    const socket = net.connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new EdnConnection(socket, options);
  }

  /** Sends `op`; resolves with its response's data, rejects with its error frame, a timeout or the connection's failure. */
  request(op: string, params: EdnMap): Promise<EdnMap> {
    if (this.failure) return Promise.reject(this.failure);
    const id = `${this.options.idPrefix}-${++this.nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${op} of ${this.options.who()} unanswered after ${this.options.requestTimeoutMs} ms`));
      }, this.options.requestTimeoutMs);
      this.pending.set(id, { op, resolve: (d) => (clearTimeout(timer), resolve(d)), reject: (e) => (clearTimeout(timer), reject(e)) });
      this.socket.write(`${encodeEdn({ id, kind: kw('request'), op, params })}\n`);
    });
  }

  /** Fails every pending and later request with `err` (the session gave up on the connection). */
  fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  close(): void {
    this.fail(new Error(`the EDN connection of ${this.options.who()} is closed`));
    this.socket.destroy();
  }

  private lost(message: string): void {
    if (this.failure) return;
    this.fail(new Error(message));
    this.options.onLost(message);
  }

  private receive(chunk: string, at: number): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let frame: EdnValue;
      try {
        frame = parseEdn(line);
      } catch (err) {
        this.options.onBadFrame(`an unparseable frame ${line.slice(0, 200)}: ${(err as Error).message}`);
        continue;
      }
      if (!isEdnMap(frame)) this.options.onBadFrame(`not a frame: ${line.slice(0, 200)}`);
      else this.handle(frame, at, line);
    }
  }

  private handle(frame: EdnMap, at: number, line: string): void {
    const kind = kindOf(frame);
    if (kind !== 'response' && kind !== 'error') return this.options.onFrame(frame, at, line);
    const id = typeof frame.id === 'string' ? frame.id : undefined;
    const waiter = id ? this.pending.get(id) : undefined;
    if (!waiter) return this.options.onBadFrame(`an answer to no pending request: ${line.slice(0, 300)}`);
    this.pending.delete(id!);
    if (kind === 'response') waiter.resolve(dataOf(frame));
    else waiter.reject(new Error(`${waiter.op} of ${this.options.who()}: ${String(frame['error-code'])} ${String(frame['error-message'])}`));
  }
}
