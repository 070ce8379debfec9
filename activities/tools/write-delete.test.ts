import fs from 'node:fs';
import path from 'node:path';
import { isWriteNoop } from './write-file';
import { ctxFor, makeExecutor, makeSandbox, type Sandbox } from './test-support';

describe('write_file', () => {
  let sb: Sandbox;
  beforeEach(() => (sb = makeSandbox()));
  afterEach(() => sb.cleanup());
  const run = (name: string, params: unknown) => makeExecutor(sb).execute(name, params, ctxFor(sb));

  test('creates a file with its parent directories and reports the change', async () => {
    const res = await run('write_file', { path: 'src/deep/new.ts', content: 'export {};\n' });
    expect(res).toEqual({
      content: 'Created src/deep/new.ts (1 lines, 11 bytes).',
      is_error: false,
      details: { path: 'src/deep/new.ts', bytes: 11, lines: 1, created: true },
      file_changes: [{ path: 'src/deep/new.ts', operation: 'write' }],
    });
    expect(sb.read('src/deep/new.ts')).toBe('export {};\n');
  });

  test('overwrites, keeps the file mode and leaves no temporary file behind', async () => {
    const p = sb.write('run.sh', 'old\n');
    fs.chmodSync(p, 0o755);
    const res = await run('write_file', { path: 'run.sh', content: 'new\n' });
    expect(res.content).toBe('Wrote run.sh (1 lines, 4 bytes).');
    expect(sb.read('run.sh')).toBe('new\n');
    expect(fs.statSync(p).mode & 0o777).toBe(0o755);
    expect(fs.readdirSync(sb.ws)).toEqual(['run.sh']);
  });

  test('identical content is a successful no-op (a re-run after a crash)', async () => {
    const p = sb.write('same.txt', 'héllo\n');
    const before = fs.statSync(p).mtimeMs;
    expect(await isWriteNoop(p, 'héllo\n')).toBe(true);
    expect(await isWriteNoop(p, 'hello\n')).toBe(false);
    expect(await isWriteNoop(path.join(sb.ws, 'missing'), '')).toBe(false);
    const res = await run('write_file', { path: 'same.txt', content: 'héllo\n' });
    expect(res).toMatchObject({ is_error: false, details: { unchanged: true }, file_changes: [{ path: 'same.txt', operation: 'write' }] });
    expect(res.content).toContain('nothing changed');
    expect(fs.statSync(p).mtimeMs).toBe(before);
  });

  test('errors: a directory as target, a file as parent, the root', async () => {
    fs.mkdirSync(path.join(sb.ws, 'dir'));
    expect(await run('write_file', { path: 'dir', content: 'x' })).toMatchObject({ is_error: true, content: 'dir is a directory; give a file path.' });
    sb.write('file', 'x');
    expect(await run('write_file', { path: 'file/child.txt', content: 'x' })).toMatchObject({ is_error: true, content: expect.stringContaining('Could not write file/child.txt') });
    expect(await run('write_file', { path: '.', content: 'x' })).toMatchObject({ is_error: true });
    expect(await run('write_file', { path: 'a.txt' })).toMatchObject({ is_error: true, content: expect.stringContaining('content: Invalid input') });
  });
});

describe('delete_file', () => {
  let sb: Sandbox;
  beforeEach(() => (sb = makeSandbox()));
  afterEach(() => sb.cleanup());
  const run = (params: unknown) => makeExecutor(sb).execute('delete_file', params, ctxFor(sb));

  test('deletes a file and reports the change', async () => {
    sb.write('a/b.txt', 'x');
    expect(await run({ path: 'a/b.txt' })).toEqual({
      content: 'Deleted a/b.txt.',
      is_error: false,
      details: { path: 'a/b.txt' },
      file_changes: [{ path: 'a/b.txt', operation: 'delete' }],
    });
    expect(fs.existsSync(path.join(sb.ws, 'a/b.txt'))).toBe(false);
  });

  test('errors: missing file, directory, workspace root', async () => {
    expect(await run({ path: 'nope.txt' })).toMatchObject({ is_error: true, content: 'nope.txt does not exist; nothing was deleted.' });
    sb.write('dir/x.txt', 'x');
    expect(await run({ path: 'dir' })).toMatchObject({ is_error: true, content: 'dir is a directory; delete_file removes single files only.' });
    expect(await run({ path: 'dir/' })).toMatchObject({ is_error: true });
    expect(await run({ path: '.' })).toMatchObject({ is_error: true });
    expect(await run({ path: sb.ws })).toMatchObject({ is_error: true });
    expect(fs.existsSync(path.join(sb.ws, 'dir/x.txt'))).toBe(true);
  });
});
