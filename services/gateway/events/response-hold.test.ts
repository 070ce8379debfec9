import { ResponseHold } from './response-hold';

const tick = () => new Promise<void>((r) => setImmediate(r));

test('counted holds: open only when every hold is released, each release counting once', async () => {
  const opened: string[] = [];
  const hold = new ResponseHold({ onOpen: () => opened.push('open') });
  const a = hold.hold();
  const b = hold.hold();
  let through = false;
  void hold.whenOpen().then(() => (through = true));
  a();
  a();
  await tick();
  expect([hold.held, through, opened]).toEqual([true, false, []]);
  b();
  await tick();
  expect([hold.held, through, opened]).toEqual([false, true, ['open']]);
  await expect(hold.whenOpen()).resolves.toBeUndefined();
});

test('a deferred release lets the events go after what the caller does next in the same turn', async () => {
  const order: string[] = [];
  const hold = new ResponseHold({ deferRelease: true, onOpen: () => order.push('events') });
  const release = hold.hold();
  release();
  order.push('response');
  expect(hold.held).toBe(true);
  await tick();
  expect(order).toEqual(['response', 'events']);
});

test('wake lets a waiting reader go while still held (it is being stopped)', async () => {
  const hold = new ResponseHold();
  hold.hold();
  let through = false;
  void hold.whenOpen().then(() => (through = true));
  hold.wake();
  await tick();
  expect([through, hold.held]).toEqual([true, true]);
});
