import { taskIdSchema } from '../../../contracts/ws-rpc';
import { decodeTaskId, encodeTaskId, newRequestKey, newSessionId } from './task-ids';

test('task ids round-trip any session id and stay within the protocol alphabet', () => {
  for (const sid of ['sess_abc123', 'mk3x9q2a1Zx-_Y0bq9Ts', 'a', 'ünïcode-session']) {
    const key = newRequestKey();
    const id = encodeTaskId(sid, key);
    expect(taskIdSchema.safeParse(id).success).toBe(true);
    expect(decodeTaskId(id)).toEqual({ sessionId: sid, requestKey: key });
  }
});

test('ids this gateway never made decode to nothing', () => {
  expect(decodeTaskId('task_abc')).toBeUndefined();
  expect(decodeTaskId('task_')).toBeUndefined();
  expect(decodeTaskId('TASK_x')).toBeUndefined();
  expect(decodeTaskId(encodeTaskId('', 'k'))).toBeUndefined();
});

test('fresh session ids and request keys are distinct and well-formed', () => {
  const ids = new Set(Array.from({ length: 200 }, () => newSessionId()));
  expect(ids.size).toBe(200);
  for (const id of ids) expect(id).toMatch(/^sess_[a-z2-7]{16}$/);
  expect(newRequestKey()).toMatch(/^ws-[a-z2-7]{16}$/);
});
