import { MessagePacer } from './message-pacer';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function pacer(perTurn: number) {
  const handled: string[] = [];
  const flow = { pauses: 0, resumes: 0, pause: () => flow.pauses++, resume: () => flow.resumes++ };
  return { handled, flow, pacer: new MessagePacer<string>((t) => handled.push(t), flow, perTurn) };
}

test('a few messages are handled at once, in order, and the socket is never paused', () => {
  const { handled, flow, pacer: p } = pacer(4);
  for (const t of ['a', 'b', 'c']) p.push(t);
  expect(handled).toEqual(['a', 'b', 'c']);
  expect([flow.pauses, flow.resumes]).toEqual([0, 0]);
});

test('a flood is handled a batch per turn of the event loop, every message once and in order; the socket reads again once it is through', async () => {
  const { handled, flow, pacer: p } = pacer(10);
  const sent = Array.from({ length: 95 }, (_, i) => `m${i}`);
  for (const t of sent) p.push(t);
  // The first batch at once; the socket stops reading while the rest wait.
  expect(handled).toEqual(sent.slice(0, 10));
  expect([flow.pauses, flow.resumes]).toEqual([1, 0]);
  const perTurn: number[] = [];
  while (handled.length < sent.length) {
    const before = handled.length;
    await nextTurn();
    perTurn.push(handled.length - before);
  }
  expect(handled).toEqual(sent);
  expect(perTurn).toEqual([10, 10, 10, 10, 10, 10, 10, 10, 5]);
  expect([flow.pauses, flow.resumes]).toEqual([1, 1]);
  // The next turn starts a fresh batch: new messages are handled at once again.
  await nextTurn();
  p.push('later');
  expect(handled.at(-1)).toBe('later');
});

test('a message that arrives while others wait goes after them', async () => {
  const { handled, pacer: p } = pacer(2);
  for (const t of ['a', 'b', 'c', 'd']) p.push(t);
  await nextTurn();
  p.push('e');
  while (handled.length < 5) await nextTurn();
  expect(handled).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('when the socket closes, whatever still waits is handled at once, in order', () => {
  const { handled, pacer: p } = pacer(3);
  const sent = Array.from({ length: 20 }, (_, i) => `m${i}`);
  for (const t of sent) p.push(t);
  p.flush();
  expect(handled).toEqual(sent);
});

test('by default a batch is 64 messages (docs/websocket.md and docs/edn.md, "Limits")', () => {
  const handled: string[] = [];
  const p = new MessagePacer<string>((t) => handled.push(t), { pause: () => undefined, resume: () => undefined });
  for (let i = 0; i < 100; i++) p.push(`m${i}`);
  expect(handled).toHaveLength(64);
});
