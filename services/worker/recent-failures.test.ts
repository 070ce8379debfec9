import { MESSAGE_CHARS, RecentFailures } from './recent-failures';

const error = (id: string, extra: Record<string, unknown> = {}) => ({ id, turn_id: 't2', event: { type: 'error' as const, code: 'LLM_API_ERROR', message: 'no', turn_id: 't2', ...extra } });

test('error events only, newest first, each event once however often it is published, at most the capacity', () => {
  const ring = new RecentFailures(3);
  ring.observe('s1', { id: 'x', event: { type: 'notice', level: 'info', message: 'hi' } }, 1);
  ring.observe('s1', error('e1', { kind: 'rate_limited', provider: 'scripted', status: 429 }), 2);
  ring.observe('s1', error('e1', { kind: 'rate_limited', provider: 'scripted', status: 429 }), 3); // a retried attempt
  for (const [n, id] of ['e2', 'e3', 'e4'].entries()) ring.observe('s2', error(id), 10 + n);
  expect(ring.list().map((f) => [f.session_id, f.event_id, f.at])).toEqual([
    ['s2', 'e4', 12],
    ['s2', 'e3', 11],
    ['s2', 'e2', 10],
  ]);
});

test('a turn ended by strand’s own parts failing is kind infrastructure, whether the event says so or only its code does', () => {
  const ring = new RecentFailures();
  ring.observe('s1', error('a', { code: 'UNAVAILABLE', kind: 'infrastructure' }), 1);
  ring.observe('s1', error('b', { code: 'UNAVAILABLE' }), 2);
  ring.observe('s1', { id: 'c', event: { type: 'error', code: 'INTERNAL', message: 'turn t3 failed: boom' } }, 3);
  expect(ring.list().map((f) => [f.code, f.kind, f.turn_id, f.provider, f.status])).toEqual([
    ['INTERNAL', null, null, null, null],
    ['UNAVAILABLE', 'infrastructure', 't2', null, null],
    ['UNAVAILABLE', 'infrastructure', 't2', null, null],
  ]);
});

test('a long message is cut, so fifty of them always fit one NATS message', () => {
  const ring = new RecentFailures();
  for (let n = 0; n < 60; n++) ring.observe('s1', error(`e${n}`, { message: 'x'.repeat(200_000) }), n);
  const list = ring.list();
  expect(list).toHaveLength(50);
  expect(list[0]!.message).toHaveLength(MESSAGE_CHARS);
  expect(list[0]!.message.endsWith('…')).toBe(true);
  expect(Buffer.byteLength(JSON.stringify(list))).toBeLessThan(1024 * 1024);
});
