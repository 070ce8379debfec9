import { contextOf, type PathItem } from '../providers/context';
import { chooseCut, estimateTokens, filesTouched, type PathMessage } from './plan';

const user = (id: string, text: string): PathMessage => ({ entry_id: id, message: { role: 'user', content: [{ type: 'text', text }] } });
const assistant = (id: string, text: string, calls: Array<{ name: string; path: string }> = []): PathMessage => ({
  entry_id: id,
  message: {
    role: 'assistant',
    content: [{ type: 'text', text }, ...calls.map((c, i) => ({ type: 'function_call' as const, id: `${id}c${i}`, function_id: c.name, arguments: { path: c.path } }))],
  },
});
const result = (id: string, call: string): PathMessage => ({ entry_id: id, message: { role: 'function_result', function_call_id: call, function_id: 'read_file', content: [{ type: 'text', text: 'x'.repeat(400) }], is_error: false } });

describe('compaction plan', () => {
  const path = [
    user('u1', 'a'.repeat(4000)),
    assistant('a1', 'b'.repeat(4000), [{ name: 'read_file', path: 'src/a.ts' }]),
    result('r1', 'a1c0'),
    user('u2', 'c'.repeat(400)),
    assistant('a2', 'd'.repeat(400), [{ name: 'edit_file', path: 'src/a.ts' }, { name: 'write_file', path: 'b.md' }]),
    result('r2', 'a2c0'),
    user('u3', 'last question'),
    assistant('a3', 'answer'),
  ];

  test('cuts at the start of a user turn, keeping as many recent turns as fit, never a lone tool result', () => {
    expect(chooseCut(path, 10)).toBe(6);
    expect(chooseCut(path, 500)).toBe(3);
    expect(chooseCut(path, 100_000)).toBe(3);
    expect(chooseCut([user('u', 'only')], 10)).toBeUndefined();
  });

  test('names the files the summarised part read and modified', () => {
    expect(filesTouched(path.slice(0, 6))).toEqual({ files_read: ['src/a.ts'], files_modified: ['b.md', 'src/a.ts'] });
  });

  test('the context after a compaction is the summary, the kept entries, then what came after', () => {
    const items: PathItem[] = [
      ...path.slice(0, 6),
      { entry_id: 'c1', compaction: { summary: 'S', first_kept_entry_id: 'u2', tokens_before: 9, files_read: [], files_modified: ['b.md'], reason: 'manual' } },
      ...path.slice(6),
    ];
    const ctx = contextOf(items);
    expect(ctx).toHaveLength(1 + 3 + 2);
    expect((ctx[0]!.content[0] as { text: string }).text).toContain('S');
    expect((ctx[0]!.content[0] as { text: string }).text).toContain('Files modified: b.md');
    expect(ctx[1]).toEqual(path[3]!.message);
    expect(ctx[5]).toEqual(path[7]!.message);
    expect(estimateTokens(ctx)).toBeLessThan(estimateTokens(path));
  });
});
