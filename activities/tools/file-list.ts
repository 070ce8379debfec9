import fs from 'node:fs/promises';
import path from 'node:path';
import { IgnoreRules } from './ignore';
import { toRel } from './paths';
import { runCapture } from './run-command';
import { throwIfAborted } from './types';

/**
 * The files under a directory of the workspace, minus what .gitignore excludes and minus `.git`:
 * what list_files shows and search_files reads. In a git repository git answers (it knows every
 * ignore source: nested .gitignore files, .git/info/exclude, the global excludes file); elsewhere a
 * walk applies the workspace's .gitignore files itself.
 */
export interface FileListing {
  /** Workspace-relative, `/`-separated, sorted. */
  files: string[];
  /** The scan stopped at `maxFiles`; more files exist. */
  truncated: boolean;
  source: 'git' | 'walk';
}

export interface ListOptions {
  signal: AbortSignal;
  /** Files collected at most (keeps a huge tree from exhausting memory). */
  maxFiles: number;
  killGraceMs: number;
}

/** `dirAbs` must be a real directory inside `root` (resolveInWorkspace). */
export async function listWorkspaceFiles(root: string, dirAbs: string, opts: ListOptions): Promise<FileListing> {
  const fromGit = await listWithGit(root, dirAbs, opts);
  if (fromGit) return fromGit;
  return listByWalking(root, dirAbs, opts);
}

async function listWithGit(root: string, dirAbs: string, opts: ListOptions): Promise<FileListing | undefined> {
  // Roughly 100 bytes a path; the cap bounds memory on enormous untracked trees.
  const maxBytes = opts.maxFiles * 256;
  const run = (args: string[]) => runCapture('git', ['-c', 'core.quotepath=off', 'ls-files', '-z', ...args], { cwd: dirAbs, signal: opts.signal, maxBytes, killGraceMs: opts.killGraceMs });
  const listed = await run(['--cached', '--others', '--exclude-standard']);
  // Not a repository (exit 128), git missing, or run inside .git: fall back to walking.
  if (listed.spawnError || (listed.code !== 0 && !listed.overflow)) return undefined;
  const deleted = await run(['--deleted']);
  const gone = new Set(deleted.code === 0 ? split(deleted.stdout) : []);
  const seen = new Set<string>();
  for (const p of split(listed.stdout)) {
    // Entries ending in `/` are nested repositories git does not descend into; deleted ones are listed by --cached.
    if (p.endsWith('/') || gone.has(p)) continue;
    const rel = toRel(root, path.join(dirAbs, p));
    if (!hasGitSegment(rel)) seen.add(rel);
  }
  let files = [...seen].sort();
  // An overflowing listing drops its last (possibly cut) entry.
  if (listed.overflow) files = files.slice(0, Math.max(0, Math.min(files.length - 1, opts.maxFiles)));
  const truncated = listed.overflow || files.length > opts.maxFiles;
  return { files: files.slice(0, opts.maxFiles), truncated, source: 'git' };
}

function split(buf: Buffer): string[] {
  return buf
    .toString('utf8')
    .split('\0')
    .filter((s) => s !== '');
}

function hasGitSegment(rel: string): boolean {
  return rel === '.git' || rel.startsWith('.git/') || rel.includes('/.git/') || rel.endsWith('/.git');
}

async function listByWalking(root: string, dirAbs: string, opts: ListOptions): Promise<FileListing> {
  const rules = new IgnoreRules();
  const startRel = toRel(root, dirAbs);
  const st = await fs.lstat(dirAbs);
  if (!st.isDirectory()) return { files: [startRel], truncated: false, source: 'walk' };
  // The .gitignore files of the listed directory and of every directory above it apply.
  const start = startRel === '.' ? '' : startRel;
  const segments = start === '' ? [] : start.split('/');
  for (let i = 0; i <= segments.length; i++) await addIgnoreFile(rules, root, segments.slice(0, i).join('/'));
  const files: string[] = [];
  let truncated = false;
  const queue: string[] = [start];
  while (queue.length > 0 && !truncated) {
    throwIfAborted(opts.signal);
    const dirRel = queue.shift()!;
    const entries = await fs.readdir(path.join(root, dirRel), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name === '.git') continue;
      const rel = dirRel === '' ? e.name : `${dirRel}/${e.name}`;
      // Symlinked directories are listed, not entered: no loops, no walking out of the workspace.
      if (e.isDirectory()) {
        if (rules.ignores(rel, true)) continue;
        await addIgnoreFile(rules, root, rel);
        queue.push(rel);
      } else if (e.isFile() || e.isSymbolicLink()) {
        if (rules.ignores(rel, false)) continue;
        if (files.length >= opts.maxFiles) {
          truncated = true;
          break;
        }
        files.push(rel);
      }
    }
  }
  return { files: files.sort(), truncated, source: 'walk' };
}

async function addIgnoreFile(rules: IgnoreRules, root: string, dirRel: string): Promise<void> {
  const text = await fs.readFile(path.join(root, dirRel, '.gitignore'), 'utf8').catch(() => undefined);
  if (text !== undefined) rules.add(dirRel, text);
}
