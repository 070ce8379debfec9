import { RpcQueue } from './rpc-queue';

test('holds at most max, in order, and re-indexes after a removal', () => {
  const q = new RpcQueue<{ id: string }>(25);
  for (let i = 1; i <= 25; i++) expect(q.push({ id: `r${i}` })).toBe(i);
  expect(q.push({ id: 'r26' })).toBeUndefined();
  expect(q.remove('r3')?.id).toBe('r3');
  expect(q.remove('r3')).toBeUndefined();
  expect(q.positions().slice(0, 3).map((p) => [p.item.id, p.position])).toEqual([['r1', 1], ['r2', 2], ['r4', 3]]);
  expect(q.shift()?.id).toBe('r1');
  expect(q.positions()[0]).toEqual({ item: { id: 'r2' }, position: 1 });
  expect(q.has('r25')).toBe(true);
  expect(q.drain()).toHaveLength(23);
  expect(q.length).toBe(0);
});
