import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the Anthropic Messages API that speaks its true streaming wire format (SSE:
 * message_start, content_block_start/delta/stop, message_delta, message_stop, ping; errors as
 * `{type:'error', error:{type, message}}`), so the real SDK and our adapter run unmodified against
 * it. Each request takes the next scripted reply; every request body is recorded for assertions.
 * Also exports the small SSE server engine the OpenAI fake shares (fake-openai-server.ts).
 */

/** A request as the fake received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * How to misbehave after `after` events: drop the connection, send a broken event, go silent (the
 * connection stays open), or end the response cleanly but early.
 */
export interface StreamCut {
  after: number;
  how: 'drop' | 'malformed' | 'stall' | 'end';
}

/** What the engine sends for one request: an HTTP error/JSON body, or SSE frames. */
export interface SsePlan {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  frames?: string[];
  malformedFrame?: string;
  cut?: StreamCut;
  delayMs?: number;
}

export interface FakeProviderServer<Reply> {
  /** http://127.0.0.1:<port> */
  url: string;
  /** What to pass to the SDK as baseURL. */
  baseURL: string;
  requests: RecordedRequest[];
  /** Queues replies for the next requests, in order. */
  reply(...replies: Reply[]): void;
  close(): Promise<void>;
}

export interface FakeServerOptions<Reply> {
  /** Replies for the first requests, in order. */
  replies?: Reply[];
  /** Answers requests once the queue is empty (e.g. a benchmark's endless answers). */
  respond?: (request: RecordedRequest, index: number) => Reply;
  /**
   * The address to listen on (default 127.0.0.1). Containers reach the host only through its bridge
   * address, so a provider for a compose stack listens on that address (bench/chaos/cluster-stack.ts).
   */
  host?: string;
}

/** Waits, but no longer than the client stays connected (no timers left behind after close()). */
function pause(ms: number, res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.on('close', done);
  });
}

/** The engine: a node:http server on 127.0.0.1 with a free port that plays an {@link SsePlan} per request. */
export async function startFakeSseServer<Reply>(
  options: FakeServerOptions<Reply> & {
    path: RegExp;
    basePath: string;
    plan: (reply: Reply, req: RecordedRequest) => SsePlan;
    noReply: (index: number) => SsePlan;
    /** The API's own validation: a request it refuses is answered so, without taking a scripted reply. */
    refuse?: (req: RecordedRequest) => SsePlan | undefined;
    /** Requests of other routes (e.g. `GET /v1/models`) answered without taking a scripted reply. */
    answer?: (req: RecordedRequest) => SsePlan | undefined;
  },
): Promise<FakeProviderServer<Reply>> {
  const queue = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // recorded as text
    }
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    const index = requests.push(recorded) - 1;
    const answered = options.answer?.(recorded);
    if (answered) return void (await play(answered, req, res));
    if (!options.path.test(recorded.path)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `fake server: no route ${recorded.path}` } }));
      return;
    }
    const refusal = options.refuse?.(recorded);
    if (refusal) return void (await play(refusal, req, res));
    const next = queue.shift();
    const plan = next !== undefined ? options.plan(next, recorded) : options.respond ? options.plan(options.respond(recorded, index), recorded) : options.noReply(index);
    await play(plan, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseURL: url + options.basePath,
    requests,
    reply: (...replies) => void queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections(); // stalled streams would otherwise keep close() waiting
        server.close(() => resolve());
      }),
  };
}

