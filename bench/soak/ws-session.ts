import type { WebSocket } from 'ws';
import { chatStartFrame, openWsRpc } from '../ws-rpc';
import { SOAK_MODEL } from './soak-stack';
import { wallNow, type ClientHooks, type SoakSession, type TurnResult } from './turn-result';

interface ServerFrame {
  id?: string;
  type: string;
  event?: { type: string; text?: string };
  reply?: { error?: unknown };
  errorMessage?: string;
  errorCode?: string;
  error?: unknown;
}

interface Waiting {
  requestId: string;
  promptAt: number;
  firstDeltaAt?: number;
  errors: string[];
  end: (outcome: string, problem?: string) => void;
}

/**
 * A WebSocket JSON RPC client (docs/websocket.md) as the acolyte CLI is: one connection, a session id
 * of its own, each turn a `chat.start` in that session that ends with its `chat.done` (or
 * `chat.error`); the next `chat.start` goes out the moment it arrives.
 */
export class WsSoakSession implements SoakSession {
  readonly protocol = 'ws' as const;
  private waiting?: Waiting;
  private closing = false;

  private constructor(
    private readonly ws: WebSocket,
    readonly sessionId: string,
    private readonly workspace: string,
    private readonly hooks: ClientHooks,
  ) {
    ws.on('message', (data) => this.handle(String(data)));
    ws.on('close', (code, reason) => this.lost(`the connection closed (${code} ${String(reason)})`));
    ws.on('error', (err) => this.lost(`the connection failed: ${err.message}`));
  }

  static async open(gateway: string, sessionId: string, workspace: string, hooks: ClientHooks): Promise<WsSoakSession> {
    const ws = await openWsRpc(`${gateway.replace(/^http/, 'ws')}/v1/rpc`);
    return new WsSoakSession(ws, sessionId, workspace, hooks);
  }

  turn(index: number, timeoutMs = 120_000): Promise<TurnResult> {
    return new Promise((resolve) => {
      const promptAt = wallNow();
      // Request ids are `rpc_[a-z0-9]+`; unique per connection is enough.
      const requestId = `rpc_t${index.toString(36)}`;
      const timer = setTimeout(() => w.end('timeout', `no chat.done within ${timeoutMs / 1000} s`), timeoutMs);
      const w: Waiting = {
        requestId,
        promptAt,
        errors: [],
        end: (outcome, problem) => {
          clearTimeout(timer);
          if (this.waiting !== w) return;
          this.waiting = undefined;
          if (problem) w.errors.push(problem);
          const ok = outcome === 'done' && w.errors.length === 0;
          resolve({ protocol: 'ws', sessionId: this.sessionId, promptAt, firstDeltaAt: w.firstDeltaAt, endAt: wallNow(), outcome: ok || outcome !== 'done' ? outcome : 'error', error: ok ? undefined : w.errors.join('; ') });
        },
      };
      this.waiting = w;
      const request = { message: `Soak turn ${index}: what does the README say?`, history: [], model: SOAK_MODEL, sessionId: this.sessionId, workspace: this.workspace };
      this.ws.send(chatStartFrame(requestId, request), (err) => err && w.end('refused', `chat.start not sent: ${err.message}`));
    });
  }

  close(): void {
    this.closing = true;
    this.ws.close();
  }

  private lost(message: string): void {
    if (this.closing) return;
    this.closing = true;
    if (this.waiting) this.waiting.end('error', message);
    else this.hooks.onError('ws', this.sessionId, message);
  }

  private handle(text: string): void {
    const at = wallNow();
    let frame: ServerFrame;
    try {
      frame = JSON.parse(text) as ServerFrame;
    } catch {
      return this.problem(`an unparseable frame: ${text.slice(0, 200)}`);
    }
    const w = this.waiting;
    if (!w || frame.id !== w.requestId) {
      // Every frame names its request; one for no live request is a protocol error.
      return this.problem(`a frame for no live request: ${text.slice(0, 300)}`);
    }
    switch (frame.type) {
      case 'chat.event':
        if (frame.event?.type === 'text-delta' && frame.event.text) {
          this.hooks.onDelta(this.sessionId, frame.event.text, at);
          w.firstDeltaAt ??= at;
        } else if (frame.event?.type === 'error') w.errors.push(`chat.event error: ${text.slice(0, 300)}`);
        break;
      case 'chat.done':
        w.end(frame.reply?.error ? 'error' : 'done', frame.reply?.error ? `chat.done with an error: ${JSON.stringify(frame.reply.error).slice(0, 300)}` : undefined);
        break;
      case 'chat.error':
        w.end('error', `chat.error ${frame.errorCode ?? ''}: ${frame.errorMessage ?? text.slice(0, 300)}`);
        break;
      case 'error':
        w.end('error', `error frame: ${text.slice(0, 300)}`);
        break;
    }
  }

  private problem(message: string): void {
    if (this.waiting) this.waiting.errors.push(message);
    else this.hooks.onError('ws', this.sessionId, message);
  }
}
