import fs from 'node:fs';
import path from 'node:path';
import { planEdit, whitespaceInsensitiveLine } from './edit-file';
import { ctxFor, makeExecutor, makeSandbox, type Sandbox } from './test-support';

describe('planEdit', () => {
  test('a unique match is applied', () => {
    expect(planEdit('a\nb\nc\n', 'b', 'B')).toEqual({ kind: 'apply', content: 'a\nB\nc\n', line: 2, crlf: false });
  });

  test('several matches (overlapping ones too) are refused with their count and lines', () => {
    const p = planEdit('x = 1\ny = 2\nx = 1\n', 'x = 1', 'x = 3');
    expect(p).toMatchObject({ kind: 'error', matches: 2 });
    if (p.kind === 'error') expect(p.message).toContain('occurs 2 times (starting on lines 1, 3)');
    expect(planEdit('aaa', 'aa', 'b')).toMatchObject({ kind: 'error', matches: 2 });
  });

  test('zero matches say whether a whitespace-insensitive match exists', () => {
    const content = 'function f() {\n    return 1;\n}\n';
    const near = planEdit(content, 'function f() {\n  return 1;\n}', 'x');
    expect(near).toMatchObject({ kind: 'error', matches: 0, whitespace_match_line: 1 });
    if (near.kind === 'error') expect(near.message).toContain('A match ignoring whitespace differences exists at line 1');
    const far = planEdit(content, 'return 2;', 'x');
    expect(far).toMatchObject({ kind: 'error', matches: 0, whitespace_match_line: undefined });
    if (far.kind === 'error') expect(far.message).toContain('No match ignoring whitespace either');
    expect(whitespaceInsensitiveLine('a\n\n  b   c\n', 'b c')).toBe(3);
  });

  test('an edit already applied is recognised: old absent, new present once', () => {
    expect(planEdit('a\nB\nc\n', 'b', 'B')).toMatchObject({ kind: 'already_applied', line: 2 });
    // new present several times: cannot tell, so it is an error that says so.
    const p = planEdit('B\nB\n', 'b', 'B');
    expect(p).toMatchObject({ kind: 'error' });
    if (p.kind === 'error') expect(p.message).toContain('may have been applied already');
  });

  test('an insertion (new contains old) is recognised as applied only on a re-run', () => {
    const before = 'import a;\nrest\n';
    const edit = ['import a;', 'import a;\nimport b;'] as const;
    const once = planEdit(before, ...edit);
    expect(once).toMatchObject({ kind: 'apply', content: 'import a;\nimport b;\nrest\n' });
    const after = once.kind === 'apply' ? once.content : '';
    // A first run on the edited file would insert again; a re-run knows better.
    expect(planEdit(after, ...edit)).toMatchObject({ kind: 'apply', content: 'import a;\nimport b;\nimport b;\nrest\n' });
    expect(planEdit(after, ...edit, { attempt: 2 })).toMatchObject({ kind: 'already_applied', line: 1 });
    // A re-run whose first run never wrote still applies.
    expect(planEdit(before, ...edit, { attempt: 2 })).toMatchObject({ kind: 'apply' });
  });

  test('a deletion (empty new) already made is recognised on a re-run', () => {
    expect(planEdit('a\nc\n', 'b\n', '', { attempt: 2 })).toMatchObject({ kind: 'already_applied' });
    expect(planEdit('a\nc\n', 'b\n', '')).toMatchObject({ kind: 'error', matches: 0 });
    expect(planEdit('a\nb\nc\n', 'b\n', '', { attempt: 2 })).toMatchObject({ kind: 'apply', content: 'a\nc\n' });
  });

  test('CRLF files match an old text written with \\n, and keep their line ends', () => {
    expect(planEdit('a\r\nb\r\nc\r\n', 'a\nb', 'x\ny')).toEqual({ kind: 'apply', content: 'x\r\ny\r\nc\r\n', line: 1, crlf: true });
    expect(planEdit('x\r\ny\r\nc\r\n', 'a\nb', 'x\ny')).toMatchObject({ kind: 'already_applied' });
  });

  test('empty or unchanged old text is refused', () => {
    expect(planEdit('abc', '', 'x')).toMatchObject({ kind: 'error' });
    expect(planEdit('abc', 'b', 'b')).toMatchObject({ kind: 'error' });
  });
});

