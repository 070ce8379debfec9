import type { Logger } from '../../common/logger';
import type { GatewayAuth } from '../auth/tokens';
import { EdnSyntaxError, parseEdn } from './codec';
import type { EdnMap } from './edn-value';
import { checkEnvelope } from './envelope';
import { errorLine, eventLine, responseLine, type ErrorFrameFields } from './frames';
import { readHandshake, serverInfoWithDefaults } from './handshake';
import { LineFramer } from './line-framer';
import { checkParams, HANDSHAKE_PARAMS } from './strict-params';
import { EdnErrorCode, EdnOpError, type EdnPeer, type EdnRequest, type EdnSessionHandler, type EdnSessionHandlerFactory } from './protocol';

/** Where a connection's frames go: one stdio pipe or one TCP socket. */
interface EdnTransport {
  /** Writes one encoded frame (a line ending in `\n`). */
  write(line: string): void;
  /** Ends the connection once what was written has been sent (after transport/unauthorized). */
  end(): void;
}

export interface EdnConnectionDeps {
  transport: EdnTransport;
  factory: EdnSessionHandlerFactory;
  /** Who is on the other end; `principal` is filled in by the handshake when tokens are required. */
  peer: Omit<EdnPeer, 'principal'>;
  /** When set and enabled, the handshake must carry a valid `:client-info :auth-token` (TCP). */
  auth?: GatewayAuth;
  /** Requests pending at once before transport/max-pending-exceeded (STRAND_EDN_MAX_PENDING). */
  maxPending: number;
  log: Logger;
  now?: () => Date;
}

/**
 * One protocol session of docs/edn.md at the wire level: envelope validation, the handshake
 * gate and version check, token check, pending requests and their cap, `:seq`/`:ts` on events, and
 * the translation of the session layer's results and failures into frames. A malformed line only
 * ever costs an `:error` frame; the connection goes on.
 */
export class EdnConnection {
  private readonly pending = new Set<string>();
  private handler: EdnSessionHandler | undefined;
  private principal: string | undefined;
  private ready = false;
  /** The latest handshake in flight: resolves to whether it succeeded. */
  private handshaking: Promise<boolean> | undefined;
  private closed = false;
  private seq = 0;
  private drainWaiters: Array<() => void> = [];

  constructor(private readonly deps: EdnConnectionDeps) {}

  /** One inbound line (without its newline). */
  receiveLine(line: string): void {
    if (this.closed) return;
    try {
      this.receive(line);
    } catch (err) {
      // Nothing a client sends may take the connection down: whatever slipped through is logged here.
      this.deps.log.error({ err }, 'EDN frame handling failed');
      this.sendError({ code: EdnErrorCode.failed, message: 'the frame could not be handled' });
    }
  }

  /** A line the framer could not deliver (too long, not UTF-8): transport/invalid-frame. */
  rejectFrame(message: string): void {
    if (this.closed) return;
    this.sendError({ code: EdnErrorCode.invalidFrame, message });
  }

  /** Whether a handshake succeeded (ops other than handshake are served). */
  get isReady(): boolean {
    return this.ready;
  }

