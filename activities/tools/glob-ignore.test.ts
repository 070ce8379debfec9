import { compileListGlob } from './glob';
import { IgnoreRules } from './ignore';

describe('list_files globs', () => {
  test.each([
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/a.ts', true],
    ['**/*.ts', 'src/a.tsx', false],
    ['*.ts', 'src/deep/a.ts', true],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/deep/a.ts', false],
    ['src/**', 'src/deep/a.ts', true],
    ['src/**/test/*.ts', 'src/test/a.ts', true],
    ['src/**/test/*.ts', 'src/x/y/test/a.ts', true],
    ['*.{ts,json}', 'p/package.json', true],
    ['file?.txt', 'file1.txt', true],
    ['file[0-9].txt', 'filea.txt', false],
    ['file[!0-9].txt', 'filea.txt', true],
    ['./src/*.ts', 'src/a.ts', true],
    ['a.b', 'axb', false],
  ])('%s vs %s → %s', (glob, p, expected) => {
    expect(compileListGlob(glob)(p)).toBe(expected);
  });
});

describe('.gitignore matcher', () => {
  const rules = new IgnoreRules();
  rules.add('', ['# comment', '', 'node_modules/', '*.log', '!important.log', '/top.txt', 'docs/*.md', '**/tmp', 'trailing   ', '\\#hash'].join('\n'));
  rules.add('pkg', 'local.txt\n/anchored.txt\n');

  test.each([
    ['node_modules', true, true],
    ['a/node_modules', true, true],
    ['node_modules', false, false],
    ['x/debug.log', false, true],
    ['x/important.log', false, false],
    ['top.txt', false, true],
    ['sub/top.txt', false, false],
    ['docs/a.md', false, true],
    ['docs/sub/a.md', false, false],
    ['a/b/tmp', true, true],
    ['trailing', false, true],
    ['#hash', false, true],
    ['pkg/local.txt', false, true],
    ['pkg/deeper/local.txt', false, true],
    ['local.txt', false, false],
    ['pkg/anchored.txt', false, true],
    ['pkg/deeper/anchored.txt', false, false],
  ])('%s (dir: %s) ignored → %s', (p, isDir, expected) => {
    expect(rules.ignores(p, isDir)).toBe(expected);
  });
});
