import { rpcClientFrameSchema, type RpcServerFrame } from '../../../contracts/ws-rpc';
import { mapPaths, tolerantObjects, withKeyAt } from '../../../test/harness/strict-walk';
import { createLogger } from '../../common/logger';
import type { RunningTurns } from '../sessions/running-turns';
import type { SessionService } from '../sessions/session-service';
import { RpcConnection } from './rpc-connection';
import { TaskRegistry } from './task-registry';

/**
 * Every WebSocket RPC client frame is strict at every depth (docs/websocket.md, "Envelopes"): each
 * object of every method's frame refuses keys it does not name, and an unknown key at every depth of
 * a frame a client sends is the protocol's invalid-message `error` frame naming its path; nothing runs.
 */

/** One frame per method, every field it takes filled (acolyte's chat request, strand's attach). */
const EXAMPLES = [
  { id: 'rpc_1', type: 'status.get' },
  {
    id: 'rpc_2',
    type: 'chat.start',
    payload: {
      request: {
        message: 'hi',
        history: [{ id: 'h1', role: 'user', content: 'earlier', kind: 'text', timestamp: '2026-11-29T00:00:00Z' }],
        model: 'gpt-5-mini',
        sessionId: 's1',
        resourceId: 'r1',
        workspace: '/tmp',
        activeSkills: [{ name: 'plan', instructions: 'plan first' }],
        suggestions: ['x'],
      },
    },
  },
  { id: 'rpc_3', type: 'chat.abort', payload: { requestId: 'rpc_2' } },
  { id: 'rpc_4', type: 'task.status', payload: { taskId: 'task_abc' } },
  { id: 'rpc_5', type: 'chat.attach', payload: { taskId: 'task_abc', afterSeq: 3 } },
];

test('every object of every client frame schema refuses keys it does not name, at every depth', () => {
  expect(tolerantObjects(rpcClientFrameSchema, 'frame')).toEqual([]);
  // The examples cover every method the schema takes.
  const types = (rpcClientFrameSchema._zod.def as unknown as { options: Array<{ shape: { type: { value: string } } }> }).options.map((o) => o.shape.type.value);
  expect(EXAMPLES.map((e) => e.type).sort()).toEqual([...types].sort());
});

test('an unknown key at every depth of every method\'s frame is an error frame naming its path; nothing runs', () => {
  const sent: Array<RpcServerFrame & Record<string, any>> = [];
  const untouched = new Proxy({}, { get: () => { throw new Error('the sessions were called'); } }) as unknown as SessionService;
  const conn = new RpcConnection({ sessions: untouched, turns: {} as RunningTurns, log: createLogger('test', 'silent'), tasks: new TaskRegistry() }, { authenticated: true, principal: 'bob', send: (f) => sent.push(f as any), close: () => undefined });
  let checked = 0;
  for (const frame of EXAMPLES) {
    expect(rpcClientFrameSchema.safeParse(frame).success).toBe(true);
    for (const path of mapPaths(frame)) {
      sent.length = 0;
      conn.handle(JSON.stringify(withKeyAt(frame, path, 'colour')));
      expect(sent).toEqual([{ id: frame.id, type: 'error', error: `invalid RPC message: ${[...path, 'colour'].join('.')}: unrecognized key` }]);
      checked++;
    }
  }
  expect(checked).toBe(12);
});
