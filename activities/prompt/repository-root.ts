import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Where project instructions are looked for: the repository root down to the workspace. */
export interface InstructionScope {
  /** The repository root (real path), or the workspace itself when no `.git` is above it. */
  root: string;
  /** The directories read, outermost (the root) first, the workspace last; real paths. */
  directories: string[];
}

/**
 * The repository around a workspace: the nearest directory, the workspace itself or an ancestor,
 * holding `.git` — a directory, or a file as in git worktrees and submodules. Real paths, as git
 * resolves them. `/` and the home directory are never taken as the root of a workspace below them:
 * a dotfiles repository in $HOME would otherwise pull ~/AGENTS.md into every project under it.
 * No repository: the workspace alone. `undefined` when the workspace does not exist.
 */
export async function instructionScope(projectPath: string, home: string = os.homedir()): Promise<InstructionScope | undefined> {
  let workspace: string;
  try {
    workspace = await fs.realpath(projectPath);
  } catch {
    return undefined;
  }
  const ceilings = new Set([path.parse(workspace).root, await realOr(home)]);
  const directories = [workspace];
  for (let dir = workspace; ; ) {
    if (await exists(path.join(dir, '.git'))) return { root: dir, directories: directories.reverse() };
    const parent = path.dirname(dir);
    if (parent === dir || ceilings.has(parent)) return { root: workspace, directories: [workspace] };
    directories.push(parent);
    dir = parent;
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}

async function realOr(p: string): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch {
    return path.resolve(p);
  }
}
