import fs from 'node:fs';
import path from 'node:path';
import { LIST_FILES_MAX_ENTRIES, SEARCH_FILES_MAX_MATCHES } from '../../contracts/tools';
import { compileSearchPattern } from './search-files';
import { ctxFor, git, makeExecutor, makeSandbox, type Sandbox } from './test-support';

/** The same tree, checked once as a plain directory and once as a git repository. */
function populate(sb: Sandbox) {
  sb.write('.gitignore', 'build/\n*.log\n!keep.log\n/rootonly.txt\n');
  sb.write('src/a.ts', 'export const needle = 1;\n');
  sb.write('src/b.js', 'const needle = 2;\n');
  sb.write('src/nested/c.ts', 'needle();\n');
  sb.write('src/nested/.gitignore', 'secret.ts\n');
  sb.write('src/nested/secret.ts', 'needle secret\n');
  sb.write('src/rootonly.txt', 'needle not anchored here\n');
  sb.write('rootonly.txt', 'needle ignored at root\n');
  sb.write('build/out.ts', 'needle built\n');
  sb.write('debug.log', 'needle log\n');
  sb.write('keep.log', 'needle kept\n');
  fs.writeFileSync(path.join(sb.ws, 'image.png'), Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]));
}

const VISIBLE = ['.gitignore', 'image.png', 'keep.log', 'src/a.ts', 'src/b.js', 'src/nested/.gitignore', 'src/nested/c.ts', 'src/rootonly.txt'];

describe.each([
  ['without git', false],
  ['in a git repository', true],
])('list_files and search_files %s', (_label, inGit) => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = makeSandbox();
    populate(sb);
    if (inGit) {
      git(sb.ws, 'init', '-q');
      git(sb.ws, 'add', '.');
      git(sb.ws, 'commit', '-qm', 'init');
      // A tracked file deleted in the work tree, and an untracked one, as the model would leave them.
      fs.rmSync(path.join(sb.ws, 'src/b.js'));
      sb.write('src/b.js', 'const needle = 2;\n');
      sb.write('untracked.md', 'needle untracked\n');
      sb.write('gone.txt', 'x');
      git(sb.ws, 'add', 'gone.txt');
      fs.rmSync(path.join(sb.ws, 'gone.txt'));
    } else {
      sb.write('untracked.md', 'needle untracked\n');
      // A nested .git directory is never listed.
      sb.write('.git/config', 'needle in git dir\n');
    }
  });
  afterEach(() => sb.cleanup());
  const run = (name: string, params: unknown) => makeExecutor(sb).execute(name, params, ctxFor(sb));

  test('list_files respects .gitignore (nested, negated, anchored) and skips .git', async () => {
    const res = await run('list_files', {});
    expect(res.is_error).toBe(false);
    expect(res.content.split('\n')).toEqual([...VISIBLE, 'untracked.md'].sort());
    expect(res.details).toMatchObject({ source: inGit ? 'git' : 'walk', truncated: false });
  });

  test('list_files filters by glob, relative to the listed directory', async () => {
    expect((await run('list_files', { pattern: '**/*.ts' })).content.split('\n')).toEqual(['src/a.ts', 'src/nested/c.ts']);
    expect((await run('list_files', { pattern: '*.ts' })).content.split('\n')).toEqual(['src/a.ts', 'src/nested/c.ts']);
    expect((await run('list_files', { path: 'src', pattern: '*.{ts,js}' })).content.split('\n')).toEqual(['src/a.ts', 'src/b.js', 'src/nested/c.ts']);
    expect((await run('list_files', { path: 'src', pattern: 'nested/*' })).content.split('\n')).toEqual(['src/nested/.gitignore', 'src/nested/c.ts']);
    expect((await run('list_files', { path: 'src/nested' })).content.split('\n')).toEqual(['src/nested/.gitignore', 'src/nested/c.ts']);
    expect((await run('list_files', { pattern: '*.rs' })).content).toMatch(/^No files in the workspace matching \*\.rs/);
  });

  test('search_files finds lines as file:line: text, skipping ignored and binary files', async () => {
    const res = await run('search_files', { pattern: 'needle' });
    expect(res.is_error).toBe(false);
    const lines = res.content.split('\n');
    expect(lines.filter((l) => !l.startsWith('['))).toEqual([
      'keep.log:1: needle kept',
      'src/a.ts:1: export const needle = 1;',
      'src/b.js:1: const needle = 2;',
      'src/nested/c.ts:1: needle();',
      'src/rootonly.txt:1: needle not anchored here',
      'untracked.md:1: needle untracked',
    ]);
    expect(res.content).toContain('[Skipped 1 binary file(s).]');
  });

  test('search_files within a path, case-insensitive, and with no match', async () => {
    expect((await run('search_files', { pattern: '(?i)NEEDLE\\(', path: 'src' })).content).toBe('src/nested/c.ts:1: needle();');
    // A file named directly is searched even if ignored.
    expect((await run('search_files', { pattern: 'built', path: 'build/out.ts' })).content).toBe('build/out.ts:1: needle built');
    expect((await run('search_files', { pattern: 'haystack' })).content).toMatch(/^No matches for "haystack" in \d+ file\(s\)/);
  });
});

