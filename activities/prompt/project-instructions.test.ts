import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { instructionsMaxBytesFromEnv, readProjectInstructions } from './project-instructions';

/** Real directory trees under a fresh temp dir; `home` is passed explicitly so the host's $HOME never matters. */
let top: string;
let home: string;
beforeEach(() => {
  top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-instructions-')));
  home = path.join(top, 'home');
  fs.mkdirSync(home);
});
afterEach(() => fs.rmSync(top, { recursive: true, force: true }));

function write(rel: string, content: string | Buffer) {
  const file = path.join(top, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}
const read = (rel: string, cap?: number) => readProjectInstructions(path.join(top, rel), cap, home);
/** The file names in the prompt, in order. */
const names = (text: string) => [...text.matchAll(/^Project instructions from (.+):$/gm)].map((m) => m[1]);

test('merges the repository root down to the workspace, nearest last, and nothing above the root', async () => {
  write('AGENTS.md', 'above the repository');
  fs.mkdirSync(path.join(top, 'repo/.git'), { recursive: true });
  write('repo/AGENTS.md', 'root rule');
  write('repo/packages/CLAUDE.md', 'packages rule');
  write('repo/packages/app/AGENTS.md', 'app rule');
  const { text, notices } = await read('repo/packages/app');
  expect(names(text)).toEqual(['AGENTS.md', 'packages/CLAUDE.md', 'packages/app/AGENTS.md']);
  expect(text).toContain('Project instructions from AGENTS.md:\nroot rule\n\nProject instructions from packages/CLAUDE.md:\npackages rule\n\nProject instructions from packages/app/AGENTS.md:\napp rule');
  expect(text).toContain(`relative to the repository root ${path.join(top, 'repo')}.`);
  expect(text).not.toContain('above the repository');
  expect(notices).toEqual([]);
});

test('per directory AGENTS.md wins over CLAUDE.md; CLAUDE.md counts where there is no AGENTS.md', async () => {
  fs.mkdirSync(path.join(top, 'repo/.git'), { recursive: true });
  write('repo/AGENTS.md', 'agents at the root');
  write('repo/CLAUDE.md', 'claude at the root');
  write('repo/app/CLAUDE.md', 'claude in app');
  const { text } = await read('repo/app');
  expect(names(text)).toEqual(['AGENTS.md', 'app/CLAUDE.md']);
  expect(text).not.toContain('claude at the root');
});

test('without a .git above, only the workspace is read', async () => {
  write('AGENTS.md', 'outer');
  write('proj/AGENTS.md', 'inner');
  expect(fs.existsSync(path.join(top, '.git'))).toBe(false);
  const { text } = await read('proj');
  expect(names(text)).toEqual(['AGENTS.md']);
  expect(text).toContain('inner');
  expect(text).not.toContain('outer');
  expect(text).not.toContain('relative to the repository root');
});

test('a .git file (worktree, submodule) marks the repository root', async () => {
  write('repo/.git', 'gitdir: /elsewhere/.git/worktrees/repo\n');
  write('repo/AGENTS.md', 'root');
  write('repo/src/AGENTS.md', 'src');
  const { text } = await read('repo/src');
  expect(names(text)).toEqual(['AGENTS.md', 'src/AGENTS.md']);
});

test('a repository in the home directory does not pull its AGENTS.md into projects below it', async () => {
  fs.mkdirSync(path.join(home, '.git'));
  write('home/AGENTS.md', 'dotfiles');
  write('home/code/proj/AGENTS.md', 'project');
  const { text } = await read('home/code/proj');
  expect(names(text)).toEqual(['AGENTS.md']);
  expect(text).toContain('project');
  expect(text).not.toContain('dotfiles');
  // The home directory as the workspace itself is read like any other.
  expect(names((await read('home')).text)).toEqual(['AGENTS.md']);
});

test('over the cap the outermost files are cut first, then left out, and a notice says which', async () => {
  fs.mkdirSync(path.join(top, 'repo/.git'), { recursive: true });
  write('repo/AGENTS.md', 'r'.repeat(300));
  write('repo/packages/CLAUDE.md', 'p'.repeat(100));
  write('repo/packages/app/AGENTS.md', 'a'.repeat(200));
  const { text, notices } = await read('repo/packages/app', 250);
  expect(names(text)).toEqual(['packages/CLAUDE.md', 'packages/app/AGENTS.md']);
  expect(text).toContain(`Project instructions from packages/CLAUDE.md:\n${'p'.repeat(50)}\n[… packages/CLAUDE.md cut here: 50 of 100 bytes kept; project instructions are capped at 250 bytes in all]`);
  expect(text).toContain(`Project instructions from packages/app/AGENTS.md:\n${'a'.repeat(200)}`);
  expect(text).not.toContain('rrr');
  expect(notices).toEqual(['project instructions are capped at 250 bytes: AGENTS.md (300 bytes) left out; packages/CLAUDE.md cut to 50 of 100 bytes']);
  // Under the cap nothing is said.
  expect((await read('repo/packages/app', 600)).notices).toEqual([]);
});

test('a cut keeps whole characters', async () => {
  write('proj/AGENTS.md', 'é'.repeat(10)); // 2 bytes each
  const { text, notices } = await read('proj', 5);
  expect(text).toContain('Project instructions from AGENTS.md:\néé\n[… AGENTS.md cut here: 4 of 20 bytes kept');
  expect(notices).toEqual(['project instructions are capped at 5 bytes: AGENTS.md cut to 4 of 20 bytes']);
});

test('unusable files are skipped with a notice, and CLAUDE.md stands in for an unusable AGENTS.md', async () => {
  fs.mkdirSync(path.join(top, 'repo/.git'), { recursive: true });
  fs.mkdirSync(path.join(top, 'repo/AGENTS.md'));
  write('repo/CLAUDE.md', 'root claude');
  write('repo/app/AGENTS.md', Buffer.from([0x66, 0x6f, 0xff, 0xfe, 0x6f]));
  write('repo/app/deep/AGENTS.md', 'deep');
  const { text, notices } = await read('repo/app/deep');
  expect(names(text)).toEqual(['CLAUDE.md', 'app/deep/AGENTS.md']);
  expect(notices).toEqual(['project instructions: AGENTS.md skipped (a directory, not a file)', 'project instructions: app/AGENTS.md skipped (not valid UTF-8)']);
});

test('a file the worker may not read is skipped with a notice', async () => {
  write('proj/AGENTS.md', 'secret');
  fs.chmodSync(path.join(top, 'proj/AGENTS.md'), 0o000);
  let readable = true;
  try {
    fs.readFileSync(path.join(top, 'proj/AGENTS.md'));
  } catch {
    readable = false;
  }
  const { text, notices } = await read('proj');
  // As root permissions do not stop a read: then the file is simply read.
  if (readable) expect(text).toContain('secret');
  else expect(notices).toEqual(['project instructions: AGENTS.md skipped (permission denied)']);
  fs.chmodSync(path.join(top, 'proj/AGENTS.md'), 0o644);
});

test('symlinks are followed inside the repository only', async () => {
  write('secrets/token.txt', 'TOKEN');
  fs.mkdirSync(path.join(top, 'repo/.git'), { recursive: true });
  write('repo/docs/agents.md', 'shared rules');
  fs.symlinkSync(path.join(top, 'repo/docs/agents.md'), path.join(top, 'repo/AGENTS.md'));
  fs.mkdirSync(path.join(top, 'repo/app'));
  fs.symlinkSync(path.join(top, 'secrets/token.txt'), path.join(top, 'repo/app/AGENTS.md'));
  fs.symlinkSync(path.join(top, 'missing.md'), path.join(top, 'repo/app/CLAUDE.md'));
  const { text, notices } = await read('repo/app');
  expect(names(text)).toEqual(['AGENTS.md']);
  expect(text).toContain('shared rules');
  expect(text).not.toContain('TOKEN');
  expect(notices).toEqual(['project instructions: app/AGENTS.md skipped (a symlink to outside the repository)', 'project instructions: app/CLAUDE.md skipped (a symlink to a file that does not exist)']);
});

test('files are read on every call: an edit shows at once', async () => {
  write('proj/AGENTS.md', 'first');
  expect((await read('proj')).text).toContain('first');
  write('proj/AGENTS.md', 'second');
  write('proj/CLAUDE.md', 'ignored');
  const { text } = await read('proj');
  expect(text).toContain('second');
  expect(text).not.toContain('first');
  fs.rmSync(path.join(top, 'proj/AGENTS.md'));
  expect((await read('proj')).text).toContain('ignored');
});

test('a missing or empty workspace reads nothing', async () => {
  expect(await read('nowhere')).toEqual({ text: '', notices: [] });
  expect(await readProjectInstructions('')).toEqual({ text: '', notices: [] });
});

test('STRAND_INSTRUCTIONS_MAX_BYTES', () => {
  expect(instructionsMaxBytesFromEnv({})).toBe(32 * 1024);
  expect(instructionsMaxBytesFromEnv({ STRAND_INSTRUCTIONS_MAX_BYTES: '4096' })).toBe(4096);
  expect(() => instructionsMaxBytesFromEnv({ STRAND_INSTRUCTIONS_MAX_BYTES: '0' })).toThrow(/positive/);
  expect(() => instructionsMaxBytesFromEnv({ STRAND_INSTRUCTIONS_MAX_BYTES: '32k' })).toThrow(/32k/);
});
