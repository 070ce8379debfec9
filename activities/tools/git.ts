import type { GitDiffParams, GitStatusParams } from '../../contracts/tools';
import { OutputSink } from './output-sink';
import { resolveInWorkspace, workspaceRoot } from './paths';
import { gitSafeEnv, runCapture } from './run-command';
import { fail, ok, type ToolContext, type ToolResult, type ToolSettings } from './types';

/** Bytes of git output read at most (a diff of a vendored tree can be enormous); the result holds less. */
const GIT_MAX_BYTES = 64 * 1024 * 1024;

async function git(args: string[], cwd: string, ctx: ToolContext, settings: ToolSettings) {
  return runCapture('git', ['-c', 'core.quotepath=off', '-c', 'color.ui=never', ...args], {
    cwd,
    signal: ctx.signal,
    maxBytes: GIT_MAX_BYTES,
    killGraceMs: settings.killGraceMs,
    env: gitSafeEnv(),
  });
}

/** The workspace's real root if it is inside a git work tree, else a model-readable error. */
async function repoRoot(ctx: ToolContext, settings: ToolSettings): Promise<{ ok: true; root: string } | { ok: false; result: ToolResult }> {
  const ws = await workspaceRoot(ctx.workspace);
  if (!ws.ok) return { ok: false, result: fail(ws.error) };
  const probe = await git(['rev-parse', '--is-inside-work-tree'], ws.root, ctx, settings);
  if (probe.spawnError) return { ok: false, result: fail(`git is not available on this machine: ${probe.spawnError}`) };
  if (probe.code !== 0 || probe.stdout.toString().trim() !== 'true') {
    const why = probe.stderr.trim().split('\n')[0] ?? '';
    return { ok: false, result: fail(`The workspace ${ws.root} is not a git repository${why ? ` (${why})` : ''}.`, { not_a_repository: true }) };
  }
  return { ok: true, root: ws.root };
}

/** Caps git's output like shell output: head and tail in the result, everything in a spill file. */
async function capped(stdout: Buffer, label: string, settings: ToolSettings) {
  const sink = new OutputSink(settings.spillDir, settings.outputCapBytes, label, settings.now);
  sink.write(stdout);
  return sink.finish();
}

/** git_status: branch and short status (staged, changed, untracked). */
export async function gitStatus(_params: GitStatusParams, ctx: ToolContext, settings: ToolSettings): Promise<ToolResult> {
  const repo = await repoRoot(ctx, settings);
  if (!repo.ok) return repo.result;
  // `-- .` keeps a workspace that is a subdirectory of a larger repository to its own files.
  const res = await git(['status', '--short', '--branch', '--untracked-files=all', '--', '.'], repo.root, ctx, settings);
  if (res.code !== 0) return fail(`git status failed: ${res.stderr.trim()}`);
  const out = await capped(res.stdout, 'git-status', settings);
  const lines = out.text.trimEnd().split('\n');
  const clean = lines.length <= 1;
  const text = clean ? `${lines[0] ?? ''}\nNothing to commit: the working tree is clean.` : out.text.trimEnd();
  return ok(text, { details: { clean, truncated: out.truncated, spill_path: out.spillPath } });
}

/**
 * git_diff: staged and unstaged changes against HEAD (`git diff HEAD`); in a repository without
 * commits yet, the staged changes followed by the unstaged ones.
 */
export async function gitDiff(params: GitDiffParams, ctx: ToolContext, settings: ToolSettings): Promise<ToolResult> {
  const repo = await repoRoot(ctx, settings);
  if (!repo.ok) return repo.result;
  // Default `.`: a workspace inside a larger repository sees only its own changes.
  let pathspec = ['--', '.'];
  let rel = '.';
  if (params.path !== undefined && params.path.trim() !== '') {
    const resolved = await resolveInWorkspace(ctx.workspace, params.path);
    if (!resolved.ok) return fail(resolved.error);
    rel = resolved.path.rel;
    // `:(literal)` so a file name with `*` or `?` is not taken as a pattern; relative to cwd = workspace root.
    pathspec = ['--', `:(literal)${rel}`];
  }
  // --relative: paths in the diff are workspace-relative, like every other tool's.
  const base = ['diff', '--no-color', '--no-ext-diff', '--relative'];
  const head = await git(['rev-parse', '--verify', '--quiet', 'HEAD'], repo.root, ctx, settings);
  let stdout: Buffer;
  if (head.code === 0) {
    const res = await git([...base, 'HEAD', ...pathspec], repo.root, ctx, settings);
    if (res.code !== 0) return fail(`git diff failed: ${res.stderr.trim()}`);
    stdout = res.stdout;
  } else {
    const staged = await git([...base, '--cached', ...pathspec], repo.root, ctx, settings);
    const unstaged = await git([...base, ...pathspec], repo.root, ctx, settings);
    if (staged.code !== 0 || unstaged.code !== 0) return fail(`git diff failed: ${(staged.stderr + unstaged.stderr).trim()}`);
    stdout = Buffer.concat([staged.stdout, unstaged.stdout]);
  }
  if (stdout.length === 0) {
    const scope = rel === '.' ? '' : ` in ${rel}`;
    return ok(`No uncommitted changes to tracked files${scope}. (Untracked files are not diffed: git_status lists them.)`, { details: { path: rel, empty: true } });
  }
  const out = await capped(stdout, 'git-diff', settings);
  return ok(out.text.trimEnd(), { details: { path: rel, bytes: out.bytes, truncated: out.truncated, spill_path: out.spillPath } });
}
