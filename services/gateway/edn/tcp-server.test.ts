import net from 'node:net';
import pino from 'pino';
import { createGatewayAuth } from '../auth/tokens';
import { parseEdn } from './codec';
import { DEFAULT_EDN_CONFIG } from './edn-config';
import type { EdnMap } from './edn-value';
import type { EdnSessionHandlerFactory } from './protocol';
import { startEdnTcpServer, type EdnTcpServer } from './tcp-server';

const closed: string[] = [];
const factory: EdnSessionHandlerFactory = (_out, peer) => ({
  handshake: async () => ({ serverInfo: { principal: peer.principal ?? null } }),
  request: async (req) => ({ op: req.op }),
  close: () => closed.push('closed'),
});

/** A raw client: what it sent, every line it got back (parsed), and whether the server closed it. */
function client(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const got: EdnMap[] = [];
  let buffer = '';
  let ended = false;
  socket.on('data', (c: Buffer) => {
    buffer += c.toString('utf8');
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const l of lines) got.push(parseEdn(l) as EdnMap);
  });
  socket.on('close', () => (ended = true));
  socket.on('error', () => undefined);
  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(cond()).toBe(true);
  };
  return { socket, got, ended: () => ended, until };
}

const hello = (token?: string) =>
  `{:id "h" :kind :request :op "handshake" :params {:client-info {:protocol-version "1.0"${token ? ` :auth-token "${token}"` : ''}}}}\n`;

let server: EdnTcpServer;
afterEach(async () => {
  await server?.close();
});

async function start(overrides: Partial<typeof DEFAULT_EDN_CONFIG> = {}, tokens = new Map<string, string>()) {
  server = await startEdnTcpServer('127.0.0.1', 0, {
    factory,
    auth: createGatewayAuth(tokens),
    log: pino({ level: 'silent' }),
    config: { ...DEFAULT_EDN_CONFIG, ...overrides },
    cwd: '/tmp',
  });
  return server;
}

test('one protocol session per connection; the token decides the principal', async () => {
  const s = await start({}, new Map([['t1', 'alice']]));
  const a = client(s.port);
  a.socket.write(`${hello('t1')}{:id "p" :kind :request :op "ping"}\n`);
  await a.until(() => a.got.length === 2);
  expect(a.got.map((f) => f.data)).toEqual([{ 'server-info': { 'protocol-version': '1.0', features: [], principal: 'alice' } }, { op: 'ping' }]);
  const b = client(s.port);
  b.socket.write(hello('nope'));
  await b.until(() => b.ended());
  expect(b.got.map((f) => f['error-code'])).toEqual(['transport/unauthorized']);
  await a.until(() => s.connections === 1);
});

test('a connection that does not complete a handshake in time is closed with transport/not-ready; one that did stays', async () => {
  const s = await start({ handshakeTimeoutMs: 100 });
  const ready = client(s.port);
  ready.socket.write(hello());
  await ready.until(() => ready.got.length === 1);
  // Opened after `ready` answered, so its deadline comes after ready's: once it is closed, ready's has passed too.
  const idle = client(s.port);
  await idle.until(() => idle.ended());
  expect(idle.got.map((f) => f['error-code'])).toEqual(['transport/not-ready']);
  ready.socket.write('{:id "p" :kind :request :op "ping"}\n');
  await ready.until(() => ready.got.length === 2);
  expect(ready.got.map((f) => f.id)).toEqual(['h', 'p']);
  expect(ready.ended()).toBe(false);
  await ready.until(() => s.connections === 1);
});

test('past the maximum a connection gets one :error and is closed; close() ends the rest', async () => {
  const s = await start({ maxConnections: 1 });
  const first = client(s.port);
  first.socket.write(hello());
  await first.until(() => first.got.length === 1);
  const second = client(s.port);
  await second.until(() => second.ended());
  expect(second.got).toEqual([expect.objectContaining({ 'error-code': 'runtime/failed', data: { reason: 'max-connections' } })]);
  const before = closed.length;
  await s.close();
  await first.until(() => first.ended());
  expect(closed.length).toBe(before + 1);
});

test('a half-closed client still gets the answers to what it sent', async () => {
  const s = await start();
  const c = client(s.port);
  c.socket.end(`${hello()}{:id "p" :kind :request :op "ping"}\n{:id "q" :kind :request :op "last"}`);
  await c.until(() => c.ended());
  expect(c.got.map((f) => f.id)).toEqual(['h', 'p', 'q']);
});

test('a client that writes thousands of lines at once and half-closes gets an answer to each, in the order it sent them', async () => {
  const s = await start();
  const c = client(s.port);
  c.socket.write(hello());
  await c.until(() => c.got.length === 1);
  // More lines than one read of the socket holds, so it must be read again after the first batches.
  const junk = Array.from({ length: 3_000 }, (_, i) => `{:id "m${i}" :kind :nope}\n`).join('');
  c.socket.end(`${junk}{:id "p" :kind :request :op "ping"}\n{:id "q" :kind :request :op "last"}`);
  await c.until(() => c.ended());
  expect(c.got.map((f) => f.id)).toEqual(['h', ...Array.from({ length: 3_000 }, (_, i) => `m${i}`), 'p', 'q']);
});