describe('list_files and search_files bounds and errors', () => {
  let sb: Sandbox;
  beforeEach(() => (sb = makeSandbox()));
  afterEach(() => sb.cleanup());
  const run = (name: string, params: unknown) => makeExecutor(sb).execute(name, params, ctxFor(sb));

  test('list_files caps its output with a truncation note', async () => {
    for (let i = 0; i < LIST_FILES_MAX_ENTRIES + 5; i++) sb.write(`f/${String(i).padStart(5, '0')}.txt`, '');
    const res = await run('list_files', {});
    const lines = res.content.split('\n');
    expect(lines).toHaveLength(LIST_FILES_MAX_ENTRIES + 1);
    expect(lines.at(-1)).toBe(`[Truncated: showing ${LIST_FILES_MAX_ENTRIES} of ${LIST_FILES_MAX_ENTRIES + 5} files. Narrow the listing with path or pattern.]`);
    expect(res.details).toMatchObject({ truncated: true, count: LIST_FILES_MAX_ENTRIES });
  });

  test('search_files caps its matches with a truncation note and shortens long lines', async () => {
    sb.write('many.txt', `${'hit\n'.repeat(SEARCH_FILES_MAX_MATCHES + 10)}`);
    const res = await run('search_files', { pattern: '^hit$' });
    expect(res.content.split('\n')).toHaveLength(SEARCH_FILES_MAX_MATCHES + 1);
    expect(res.content).toContain(`[Truncated at ${SEARCH_FILES_MAX_MATCHES} matches.`);
    sb.write('long.txt', `hit${'x'.repeat(1000)}\n`);
    expect((await run('search_files', { pattern: 'hitx', path: 'long.txt' })).content).toMatch(/… \[1003 chars\]$/);
  });

  test('errors: invalid regex, missing path; a file path lists itself', async () => {
    expect(compileSearchPattern('a(')).toMatch(/^Invalid regular expression "a\(":/);
    expect(await run('search_files', { pattern: 'a(' })).toMatchObject({ is_error: true, content: expect.stringContaining('Invalid regular expression') });
    expect(await run('search_files', { pattern: 'a', path: 'nope' })).toMatchObject({ is_error: true, content: 'nope does not exist.' });
    expect(await run('list_files', { path: 'nope' })).toMatchObject({ is_error: true, content: 'nope does not exist.' });
    sb.write('one.txt', '');
    expect(await run('list_files', { path: 'one.txt' })).toMatchObject({ is_error: false, content: 'one.txt' });
    expect(await run('list_files', {})).toMatchObject({ content: 'one.txt' });
  });
});