  /** Requests accepted and not answered yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Resolves once no request is pending, or after `timeoutMs`, whichever is first. */
  drain(timeoutMs: number): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.drainWaiters.push(done);
    });
  }

  /** The transport ended (EOF, socket closed, SIGTERM): stop every feed; nothing is written after this. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.handler?.close();
    } catch (err) {
      this.deps.log.warn({ err }, 'EDN session handler failed to close');
    }
    this.settleDrain();
  }

  private receive(line: string): void {
    if (line.trim() === '') return this.sendError({ code: EdnErrorCode.invalidFrame, message: 'empty frame' });
    let frame;
    try {
      frame = parseEdn(line);
    } catch (err) {
      if (!(err instanceof EdnSyntaxError)) throw err;
      return this.sendError({ code: EdnErrorCode.invalidFrame, message: `unparseable EDN: ${err.message}` });
    }
    const checked = checkEnvelope(frame, (id) => this.pending.has(id));
    if (!checked.ok) return this.sendError(checked.error);
    const req = checked.request;
    if (this.pending.size >= this.deps.maxPending) {
      return this.sendError({ code: EdnErrorCode.maxPending, message: `more than ${this.deps.maxPending} requests pending: wait for answers`, id: req.id, op: req.op, retryable: true });
    }
    if (req.op === 'handshake') {
      const result = this.handshake(req);
      this.handshaking = result.then(() => true, () => false);
      return this.track(req, result);
    }
    if (this.ready) return this.track(req, this.dispatch(req));
    // Sent right behind a handshake still in flight: it waits for that handshake's outcome.
    if (this.handshaking) return this.track(req, this.handshaking.then((ok) => (ok && this.ready ? this.dispatch(req) : Promise.reject(notReady()))));
    this.sendError(this.failureOf(req, notReady()));
  }

  private dispatch(req: EdnRequest): Promise<EdnMap> {
    const handler = this.handler!;
    return call(() => handler.request(req));
  }

  private async handshake(req: EdnRequest): Promise<EdnMap> {
    const { clientInfo, token } = readHandshake(req.params);
    // A key the handshake does not take, in its params or its :client-info, is refused (docs/edn.md, "Params").
    checkParams(HANDSHAKE_PARAMS, 'handshake', req.params);
    const auth = this.deps.auth;
    if (auth?.enabled) {
      const principal = auth.principalOf(token);
      // A second handshake may not switch who the connection acts for.
      if (principal === undefined || (this.principal !== undefined && principal !== this.principal)) {
        throw new Unauthorized(token === undefined ? 'this server requires :client-info :auth-token' : 'the :auth-token is not valid');
      }
      this.principal = principal;
    }
    this.handler ??= this.deps.factory({ event: (topic, data, id) => this.event(topic, data, id) }, {
      ...this.deps.peer,
      ...(this.principal !== undefined ? { principal: this.principal } : {}),
    });
    const handler = this.handler;
    const { serverInfo } = await call(() => handler.handshake(clientInfo));
    this.ready = true;
    return { 'server-info': serverInfoWithDefaults(serverInfo) };
  }

  /** Counts `req` as pending until `result` settles, then answers it. */
  private track(req: EdnRequest, result: Promise<EdnMap>): void {
    this.pending.add(req.id);
    result.then(
      (data) => this.answer(req, () => responseLine(req.id, req.op, data)),
      (err: unknown) => this.answer(req, () => errorLine(this.failureOf(req, err)), err instanceof Unauthorized),
    );
  }

  private answer(req: EdnRequest, build: () => string, thenEnd = false): void {
    this.pending.delete(req.id);
    if (!this.closed) {
      let line: string;
      try {
        line = build();
      } catch (err) {
        // Data the encoder refuses (a bug in whoever built it): the client still gets its answer.
        this.deps.log.error({ err, op: req.op }, 'EDN response could not be encoded');
        line = errorLine({ code: EdnErrorCode.failed, message: `${req.op} failed`, id: req.id, op: req.op });
      }
      this.deps.transport.write(line);
      if (thenEnd) {
        this.deps.transport.end();
        this.close();
      }
    }
    if (this.pending.size === 0) this.settleDrain();
  }

  private failureOf(req: EdnRequest, err: unknown): ErrorFrameFields {
    const echo = { id: req.id, op: req.op };
    if (err instanceof Unauthorized) return { code: EdnErrorCode.unauthorized, message: err.message, ...echo };
    if (err instanceof EdnOpError) {
      return { code: err.code, message: err.message, ...echo, ...(err.retryable !== undefined ? { retryable: err.retryable } : {}), ...(err.data ? { data: err.data } : {}) };
    }
    // The real error stays in the log: a stack or an internal message is none of the client's business.
    this.deps.log.error({ err, op: req.op, id: req.id }, 'EDN request failed');
    return { code: EdnErrorCode.failed, message: `${req.op} failed`, ...echo };
  }

  private event(topic: string, data: EdnMap, id?: string): void {
    if (this.closed) return;
    let line: string;
    try {
      line = eventLine({ topic, data, seq: this.seq + 1, ts: (this.deps.now ?? (() => new Date()))(), ...(id !== undefined ? { id } : {}) });
    } catch (err) {
      this.deps.log.error({ err, topic }, 'EDN event could not be encoded: dropped');
      return;
    }
    this.seq += 1;
    this.deps.transport.write(line);
  }

  private sendError(fields: ErrorFrameFields): void {
    this.deps.transport.write(errorLine(fields));
  }

  private settleDrain(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }
}

class Unauthorized extends Error {}

const notReady = () => new EdnOpError(EdnErrorCode.notReady, 'send a handshake first', undefined, true);

/** Runs `fn`, turning a synchronous throw into a rejection. */
function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return fn();
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * A framer that feeds `conn`: lines it can read, and transport/invalid-frame for those it cannot.
 * `deliver` runs the handling of each: at once (stdio), or queued behind what the connection sent
 * before (TCP, paced-framer.ts); reports go through it too, so they keep their place among the lines.
 */
export function framerFor(conn: EdnConnection, maxFrameBytes: number, deliver: (handle: () => void) => void = (handle) => handle()): LineFramer {
  return new LineFramer(maxFrameBytes, {
    line: (text) => deliver(() => conn.receiveLine(text)),
    invalidUtf8: () => deliver(() => conn.rejectFrame('the frame is not valid UTF-8')),
    oversize: (max) => deliver(() => conn.rejectFrame(`the frame is longer than ${max} bytes: the rest of that line is discarded`)),
  });
}
