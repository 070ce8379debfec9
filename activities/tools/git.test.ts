import fs from 'node:fs';
import path from 'node:path';
import { ctxFor, git, makeExecutor, makeSandbox, type Sandbox } from './test-support';

describe('git_status and git_diff', () => {
  let sb: Sandbox;
  beforeEach(() => (sb = makeSandbox()));
  afterEach(() => sb.cleanup());
  const run = (name: string, params: unknown, opts = {}) => makeExecutor(sb, opts).execute(name, params, ctxFor(sb));

  test('outside a repository both are error results that say so', async () => {
    for (const name of ['git_status', 'git_diff']) {
      const res = await run(name, {});
      expect(res).toMatchObject({ is_error: true, details: { not_a_repository: true } });
      expect(res.content).toContain(`The workspace ${sb.ws} is not a git repository`);
    }
  });

  test('status: clean, then changed, staged and untracked files', async () => {
    git(sb.ws, 'init', '-q');
    sb.write('a.txt', 'one\n');
    git(sb.ws, 'add', '.');
    git(sb.ws, 'commit', '-qm', 'init');
    const clean = await run('git_status', {});
    expect(clean).toMatchObject({ is_error: false, details: { clean: true } });
    expect(clean.content).toBe('## main\nNothing to commit: the working tree is clean.');
    sb.write('a.txt', 'two\n');
    sb.write('new/b.txt', 'b\n');
    sb.write('staged.txt', 's\n');
    git(sb.ws, 'add', 'staged.txt');
    const dirty = await run('git_status', {});
    expect(dirty).toMatchObject({ is_error: false, details: { clean: false } });
    expect(dirty.content.split('\n')).toEqual(['## main', ' M a.txt', 'A  staged.txt', '?? new/b.txt']);
    // `null` params (a model's way of saying "no parameters") are accepted for a parameterless tool.
    expect((await makeExecutor(sb).execute('git_status', null, ctxFor(sb))).is_error).toBe(false);
  });

  test('diff: staged and unstaged changes against HEAD, limited to a path, empty when clean', async () => {
    git(sb.ws, 'init', '-q');
    sb.write('a.txt', 'one\n');
    sb.write('sub/b.txt', 'bee\n');
    git(sb.ws, 'add', '.');
    git(sb.ws, 'commit', '-qm', 'init');
    expect((await run('git_diff', {})).content).toMatch(/^No uncommitted changes to tracked files\./);
    sb.write('a.txt', 'two\n');
    sb.write('sub/b.txt', 'BEE\n');
    git(sb.ws, 'add', 'sub/b.txt');
    const all = await run('git_diff', {});
    expect(all.is_error).toBe(false);
    expect(all.content).toContain('--- a/a.txt\n+++ b/a.txt');
    expect(all.content).toContain('-one\n+two');
    expect(all.content).toContain('-bee\n+BEE');
    const one = await run('git_diff', { path: 'sub' });
    expect(one.content).toContain('+BEE');
    expect(one.content).not.toContain('a.txt');
    expect((await run('git_diff', { path: 'nope.txt' })).content).toBe('No uncommitted changes to tracked files in nope.txt. (Untracked files are not diffed: git_status lists them.)');
  });

  test('diff in a repository without commits shows what is staged and changed', async () => {
    git(sb.ws, 'init', '-q');
    sb.write('a.txt', 'one\n');
    git(sb.ws, 'add', 'a.txt');
    sb.write('a.txt', 'one\ntwo\n');
    const res = await run('git_diff', {});
    expect(res.content).toContain('new file mode');
    expect(res.content).toContain('+one');
    expect(res.content).toContain('+two');
  });

  test('a workspace inside a larger repository sees only its own files, with workspace-relative paths', async () => {
    git(sb.base, 'init', '-q');
    fs.writeFileSync(path.join(sb.outside, 'o.txt'), 'o\n');
    sb.write('w.txt', 'w\n');
    git(sb.base, 'add', '.');
    git(sb.base, 'commit', '-qm', 'init');
    fs.writeFileSync(path.join(sb.outside, 'o.txt'), 'changed\n');
    sb.write('w.txt', 'changed\n');
    const status = await run('git_status', {});
    expect(status.content).toContain('w.txt');
    expect(status.content).not.toContain('o.txt');
    const diff = await run('git_diff', {});
    expect(diff.content).toContain('--- a/w.txt');
    expect(diff.content).not.toContain('o.txt');
  });

  test('a huge diff is capped and the whole diff kept in the spill file', async () => {
    git(sb.ws, 'init', '-q');
    sb.write('big.txt', 'x\n');
    git(sb.ws, 'add', '.');
    git(sb.ws, 'commit', '-qm', 'init');
    sb.write('big.txt', `${Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n')}\n`);
    const res = await run('git_diff', {}, { outputCapBytes: 4096 });
    expect(res.content.length).toBeLessThan(4096 + 400);
    expect(res.details).toMatchObject({ truncated: true });
    const spill = res.details?.spill_path as string;
    expect(fs.readFileSync(spill, 'utf8')).toContain('+line 19999');
  });
});
