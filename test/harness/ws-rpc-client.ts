import { WebSocket } from 'ws';
import { rpcServerFrameSchema, type RpcServerFrame } from '../../contracts/ws-rpc';

/** A frame as received, with the check every test makes: it passes the protocol's schema. */
export type Frame = RpcServerFrame & Record<string, any>;

/**
 * A WebSocket RPC client for tests: records every server frame (asserting each one against the
 * protocol's server-frame schema, as a strict client parses them) and waits for frames by predicate.
 */
export interface RpcTestClient {
  frames: Frame[];
  /** Frames that failed the schema (should stay empty). */
  invalid: unknown[];
  send(frame: unknown): void;
  sendRaw(text: string): void;
  /** Resolves with the first frame (from `from` on) matching `pred`; rejects after `timeoutMs`. */
  waitFor(pred: (f: Frame) => boolean, timeoutMs?: number, from?: number): Promise<Frame>;
  /** Frames of one request id, in order. */
  of(id: string): Frame[];
  /** Resolves with the request's terminal frame (chat.done / chat.error / error). */
  terminal(id: string, timeoutMs?: number): Promise<Frame>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
  /** Drops the TCP connection without a closing handshake (a client that died). */
  terminate(): void;
  protocol: string;
}

export const TERMINAL = new Set(['chat.done', 'chat.error', 'error']);

export async function connectRpc(url: string, opts: { protocols?: string[] } = {}): Promise<RpcTestClient> {
  const ws = new WebSocket(url, opts.protocols ?? []);
  const frames: Frame[] = [];
  const invalid: unknown[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    const json = JSON.parse(String(data));
    const parsed = rpcServerFrameSchema.safeParse(json);
    if (!parsed.success) invalid.push(json);
    frames.push(json);
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`unexpected response ${res.statusCode}`)));
  });
  const waitFor = (pred: (f: Frame) => boolean, timeoutMs = 30_000, from = 0) =>
    new Promise<Frame>((resolve, reject) => {
      const check = () => {
        const hit = frames.slice(from).find(pred);
        if (!hit) return false;
        waiters.delete(check as () => void);
        clearTimeout(timer);
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check as () => void);
        reject(new Error(`no matching frame within ${timeoutMs} ms; got:\n${frames.slice(-15).map((f) => JSON.stringify(f).slice(0, 200)).join('\n')}`));
      }, timeoutMs);
      if (!check()) waiters.add(check as () => void);
    });
  return {
    frames,
    invalid,
    send: (frame) => ws.send(JSON.stringify(frame)),
    sendRaw: (text) => ws.send(text),
    waitFor,
    of: (id) => frames.filter((f) => f.id === id),
    terminal: (id, timeoutMs) => waitFor((f) => f.id === id && TERMINAL.has(f.type), timeoutMs),
    closed,
    close: () => ws.close(),
    terminate: () => ws.terminate(),
    protocol: ws.protocol,
  };
}

/** The text a chat streamed, from its chat.event text-delta frames. */
export function streamedText(frames: Frame[]): string {
  return frames.filter((f) => f.type === 'chat.event' && f.event.type === 'text-delta').map((f) => f.event.text).join('');
}

let counter = 0;
/** A fresh, valid request id. */
export function rpcId(): string {
  return `rpc_${Date.now().toString(36)}${(counter++).toString(36)}`;
}

/** A chat.start frame for `message`, with the request fields a real client sends. */
export function chatStart(id: string, message: string, extra: Record<string, unknown> = {}) {
  return { id, type: 'chat.start', payload: { request: { message, history: [], model: 'scripted/echo', ...extra } } };
}
