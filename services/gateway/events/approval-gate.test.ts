import { ApprovalGate } from './approval-gate';

test('a listed approval is asked at once; an unlisted one waits for the session to list it', async () => {
  const listed = new Set(['a']);
  const gate = new ApprovalGate<string>(async (id) => listed.has(id));
  expect(await gate.requested('a', 'A')).toBe(true);
  expect(await gate.requested('b', 'B')).toBe(false);
  expect(await gate.requested('c', 'C')).toBe(false);
  listed.add('b');
  listed.add('c');
  // c was answered meanwhile (the stream no longer holds it open): only b is asked.
  expect(await gate.waiting(['a', 'b'])).toEqual(['B']);
  expect(await gate.waiting(['a', 'b', 'c'])).toEqual([]);
});

test('a replayed approval answered since is never asked; a session that cannot be asked does not hide one', async () => {
  const gate = new ApprovalGate<string>(async () => false);
  expect(await gate.requested('old', 'OLD')).toBe(false);
  expect(await gate.waiting([])).toEqual([]);
  const failing = new ApprovalGate<string>(async () => {
    throw new Error('Temporal is unreachable');
  });
  expect(await failing.requested('x', 'X')).toBe(true);
});
