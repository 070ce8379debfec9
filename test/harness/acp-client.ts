import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { agentMessageErrors } from './acp-schema';

const REPO = path.resolve(__dirname, '../..');

/** Raw requests a test writes itself carry ids with this prefix: their answers are not the SDK's to read. */
const RAW_ID = 'raw-';

/**
 * A `strand acp` child process driven the way an editor drives it: the SDK's own client
 * (`acp.client()`) over the child's stdin/stdout. Every line the agent writes is also read raw,
 * checked to be one JSON-RPC message and validated strictly against the ACP schema (`violations`),
 * and kept in order (`sent`). Permission requests are answered by `onPermission`.
 */
export class AcpTestAgent {
  readonly child: ChildProcess;
  /** Every message the agent wrote, in order. */
  readonly sent: any[] = [];
  /** What is wrong with what the agent wrote (schema, framing): must stay empty. */
  readonly violations: string[] = [];
  stderr = '';
  /** Answers `session/request_permission`; a test sets it before the call is asked. */
  onPermission: (req: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse> = async () => ({ outcome: { outcome: 'cancelled' } });
  readonly connection: acp.ClientConnection;
  private readonly methods = new Map<string, string>();
  private readonly waiters = new Set<() => void>();
  private readonly rawAnswers = new Map<string, any>();
  private rawCount = 0;

  constructor(env: NodeJS.ProcessEnv, args: string[] = []) {
    this.child = spawn(process.execPath, [path.join(REPO, 'bin/strand.cjs'), 'acp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    const toSdk = new PassThrough();
    let pending = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        this.read(line, toSdk);
      }
    });
    this.child.stdout!.on('end', () => toSdk.end());
    const toAgent = new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
          const msg = JSON.parse(line);
          if (typeof msg.method === 'string' && msg.id !== undefined) this.methods.set(String(msg.id), msg.method);
        }
        if (this.child.stdin!.writable) this.child.stdin!.write(chunk, cb);
        else cb();
      },
    });
    this.child.stdin!.on('error', () => undefined);
    const client = acp
      .client({ name: 'strand-test' })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => this.onPermission(params))
      .onNotification(acp.methods.client.session.update, () => undefined);
    this.connection = client.connect(acp.ndJsonStream(Writable.toWeb(toAgent) as WritableStream<Uint8Array>, Readable.toWeb(toSdk) as ReadableStream<Uint8Array>));
  }

  /** The stack's addresses (its gateway: where the agent takes its defaults from), for `new AcpTestAgent(acpEnv(...))`. */
  static env(urls: { nats: string; temporal: string; gateway: string }, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, STRAND_NATS_URL: urls.nats, STRAND_TEMPORAL_ADDRESS: urls.temporal, STRAND_URL: urls.gateway, ...extra };
    delete env.STRAND_LOG_LEVEL;
    return env;
  }

  get agent(): acp.ClientContext {
    return this.connection.agent;
  }

  /** Initializes as an editor does (file system and terminal offered, which strand does not use). */
  async initialize(capabilities: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true }): Promise<acp.InitializeResponse> {
    return this.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: capabilities });
  }

  /** The `session/update` notifications of a session so far, in order. */
  updates(sessionId: string): acp.SessionUpdate[] {
    return this.sent.filter((m) => m.method === 'session/update' && m.params?.sessionId === sessionId).map((m) => m.params.update);
  }

  /** Resolves once `done` holds of what the agent has sent; fails with what it sent after `timeoutMs`. */
  async until(done: () => boolean, timeoutMs = 30_000, what = 'a condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (this.child.exitCode !== null) throw new Error(`strand acp exited (${this.child.exitCode}) before ${what}; stderr: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; the agent sent:\n${this.sent.map((m) => JSON.stringify(m).slice(0, 300)).join('\n')}`);
      await new Promise<void>((resolve) => {
        const wake = () => resolve();
        this.waiters.add(wake);
        setTimeout(() => {
          this.waiters.delete(wake);
          resolve();
        }, Math.min(left, 500));
      });
    }
  }

  /** Writes a line as it is, bypassing the SDK (malformed input). */
  writeRaw(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** A raw request with an id of its own; resolves with the agent's answer to it. */
  async rawRequest(method: string, params: unknown): Promise<any> {
    const id = `${RAW_ID}${++this.rawCount}`;
    this.methods.set(id, method);
    this.writeRaw(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    await this.until(() => this.rawAnswers.has(id), 30_000, `the answer to ${method}`);
    return this.rawAnswers.get(id);
  }

  /** Stops the process (kill -9 with `SIGKILL`) and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill(signal);
      await exited;
    }
    this.connection.close();
  }

  private read(line: string, toSdk: PassThrough): void {
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      this.violations.push(`a line on stdout that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    const answers = msg && typeof msg === 'object' && !('method' in msg) ? String(msg.id) : undefined;
    for (const problem of agentMessageErrors(msg, answers !== undefined ? this.methods.get(answers) : undefined)) this.violations.push(problem);
    this.sent.push(msg);
    if (answers !== undefined && (answers.startsWith(RAW_ID) || msg.id === null)) this.rawAnswers.set(answers, msg);
    else toSdk.write(`${line}\n`);
    for (const wake of [...this.waiters]) wake();
    this.waiters.clear();
  }
}
