import fs from 'node:fs/promises';
import path from 'node:path';
import { describeFsError, errnoCode } from './types';

/** A path the model gave, resolved and confined to the workspace. */
interface ResolvedPath {
  /** Real absolute path (symlinks resolved); the tools operate on this, never on the raw input. */
  abs: string;
  /** Workspace-relative path with `/` separators (`.` for the root), used in messages and file_changes. */
  rel: string;
  /** The workspace's real path. */
  root: string;
}

export type Resolution = { ok: true; path: ResolvedPath } | { ok: false; error: string };

/** Symlink hops allowed while resolving, like the kernel's MAXSYMLINKS. */
const MAX_LINKS = 40;

/** The workspace's real path, or a model-readable reason it is unusable. */
export async function workspaceRoot(workspace: string): Promise<{ ok: true; root: string } | { ok: false; error: string }> {
  if (!workspace || !path.isAbsolute(workspace)) return { ok: false, error: `The workspace path ${JSON.stringify(workspace)} is not an absolute path.` };
  try {
    const root = await fs.realpath(workspace);
    if (!(await fs.stat(root)).isDirectory()) return { ok: false, error: `The workspace ${workspace} is not a directory.` };
    return { ok: true, root };
  } catch (err) {
    return { ok: false, error: `The workspace ${workspace} is not usable: ${describeFsError(err, workspace)}` };
  }
}

/**
 * Resolves `input` (relative to the workspace, or absolute) to its real path and refuses anything
 * outside the workspace's real path: `..`, absolute paths elsewhere, and symlinks (of the file or of
 * any parent) pointing out. Paths that do not exist yet resolve through their deepest existing
 * ancestor, and dangling symlinks are followed by hand, so a write cannot land outside through a link
 * whose target is still missing. `extraRoots` are other real directories a caller may read (the spill
 * directory for read_file).
 */
export async function resolveInWorkspace(workspace: string, input: string | undefined, extraRoots: string[] = []): Promise<Resolution> {
  const ws = await workspaceRoot(workspace);
  if (!ws.ok) return ws;
  const root = ws.root;
  const raw = input === undefined || input.trim() === '' ? '.' : input;
  if (raw.includes('\0')) return { ok: false, error: 'The path contains a NUL character.' };
  // Relative input is taken against the workspace as given; absolute input inside it (as given or real) works.
  const lexical = path.resolve(workspace, raw);
  let real: string;
  try {
    real = await realPathAllowingMissing(lexical, 0);
  } catch (err) {
    return { ok: false, error: `Cannot resolve ${raw}: ${describeFsError(err, raw)}` };
  }
  if (isInside(root, real)) return { ok: true, path: { abs: real, rel: toRel(root, real), root } };
  for (const extra of extraRoots) {
    if (isInside(extra, real)) return { ok: true, path: { abs: real, rel: real, root } };
  }
  const how = path.isAbsolute(raw) && !isInside(root, lexical) && !isInside(workspace, lexical) ? 'it is outside the workspace' : 'it resolves outside the workspace (through `..` or a symbolic link)';
  return { ok: false, error: `Refused: ${raw} is not accessible because ${how}. Tools only work inside the workspace ${root}; use paths relative to it.` };
}

function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export function toRel(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/** Like fs.realpath, but for a path whose tail does not exist yet: real parent + the missing names. */
async function realPathAllowingMissing(p: string, hops: number): Promise<string> {
  if (hops > MAX_LINKS) throw Object.assign(new Error('too many levels of symbolic links'), { code: 'ELOOP' });
  try {
    return await fs.realpath(p);
  } catch (err) {
    const code = errnoCode(err);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = await realPathAllowingMissing(parent, hops);
  const here = path.join(realParent, path.basename(p));
  const st = await fs.lstat(here).catch(() => undefined);
  // realpath failed yet the entry exists: a dangling symlink. Follow it ourselves to see where a write would go.
  if (st?.isSymbolicLink()) {
    const target = await fs.readlink(here);
    return realPathAllowingMissing(path.resolve(realParent, target), hops + 1);
  }
  return here;
}
