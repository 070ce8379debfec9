import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { encodeEdn, parseEdn } from '../../services/gateway/edn/codec';
import { isEdnMap, isKeyword, kw, type Keyword, type EdnMap, type EdnValue } from '../../services/gateway/edn/edn-value';

/**
 * An EDN RPC client for the session-layer tests, speaking docs/edn.md over TCP or a spawned
 * `strand rpc-edn`: writes requests as one EDN line each, reads every frame, and checks what a strict
 * client checks (one map per line, allowed envelope keys only, `:seq` 1, 2, 3, … on events, every
 * session event naming one session id). Values come back as the codec reads them: maps keyed by
 * keyword name, `Keyword` for keyword values.
 */
export interface Frame extends EdnMap {
  kind: Keyword;
}

const ALLOWED: Record<string, string[]> = {
  response: ['id', 'kind', 'op', 'ok', 'data'],
  event: ['kind', 'event', 'data', 'id', 'seq', 'ts'],
  error: ['kind', 'error-code', 'error-message', 'id', 'op', 'retryable', 'data'],
};

export const kindOf = (f: Frame) => f.kind.name;
export const topicOf = (f: Frame) => (kindOf(f) === 'event' ? (f.event as string) : undefined);
export const dataOf = (f: Frame) => (f.data ?? {}) as EdnMap;
/** A keyword or string value as text. */
export const name = (v: EdnValue | undefined) => (isKeyword(v) ? v.name : typeof v === 'string' ? v : undefined);

export class EdnTestClient {
  readonly frames: Frame[] = [];
  /** What a strict client would refuse: unparseable lines, extra envelope keys, seq out of order. */
  readonly violations: string[] = [];
  private buffer = '';
  private waiters = new Set<() => void>();
  private nextId = 0;
  private lastSeq = 0;
  readonly closed: Promise<void>;

  private constructor(
    private readonly write: (text: string) => void,
    private readonly end: () => void,
    subscribe: (onData: (chunk: string) => void, onClose: () => void) => void,
    readonly stderr: () => string = () => '',
  ) {
    let closedResolve: () => void = () => undefined;
    this.closed = new Promise((r) => (closedResolve = r));
    subscribe(
      (chunk) => this.receive(chunk),
      () => {
        closedResolve();
        this.wake();
      },
    );
  }

  static async tcp(address: string): Promise<EdnTestClient> {
    const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
    const socket = net.connect({ host, port });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.setEncoding('utf8');
    return new EdnTestClient(
      (t) => socket.write(t),
      () => socket.end(),
      (onData, onClose) => socket.on('data', onData).on('close', onClose),
    );
  }

  /** A `strand rpc-edn` child process (the way an editor spawns it), with the stack's addresses in `env`. */
  static stdio(command: string, args: string[], env: NodeJS.ProcessEnv): { client: EdnTestClient; child: ChildProcess } {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-20_000)));
    child.stdout!.setEncoding('utf8');
    const client = new EdnTestClient(
      (t) => child.stdin!.write(t),
      () => child.stdin!.end(),
      (onData, onClose) => {
        child.stdout!.on('data', onData);
        child.on('close', onClose);
      },
      () => err,
    );
    return { client, child };
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let value: EdnValue;
      try {
        value = parseEdn(line);
      } catch (err) {
        this.violations.push(`unparseable line ${line.slice(0, 200)}: ${(err as Error).message}`);
        continue;
      }
      if (!isEdnMap(value) || !isKeyword(value.kind)) {
        this.violations.push(`not a frame: ${line.slice(0, 200)}`);
        continue;
      }
      const frame = value as Frame;
      const extra = Object.keys(frame).filter((k) => !(ALLOWED[frame.kind.name] ?? []).includes(k));
      if (extra.length) this.violations.push(`${frame.kind.name} frame with keys ${extra.join(' ')}`);
      if (frame.kind.name === 'event') {
        if (frame.seq !== this.lastSeq + 1) this.violations.push(`event seq ${String(frame.seq)} after ${this.lastSeq}`);
        this.lastSeq = typeof frame.seq === 'number' ? frame.seq : this.lastSeq;
        if (typeof frame.ts !== 'string' || Number.isNaN(Date.parse(frame.ts))) this.violations.push(`event without an ISO :ts`);
      }
      this.frames.push(frame);
    }
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Sends a request; returns its id. */
  send(op: string, params?: EdnMap): string {
    const id = `req-${++this.nextId}`;
    this.write(`${encodeEdn({ id, kind: kw('request'), op, ...(params ? { params } : {}) })}\n`);
    return id;
  }

  sendRaw(line: string): void {
    this.write(line);
  }

  /** The first frame from index `from` on matching `pred`. */
  waitFor(pred: (f: Frame) => boolean, timeoutMs = 30_000, from = 0): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.frames.slice(from).find(pred);
        if (hit) {
          this.waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        const last = this.frames.slice(-8).map((f) => encodeEdn(f).slice(0, 300));
        reject(new Error(`no matching frame within ${timeoutMs} ms; last frames:\n${last.join('\n')}\n${this.stderr().slice(-2000)}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** The response or error answering request `id`. */
  answer(id: string, timeoutMs?: number): Promise<Frame> {
    return this.waitFor((f) => f.id === id && kindOf(f) !== 'event', timeoutMs);
  }

  /** Sends and waits for the response's `:data`; an `:error` frame rejects with its code. */
  async request(op: string, params?: EdnMap, timeoutMs?: number): Promise<EdnMap> {
    const answer = await this.answer(this.send(op, params), timeoutMs);
    if (kindOf(answer) === 'error') throw Object.assign(new Error(`${String(answer['error-code'])}: ${String(answer['error-message'])}`), { frame: answer });
    return dataOf(answer);
  }

  /** Sends and expects an `:error` frame; returns it. */
  async failure(op: string, params?: EdnMap): Promise<Frame> {
    const answer = await this.answer(this.send(op, params));
    if (kindOf(answer) !== 'error') throw new Error(`${op} answered ${encodeEdn(answer)} instead of an error`);
    return answer;
  }

  /** Events of `topic` (from index `from` on). */
  events(topic: string, from = 0): Frame[] {
    return this.frames.slice(from).filter((f) => topicOf(f) === topic);
  }

  index(frame: Frame): number {
    return this.frames.indexOf(frame);
  }

  close(): void {
    this.end();
  }
}
