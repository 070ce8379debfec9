import { ApiError } from '../core/api-client';
import type { StoredMessageItem } from './gateway-client';
import { conflictPaths, lastTurnOf, revertText } from './undo';

const item = (entry_id: string, role: 'user' | 'assistant'): StoredMessageItem =>
  ({ entry_id, message: { role, content: [{ type: 'text', text: entry_id }] } }) as unknown as StoredMessageItem;

test('the last turn is the one whose prompt comes last on the active branch; steering and answers do not count', () => {
  expect(lastTurnOf([])).toBeUndefined();
  expect(lastTurnOf([item('t1:user', 'user'), item('t1:s0:assistant', 'assistant'), item('t2:user', 'user'), item('t2:s0:steer:0', 'user'), item('t2:s1:assistant', 'assistant')])).toBe('t2');
  expect(lastTurnOf([item('t1:user', 'user'), item('t1:s0:assistant', 'assistant')])).toBe('t1');
});

test('a revert is said with its files; removed ones and skipped ones are named as such', () => {
  expect(revertText('undone', 't2', { files: [{ path: 'a.txt', operation: 'write' }, { path: 'new.txt', operation: 'delete' }], entry_ids: ['x'] })).toBe('turn t2 undone: put back a.txt, new.txt (removed)');
  expect(revertText('redone', undefined, { files: [{ path: 'a.txt', operation: 'write' }], entry_ids: ['x'] })).toBe('redone: re-applied a.txt');
  expect(revertText('undone', 't3', { files: [], entry_ids: [], skipped: ['big.bin'] })).toBe('turn t3 undone: no files to change; not restorable (beyond the snapshot bounds): big.bin');
});

test('only a REVERT_CONFLICT is a conflict, with the paths its details name', () => {
  expect(conflictPaths(new ApiError(409, 'REVERT_CONFLICT', 'changed', { paths: ['a.txt', 'b/c.txt'] }))).toEqual(['a.txt', 'b/c.txt']);
  expect(conflictPaths(new ApiError(409, 'SESSION_BUSY', 'busy'))).toBeUndefined();
  expect(conflictPaths(new Error('other'))).toBeUndefined();
});
