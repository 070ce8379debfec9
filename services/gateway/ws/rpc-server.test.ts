import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { rpcServerFrameSchema, type RpcServerFrame } from '../../../contracts/ws-rpc';
import { createLogger } from '../../common/logger';
import { createGatewayAuth } from '../auth/tokens';
import type { RunningTurns } from '../sessions/running-turns';
import type { SessionService } from '../sessions/session-service';
import { encodeFrame } from './frames';
import { RpcConnection } from './rpc-connection';
import { attachRpcServer, type RpcServer } from './rpc-server';
import { TaskRegistry } from './task-registry';

const log = createLogger('test', 'silent');
const sessions = { providers: () => ['scripted', 'anthropic'], defaultModel: 'scripted/echo', paced: () => sessions } as unknown as SessionService;
const turns = { list: async () => [] } as unknown as RunningTurns;
let server: Server;
let rpc: RpcServer;
let url: string;

beforeAll(async () => {
  server = createServer((_req, res) => res.end());
  rpc = attachRpcServer(server, { sessions, turns, log, tasks: new TaskRegistry(), auth: createGatewayAuth(new Map([['s3cret', 'alice']])) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  rpc.close();
  await new Promise((resolve) => server.close(resolve));
});

function open(path: string, protocols: string[]): Promise<{ ws?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url}${path}`, protocols);
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
    ws.once('error', () => undefined);
  });
}

test('an upgrade without a valid bearer subprotocol is refused with 401 before upgrading', async () => {
  expect((await open('/v1/rpc', [])).status).toBe(401);
  expect((await open('/v1/rpc', ['bearer.wrong'])).status).toBe(401);
  expect((await open('/elsewhere', ['bearer.s3cret'])).status).toBe(404);
});

test('a valid token upgrades, the subprotocol is echoed, and frames are answered', async () => {
  const { ws } = await open('/v1/rpc', ['json', 'bearer.s3cret']);
  expect(ws!.protocol).toBe('bearer.s3cret');
  const reply = new Promise<any>((resolve) => ws!.once('message', (d) => resolve(JSON.parse(String(d)))));
  ws!.send(JSON.stringify({ id: 'rpc_s1', type: 'status.get' }));
  const frame = await reply;
  expect(rpcServerFrameSchema.parse(frame)).toMatchObject({ id: 'rpc_s1', type: 'status.result', status: { protocol_version: '1', providers: ['anthropic'], provider_auth: ['scripted', 'anthropic'] } });
  ws!.close();
});

test('a frame on an unauthenticated connection closes it with 1008', () => {
  const closed: Array<[number, string]> = [];
  const sent: RpcServerFrame[] = [];
  const conn = new RpcConnection({ sessions, turns, log, tasks: new TaskRegistry() }, { authenticated: false, principal: undefined, send: (f) => sent.push(f), close: (code, reason) => closed.push([code, reason]) });
  conn.handle(JSON.stringify({ id: 'rpc_a', type: 'status.get' }));
  expect(closed).toEqual([[1008, 'unauthorized']]);
  expect(sent).toEqual([]);
});

test('a terminal frame that fails the schema is replaced by a valid chat.error; other invalid frames are not sent', () => {
  const bad = encodeFrame({ id: 'rpc_a', type: 'chat.done', reply: { output: 'x', outputStreamed: true, model: '' } }, log);
  expect(JSON.parse(bad!)).toMatchObject({ id: 'rpc_a', type: 'chat.error', errorCode: 'INTERNAL' });
  expect(encodeFrame({ id: 'rpc_a', type: 'chat.queued', position: 0 }, log)).toBeUndefined();
  expect(JSON.parse(encodeFrame({ id: 'rpc_a', type: 'chat.queued', position: 2 }, log)!)).toEqual({ id: 'rpc_a', type: 'chat.queued', position: 2 });
});