async function play(plan: SsePlan, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const headers = { 'request-id': 'req_fake', ...plan.headers };
  if (plan.cut?.how === 'drop' && plan.cut.after === 0) return void req.socket.destroy(); // before any byte: a connection error
  if (!plan.frames) {
    res.writeHead(plan.status ?? 200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(plan.json ?? {}));
    return;
  }
  res.writeHead(plan.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  res.flushHeaders();
  let closed = false;
  res.on('close', () => (closed = true));
  for (let i = 0; i < plan.frames.length; i++) {
    if (plan.cut && i === plan.cut.after) {
      if (plan.cut.how === 'drop') return void res.socket?.destroy();
      if (plan.cut.how === 'malformed') return void res.end(plan.malformedFrame ?? 'data: {"broken": \n\n');
      if (plan.cut.how === 'end') return void res.end();
      return; // stall: headers and some events sent, then nothing until the client gives up
    }
    if (plan.delayMs) await pause(plan.delayMs, res);
    if (closed) return;
    res.write(plan.frames[i]);
  }
  res.end();
}

// ---- Anthropic ----

type FakeAnthropicBlock =
  | { type: 'text'; text: string | string[] }
  | { type: 'thinking'; thinking: string | string[]; signature?: string }
  /** `input` is streamed split in three; `input_json` gives the exact fragments. */
  | { type: 'tool_use'; id?: string; name: string; input?: Record<string, unknown>; input_json?: string[] };

export interface FakeAnthropicReply {
  blocks?: FakeAnthropicBlock[];
  /** Default: `tool_use` when a block is a tool_use, else `end_turn`. */
  stop_reason?: string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  /** An HTTP error instead of a stream, e.g. `{status: 429, type: 'rate_limit_error', message, headers: {'retry-after': '1'}}`. */
  error?: { status: number; type: string; message: string; headers?: Record<string, string> };
  /** An `event: error` after the blocks (e.g. overloaded_error mid-stream), instead of message_delta/stop. */
  stream_error?: { type: string; message: string };
  cut?: StreamCut;
  delay_ms?: number;
  headers?: Record<string, string>;
}

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const pieces = (v: string | string[]) => (typeof v === 'string' ? v.match(/\S+\s*|\s+/g) ?? [] : v);
function thirds(s: string): string[] {
  const n = Math.max(1, Math.ceil(s.length / 3));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

/** The SSE frames the real API sends for a reply. */
function anthropicFrames(reply: FakeAnthropicReply, model: string): string[] {
  const u = reply.usage ?? {};
  const blocks = reply.blocks ?? [{ type: 'text', text: 'ok' }];
  const frames = [
    frame('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_fake', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: u.input_tokens ?? 10, output_tokens: 1, cache_read_input_tokens: u.cache_read_input_tokens ?? 0, cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0 },
      },
    }),
    frame('ping', { type: 'ping' }),
  ];
  blocks.forEach((b, index) => {
    const delta = (d: unknown) => frames.push(frame('content_block_delta', { type: 'content_block_delta', index, delta: d }));
    if (b.type === 'text') {
      frames.push(frame('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const text of pieces(b.text)) delta({ type: 'text_delta', text });
    } else if (b.type === 'thinking') {
      frames.push(frame('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      for (const thinking of pieces(b.thinking)) delta({ type: 'thinking_delta', thinking });
      delta({ type: 'signature_delta', signature: b.signature ?? `sig_fake_${index}` });
    } else {
      const id = b.id ?? `toolu_fake_${index}`;
      frames.push(frame('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: b.name, input: {} } }));
      for (const partial_json of ['', ...(b.input_json ?? thirds(JSON.stringify(b.input ?? {})))]) delta({ type: 'input_json_delta', partial_json });
    }
    frames.push(frame('content_block_stop', { type: 'content_block_stop', index }));
  });
  if (reply.stream_error) return [...frames, frame('error', { type: 'error', error: reply.stream_error })];
  const stop = reply.stop_reason ?? (blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  frames.push(frame('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: u.output_tokens ?? 5 } }));
  frames.push(frame('message_stop', { type: 'message_stop' }));
  return frames;
}

/**
 * The API's rules for a final assistant message (a prefill), which it answers with a 400 before any
 * reply: its content may not end in whitespace, and with thinking enabled it must begin with a
 * thinking block (which a prefill of plain text does not).
 */
function prefillRefusal(body: any): string | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages[messages.length - 1];
  if (last?.role !== 'assistant') return undefined;
  const blocks: any[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content ?? [];
  const tail = blocks[blocks.length - 1];
  if (tail?.type === 'text' && /\s$/.test(tail.text)) return 'messages: final assistant content cannot end with trailing whitespace';
  if (body?.thinking && body.thinking.type !== 'disabled' && blocks[0]?.type !== 'thinking' && blocks[0]?.type !== 'redacted_thinking') {
    return `messages.${messages.length - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${blocks[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
  }
  return undefined;
}

function anthropicPlan(reply: FakeAnthropicReply, req: RecordedRequest): SsePlan {
  if (reply.error) {
    return { status: reply.error.status, headers: reply.error.headers, json: { type: 'error', error: { type: reply.error.type, message: reply.error.message } } };
  }
  const model = String(req.body?.model ?? 'claude-fake');
  return {
    headers: reply.headers,
    frames: anthropicFrames(reply, model),
    malformedFrame: 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {\n\n',
    ...(reply.cut ? { cut: reply.cut } : {}),
    ...(reply.delay_ms ? { delayMs: reply.delay_ms } : {}),
  };
}

/** Starts the fake Anthropic API; point the SDK's `baseURL` at `server.baseURL`. */
export function startFakeAnthropicServer(options: FakeServerOptions<FakeAnthropicReply> = {}): Promise<FakeProviderServer<FakeAnthropicReply>> {
  return startFakeSseServer({
    ...options,
    path: /\/v1\/messages(\?|$)/,
    basePath: '',
    plan: anthropicPlan,
    refuse: (req) => {
      const refused = prefillRefusal(req.body);
      return refused ? { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: refused } } } : undefined;
    },
    noReply: (i) => ({ status: 500, json: { type: 'error', error: { type: 'api_error', message: `fake server: no reply scripted for request ${i + 1}` } } }),
  });
}
