import fs from 'node:fs';
import path from 'node:path';

/**
 * docs/architecture.md's layout block is the newcomer's map of the tree: every folder it names must
 * exist, and every top-level folder, every services/*\/ folder and every services/gateway/*\/ folder
 * must be on it, so a folder added or renamed without the map fails here.
 */

const root = path.resolve(__dirname, '../..');

/** Folders a clone does not track: installed, built or local state. */
const UNTRACKED = new Set(['.git', 'node_modules', 'dist', 'coverage', 'scratch', '.strand']);

/** The folder paths the layout block lists: each line whose first word ends in `/` (continuation lines are indented). */
export function listedFolders(architecture: string): string[] {
  const heading = architecture.indexOf('## Layout, and what may import what');
  if (heading < 0) throw new Error('docs/architecture.md has no "Layout, and what may import what" section');
  const open = architecture.indexOf('```\n', heading);
  const close = architecture.indexOf('\n```', open + 4);
  if (open < 0 || close < 0) throw new Error('the layout section has no code block');
  return architecture
    .slice(open + 4, close)
    .split('\n')
    .map((line) => /^(\S+\/)(\s|$)/.exec(line)?.[1])
    .filter((p): p is string => p !== undefined)
    .map((p) => p.replace(/\/$/, ''));
}

function foldersIn(relDir: string): string[] {
  return fs
    .readdirSync(path.join(root, relDir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !UNTRACKED.has(e.name))
    .map((e) => path.posix.join(relDir, e.name));
}

describe('docs/architecture.md layout block and the folders on disk', () => {
  const listed = listedFolders(fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8'));

  test('lists folders at all', () => {
    expect(listed.length).toBeGreaterThan(10);
  });

  test('every folder it lists exists', () => {
    expect(listed.filter((p) => !fs.statSync(path.join(root, p), { throwIfNoEntry: false })?.isDirectory())).toEqual([]);
  });

  test('lists every top-level folder, every services/*/ and every services/gateway/*/ folder', () => {
    const required = [...foldersIn('.'), ...foldersIn('services'), ...foldersIn('services/gateway')].map((p) => p.replace(/^\.\//, ''));
    expect(required).toEqual(expect.arrayContaining(['services', 'services/gateway', 'services/gateway/http']));
    expect(required.filter((p) => !listed.includes(p))).toEqual([]);
  });

  test('the parser reads first words ending in / and skips continuation lines', () => {
    const doc = ['## Layout, and what may import what', '', '```', 'a/          one', '            a/b/ is not a row', 'a/b/c/      deep', 'README.md   a file', '```', 'after/ outside'].join('\n');
    expect(listedFolders(doc)).toEqual(['a', 'a/b/c']);
  });
});
