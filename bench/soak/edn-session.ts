import net from 'node:net';
import { encodeEdn, parseEdn } from '../../services/gateway/edn/codec';
import { isEdnMap, isKeyword, kw, type EdnMap, type EdnValue } from '../../services/gateway/edn/edn-value';
import { EMACS_TOPICS } from '../emacs-topics';
import { SOAK_SCRIPT } from './soak-stack';
import { wallNow, type ClientHooks, type SoakSession, type TurnResult } from './turn-result';

const CLIENT_INFO = { name: 'strand-soak', version: '0.1.0', 'protocol-version': '1.0', features: [] };
const REQUEST_TIMEOUT_MS = 60_000;

const kindOf = (f: EdnMap) => (isKeyword(f.kind) ? f.kind.name : undefined);
const dataOf = (f: EdnMap): EdnMap => (isEdnMap(f.data) ? f.data : {});
const nameOf = (v: EdnValue | undefined) => (isKeyword(v) ? v.name : String(v));

interface Waiting {
  promptAt: number;
  firstDeltaAt?: number;
  /** The stop reason of the turn's last `assistant/message` so far (`tool-use` between steps). */
  lastStop?: string;
  errors: string[];
  end: (outcome: string, problem?: string) => void;
}

/**
 * An EDN RPC client over TCP (docs/edn.md) driven as psi's Emacs client drives it: handshake (its
 * focus session is the soak session; its project is the gateway's cwd), subscribe to the Emacs topics,
 * set_model to the soak script, then each turn a `prompt`. A turn has ended at the first
 * `session/updated` with `:is-streaming false` after an `assistant/message` whose stop reason is
 * `:stop` (the answer after the tool); another final stop reason, or an `error` event, fails it.
 */
export class EdnSoakSession implements SoakSession {
  readonly protocol = 'edn' as const;
  sessionId = '';
  private buffer = '';
  private nextId = 0;
  private readonly pending = new Map<string, { resolve: (data: EdnMap) => void; reject: (err: Error) => void; op: string }>();
  private waiting?: Waiting;
  private closing = false;

  private constructor(
    private readonly socket: net.Socket,
    private readonly hooks: ClientHooks,
  ) {
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('error', (err) => this.lost(`the connection failed: ${err.message}`));
    socket.on('close', () => this.lost('the connection closed'));
  }

  static async open(address: string, hooks: ClientHooks): Promise<EdnSoakSession> {
    const colon = address.lastIndexOf(':');
    const socket = net.connect({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const session = new EdnSoakSession(socket, hooks);
    const hello = await session.request('handshake', { 'client-info': CLIENT_INFO });
    session.sessionId = String((hello['server-info'] as EdnMap)['session-id']);
    await session.request('subscribe', { topics: EMACS_TOPICS });
    await session.request('set_model', { provider: 'scripted', 'model-id': SOAK_SCRIPT });
    return session;
  }

  turn(index: number, timeoutMs = 120_000): Promise<TurnResult> {
    return new Promise((resolve) => {
      const promptAt = wallNow();
      const timer = setTimeout(() => w.end('timeout', `no end of turn within ${timeoutMs / 1000} s`), timeoutMs);
      const w: Waiting = {
        promptAt,
        errors: [],
        end: (outcome, problem) => {
          clearTimeout(timer);
          if (this.waiting !== w) return;
          this.waiting = undefined;
          if (problem) w.errors.push(problem);
          const ok = outcome === 'done' && w.errors.length === 0;
          resolve({ protocol: 'edn', sessionId: this.sessionId, promptAt, firstDeltaAt: w.firstDeltaAt, endAt: wallNow(), outcome: ok || outcome !== 'done' ? outcome : 'error', error: ok ? undefined : w.errors.join('; ') });
        },
      };
      this.waiting = w;
      this.request('prompt', { message: `Soak turn ${index}: what does the README say?` }).catch((err: Error) => w.end('refused', err.message));
    });
  }

  close(): void {
    this.closing = true;
    this.socket.destroy();
  }

  private request(op: string, params: EdnMap): Promise<EdnMap> {
    if (this.closing) return Promise.reject(new Error(`${op}: the connection is closed`));
    const id = `soak-${++this.nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${op} of ${this.sessionId || 'a new connection'} unanswered after ${REQUEST_TIMEOUT_MS} ms`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { op, resolve: (d) => (clearTimeout(timer), resolve(d)), reject: (e) => (clearTimeout(timer), reject(e)) });
      this.socket.write(`${encodeEdn({ id, kind: kw('request'), op, params })}\n`);
    });
  }

  private receive(chunk: string): void {
    const at = wallNow();
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let frame: EdnValue;
      try {
        frame = parseEdn(line);
      } catch (err) {
        this.problem(`an unparseable frame ${line.slice(0, 200)}: ${(err as Error).message}`);
        continue;
      }
      if (!isEdnMap(frame)) this.problem(`not a frame: ${line.slice(0, 200)}`);
      else this.handle(frame, at, line);
    }
  }

  private handle(frame: EdnMap, at: number, line: string): void {
    const kind = kindOf(frame);
    if (kind === 'response' || kind === 'error') {
      const id = typeof frame.id === 'string' ? frame.id : undefined;
      const waiter = id ? this.pending.get(id) : undefined;
      if (!waiter) return this.problem(`an answer to no pending request: ${line.slice(0, 300)}`);
      this.pending.delete(id!);
      if (kind === 'response') waiter.resolve(dataOf(frame));
      else waiter.reject(new Error(`${waiter.op}: ${String(frame['error-code'])} ${String(frame['error-message'])}`));
      return;
    }
    if (kind !== 'event') return this.problem(`a frame of kind ${String(kind)}: ${line.slice(0, 200)}`);
    const data = dataOf(frame);
    if (data['session-id'] !== undefined && data['session-id'] !== this.sessionId) return;
    const w = this.waiting;
    switch (frame.event) {
      case 'assistant/delta':
        if (!data.text) return;
        this.hooks.onDelta(this.sessionId, String(data.text), at);
        if (w) w.firstDeltaAt ??= at;
        return;
      case 'assistant/message':
        if (w) w.lastStop = nameOf(data['stop-reason']);
        return;
      case 'session/updated':
        // Between the steps (after the tool call's message) the turn goes on, whatever the state says.
        if (w?.lastStop !== undefined && w.lastStop !== 'tool-use' && data['is-streaming'] === false) w.end(w.lastStop === 'stop' ? 'done' : w.lastStop);
        return;
      case 'error':
        return this.problem(`error event: ${line.slice(0, 300)}`);
    }
  }

  private problem(message: string): void {
    if (this.waiting) this.waiting.errors.push(message);
    else this.hooks.onError('edn', this.sessionId, message);
  }

  private lost(message: string): void {
    if (this.closing) return;
    this.closing = true;
    for (const p of this.pending.values()) p.reject(new Error(message));
    this.pending.clear();
    if (this.waiting) this.waiting.end('error', message);
    else this.hooks.onError('edn', this.sessionId, message);
  }
}