describe('edit_file', () => {
  let sb: Sandbox;
  beforeEach(() => (sb = makeSandbox()));
  afterEach(() => sb.cleanup());
  const run = (params: unknown, attempt?: number) => makeExecutor(sb).execute('edit_file', params, ctxFor(sb, { attempt }));

  test('applies a unique edit, then reports the same edit as already applied', async () => {
    sb.write('a.ts', 'const x = 1;\nconst y = 2;\n');
    const first = await run({ path: 'a.ts', old: 'const y = 2;', new: 'const y = 3;\nconst z = 4;' });
    expect(first).toEqual({
      content: 'Edited a.ts at line 2: replaced 1 line(s) with 2.',
      is_error: false,
      details: { path: 'a.ts', line: 2, old_lines: 1, new_lines: 2, crlf: false },
      file_changes: [{ path: 'a.ts', operation: 'edit' }],
    });
    expect(sb.read('a.ts')).toBe('const x = 1;\nconst y = 3;\nconst z = 4;\n');
    const again = await run({ path: 'a.ts', old: 'const y = 2;', new: 'const y = 3;\nconst z = 4;' });
    expect(again).toMatchObject({ is_error: false, details: { already_applied: true }, file_changes: [{ path: 'a.ts', operation: 'edit' }] });
    expect(again.content).toContain('already applied');
    expect(sb.read('a.ts')).toBe('const x = 1;\nconst y = 3;\nconst z = 4;\n');
  });

  test('a re-run (attempt 2) of an insertion does not insert twice', async () => {
    sb.write('b.ts', 'a\n');
    expect((await run({ path: 'b.ts', old: 'a\n', new: 'a\nb\n' })).is_error).toBe(false);
    const rerun = await run({ path: 'b.ts', old: 'a\n', new: 'a\nb\n' }, 2);
    expect(rerun).toMatchObject({ is_error: false, details: { already_applied: true } });
    expect(sb.read('b.ts')).toBe('a\nb\n');
  });

  test('ambiguous and missing matches are error results that say why; the file is untouched', async () => {
    sb.write('c.ts', 'foo();\nfoo();\n');
    const many = await run({ path: 'c.ts', old: 'foo();', new: 'bar();' });
    expect(many).toMatchObject({ is_error: true, details: { matches: 2 } });
    expect(many.content).toContain('occurs 2 times');
    const none = await run({ path: 'c.ts', old: '  foo();\n  foo();', new: 'bar();' });
    expect(none).toMatchObject({ is_error: true, details: { matches: 0, whitespace_match_line: 1 } });
    expect(none.content).toContain('0 matches');
    expect(sb.read('c.ts')).toBe('foo();\nfoo();\n');
  });

  test('missing file, directory and binary file are errors', async () => {
    expect(await run({ path: 'missing.ts', old: 'a', new: 'b' })).toMatchObject({ is_error: true, content: expect.stringContaining('does not exist') });
    fs.mkdirSync(path.join(sb.ws, 'd'));
    expect(await run({ path: 'd', old: 'a', new: 'b' })).toMatchObject({ is_error: true });
    fs.writeFileSync(path.join(sb.ws, 'bin'), Buffer.from([0, 1, 2, 97]));
    expect(await run({ path: 'bin', old: 'a', new: 'b' })).toMatchObject({ is_error: true, content: expect.stringContaining('binary') });
    expect(await run({ path: 'x', old: '', new: 'b' })).toMatchObject({ is_error: true, content: expect.stringContaining('old:') });
  });
});
