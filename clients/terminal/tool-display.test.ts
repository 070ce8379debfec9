import { tail, toolDiff, toolTitle } from './tool-display';

test('a tool reads as its name and what it works on', () => {
  expect(toolTitle('edit_file', { path: 'src/a.ts', old: 'x', new: 'y' })).toBe('edit_file src/a.ts');
  expect(toolTitle('shell_exec', { command: 'npm test\n  -- --watch' })).toBe('shell_exec $ npm test -- --watch');
  expect(toolTitle('search_files', { pattern: 'TODO', path: 'src' })).toBe('search_files TODO in src');
  expect(toolTitle('git_status', {})).toBe('git_status');
  expect(toolTitle('read_file', undefined)).toBe('read_file');
});

test('edits as diff lines, long ones cut with the rest counted; other tools have none', () => {
  expect(toolDiff('edit_file', { path: 'a', old: 'one\ntwo\n', new: 'uno' })).toEqual([
    { sign: '-', text: 'one' },
    { sign: '-', text: 'two' },
    { sign: '+', text: 'uno' },
  ]);
  const written = toolDiff('write_file', { path: 'a', content: Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') }, 5)!;
  expect(written.map((d) => d.text)).toEqual(['line 0', 'line 1', 'line 2', 'line 3', '… 16 more lines']);
  expect(toolDiff('read_file', { path: 'a' })).toBeUndefined();
  expect(toolDiff('edit_file', { path: 'a' })).toBeUndefined();
});

test('the tail of an output says how many lines it leaves out', () => {
  expect(tail('a\nb\nc\n', 5)).toEqual(['a', 'b', 'c']);
  expect(tail('1\r\n2\r\n3\r\n4', 2)).toEqual(['… 2 earlier lines', '3', '4']);
  expect(tail('', 3)).toEqual([]);
});
