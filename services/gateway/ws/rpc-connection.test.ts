import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { RpcServerFrame } from '../../../contracts/ws-rpc';
import { createLogger } from '../../common/logger';
import type { RunningTurns } from '../sessions/running-turns';
import type { SessionService } from '../sessions/session-service';
import { RpcConnection } from './rpc-connection';
import { decodeTaskId } from './task-ids';
import { TaskRegistry } from './task-registry';

/**
 * How a chat's session id is resolved before the chat is accepted: a `sessionId` the client chose
 * goes through SessionService.clientSessionId (the task id then names the stored session), chats are
 * accepted in the order they came even when an earlier one resolves slower, and an abort sent while
 * a chat is still being resolved applies once it is.
 */
const log = createLogger('test', 'silent');

function fakeSessions(delays: Record<string, number>) {
  const resolved: Array<[string, string | undefined]> = [];
  const ensured: string[] = [];
  const sessions = {
    models: { resolve: (m: string) => ({ ref: m }) },
    defaultModel: 'scripted/echo',
    clientSessionId: async (name: string, principal?: string) => {
      resolved.push([name, principal]);
      await new Promise((r) => setTimeout(r, delays[name] ?? 0));
      if (name === 'store-down') throw new StrandError(ErrorCode.UNAVAILABLE, 'the session store did not answer');
      return `stored-${principal}-${name}`;
    },
    // Every chat stops at its session (the rest of a chat is tested end to end): its terminal says which.
    ensure: async (sessionId: string) => {
      ensured.push(sessionId);
      await new Promise((r) => setTimeout(r, 20));
      throw new StrandError(ErrorCode.INVALID_REQUEST, `stopped at ${sessionId}`);
    },
  };
  return { sessions: sessions as unknown as SessionService, resolved, ensured };
}

function connection(delays: Record<string, number> = {}, principal: string | undefined = 'bob') {
  const fake = fakeSessions(delays);
  const sent: Array<RpcServerFrame & Record<string, any>> = [];
  const conn = new RpcConnection({ sessions: fake.sessions, turns: {} as RunningTurns, log, tasks: new TaskRegistry() }, { authenticated: true, principal, send: (f) => sent.push(f as any), close: () => undefined });
  const start = (id: string, sessionId?: string) => conn.handle(JSON.stringify({ id, type: 'chat.start', payload: { request: { message: 'hi', history: [], model: '', ...(sessionId ? { sessionId } : {}) } } }));
  const settled = async (n: number) => {
    for (let i = 0; i < 200 && sent.filter((f) => f.type === 'chat.error' || f.type === 'error').length < n; i++) await new Promise((r) => setTimeout(r, 5));
  };
  return { ...fake, sent, conn, start, settled };
}

test("a client's sessionId is resolved for its principal before the chat is accepted; the task id names the stored session", async () => {
  const t = connection();
  t.start('rpc_a', 'sess_mine');
  await t.settled(1);
  expect(t.resolved).toEqual([['sess_mine', 'bob']]);
  const accepted = t.sent.find((f) => f.type === 'chat.accepted')!;
  expect(decodeTaskId(accepted.taskId)?.sessionId).toBe('stored-bob-sess_mine');
  expect(t.ensured).toEqual(['stored-bob-sess_mine']);
  expect(t.sent.map((f) => f.type)).toEqual(['chat.accepted', 'chat.started', 'chat.error']);
});

test('a chat without a sessionId gets a fresh id, not resolved', async () => {
  const t = connection();
  t.start('rpc_a');
  await t.settled(1);
  expect(t.resolved).toEqual([]);
  expect(decodeTaskId(t.sent[0]!.taskId)?.sessionId).toMatch(/^sess_[a-z2-7]{16}$/);
});

test('chats are accepted in the order they came, even when an earlier one resolves slower', async () => {
  const t = connection({ slow: 80 });
  t.start('rpc_a', 'slow');
  t.start('rpc_b', 'fast');
  t.start('rpc_c');
  await t.settled(3);
  expect(t.sent.filter((f) => f.type === 'chat.accepted').map((f) => f.id)).toEqual(['rpc_a', 'rpc_b', 'rpc_c']);
  expect(t.ensured.slice(0, 2)).toEqual(['stored-bob-slow', 'stored-bob-fast']);
});

test('a request id being resolved is live: a duplicate is refused; an abort applies once it is accepted', async () => {
  const t = connection({ slow: 50 });
  t.start('rpc_a', 'slow');
  t.start('rpc_a', 'other');
  t.conn.handle(JSON.stringify({ id: 'rpc_x', type: 'chat.abort', payload: { requestId: 'rpc_a' } }));
  await t.settled(2);
  expect(t.sent[0]).toEqual({ id: 'rpc_a', type: 'error', error: 'request rpc_a is still running: use a new id' });
  expect(t.resolved).toEqual([['slow', 'bob']]);
  const abort = t.sent.find((f) => f.type === 'chat.abort.result');
  expect(abort).toEqual({ id: 'rpc_x', type: 'chat.abort.result', requestId: 'rpc_a', aborted: true });
  expect(t.sent.findIndex((f) => f.type === 'chat.accepted')).toBeLessThan(t.sent.indexOf(abort!));
});

test('a session that cannot be resolved ends the chat with chat.error (nothing accepted)', async () => {
  const t = connection();
  t.start('rpc_a', 'store-down');
  await t.settled(1);
  expect(t.sent).toEqual([{ id: 'rpc_a', type: 'chat.error', errorMessage: 'the session store did not answer', errorCode: 'UNAVAILABLE', error: { code: 'UNAVAILABLE' } }]);
});
