import fs from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import type { JobDeliverableReport, JobFileChange, JobWorkspaceInfo } from '../../contracts/job-report';
import { git, gitOk } from './git';
import { jobPaths } from './workspace';

export interface CollectDeliverableInput {
  job_id: string;
  workspace: JobWorkspaceInfo;
  /** Write the diff as a patch file (the spec's `deliverable.patch_file`). */
  patch_file: boolean;
}

/** The worktree's top folder (the workspace path may be a folder inside it). */
function topOf(ws: JobWorkspaceInfo): Promise<string> {
  return gitOk(ws.path, ['rev-parse', '--show-toplevel']).then((s) => s.trim());
}

function baseOf(ws: JobWorkspaceInfo): string {
  if (!ws.base_commit || !ws.branch || !ws.repository) throw ApplicationFailure.create({ message: 'the job workspace has no branch to collect', nonRetryable: true });
  return ws.base_commit;
}

/** `git diff --numstat` lines: `added<TAB>removed<TAB>path`, `-` for a binary file's counts. */
function parseNumstat(text: string): JobFileChange[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [added, removed, ...rest] = line.split('\t');
      const count = (v: string | undefined) => (v === '-' || v === undefined ? null : Number(v));
      return { path: rest.join('\t'), added: count(added), removed: count(removed) };
    });
}

async function commitsSince(repository: string, base: string, head: string) {
  const out = await gitOk(repository, ['log', '--reverse', '--format=%H%x09%s', `${base}..${head}`]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      return { sha: line.slice(0, tab), subject: line.slice(tab + 1) };
    });
}

const diffArgs = (base: string, head: string) => ['diff', '--no-renames', '--no-color', '--no-ext-diff', base, head];

/**
 * Collects what the job did: everything the agent left uncommitted is committed (one commit naming
 * the job), then the commits since the base, the files with their line counts and the patch. Safe to
 * run twice: a second call finds nothing to commit and reports the same.
 */
export async function collectJobDeliverable(jobsDir: string, input: CollectDeliverableInput): Promise<JobDeliverableReport> {
  const ws = input.workspace;
  const base = baseOf(ws);
  const top = await topOf(ws);
  await gitOk(top, ['add', '-A']);
  const staged = await git(top, ['diff', '--cached', '--quiet']);
  if (staged.code === 1) await gitOk(top, ['commit', '--quiet', '-m', `strand job ${input.job_id}: work the agent left uncommitted`]);
  const head = (await gitOk(top, ['rev-parse', 'HEAD'])).trim();
  const files = parseNumstat(await gitOk(top, [...diffArgs(base, head), '--numstat']));
  let patch_path: string | null = null;
  if (input.patch_file) {
    patch_path = jobPaths(jobsDir, input.job_id).patch;
    const tmp = `${patch_path}.${process.pid}.tmp`;
    await fs.writeFile(tmp, await gitOk(top, [...diffArgs(base, head), '--binary']));
    await fs.rename(tmp, patch_path);
  }
  return { branch: ws.branch, commits: await commitsSince(top, base, head), files, patch_path, verified: false, problems: [] };
}

/**
 * Checks the deliverable against the repository itself, not against the workspace folder: the branch
 * exists, its commits since the base are the ones named, its diff has exactly the files and line
 * counts named, and the patch file is that diff. Returns the deliverable marked verified, or the
 * problems found.
 */
export async function verifyJobDeliverable(input: { workspace: JobWorkspaceInfo; deliverable: JobDeliverableReport }): Promise<JobDeliverableReport> {
  const ws = input.workspace;
  const d = input.deliverable;
  const base = baseOf(ws);
  const repository = ws.repository!;
  const problems: string[] = [];
  const ref = `refs/heads/${d.branch}`;
  const head = await git(repository, ['rev-parse', '--verify', '--quiet', ref]);
  if (head.code !== 0) {
    problems.push(`the branch ${d.branch} does not exist in ${repository}`);
    return { ...d, verified: false, problems };
  }
  const commits = await commitsSince(repository, base, ref);
  if (JSON.stringify(commits) !== JSON.stringify(d.commits)) problems.push(`the branch holds ${commits.length} commits since ${base.slice(0, 12)}, not the ${d.commits.length} named`);
  const files = parseNumstat(await gitOk(repository, [...diffArgs(base, ref), '--numstat']));
  if (JSON.stringify(files) !== JSON.stringify(d.files)) problems.push(`the branch's diff changes ${files.map((f) => f.path).join(', ') || 'nothing'}, not what is named (${d.files.map((f) => f.path).join(', ') || 'nothing'})`);
  if (d.patch_path) {
    const written = await fs.readFile(d.patch_path, 'utf8').catch(() => undefined);
    if (written === undefined) problems.push(`the patch file ${d.patch_path} is missing`);
    else if (written !== (await gitOk(repository, [...diffArgs(base, ref), '--binary']))) problems.push(`the patch file ${d.patch_path} is not the branch's diff`);
  }
  return { ...d, verified: problems.length === 0, problems };
}
