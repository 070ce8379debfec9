import fs from 'node:fs';
import path from 'node:path';
import { resolveInWorkspace } from './paths';
import { ctxFor, makeExecutor, makeSandbox, type Sandbox } from './test-support';

describe('path confinement', () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = makeSandbox();
    sb.write('inside.txt', 'inside\n');
    fs.writeFileSync(path.join(sb.outside, 'secret.txt'), 'secret\n');
    // A file symlink and a directory symlink pointing out, one pointing in, one dangling outside.
    fs.symlinkSync(path.join(sb.outside, 'secret.txt'), path.join(sb.ws, 'link-out.txt'));
    fs.symlinkSync(sb.outside, path.join(sb.ws, 'dir-out'));
    fs.symlinkSync(path.join(sb.ws, 'inside.txt'), path.join(sb.ws, 'link-in.txt'));
    fs.symlinkSync(path.join(sb.outside, 'not-yet.txt'), path.join(sb.ws, 'dangling-out.txt'));
  });
  afterEach(() => sb.cleanup());

  test('relative and absolute paths inside the workspace resolve to real, workspace-relative paths', async () => {
    const rel = await resolveInWorkspace(sb.ws, 'inside.txt');
    expect(rel).toEqual({ ok: true, path: { abs: path.join(sb.ws, 'inside.txt'), rel: 'inside.txt', root: sb.ws } });
    const abs = await resolveInWorkspace(sb.ws, path.join(sb.ws, 'inside.txt'));
    expect(abs.ok && abs.path.rel).toBe('inside.txt');
    const missing = await resolveInWorkspace(sb.ws, 'new/dir/file.txt');
    expect(missing.ok && missing.path.rel).toBe('new/dir/file.txt');
    const viaLink = await resolveInWorkspace(sb.ws, 'link-in.txt');
    expect(viaLink.ok && viaLink.path.rel).toBe('inside.txt');
    const dotted = await resolveInWorkspace(sb.ws, 'new/../inside.txt');
    expect(dotted.ok && dotted.path.rel).toBe('inside.txt');
    expect((await resolveInWorkspace(sb.ws, undefined)).ok).toBe(true);
  });

  test.each([
    ['`..`', '../outside/secret.txt'],
    ['`..` to a missing file', '../elsewhere/new.txt'],
    ['absolute outside', '/etc/passwd'],
    ['a file symlink pointing out', 'link-out.txt'],
    ['a directory symlink pointing out', 'dir-out/secret.txt'],
    ['a new file under a symlinked parent dir', 'dir-out/new.txt'],
    ['a dangling symlink pointing out', 'dangling-out.txt'],
    ['the directory symlink itself', 'dir-out'],
  ])('refuses %s', async (_what, p) => {
    const r = await resolveInWorkspace(sb.ws, p);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^Refused: .* outside the workspace/);
  });

  test('a workspace that does not exist is an error, not an exception', async () => {
    const r = await resolveInWorkspace(path.join(sb.base, 'gone'), 'a.txt');
    expect(r).toEqual({ ok: false, error: expect.stringContaining('is not usable') });
  });

  test('every tool refuses escapes with an error result and touches nothing outside', async () => {
    const ex = makeExecutor(sb);
    const ctx = ctxFor(sb);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['read_file', { path: 'link-out.txt' }],
      ['read_file', { path: '../outside/secret.txt' }],
      ['read_file', { path: path.join(sb.outside, 'secret.txt') }],
      ['write_file', { path: 'dir-out/new.txt', content: 'x' }],
      ['write_file', { path: 'dangling-out.txt', content: 'x' }],
      ['write_file', { path: 'link-out.txt', content: 'x' }],
      ['edit_file', { path: 'link-out.txt', old: 'secret', new: 'public' }],
      ['delete_file', { path: 'dir-out/secret.txt' }],
      ['delete_file', { path: '../outside/secret.txt' }],
      ['list_files', { path: 'dir-out' }],
      ['list_files', { path: '..' }],
      ['search_files', { pattern: 'secret', path: 'dir-out' }],
      ['search_files', { pattern: 'secret', path: '/' }],
      ['git_diff', { path: '../outside' }],
    ];
    for (const [name, params] of calls) {
      const res = await ex.execute(name, params, ctx);
      expect({ name, params, is_error: res.is_error }).toEqual({ name, params, is_error: true });
      // git_diff first says the workspace is no repository; all the others name the refusal.
      if (name !== 'git_diff') expect(res.content).toMatch(/Refused/);
    }
    expect(fs.readdirSync(sb.outside)).toEqual(['secret.txt']);
    expect(fs.readFileSync(path.join(sb.outside, 'secret.txt'), 'utf8')).toBe('secret\n');
  });

  test('search and list do not follow a directory symlink out of the workspace', async () => {
    const ex = makeExecutor(sb);
    const search = await ex.execute('search_files', { pattern: 'secret' }, ctxFor(sb));
    expect(search.content).toMatch(/^No matches/);
    const list = await ex.execute('list_files', {}, ctxFor(sb));
    expect(list.content).not.toContain('dir-out/secret.txt');
  });

  test('deleting a symlink removes the link, never its target outside', async () => {
    const ex = makeExecutor(sb);
    const res = await ex.execute('delete_file', { path: 'link-out.txt' }, ctxFor(sb));
    expect(res).toMatchObject({ is_error: false, file_changes: [{ path: 'link-out.txt', operation: 'delete' }] });
    expect(fs.existsSync(path.join(sb.ws, 'link-out.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(sb.outside, 'secret.txt'), 'utf8')).toBe('secret\n');
  });
});
