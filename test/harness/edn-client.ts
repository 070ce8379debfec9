import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { encodeEdn, parseEdn } from '../../services/gateway/edn/codec';
import { isKeyword, kw, type EdnMap } from '../../services/gateway/edn/edn-value';

/**
 * A test client of docs/edn.md over any byte stream (a TCP socket, a `strand rpc-edn` child's
 * pipes). Every line the server writes is parsed with the strict codec and must be a map whose
 * `:kind` is :response, :event or :error; anything else lands in `invalid`, which tests assert empty.
 */
export class EdnTestClient {
  readonly frames: EdnMap[] = [];
  readonly invalid: string[] = [];
  private pending = Buffer.alloc(0);
  private waiters = new Set<() => void>();
  private nextId = 1;
  private ended = false;

  constructor(private readonly write: (bytes: string | Buffer) => void) {}

  /** Bytes from the server. */
  feed(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (let nl = this.pending.indexOf(0x0a); nl !== -1; nl = this.pending.indexOf(0x0a)) {
      const line = this.pending.subarray(0, nl).toString('utf8');
      this.pending = this.pending.subarray(nl + 1);
      try {
        const frame = parseEdn(line);
        const kind = (frame as EdnMap | null)?.kind;
        if (typeof frame !== 'object' || frame === null || !isKeyword(kind) || !['response', 'event', 'error'].includes(kind.name)) throw new Error('not a frame');
        this.frames.push(frame as EdnMap);
      } catch {
        this.invalid.push(line);
      }
    }
    this.wake();
  }

  /** The server closed the stream. */
  end(): void {
    if (this.pending.length > 0) this.invalid.push(`(unterminated) ${this.pending.toString('utf8')}`);
    this.ended = true;
    this.wake();
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Sends a frame (encoded, with its newline) or raw bytes exactly as given. */
  send(frame: EdnMap | string | Buffer): void {
    this.write(typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : `${encodeEdn(frame)}\n`);
  }

  id(): string {
    return `req-${this.nextId++}`;
  }

  /** Sends a request and resolves to the `:response` or `:error` that answers it. */
  async request(op: string, params?: EdnMap, timeoutMs = 15_000): Promise<EdnMap> {
    const id = this.id();
    this.send({ id, kind: kw('request'), op, ...(params ? { params } : {}) });
    return this.answerTo(id, timeoutMs);
  }

  answerTo(id: string, timeoutMs = 15_000): Promise<EdnMap> {
    return this.waitFor((f) => f.id === id && kindOf(f) !== 'event', timeoutMs, `an answer to ${id}`);
  }

  handshake(clientInfo: EdnMap = {}, timeoutMs?: number): Promise<EdnMap> {
    return this.request('handshake', { 'client-info': { name: 'strand-test', version: '0', 'protocol-version': '1.0', features: [], ...clientInfo } }, timeoutMs);
  }

  /** Resolves to the first frame (from index `from`) that matches, or rejects after `timeoutMs`. */
  waitFor(match: (f: EdnMap) => boolean, timeoutMs = 15_000, what = 'a matching frame', from = 0): Promise<EdnMap> {
    return this.until(() => this.frames.slice(from).find(match), timeoutMs, what);
  }

  /** Resolves once `condition` holds (checked whenever frames arrive). */
  waitUntil(condition: () => boolean, timeoutMs = 15_000, what = 'a condition'): Promise<void> {
    return this.until(() => (condition() ? true : undefined), timeoutMs, what).then(() => undefined);
  }

  /** Resolves once `count` frames have arrived in all. */
  waitForCount(count: number, timeoutMs = 15_000): Promise<void> {
    return this.until(() => (this.frames.length >= count ? true : undefined), timeoutMs, `${count} frames`).then(() => undefined);
  }

  /** Resolves once the server closed the stream. */
  waitForClose(timeoutMs = 15_000): Promise<void> {
    return this.until(() => (this.ended ? true : undefined), timeoutMs, 'the stream to close').then(() => undefined);
  }

  events(topic?: string): EdnMap[] {
    return this.frames.filter((f) => kindOf(f) === 'event' && (topic === undefined || f.event === topic));
  }

  private until<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = probe();
        if (found === undefined) return false;
        cleanup();
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last frames: ${this.frames.slice(-5).map((f) => encodeEdn(f)).join('\n')}`));
      }, timeoutMs);
      const waiter = () => void check();
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      if (!check()) this.waiters.add(waiter);
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

export const kindOf = (f: EdnMap): string | undefined => (isKeyword(f.kind) ? f.kind.name : undefined);

export type EdnTcpClient = EdnTestClient & { socket: net.Socket };

export function connectEdnTcp(port: number, host = '127.0.0.1'): Promise<EdnTcpClient> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host });
    const client = new EdnTestClient((bytes) => socket.write(bytes)) as EdnTcpClient;
    client.socket = socket;
    socket.on('data', (chunk: Buffer) => client.feed(chunk));
    socket.on('close', () => client.end());
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve(client));
    socket.once('error', reject);
  });
}

export interface EdnProcess {
  client: EdnTestClient;
  child: ChildProcess;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills the child's whole process group (npx runs the command in a grandchild) if it still runs. */
  kill(): void;
}

/**
 * Starts `command args` (e.g. `npx strand rpc-edn`) the way an editor does: pipes, a working
 * directory, an environment. It gets a process group of its own so cleanup reaches npx's children.
 */
export function spawnEdn(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): EdnProcess {
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const client = new EdnTestClient((bytes) => child.stdin!.write(bytes));
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => client.feed(chunk));
  child.stdout!.on('end', () => client.end());
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    client,
    child,
    stderr: () => stderr,
    exited,
    kill: () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    },
  };
}
